#!/usr/bin/env bash
# culprit's own overhead per sample, against hyperfine, in one run.
#
# Measures a trivial command (`true`) through `hyperfine -N` and through
# `culprit run`, alternating the two tools round by round (ABBA order, so a
# host that drifts during the run does not favour either), and prints:
#   - sample ratio: culprit's median per-sample wall_ms (from its record) over
#     hyperfine's mean (and median) time of `true`: how much the harness's
#     spawn-and-wait adds to what each sample measures;
#   - elapsed ratio: each tool's whole elapsed time divided by its sample
#     count: what one sample costs end to end, including culprit's calibration
#     (two ~150 ms loops per sitting), record writing and start-up.
#
# Usage: bench/overhead/run.sh [--culprit PATH]... [--runs N] [--rounds R] [--keep]
#   --culprit  the culprit binary (default: $CULPRIT, else culprit on PATH, else
#              build/cli/culprit under the repository). Give it more than once
#              to compare builds in the same sitting (e.g. before and after a
#              change): every round runs hyperfine and each binary, in an order
#              reversed every other round, and each is reported against the
#              hyperfine runs of the same rounds.
#   --runs     samples per tool per round (default 200)
#   --rounds   alternations (default 4; even numbers balance the ABBA order)
#   --keep     keep the work directory (JSON of every round) and print its path
# Needs hyperfine, jq and python3. Run it on a quiet host and not under the
# shared build lock: it takes about a minute with the defaults.
set -euo pipefail

runs=200
rounds=4
keep=0
culprits=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --culprit) culprits+=("$2"); shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
if [[ ${#culprits[@]} -eq 0 ]]; then
  if [[ -n "${CULPRIT:-}" ]]; then
    culprits=("$CULPRIT")
  elif command -v culprit >/dev/null 2>&1; then
    culprits=("$(command -v culprit)")
  else
    culprits=("$repo/build/cli/culprit")
  fi
fi
for tool in hyperfine jq python3; do
  command -v "$tool" >/dev/null 2>&1 || { echo "run.sh: $tool is not installed" >&2; exit 1; }
done
for culprit in "${culprits[@]}"; do
  [[ -x "$culprit" ]] || {
    echo "run.sh: no culprit binary at '$culprit'; build it or pass --culprit PATH" >&2
    exit 1
  }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/culprit-overhead-XXXXXX")"
if [[ $keep -eq 0 ]]; then trap 'rm -rf "$work"' EXIT; fi

# A config whose only query is `true`, measured by process wall time. The
# engine "build" is never run: without --rev, culprit measures the worktree.
cat >"$work/culprit.toml" <<TOML
[engine]
repo = "."
build = [["true"]]

[queries.true]
command = ["true"]
metric = "wall"
unit = "ms"
timeout = "10s"

[measure]
warmup = 1
min_pairs = 10
max_pairs = $runs

[records]
dir = "records"
TOML

now() { date +%s.%N; }

run_hyperfine() {  # round
  local json="$work/hyperfine-$1.json" start end
  start=$(now)
  hyperfine -N --warmup 1 --runs "$runs" --export-json "$json" --style none true >/dev/null
  end=$(now)
  echo "$start $end" >"$work/hyperfine-$1.elapsed"
}

run_culprit() {  # index round
  local name="culprit$1-$2" start end
  local json="$work/$name.json"
  start=$(now)
  if ! (cd "$work" && "${culprits[$1]}" --config "$work/culprit.toml" run true \
        --samples "$runs" --json >"$json" 2>"$work/$name.stderr"); then
    echo "run.sh: culprit run (${culprits[$1]}) failed in round $2:" >&2
    cat "$work/$name.stderr" >&2
    exit 1
  fi
  end=$(now)
  echo "$start $end" >"$work/$name.elapsed"
}

# Tools in order: hyperfine, then each culprit binary; ABBA across rounds.
tools=(h)
for ((i = 0; i < ${#culprits[@]}; i++)); do tools+=("$i"); done
run_tool() {  # tool round
  if [[ "$1" == h ]]; then run_hyperfine "$2"; else run_culprit "$1" "$2"; fi
}
for ((r = 1; r <= rounds; r++)); do
  if ((r % 4 == 1 || r % 4 == 0)); then
    for ((t = 0; t < ${#tools[@]}; t++)); do run_tool "${tools[$t]}" "$r"; done
  else
    for ((t = ${#tools[@]} - 1; t >= 0; t--)); do run_tool "${tools[$t]}" "$r"; done
  fi
  echo "round $r/$rounds done" >&2
done

python3 - "$work" "$rounds" "$runs" "${culprits[@]}" <<'PY'
import json, statistics, sys
work, rounds, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
culprits = sys.argv[4:]

def elapsed(name):
    start, end = map(float, open(f"{work}/{name}.elapsed").read().split())
    return end - start

for index, binary in enumerate(culprits):
    rows = []
    for r in range(1, rounds + 1):
        h = json.load(open(f"{work}/hyperfine-{r}.json"))["results"][0]
        rec = json.load(open(f"{work}/culprit{index}-{r}.json"))
        walls = [s["wall_ms"] for s in rec["samples"]
                 if s.get("ok") and not s.get("warmup") and not s.get("dropped")]
        if not walls:
            sys.exit(f"run.sh: {binary}'s record for round {r} holds no usable samples")
        c_median = statistics.median(walls)
        h_mean, h_median = h["mean"] * 1000, h["median"] * 1000
        rows.append(dict(
            round=r, h_mean=h_mean, h_median=h_median, c_median=c_median, c_n=len(walls),
            ratio_mean=c_median / h_mean, ratio_median=c_median / h_median,
            h_per=elapsed(f"hyperfine-{r}") * 1000 / runs,
            c_per=elapsed(f"culprit{index}-{r}") * 1000 / len(walls)))

    if len(culprits) > 1:
        print(f"== culprit {index + 1}: {binary}")
    print(f"{'round':>5} {'hyperfine mean':>15} {'hyperfine median':>17} {'culprit median':>15}"
          f" {'ratio':>7} {'hf ms/sample':>13} {'culprit ms/sample':>18} {'ratio':>7}")
    for x in rows:
        print(f"{x['round']:>5} {x['h_mean']:>12.3f} ms {x['h_median']:>14.3f} ms"
              f" {x['c_median']:>12.3f} ms {x['ratio_mean']:>7.2f}"
              f" {x['h_per']:>10.3f} ms {x['c_per']:>15.3f} ms {x['c_per'] / x['h_per']:>7.2f}")
    med = lambda key: statistics.median(x[key] for x in rows)
    print()
    print(f"per-sample overhead ratio (culprit wall_ms median / hyperfine mean), median of "
          f"{rounds} rounds: {med('ratio_mean'):.2f}")
    print(f"  same against hyperfine's median: {med('ratio_median'):.2f}")
    print(f"end-to-end cost per sample, culprit / hyperfine: "
          f"{statistics.median(x['c_per'] / x['h_per'] for x in rows):.2f} "
          f"(includes culprit's start/end calibration and record writing)")
    print()
PY
if [[ $keep -eq 1 ]]; then echo "work directory: $work"; fi
