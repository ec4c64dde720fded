#!/usr/bin/env bash
# The cost and the spread of culprit's cachegrind metrics on a real program not written
# here: GNU sort of 200,000 shuffled lines (seq | shuf with a fixed source, so every host
# sorts the same input).
#   1. the slowdown under valgrind: hyperfine runs sort alone, under cachegrind without the
#      cache simulation (metric = "instructions") and with it ("ll_misses", "d1_misses"),
#      interleaved in one sitting;
#   2. the spread of instruction counts over 10 runs with ASLR on and off: `culprit run` of
#      a query by instructions, [measure] aslr = true, then false.
# Usage: bench/cachegrind/run.sh [path/to/culprit]   (default: build/cli/culprit)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
culprit="${1:-$root/build/cli/culprit}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
seq 1 200000 | shuf --random-source=<(yes) >"$work/input.txt"

echo "== slowdown: hyperfine, one sitting"
vg="valgrind --tool=cachegrind --trace-children=yes --cachegrind-out-file=/dev/null --log-file=/dev/null"
hyperfine -N -w 1 -r 5 \
  -n plain "sort $work/input.txt -o /dev/null" \
  -n instructions "$vg --cache-sim=no sort $work/input.txt -o /dev/null" \
  -n misses "$vg --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 sort $work/input.txt -o /dev/null"

for aslr in true false; do
  echo "== instructions over 10 runs, [measure] aslr = $aslr"
  mkdir -p "$work/$aslr"
  cat >"$work/$aslr/culprit.toml" <<TOML
[queries."sort"]
command = ["sort", "$work/input.txt", "-o", "/dev/null"]
metric = "instructions"

[measure]
aslr = $aslr
TOML
  (cd "$work/$aslr" && "$culprit" run -q sort -n 10 --warmup 0 >"$work/$aslr/out.txt")
  record="$(sed -n 's/^record //p' "$work/$aslr/out.txt")"
  python3 - "$record" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
v = [s["value"] for s in r["samples"] if s.get("ok") and not s.get("warmup")]
print(f"aslr {r['details'].get('aslr')}: n={len(v)} min {min(v):.0f} max {max(v):.0f} "
      f"spread (max/min - 1) {100 * (max(v) / min(v) - 1):.5f}%")
PY
done
