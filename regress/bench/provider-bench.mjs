// provider-bench.mjs: the timing half of b_provider.sh.
//
//   node provider-bench.mjs RUNS WARM CLIENTS CALLS SPEC.json
//
// SPEC names, per records size, two commands that perform the same
// provider invoke: "sbx" (sbxctl provider invoke through the monitor)
// and "ref" (bwrap with the reference's launch plan, provider-spec 5.2,
// reading the same request bytes on stdin), plus where each run's stdout
// is checked.  Every run must exit 0 and print a result, or the
// benchmark stops: a failing run would not measure the same work.
//
// Latency: WARM untimed runs, then RUNS timed runs of each command,
// interleaved run by run so that machine noise falls on both alike;
// median and p99.  Throughput: CLIENTS clients, each running CALLS
// invokes back to back, all at once; invokes per second overall.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const [runs, warm, clients, calls] = process.argv.slice(2, 6).map(Number);
const spec = JSON.parse(readFileSync(process.argv[6], 'utf8'));

function once(c) {
	const t0 = process.hrtime.bigint();
	const r = spawnSync(c.argv[0], c.argv.slice(1), {
		input: c.stdin === undefined ? '' : readFileSync(c.stdin),
		env: {}, maxBuffer: 64 << 20 });
	const us = Number(process.hrtime.bigint() - t0) / 1000;
	if (r.status !== 0 || !r.stdout.toString().includes(c.expect)) {
		console.error('b_provider: ' + c.label + ' failed (status ' +
		    r.status + '): ' + r.stderr.toString().slice(0, 300) +
		    r.stdout.toString().slice(0, 300));
		process.exit(1);
	}
	return us;
}

function quantile(sorted, q) {
	const i = Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
	return sorted[Math.max(0, i)];
}

function latency(cmds) {
	const samples = cmds.map(() => []);
	for (let i = 0; i < warm + runs; i++)
		cmds.forEach((c, k) => {
			const us = once(c);
			if (i >= warm)
				samples[k].push(us);
		});
	return samples.map((s) => {
		s.sort((a, b) => a - b);
		return { median: quantile(s, 0.5), p99: quantile(s, 0.99) };
	});
}

function client(c, n) {
	return new Promise((resolve, reject) => {
		const next = (left) => {
			if (left === 0)
				return resolve();
			const p = spawn(c.argv[0], c.argv.slice(1), { env: {},
			    stdio: [c.stdin === undefined ? 'ignore' : 'pipe',
			    'pipe', 'ignore'] });
			let out = '';
			p.stdout.on('data', (d) => { out += d; });
			if (c.stdin !== undefined)
				p.stdin.end(readFileSync(c.stdin));
			p.on('close', (status) => {
				if (status !== 0 || !out.includes(c.expect))
					return reject(new Error(c.label +
					    ' failed under load'));
				next(left - 1);
			});
		};
		next(n);
	});
}

async function throughput(c) {
	const t0 = process.hrtime.bigint();
	await Promise.all(Array.from({ length: clients }, () =>
	    client(c, calls)));
	const s = Number(process.hrtime.bigint() - t0) / 1e9;
	return clients * calls / s;
}

const ms = (us) => (us / 1000).toFixed(2).padStart(9);
console.log('invoke latency, ms (' + runs + ' runs each after ' + warm +
    ' warm-up, interleaved)');
console.log('records  path                                   median       p99');
for (const set of spec.sets) {
	const [s, r] = latency([set.sbx, set.ref]);
	console.log(String(set.records).padStart(7) + '  ' +
	    'sbx (pool 0: no pool in this version)'.padEnd(36) + ms(s.median) +
	    ' ' + ms(s.p99));
	console.log(String(set.records).padStart(7) + '  ' +
	    'reference plan (bwrap, cold)'.padEnd(36) + ms(r.median) + ' ' +
	    ms(r.p99));
	console.log('         ratio sbx/reference: median ' +
	    (s.median / r.median).toFixed(2) + ', p99 ' +
	    (s.p99 / r.p99).toFixed(2));
}
const set = spec.sets[0];
const ts = await throughput(set.sbx);
const tr = await throughput(set.ref);
console.log('throughput, ' + clients + ' concurrent clients x ' + calls +
    ' invokes, ' + set.records + ' record: sbx ' + ts.toFixed(1) +
    ' invokes/s, reference plan ' + tr.toFixed(1) + ' invokes/s');
