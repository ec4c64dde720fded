#!/usr/bin/env python3
"""What one sitting shared by the verification and the two checks would run.

A bisect that names one change ends with three sittings of two arms each: the
verification (the culprit C against its parent P), the check of the part before
(P against the good end G) and the check of the part after (the bad end B
against C). P and C are each in two of them, so one sitting of the four arms,
round after round in a balanced order, would give every comparison its pairs
from fewer runs: an arm stops once every comparison it is in has stopped, and a
comparison's pairs are the rounds in which both its arms ran.

This reads, trial by trial, how many pairs each of the three sittings took in
the real runner (`bisect-sim --trace T`, one bisect per call, the same seeds
as the cell's table), and computes the runs of the shared sitting had each
comparison stopped where its own sitting did:

  separate: 2 (v + b + a + w) runs
  shared:   G b + B a + P max(v, b) + C max(v, a) + 4 w runs
  replayed: 2 max(v, b) + 2 max(v, a) + 4 w runs

"replayed" is a cheaper way to build it: the checks' ends run beside the whole
verification and the checks read their looks over those pairs only after it, so
an end runs on past the look that would have stopped it.

in pairs (runs / 2, the unit of issue 27's table). It is an estimate, not a
measurement: in a shared sitting P's runs enter two comparisons, whose
differences are then correlated (-1/2), which moves where they stop together;
the estimate keeps each comparison's stopping point as its own sitting had it.
A verification of a wrong candidate earlier in the bisect would have run the
two checks' ends beside it for nothing (its rounds' G and B runs, one pair's
worth a round): counted as a cost. A bisect whose ending is not one
verification then two checks (more than one change) keeps its pairs unchanged.

  python3 bench/bisect-sim/shared_sitting_estimate.py build/bench/bisect-sim/bisect-sim \\
      --cell 100,0.18,0.24,0 --trials 100 [--seed S] [--prove-first]

Whether the correlation moves the estimate is asked of a model (--model): normal runs
at 24% noise, an 18% change, a verification that stops once its interval clears the
band and checks that stop once +-ln A holds their interval (Pocock over each one's
looks), measured as three separate sittings and as one shared sitting round by round.
It prints the separate sittings' pairs, the formula above on their stopping points,
and what the shared sitting itself ran; the last two agreeing says the correlation
does not move the estimate.

  python3 bench/bisect-sim/shared_sitting_estimate.py --model

Deterministic: the simulator and the model are seeded.
"""
import math
import random
import re
import statistics
import subprocess
import sys

STEP = re.compile(r"\s*\| step\s+\d+ (\w+)\s+\w+ \(#(\d+) of (\d+)\)\s+(\d+) pairs(.*)")
AGAINST = re.compile(r"against \w+ \(#(\d+)\)")


def steps_of(sim, args, trial):
    """The (kind, index, N, pairs, rest) of every step line of one traced bisect."""
    out = subprocess.run([sim, *args, "--trace", str(trial)], check=True,
                         capture_output=True, text=True).stdout
    return [(m[1], int(m[2]), int(m[3]), int(m[4]), m[5])
            for m in map(STEP.match, out.splitlines()) if m]


def ending(steps):
    """(v, b, a, w): the last verification's pairs, its two checks', and the pairs of the
    verifications before it (w); None when the bisect does not end that way."""
    if len(steps) < 3:
        return None
    (k1, c, n, v, _), (k2, _, _, p1, r1), (k3, _, _, p2, r2) = steps[-3:]
    if (k1, k2, k3) != ("verify", "check", "check"):
        return None
    before = [p for p, r in ((p1, r1), (p2, r2)) if AGAINST.search(r) and
              AGAINST.search(r)[1] == "0"]
    after = [p for p, r in ((p1, r1), (p2, r2)) if AGAINST.search(r) and
             AGAINST.search(r)[1] == str(c)]
    if len(before) != 1 or len(after) != 1:
        return None
    earlier = sum(p for kind, _, _, p, _ in steps[:-3] if kind == "verify")
    return v, before[0], after[0], earlier


# The model (--model): per-run sd so that a pair's difference has the simulator's 0.34.
RUN_SD = 0.34 / math.sqrt(2)
EFFECT, BAND, ALTERNATIVE = math.log(1.18), math.log(1.05), math.log(1.135)
VERIFY_LOOKS = [48, 68, 96, 136, 192, 272, 384, 543, 768]
CHECK_LOOKS = [80, 114, 160]
# Each comparison: its arms (baseline, candidate) and its looks.
COMPARISONS = {"v": ("P", "C", VERIFY_LOOKS), "b": ("G", "P", CHECK_LOOKS),
               "a": ("C", "B", CHECK_LOOKS)}
MEANS = {"G": 0.0, "P": 0.0, "C": EFFECT, "B": EFFECT}


def pocock_z(rng, looks, sims=20000, alpha=0.05):
    """The constant z at which two-sided looks together err with probability alpha."""
    peaks = []
    for _ in range(sims):
        total, before, peak = 0.0, 0, 0.0
        for n in looks:
            total += rng.gauss(0, math.sqrt(n - before))
            before = n
            peak = max(peak, abs(total) / math.sqrt(n))
        peaks.append(peak)
    return sorted(peaks)[int((1 - alpha) * sims)]


def stops(key, total, n, z):
    """Whether comparison `key` stops at a look of n pairs whose differences sum to total."""
    se = math.sqrt(2) * RUN_SD / math.sqrt(n)
    if key == "v":
        return total / n - z[key] * se > BAND
    return abs(total / n) + z[key] * se < ALTERNATIVE


def separate(rng, z):
    """Each comparison in a sitting of its own: its stopping point."""
    ends = {}
    for key, (base, cand, looks) in COMPARISONS.items():
        total, before, ends[key] = 0.0, 0, looks[-1]
        for n in looks:
            for _ in range(n - before):
                total += (MEANS[cand] + rng.gauss(0, RUN_SD)) - (MEANS[base] + rng.gauss(0, RUN_SD))
            before = n
            if stops(key, total, n, z):
                ends[key] = n
                break
    return ends


def shared(rng, z):
    """The runs of one sitting of the four arms, an arm running while a comparison needs it."""
    totals, active, runs, n = dict.fromkeys(COMPARISONS, 0.0), set(COMPARISONS), 0, 0
    while active:
        n += 1
        values = {arm: mean + rng.gauss(0, RUN_SD) for arm, mean in MEANS.items()}
        runs += len({arm for key in active for arm in COMPARISONS[key][:2]})
        for key in sorted(active):
            base, cand, looks = COMPARISONS[key]
            totals[key] += values[cand] - values[base]
            if n in looks and (n == looks[-1] or stops(key, totals[key], n, z)):
                active.discard(key)
    return runs


def model(trials=20000):
    rng = random.Random(7)
    z = {"v": pocock_z(rng, VERIFY_LOOKS), "b": pocock_z(rng, CHECK_LOOKS)}
    z["a"] = z["b"]
    apart, formula, together = [], [], []
    for _ in range(trials):
        e = separate(rng, z)
        v, b, a = e["v"], e["b"], e["a"]
        apart.append(v + b + a)
        formula.append((b + a + max(v, b) + max(v, a)) / 2)
        together.append(shared(rng, z) / 2)
    print(f"model, {trials} trials: separate sittings {statistics.mean(apart):.1f} pairs; "
          f"the estimate's formula on their stopping points {statistics.mean(formula):.1f}; "
          f"one shared sitting {statistics.mean(together):.1f} (runs / 2)")


def main(argv):
    if argv[1:] == ["--model"]:
        model()
        return
    if len(argv) < 2 or "--trials" not in argv:
        sys.exit(__doc__)
    sim, args = argv[1], argv[2:]
    trials = int(args[args.index("--trials") + 1])
    shared_saving, kept, separate, shared, replayed = [], 0, [], [], []
    for t in range(trials):
        found = ending(steps_of(sim, args, t))
        if found is None:
            shared_saving.append(0.0)
            continue
        v, b, a, w = found
        kept += 1
        sep = v + b + a + w
        shr = (b + a + max(v, b) + max(v, a)) / 2 + 2 * w
        separate.append(sep)
        shared.append(shr)
        replayed.append(max(v, b) + max(v, a) + 2 * w)
        shared_saving.append(sep - shr)
    print(f"{kept} of {trials} bisects end with one verification and two checks")
    if kept:
        print("  verifications + checks, separate sittings: "
              f"{statistics.mean(separate):.1f} pairs")
        print(f"  shared sittings of four arms:               {statistics.mean(shared):.1f} pairs"
              " (runs / 2)")
        print(f"  replayed after the verification:            {statistics.mean(replayed):.1f} pairs")
    print(f"  saving over all {trials} bisects: {statistics.mean(shared_saving):.1f} pairs a bisect")


if __name__ == "__main__":
    main(sys.argv)
