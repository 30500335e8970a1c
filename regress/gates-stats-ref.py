#!/usr/bin/env python3
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# gates-stats-ref.py: independent values for regress/gates-stats.sh.  The
# normal quantile comes from Python's statistics.NormalDist (Wichura's
# AS 241, accurate to about an ulp), Wilson and Clopper-Pearson from SciPy
# (binomtest(...).proportion_ci and the beta quantiles behind it).  None of
# it shares code or method with gates/: what agrees here agrees because
# both are right to within the stated tolerances.
#
#   gates-stats-ref.py grid KIND        prints input lines for
#                                       regress/helpers/gates_stats_dump
#   gates-stats-ref.py check KIND IN GOT  compares the helper's output
#
# KIND is quantile, wilson or cp.
import math
import sys
from statistics import NormalDist

# Acklam's published bound on the relative error of the unrefined
# approximation, over all of (0, 1).
ACKLAM_REL = 1.15e-9

LEVELS = [5001, 5500, 6000, 8000, 9000, 9500, 9515, 9516, 9900, 9990, 9998]
SIZES = [1, 2, 3, 5, 10, 20, 50, 100, 999, 1000, 10000]


def counts():
    for n in SIZES:
        for x in sorted({0, 1, 2, n // 3, n // 2, n - 1, n}):
            if 0 <= x <= n:
                yield x, n


def grid(kind):
    if kind == 'quantile':
        for level in range(5001, 9999):
            print('z %d' % level)
        for e in range(1, 300):
            p = 10.0 ** (-e)
            print('q %r' % p)
            print('q %r' % (1 - p if 1 - p < 1 else 0.5))
        for i in range(1, 1000):
            print('q %r' % (i / 1000))
    elif kind == 'wilson':
        for x, n in counts():
            for level in LEVELS:
                print('w %d %d %d' % (x, n, level))
    elif kind == 'cp':
        for x, n in counts():
            for level in LEVELS:
                for side in ('two-sided', 'lower', 'upper'):
                    if side != 'two-sided' and level not in (5001, 9500, 9998):
                        continue
                    print('c %d %d %d %s' % (x, n, level, side))
    else:
        sys.exit('unknown kind %s' % kind)


def wilson_formula(x, n, z):
    rate = x / n
    den = 1 + z * z / n
    center = (rate + z * z / (2 * n)) / den
    margin = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / den
    return max(0.0, center - margin), min(1.0, center + margin)


class Checker:
    def __init__(self):
        self.bad = 0
        self.worst = 0.0
        self.count = 0

    def check(self, line, what, got, want, tol):
        self.count += 1
        err = abs(got - want)
        if tol > 0:
            self.worst = max(self.worst, err / tol)
        if not err <= tol:
            self.bad += 1
            if self.bad <= 10:
                print('%s: %s %.17g, independent %.17g, |diff| %.3g > %.3g'
                      % (line, what, got, want, err, tol))


def check(kind, infile, gotfile):
    if kind != 'quantile':
        from scipy.stats import beta, binom, binomtest, norm
    lines = open(infile).read().split('\n')[:-1]
    got = open(gotfile).read().split('\n')[:-1]
    if len(lines) != len(got) or not lines:
        sys.exit('%d results for %d lines' % (len(got), len(lines)))
    c = Checker()
    for line, out in zip(lines, got):
        w = line.split()
        if out.startswith('error'):
            print('%s: %s' % (line, out))
            c.bad += 1
            continue
        v = [float(t) for t in out.split()]
        if kind == 'quantile':
            p = (10000 + int(w[1])) / 20000 if w[0] == 'z' else float(w[1])
            want = NormalDist().inv_cdf(p)
            # Acklam's bound, plus 2 ulps for the rounding of both sides.
            c.check(line, 'z', v[0], want,
                    ACKLAM_REL * abs(want) + 4 * math.ulp(want))
        elif kind == 'wilson':
            x, n, level = int(w[1]), int(w[2]), int(w[3])
            ci = binomtest(x, n).proportion_ci(level / 10000, 'wilson')
            z = norm.ppf((10000 + level) / 20000)
            # Our z is Acklam's, within ACKLAM_REL of the true one, and
            # the bounds move monotonically with z: accept anything the
            # formula gives between z(1 - rel) and z(1 + rel), plus the
            # arithmetic's rounding (a few ulps of 1).
            lo = wilson_formula(x, n, z * (1 - ACKLAM_REL))
            hi = wilson_formula(x, n, z * (1 + ACKLAM_REL))
            for k, (name, want) in enumerate((('lower', ci.low),
                                              ('upper', ci.high))):
                spread = abs(lo[k] - hi[k])
                c.check(line, name, v[k], want, spread + 1e-15)
        elif kind == 'cp':
            x, n, level, side = int(w[1]), int(w[2]), int(w[3]), w[4]
            a = (10000 - level) / (20000 if side == 'two-sided' else 10000)
            want_lo = 0.0 if x == 0 or side == 'upper' else \
                beta.ppf(a, x, n - x + 1)
            want_hi = 1.0 if x == n or side == 'lower' else \
                beta.ppf(1 - a, x + 1, n - x)
            # The bisection runs to adjacent doubles, so the bound's error
            # is the tail's, divided by the tail's slope in p.  The tail is
            # a sum of exp(term) whose terms add and subtract ln(i!) values
            # up to lgamma(n + 1), each a running sum of n logarithms whose
            # roundings add up like a random walk, about sqrt(n) ulps: an
            # absolute error of the tail of order 2^-53 sqrt(n)
            # lgamma(n + 1).  (The upper bound's 1 - P(X >= x + 1) keeps
            # that absolute error while its target is small, which makes
            # large-n, high-level upper bounds the least precise: 5e-9
            # relative at n = 10^4, 9998 bps; the reference computes the
            # same way and has the same error.)  The slope of P(X >= x)
            # in p is n * pmf(x - 1; n - 1, p); beta.ppf is good to ~1e-15
            # relative.  Accept twice that estimate plus 4 ulps of the
            # bound; exact 0 and 1 must be exact.
            eps = 2.0 ** -53
            tail_err = eps * (math.sqrt(n) + 4) * (math.lgamma(n + 1) + 4)
            for name, g, want, k in (('lower', v[0], want_lo, x - 1),
                                     ('upper', v[1], want_hi, x)):
                if want in (0.0, 1.0):
                    c.check(line, name, g, want, 0.0)
                    continue
                slope = n * binom.pmf(k, n - 1, want)
                tol = 2 * tail_err / slope + 4 * math.ulp(want)
                c.check(line, name, g, want, tol)
        else:
            sys.exit('unknown kind %s' % kind)
    print('%s: %d values over %d computations, %d outside tolerance, '
          'worst at %.2f of its tolerance' %
          (kind, c.count, len(lines), c.bad, c.worst))
    sys.exit(1 if c.bad else 0)


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == 'grid':
        grid(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == 'check':
        check(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit('usage: gates-stats-ref.py grid KIND | check KIND IN GOT')
