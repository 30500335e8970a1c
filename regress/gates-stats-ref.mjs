// Copyright (c) 2026 The sbx authors
// SPDX-License-Identifier: ISC
//
// gates-stats-ref.mjs: the statistics of interop.md §G9 written in
// JavaScript from the spec's text, for regress/gates-stats.sh.  node's
// numbers and Math functions are the reference's own, so where the C
// library and this script disagree in a bit, one of them departs from
// the spec's operation order or from V8's libm.
//
//   node gates-stats-ref.mjs gen SEED    writes input.txt (lines for
//                                        regress/helpers/gates_stats_dump)
//                                        and expected.txt
//   node gates-stats-ref.mjs cmp         compares got.txt with expected.txt
//                                        and prints the disagreements
//   node gates-stats-ref.mjs bench RESAMPLES [N [RUNS]]
//                                        times the bootstrap as
//                                        regress/helpers/gates_stats_bench
import fs from 'node:fs';

class StatsError extends Error {}

const isCount = (x) => Number.isSafeInteger(x) && x >= 0;

function quantile(p) {
  if (!Number.isFinite(p) || p <= 0 || p >= 1) throw new StatsError('normal quantile requires 0 < p < 1');
  const [a0, a1, a2, a3, a4, a5] = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
    1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00];
  const [b0, b1, b2, b3, b4] = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
    6.680131188771972e+01, -1.328068155288572e+01];
  const [c0, c1, c2, c3, c4, c5] = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
    -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00];
  const [d0, d1, d2, d3] = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
    3.754408661907416e+00];
  const t = (q) => (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5)
    / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
  if (p < 0.02425) return t(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -t(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q
    / (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1);
}

function zOf(level) {
  if (!Number.isSafeInteger(level) || level <= 5000 || level >= 9999) {
    throw new StatsError('levelBps must be an integer strictly between 5000 and 9999');
  }
  return quantile((10000 + level) / 20000);
}

function wilson(x, n, z) {
  const rate = x / n;
  const den = 1 + z * z / n;
  const center = (rate + z * z / (2 * n)) / den;
  const margin = z * Math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / den;
  return [Math.max(0, center - margin), Math.min(1, center + margin)];
}

function propBps(lo, hi, x, n) {
  return [Math.max(0, Math.floor(lo * 10000)), Math.min(10000, Math.ceil(hi * 10000)), Math.round(x / n * 10000)];
}

function geTail(k0, n, p) {
  if (p <= 0) return k0 <= 0 ? 1 : 0;
  if (p >= 1) return k0 <= n ? 1 : 0;
  const lp = Math.log(p);
  const lq = Math.log(1 - p);
  const lf = new Array(n + 1);
  lf[0] = 0;
  for (let i = 1; i <= n; i++) lf[i] = lf[i - 1] + Math.log(i);
  const terms = [];
  let peak = -Infinity;
  for (let k = k0; k <= n; k++) {
    const v = lf[n] - lf[k] - lf[n - k] + k * lp + (n - k) * lq;
    terms.push(v);
    peak = v > peak ? v : peak;
  }
  let s = 0;
  for (let i = 0; i < terms.length; i++) s += Math.exp(terms[i] - peak);
  return Math.min(1, s * Math.exp(peak));
}

function clopperPearson(x, n, level, side) {
  if (!isCount(x) || !isCount(n) || n === 0 || x > n) throw new StatsError('counts');
  zOf(level);
  const tail = side === 'two-sided' ? (10000 - level) / 20000 : (10000 - level) / 10000;
  const bisect = (above0, test) => {
    let lo = 0;
    let hi = 1;
    for (let i = 0; i < 200; i++) {
      const m = (lo + hi) / 2;
      if (m === lo || m === hi) break;
      if (test(m)) hi = m; else lo = m;
    }
    return above0 ? hi : lo;
  };
  const lower = () => bisect(false, (m) => geTail(x, n, m) > tail);
  const upper = () => bisect(true, (m) => !(1 - geTail(x + 1, n, m) > tail));
  let lo = 0;
  let hi = 1;
  if (side !== 'upper' && x !== 0) lo = lower();
  if (side !== 'lower' && x !== n) hi = upper();
  return [lo, hi];
}

function toBps(low, high, est) {
  if (![low, high, est].every(Number.isFinite) || low > est || est > high) throw new StatsError('order');
  return [low, high, est, Math.max(-10000, Math.floor(low * 10000)), Math.min(10000, Math.ceil(high * 10000)),
    Math.round(est * 10000)];
}

function tangoT(b, c, n, d) {
  const B = -b - c + (2 * n - b + c) * d;
  const q21 = (Math.sqrt(Math.max(0, B * B + 8 * n * c * d * (1 - d))) - B) / (4 * n);
  const num = b - c - n * d;
  const v = n * (2 * q21 + d * (1 - d));
  if (num === 0) return 0;
  return v > 0 ? num / Math.sqrt(v) : num * Infinity;
}

function paired(e, f, g, h, level, method) {
  const z = zOf(level);
  if (![e, f, g, h].every(isCount)) throw new StatsError('cells');
  const n = e + f + g + h;
  if (n === 0 || !Number.isSafeInteger(n)) throw new StatsError('n');
  const est = (f - g) / n;
  if (method === 'tango') {
    const search = (outer, inner, rej) => {
      for (let i = 0; i < 200; i++) {
        const m = (outer + inner) / 2;
        if (m === outer || m === inner) break;
        if (rej(tangoT(f, g, n, m))) outer = m; else inner = m;
      }
      return outer;
    };
    const lo = est === -1 ? -1 : search(-1, est, (t) => t > z);
    const hi = est === 1 ? 1 : search(1, est, (t) => t < -z);
    return toBps(lo, hi, est);
  }
  const p1 = (e + f) / n;
  const p2 = (e + g) / n;
  const [l1, u1] = wilson(e + f, n, z);
  const [l2, u2] = wilson(e + g, n, z);
  const D = Math.sqrt((e + f) * (g + h) * (e + g) * (f + h));
  const cross = e * h - f * g;
  let phi = 0;
  if (D !== 0) phi = (cross > 0 ? Math.max(cross - n / 2, 0) : cross) / D;
  const dl = Math.sqrt(Math.max(0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2));
  const du = Math.sqrt(Math.max(0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2));
  return toBps(Math.max(-1, est - dl), Math.min(1, est + du), est);
}

function bootstrap(level, seed, resamples, diffs) {
  zOf(level);
  const n = diffs.length;
  const tail = Math.floor(resamples * (10000 - level) / 20000);
  if (n < 2 || tail < 5 || resamples > 1000000) throw new StatsError('bootstrap');
  let s = seed >>> 0;
  const draw = () => {
    s = (s + 0x6D2B79F5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const limit = Math.floor(4294967296 / n) * n;
  const index = () => {
    for (;;) {
      const d = draw();
      if (d < limit) return d % n;
    }
  };
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += diffs[index()];
    means[r] = sum / n;
  }
  means.sort();
  let total = 0;
  for (const d of diffs) total += d;
  const est = total / n;
  return toBps(Math.min(means[tail - 1], est), Math.max(means[resamples - tail], est), est);
}

// A seeded generator of test inputs (not the statistic's RNG).
function rng(seed) {
  let x = BigInt(seed) || 1n;
  return () => {
    x ^= (x << 13n) & 0xffffffffffffffffn;
    x ^= x >> 7n;
    x ^= (x << 17n) & 0xffffffffffffffffn;
    return Number(x >> 11n) / 9007199254740992;
  };
}

function generate(seed) {
  const u = rng(seed);
  const int = (lo, hi) => lo + Math.floor(u() * (hi - lo + 1));
  const logInt = (hi) => Math.max(1, Math.floor(Math.exp(u() * Math.log(hi))));
  const level = () => (u() < 0.3 ? [5001, 8000, 9000, 9500, 9515, 9516, 9900, 9998][int(0, 7)] : int(5001, 9998));
  const lines = [];
  for (let l = 5001; l <= 9998; l++) lines.push(`z ${l}`);
  for (let i = 0; i < 2000; i++) {
    const p = u() < 0.5 ? u() : Math.exp(-u() * 700);
    lines.push(`q ${u() < 0.5 ? p : 1 - p}`);
  }
  for (let i = 0; i < 4000; i++) {
    const n = logInt(100000);
    const x = u() < 0.2 ? [0, n, 1, n - 1][int(0, 3)] : int(0, n);
    lines.push(`w ${Math.max(0, x)} ${n} ${level()}`);
  }
  for (let i = 0; i < 300; i++) {
    const n = logInt(1000);
    const x = u() < 0.2 ? [0, n, 1, n - 1][int(0, 3)] : int(0, n);
    lines.push(`c ${Math.max(0, x)} ${n} ${level()} ${['two-sided', 'two-sided', 'lower', 'upper'][int(0, 3)]}`);
  }
  for (let i = 0; i < 3000; i++) {
    const m = logInt(20000);
    const cells = [int(0, m), int(0, m), int(0, m), int(0, m)].map((c) => (u() < 0.15 ? 0 : c));
    if (cells.every((c) => c === 0)) cells[0] = 1;
    lines.push(`p ${cells.join(' ')} ${level()} ${u() < 0.5 ? 'newcombe' : 'tango'}`);
  }
  // Math.log and Math.exp themselves, over their whole finite domain:
  // random bit patterns, the ranges the statistics use, and the edges.
  const bits = new DataView(new ArrayBuffer(8));
  const anyDouble = () => {
    bits.setUint32(0, Math.floor(u() * 4294967296));
    bits.setUint32(4, Math.floor(u() * 4294967296));
    return bits.getFloat64(0);
  };
  for (let i = 0; i < 20000; i++) {
    let x = Math.abs(anyDouble());
    if (!(x > 0 && x < Infinity)) x = u() || 0.5;
    lines.push(`l ${[x, u() || 0.5, 1 + (u() - 0.5) * 1e-5, 0.5 + u(), int(1, 1e7), u() * 1e-308][i % 6]}`);
    lines.push(`e ${[u() * 1418 - 709, 2 * u() - 1, (u() - 0.5) * 1e-7, -u() * 60][i % 4]}`);
  }
  for (const x of [Number.MIN_VALUE, Number.MAX_VALUE, 1, 2, 0.5, Math.E, 1 - 2 ** -53, 1 + 2 ** -52]) lines.push(`l ${x}`);
  for (const x of [0, 1, -1, Math.LN2, -Math.LN2, 709.782712893384, -745.1332191019411, -708.4, 1e-300, 2 ** -28, 0.5 * Math.LN2, 1.5 * Math.LN2]) lines.push(`e ${x}`);
  for (let i = 0; i < 40; i++) {
    const n = int(2, 300);
    const diffs = [];
    for (let k = 0; k < n; k++) diffs.push(u() < 0.3 ? [0, 0.01, -0.01, 1, -1][int(0, 4)] : 2 * u() - 1);
    const lv = level();
    const min = Math.ceil(5 * 20000 / (10000 - lv));
    lines.push(`b ${lv} ${u() < 0.1 ? 0 : int(0, 4294967295)} ${int(min, min + 5000)} ${diffs.join(' ')}`);
  }
  return lines;
}

function compute(line) {
  const [op, ...w] = line.split(' ');
  const a = w.map(Number);
  try {
    switch (op) {
      case 'q': return [quantile(a[0])];
      case 'z': return [zOf(a[0])];
      case 'w': {
        const [lo, hi] = wilson(a[0], a[1], zOf(a[2]));
        return [lo, hi, ...propBps(lo, hi, a[0], a[1])];
      }
      case 'c': {
        const [lo, hi] = clopperPearson(a[0], a[1], a[2], w[3]);
        return [lo, hi, ...propBps(lo, hi, a[0], a[1])];
      }
      case 'p': return paired(a[0], a[1], a[2], a[3], a[4], w[5]);
      case 'b': return bootstrap(a[0], a[1], a[2], a.slice(3));
      case 'l': return [Math.log(a[0])];
      case 'e': return [Math.exp(a[0])];
      default: throw new Error(`unknown operation ${op}`);
    }
  } catch (e) {
    if (e instanceof StatsError) return ['error'];
    throw e;
  }
}

// Which fields are the figures a report carries (bps), per operation.
const bpsFrom = { q: 1, z: 1, w: 2, c: 2, p: 3, b: 3, l: 1, e: 1 };

// Does the computation call Math.log or Math.exp?  Only those can differ
// with the C library's libm; everything else must agree to the bit.
function usesLibm(line) {
  const [op, ...w] = line.split(' ');
  const tailP = (p) => p < 0.02425 || p > 1 - 0.02425;
  switch (op) {
    case 'q': return tailP(Number(w[0]));
    case 'z': return tailP((10000 + Number(w[0])) / 20000);
    case 'w': return tailP((10000 + Number(w[2])) / 20000);
    case 'p': return tailP((10000 + Number(w[4])) / 20000);
    case 'c': return true;
    case 'l': return true;
    case 'e': return true;
    default: return false;
  }
}

// Distance in units in the last place, for doubles of one sign.
function ulps(a, b) {
  const v = new DataView(new ArrayBuffer(16));
  v.setFloat64(0, a);
  v.setFloat64(8, b);
  const d = v.getBigInt64(0) - v.getBigInt64(8);
  return Number(d < 0n ? -d : d);
}

function compare() {
  const input = fs.readFileSync('input.txt', 'utf8').trimEnd().split('\n');
  const exp = fs.readFileSync('expected.txt', 'utf8').trimEnd().split('\n');
  const got = fs.readFileSync('got.txt', 'utf8').trimEnd().split('\n');
  if (got.length !== exp.length || input.length !== exp.length) {
    console.log(`line counts differ: input ${input.length}, node ${exp.length}, sbx ${got.length}`);
    process.exit(1);
  }
  const sum = {};
  for (const k of ['pure', 'libm']) sum[k] = { computations: 0, errors: 0, raw: 0, figures: 0, maxUlps: 0 };
  const shown = { pure: 0, libm: 0 };
  for (let i = 0; i < exp.length; i++) {
    const kind = usesLibm(input[i]) ? 'libm' : 'pure';
    const s = sum[kind];
    const op = input[i][0];
    const e = exp[i].split(' ');
    const g = got[i].split(' ');
    s.computations++;
    let rawSame = true;
    let bpsSame = true;
    if (e[0] === 'error' || g[0] === 'error') {
      s.errors++;
      bpsSame = e[0] === g[0];
    } else {
      const ev = e.map(Number);
      const gv = g.map(Number);
      for (let k = 0; k < bpsFrom[op]; k++) {
        if (!Object.is(ev[k], gv[k])) {
          rawSame = false;
          s.maxUlps = Math.max(s.maxUlps, ulps(ev[k], gv[k]));
        }
      }
      bpsSame = ev.length === gv.length && ev.slice(bpsFrom[op]).every((v, k) => v === gv[bpsFrom[op] + k]);
    }
    if (!rawSame) s.raw++;
    if (!bpsSame) s.figures++;
    if ((!rawSame || !bpsSame) && shown[kind]++ < 5) {
      console.log(`${kind} ${bpsSame ? 'last bits' : 'FIGURES'}: ${input[i].slice(0, 80)}\n  node: ${exp[i]}\n  sbx:  ${got[i]}`);
    }
  }
  for (const k of ['pure', 'libm']) {
    const s = sum[k];
    console.log(`${k}: ${s.computations} computations (${s.errors} errors), ${s.raw} with other doubles ` +
      `(at most ${s.maxUlps} ulps), ${s.figures} with other figures`);
  }
}

const [mode, seed] = process.argv.slice(2);
if (mode === 'gen') {
  const lines = generate(Number(seed));
  fs.writeFileSync('input.txt', `${lines.join('\n')}\n`);
  fs.writeFileSync('expected.txt', `${lines.map((l) => compute(l).join(' ')).join('\n')}\n`);
} else if (mode === 'cmp') {
  compare();
} else if (mode === 'bench') {
  // The anchor of regress/bench/b_gates.sh: gates_stats_bench's inputs.
  const [res, n = 1000, runs = 5] = process.argv.slice(3).map(Number);
  const d = [];
  for (let i = 0; i < n; i++) d.push(((i * 7919) % 1024 - 512) / 1024);
  const ms = [];
  let r;
  for (let i = -1; i < runs; i++) {
    const t0 = performance.now();
    r = bootstrap(9500, 7, res, d);
    if (i >= 0) ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  console.log(`node resamples ${res} n ${n} runs ${runs} median ${ms[runs >> 1].toFixed(2)} ms ` +
    `min ${ms[0].toFixed(2)} ms bps ${r.slice(3).join('/')}`);
} else {
  console.error('usage: gates-stats-ref.mjs gen SEED | cmp | bench RESAMPLES [N [RUNS]]');
  process.exit(2);
}
