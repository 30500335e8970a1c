// Copyright (c) 2026 The sbx authors
// SPDX-License-Identifier: ISC
//
// provider-bench.mjs: the throughput half of b_provider.sh (its latency
// half is regress/helpers/benchrun).
//
//   node provider-bench.mjs CLIENTS CALLS SPEC.json
//
// SPEC names, per records size, the commands that perform the same
// provider invoke: "sbx" (sbxctl provider invoke through a monitor with
// provider-pool 0), "pool" (the same through a monitor with
// provider-pool 4) and "ref" (bwrap with the reference's launch plan,
// interop.md §P5.2, reading the same request bytes on stdin), plus what
// each run's stdout must contain.  Every run must exit 0 and print a
// result, or the benchmark stops: a failing run would not measure the
// same work.
//
// CLIENTS clients, each running CALLS invokes of the first records size
// back to back, all at once, for each path in turn; invokes per second
// overall.  Nothing waits for a pool to refill: this is the rate a pool
// sustains when callers outrun it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const [clients, calls] = process.argv.slice(2, 4).map(Number);
const spec = JSON.parse(readFileSync(process.argv[4], 'utf8'));

function client(c, n) {
	return new Promise((resolve, reject) => {
		const next = (left) => {
			if (left === 0)
				return resolve();
			const p = spawn(c.argv[0], c.argv.slice(1), { env: {},
			    stdio: ['ignore', 'pipe', 'ignore'] });
			let out = '';
			p.stdout.on('data', (d) => { out += d; });
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

const set = spec.sets[0];
const ts = await throughput(set.sbx);
const tp = await throughput(set.pool);
const tr = await throughput(set.ref);
console.log('throughput, ' + clients + ' concurrent clients x ' + calls +
    ' invokes, ' + set.records + ' record: sbx pool 0 ' + ts.toFixed(1) +
    ', sbx pool 4 ' + tp.toFixed(1) + ', reference plan ' +
    tr.toFixed(1) + ' invokes/s');
