// provider-bench.mjs: the timing half of b_provider.sh.
//
//   node provider-bench.mjs RUNS WARM CLIENTS CALLS SPEC.json
//
// SPEC names, per records size, commands that perform the same provider
// invoke: "sbx" (sbxctl provider invoke through a monitor with
// provider-pool 0), "pool" (the same through a monitor with
// provider-pool 4) and "ref" (bwrap with the reference's launch plan,
// provider-spec 5.2, reading the same request bytes on stdin), plus
// what each run's stdout must contain.  Every run must exit 0 and print
// a result, or the benchmark stops: a failing run would not measure the
// same work.
//
// Latency: WARM untimed runs, then RUNS timed runs of each command,
// interleaved run by run so that machine noise falls on all alike;
// median and p99.  Before every run of every command, outside the timed
// region, SPEC.settle waits until the pooled monitor holds all its
// sandboxes idle and then SETTLE_MS more, so the replacement a pooled
// run started has finished booting node: no path is timed while a
// background boot competes for the two cores, and the pooled path is
// measured as a pool serves a caller who does not outrun it.
// Throughput: CLIENTS clients, each running CALLS invokes back to back,
// all at once, no settling; invokes per second overall.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const [runs, warm, clients, calls] = process.argv.slice(2, 6).map(Number);
const spec = JSON.parse(readFileSync(process.argv[6], 'utf8'));
const SETTLE_MS = 150;

function sleep(ms) {
	Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// Wait for the pool to be full (status says so), then for the last
// sandbox's node to be done starting.
function settle() {
	const st = spec.settle;
	if (st === undefined)
		return;
	for (let i = 0; ; i++) {
		const r = spawnSync(st.argv[0], st.argv.slice(1), { env: {} });
		let idle = -1;
		try {
			idle = JSON.parse(r.stdout.toString()).provider_pool.idle;
		} catch {}
		if (idle === st.idle)
			break;
		if (i === 1000) {
			console.error('b_provider: the pool never refilled to ' +
			    st.idle + ' idle sandboxes');
			process.exit(1);
		}
		sleep(5);
	}
	sleep(SETTLE_MS);
}

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
			settle();
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
const line = (n, label, v) => console.log(String(n).padStart(7) + '  ' +
    label.padEnd(36) + ms(v.median) + ' ' + ms(v.p99));
const ratio = (a, b) => 'median ' + (a.median / b.median).toFixed(2) +
    ', p99 ' + (a.p99 / b.p99).toFixed(2);
for (const set of spec.sets) {
	const [s, p, r] = latency([set.sbx, set.pool, set.ref]);
	line(set.records, 'sbx, provider-pool 0 (cold)', s);
	line(set.records, 'sbx, provider-pool 4', p);
	line(set.records, 'reference plan (bwrap, cold)', r);
	console.log('         pool 0 / reference: ' + ratio(s, r) +
	    ' (target: median <= 1.00)');
	console.log('         pool 4 / reference: ' + ratio(p, r) +
	    ' (target: median <= 0.20)');
}
const set = spec.sets[0];
const ts = await throughput(set.sbx);
const tp = await throughput(set.pool);
const tr = await throughput(set.ref);
console.log('throughput, ' + clients + ' concurrent clients x ' + calls +
    ' invokes, ' + set.records + ' record: sbx pool 0 ' + ts.toFixed(1) +
    ', sbx pool 4 ' + tp.toFixed(1) + ', reference plan ' +
    tr.toFixed(1) + ' invokes/s');
