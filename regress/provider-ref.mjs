// Copyright (c) 2026 The sbx authors
// SPDX-License-Identifier: ISC
//
// provider-ref.mjs: the reference side of regress/provider.sh.  Written
// from interop.md §P2, §P3 and §P5 independently of the C code, so that the
// shell test checks sbx against a second implementation:
//
//   node provider-ref.mjs digest DIR MODULE
//	the code digest of a bundle provider (interop.md §P2)
//   node provider-ref.mjs request DIR MODULE MODE RECORDS CLOCK SEED NONCE
//	    ID VERSION
//	a run's standard input, "<nonce>\n<request JSON>" (RECORDS is JSON
//	text or "-" for inspect)
//   node provider-ref.mjs flags
//	this node's flags for the driver: the permission flag and, when
//	vm.SourceTextModule needs one, the vm-modules flag
//   node provider-ref.mjs frame NONCE FILE
//	check FILE is exactly one "AIWG-RESULT <nonce> <json>\n" line and
//	print the JSON body on one line; exit 1 (with the reason on stderr)
//	if it is not
//   node provider-ref.mjs seed CODE_DIGEST RECORDS_DIGEST
//	deriveIsolatedSeed
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import vm from 'node:vm';

const sha256 = (b) => createHash('sha256').update(b).digest('hex');

function canon(v) {
	if (Array.isArray(v))
		return '[' + v.map(canon).join(',') + ']';
	if (v !== null && typeof v === 'object')
		return '{' + Object.keys(v).sort().map((k) =>
		    JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}';
	return JSON.stringify(v);
}

// Every .mjs below the entry's directory, bundle-relative, sorted.
function snapshot(root, entry) {
	const dir = entry.includes('/') ? entry.slice(0,
	    entry.lastIndexOf('/')) : '';
	const files = [];
	const walk = (rel) => {
		for (const name of readdirSync(root + '/' + (rel || '.')).sort()) {
			const path = rel ? rel + '/' + name : name;
			const st = lstatSync(root + '/' + path);
			if (st.isSymbolicLink())
				throw new Error(path + ': symlink');
			if (st.isDirectory())
				walk(path);
			else if (st.isFile() && name.endsWith('.mjs'))
				files.push({ path, bytes: readFileSync(root +
				    '/' + path) });
		}
	};
	walk(dir);
	files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
	return files;
}

const [mode, ...args] = process.argv.slice(2);
switch (mode) {
case 'digest': {
	const files = snapshot(args[0], args[1]).map((f) => ({ path: f.path,
	    sha256: sha256(f.bytes) }));
	console.log('sha256:' + sha256(canon({ externals: [], files })));
	break;
}
case 'request': {
	const [root, entry, runMode, records, clock, seed, nonce, id,
	    version] = args;
	const modules = {};
	for (const f of snapshot(root, entry))
		modules[f.path] = f.bytes.toString('utf8');
	const req = { entry, modules, mode: runMode };
	if (records !== '-')
		req.recordsJson = JSON.stringify(JSON.parse(records));
	Object.assign(req, { clockMs: Number(clock), seed: Number(seed),
	    expectedId: id, expectedVersion: version });
	process.stdout.write(nonce + '\n' + JSON.stringify(req));
	break;
}
case 'flags': {
	const f = process.allowedNodeEnvironmentFlags;
	const out = [f.has('--permission') ? '--permission' :
	    '--experimental-permission'];
	if (typeof vm.SourceTextModule !== 'function')
		out.push('--experimental-vm-modules');
	console.log(out.join(' '));
	break;
}
case 'frame': {
	const [nonce, file] = args;
	const out = readFileSync(file, 'utf8');
	const prefix = 'AIWG-RESULT ' + nonce + ' ';
	if (!out.startsWith(prefix) || !out.endsWith('\n') ||
	    out.indexOf('\n') !== out.length - 1) {
		console.error('not one framed line: ' +
		    JSON.stringify(out.slice(0, 200)));
		process.exit(1);
	}
	console.log(JSON.stringify(JSON.parse(out.slice(prefix.length, -1))));
	break;
}
case 'seed': {
	console.log(parseInt(sha256(args[0] + args[1]).slice(0, 8), 16));
	break;
}
default:
	console.error('usage: provider-ref.mjs digest|request|flags|frame|seed');
	process.exit(2);
}
