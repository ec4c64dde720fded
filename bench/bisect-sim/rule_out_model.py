#!/usr/bin/env python3
"""A model of one bisect check that hunts a further move only (no tie sought).

What a check's rule-out of "a move of xA or more" costs on a part where nothing
moves, read two-sided (today's rule: an interval of 1 - a_k inside +-ln A) or
one-sided (two one-sided tests: 1 - 2 a_k), on a few look schedules. The model
leaves out what the simulator has and this does not: the tails' condition, the
futility stop, wild pairs, the failure test. It is a check on the arithmetic in
docs/bisect-evidence.md ("A rule-out read as two one-sided tests"), not a
replacement for bench/bisect-sim, which runs the real runner.

  python3 bench/bisect-sim/rule_out_model.py

Pairs are normal with the Hodges-Lehmann estimate's sd, sqrt(pi/3) * s-hat per
pair; each look's constant z is Pocock's for alpha over the schedule (found by
simulation), which is what the sitting's joint looks spend. Seeded: the same
figures on every run.
"""
import math
import random

ALPHA = 0.05          # the check's confidence 95%, NULL's alpha over its looks
S_HAT = 0.37          # the search's pooled pair noise at 18%/24% (wild pairs set aside)
A = 1.135             # the alternative the noise sets (docs/statistics.md)
SD = math.sqrt(math.pi / 3) * S_HAT
LN_A = math.log(A)


def running_means(rng, looks, sims, true=0.0, sd=1.0):
    """sims paths of the mean at each look of `looks`, pairs N(true, sd^2)."""
    paths = []
    for _ in range(sims):
        total, before, row = 0.0, 0, []
        for n in looks:
            total += rng.gauss(true * (n - before), sd * math.sqrt(n - before))
            before = n
            row.append(total / n)
        paths.append(row)
    return paths


def pocock_z(rng, looks, sided, sims=40000):
    """The constant z at which the looks together err with probability ALPHA."""
    peaks = sorted(
        max((abs(m) if sided == 2 else m) * math.sqrt(n) for m, n in zip(path, looks))
        for path in running_means(rng, looks, sims))
    return peaks[int((1 - ALPHA) * sims)]


def check(rng, looks, sided, true=0.0, trials=20000):
    """(z, share ruled out by the last look, mean pairs) on a part whose true shift is `true`."""
    z = pocock_z(rng, looks, sided)
    ruled_out, pairs = 0, 0
    for path in running_means(rng, looks, trials, true, SD):
        for mean, n in zip(path, looks):
            if abs(mean) + z * SD / math.sqrt(n) < LN_A:
                ruled_out += 1
                pairs += n
                break
        else:
            pairs += looks[-1]
    return z, ruled_out / trials, pairs / trials


def main():
    rng = random.Random(1)
    print(f"a part where nothing moves, s-hat {S_HAT}, A x{A}, alpha {ALPHA}")
    for looks in ([80, 114, 160], [80, 96, 114, 136, 160], [64, 80, 96, 114, 136, 160]):
        for sided in (2, 1):
            z, share, pairs = check(rng, looks, sided)
            print(f"looks {looks} {'two' if sided == 2 else 'one'}-sided: z {z:.3f}, "
                  f"ruled out {share:.3f}, mean pairs {pairs:.1f}")
    print(f"a move of exactly x{A}: how often it is ruled out (wrongly)")
    for sided in (2, 1):
        _, share, _ = check(rng, [80, 114, 160], sided, true=LN_A)
        print(f"looks [80, 114, 160] {'two' if sided == 2 else 'one'}-sided: {share:.4f}")


if __name__ == "__main__":
    main()
