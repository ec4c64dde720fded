#!/usr/bin/env python3
"""Measures the demo's effects as same-sitting ratios (median of per-pair ratios).

    measure_effects.py residency EXE [--rounds R]          one `serve` process
    measure_effects.py env EXE NAME=VALUE [--pairs P]        default env vs override
    measure_effects.py commits EXE_A EXE_B MODE [--pairs P]  MODE: bench | registry

Pairs alternate AB/BA. Every figure is B/A (or condition/nothing-held).
"""
import os
import random
import re
import statistics
import subprocess
import sys

EVENTS = "1000000"


def median_ms(cmd, env=None):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         env=dict(os.environ, **(env or {}))).stdout
    return float(re.search(r"median_ms=([0-9.]+)", out).group(1))


def report(label, ratios):
    ratios = sorted(ratios)
    q = lambda f: ratios[min(len(ratios) - 1, int(f * len(ratios)))]
    print(f"{label}: ratio {statistics.median(ratios):.3f} (n={len(ratios)}, "
          f"25%..75% {q(0.25):.3f}..{q(0.75):.3f})", flush=True)


def residency(exe, rounds):
    conditions = {
        "nothing held": ([], []),
        "plain columns held": (["plain_columns"], []),
        "source columns held": (["index_sources"], []),
        "index held": (["traversal_index"], []),
        "index released": (["traversal_index"], ["traversal_index"]),
    }
    proc = subprocess.Popen([exe, "serve", "--events", EVENTS], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def ask(line):
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        answer = proc.stdout.readline().strip()
        if answer.startswith("error"):
            sys.exit(f"{line}: {answer}")
        return answer

    ask("run series.count 3")  # warm-up
    samples = {name: [] for name in conditions}
    rng = random.Random(1)
    for _ in range(rounds):
        order = list(conditions)
        rng.shuffle(order)
        for name in order:
            hold, release = conditions[name]
            for h in hold:
                ask("hold " + h)
            for r in release:
                ask("release " + r)
            # Untimed: a new index's first checkpoint also writes its file.
            ask("run series.count 1")
            values = [float(v) for v in ask("run series.count 5").split()[1:]]
            samples[name].append(statistics.median(values))
            for h in hold:
                if h not in release:
                    ask("release " + h)
    proc.stdin.write("quit\n")
    proc.stdin.close()
    proc.wait()
    base = samples["nothing held"]
    print(f"nothing held: median {statistics.median(base):.2f} ms")
    for name in conditions:
        if name != "nothing held":
            report(f"{name} / nothing held", [c / b for c, b in zip(samples[name], base)])


def pairs(cmd_a, env_a, cmd_b, env_b, n, label):
    ratios = []
    for i in range(n):
        if i % 2 == 0:
            a = median_ms(cmd_a, env_a)
            b = median_ms(cmd_b, env_b)
        else:
            b = median_ms(cmd_b, env_b)
            a = median_ms(cmd_a, env_a)
        ratios.append(b / a)
    report(label, ratios)


def main():
    args = sys.argv[1:]
    count = 10
    if "--rounds" in args or "--pairs" in args:
        i = args.index("--rounds") if "--rounds" in args else args.index("--pairs")
        count = int(args[i + 1])
        del args[i:i + 2]
    kind = args[0]
    if kind == "residency":
        residency(args[1], count)
    elif kind == "env":
        exe, (k, v) = args[1], args[2].split("=", 1)
        cmd = [exe, "bench", "--query", "series.count", "--events", EVENTS, "--reps", "10"]
        pairs(cmd, {}, cmd, {k: v}, count, f"{k}={v} / default (bench series.count)")
    elif kind == "commits":
        a, b, mode = args[1], args[2], args[3]
        tail = (["bench", "--query", "series.count"] if mode == "bench"
                else ["registry", "--only", "series.count"])
        tail += ["--events", EVENTS, "--reps", "10"]
        pairs([a] + tail, {}, [b] + tail, {}, count, f"B / A ({mode} series.count)")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
