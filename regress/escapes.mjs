// Copyright (c) 2026 The sbx authors
// SPDX-License-Identifier: ISC
//
// escapes.mjs: the host side of regress/escapes.sh, in node so that JSON
// is read as JSON.
//
//   node escapes.mjs listen PORTFILE LOGFILE
//	listen on 127.0.0.1 (a port the kernel picks, written to PORTFILE)
//	and append one line per connection and per chunk received to
//	LOGFILE, until killed: the target an escaped provider would reach
//   node escapes.mjs connect PORT
//	connect once (the test's control that the listener does log)
//   node escapes.mjs judge NAME EXPECT PATTERN CLOCK CANARY LOADRC LOADOUT
//	    [INVOKERC INVOKEOUT]
//	judge one escape bundle from sbxctl --json's answers and print one
//	line, "contained NAME: how" (exit 0) or "ESCAPED NAME: why" (exit 1)
//   node escapes.mjs judge-all FILE
//	the same for every line of FILE, each judge's arguments separated
//	by tabs, in one node rather than one per bundle; exit 1 when any
//	escaped
//
// EXPECT is "contained" (load and invoke succeed and the probe shows
// nothing leaked), "load:CODE[|CODE]" (load refused with that code) or
// "invoke:CODE[|CODE]".  PATTERN is a regular expression the refusal
// message, or the probe's JSON text, must match: it pins down *why* the
// attempt failed, so a case cannot pass by failing for another reason.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';

function listen(portFile, logFile) {
	const srv = net.createServer((s) => {
		appendFileSync(logFile, 'connection from ' + s.remoteAddress +
		    '\n');
		s.on('data', (d) => appendFileSync(logFile, 'data ' +
		    JSON.stringify(d.toString('latin1').slice(0, 200)) + '\n'));
		s.on('error', () => {});
	});
	srv.listen(0, '127.0.0.1', () => writeFileSync(portFile,
	    String(srv.address().port) + '\n'));
	process.on('SIGTERM', () => process.exit(0));
}

function connect(port) {
	const s = net.connect(Number(port), '127.0.0.1', () => {
		s.end('control\n');
	});
	s.on('close', () => process.exit(0));
	s.on('error', (e) => {
		console.error('connect: ' + e.message);
		process.exit(1);
	});
}

function parse(text, what) {
	try {
		return JSON.parse(text);
	} catch {
		throw new Error(what + ' is not JSON: ' +
		    JSON.stringify(text.slice(0, 300)));
	}
}

// Everything a contained result must show; throws the first violation.
function checkProbe(result, clock) {
	const m = result.metrics;
	if (m === null || typeof m !== 'object')
		throw new Error('result has no metrics');
	if (Object.hasOwn(m, 'forged'))
		throw new Error('a forged result was accepted');
	const p = m.probe;
	if (p === null || typeof p !== 'object')
		throw new Error('result has no probe metric');
	if (p.escaped !== false)
		throw new Error('the provider reports an escape: ' +
		    JSON.stringify(p).slice(0, 500));
	for (const k of ['hostFunction', 'hostError', 'hijacked'])
		if (p[k] === true)
			throw new Error('probe.' + k + ' is true: ' +
			    JSON.stringify(p).slice(0, 500));
	if (!Array.isArray(p.env) || p.env.length !== 0)
		throw new Error('the provider saw environment variables: ' +
		    JSON.stringify(p.env));
	if (!Array.isArray(p.clocks) || p.clocks.length < 5)
		throw new Error('the provider reported no clocks');
	for (const c of p.clocks)
		if (c !== clock)
			throw new Error('a clock read ' + JSON.stringify(c) +
			    ', not the frozen ' + clock);
	return p;
}

function judge(a) {
	const [name, expect, pattern, clockText, canary, loadRc, loadOut,
	    invokeRc, invokeOut] = a;
	const clock = Number(clockText);
	const re = new RegExp(pattern);
	const texts = [readFileSync(loadOut, 'utf8')];
	if (invokeOut !== undefined)
		texts.push(readFileSync(invokeOut, 'utf8'));
	for (const t of texts)
		if (canary !== '' && t.includes(canary))
			throw new Error('the host environment canary reached ' +
			    'the output');
	const [phase, codes] = expect === 'contained' ? ['contained', ''] :
	    expect.split(':');
	const want = codes.split('|');
	const refused = (rc, text, what) => {
		if (rc === '0')
			throw new Error(what + ' succeeded, expected ' + expect +
			    ': ' + text.slice(0, 300));
		const e = parse(text, what + ' output').error;
		if (e === undefined || !want.includes(e.code))
			throw new Error(what + ' refused with ' +
			    JSON.stringify(e) + ', expected ' + expect);
		// A flood must not pass through the refusal either.
		if (typeof e.message !== 'string' || e.message.length > 4096)
			throw new Error(what + ' message is not a bounded ' +
			    'string (' + String(e.message).length + ')');
		if (!re.test(e.message))
			throw new Error(what + ' message ' +
			    JSON.stringify(e.message.slice(0, 300)) +
			    ' does not match /' + pattern + '/');
		return e.code + ': ' + e.message.slice(0, 120);
	};
	if (phase === 'load')
		return refused(loadRc, texts[0], 'load');
	if (loadRc !== '0')
		throw new Error('load failed: ' + texts[0].slice(0, 300));
	if (invokeOut === undefined)
		throw new Error('no invoke output');
	if (phase === 'invoke')
		return refused(invokeRc, texts[1], 'invoke');
	if (invokeRc !== '0')
		throw new Error('invoke failed: ' + texts[1].slice(0, 300));
	const p = checkProbe(parse(texts[1], 'invoke output'), clock);
	const probeText = JSON.stringify(p);
	if (!re.test(probeText))
		throw new Error('probe ' + probeText.slice(0, 400) +
		    ' does not match /' + pattern + '/');
	return 'contained: ' + String(p.blocked).slice(0, 120);
}

// verdict ARGS: judge's line for one bundle; true when contained.
function verdict(a) {
	try {
		console.log('contained ' + a[0] + ': ' + judge(a));
		return true;
	} catch (e) {
		console.log('ESCAPED ' + a[0] + ': ' + e.message);
		return false;
	}
}

const [mode, ...args] = process.argv.slice(2);
switch (mode) {
case 'listen':
	listen(args[0], args[1]);
	break;
case 'connect':
	connect(args[0]);
	break;
case 'judge':
	if (!verdict(args))
		process.exit(1);
	break;
case 'judge-all': {
	let ok = true;
	for (const line of readFileSync(args[0], 'utf8').split('\n'))
		if (line !== '' && !verdict(line.split('\t')))
			ok = false;
	if (!ok)
		process.exit(1);
	break;
}
default:
	console.error('usage: escapes.mjs listen|connect|judge ...');
	process.exit(2);
}
