#!/usr/bin/env bash
# A real upstream regression bisected on instructions and on wall time in one run (issue 28 §2).
# Lua (github.com/lua/lua), first-parent history from 6ccd24eff5 (2021-01-19) to 8a32e0aa4a
# (2021-07-21): 48 commits. The workload is table.sort of 200,000 integers (sort.lua below,
# written by this script). 511d53a826 "lua_settop/lua_pop closes to-be-closed variables" (the
# 5.4.3 cycle) makes it execute 3.8% more instructions: 648,751,714 at its parent f5df7f91f7,
# 673,386,917 at it (cachegrind, each commit from 5205f073c5 to eadd8c7178 measured; docs/bisect.md,
# "A real regression on instructions"). Two bisects of the same range with the same build:
# `metric = "instructions"` (under cachegrind) and wall time, each with its own build cache
# and records so that its builds are its own; both with --band 0.02 (the move is 3.8%) and
# [measure] aslr = false. Prints, for each: exit status, the named culprit against the ground
# truth, builds (cache entries), measured commits, pairs, runs per measured commit (from the
# bisect's comparison records; a run a step re-used from an earlier one, listed in its record's
# details.reused_samples, is counted once, where it ran), and wall time.
#
# Usage: bench/instructions-bisect/run.sh LUA_CLONE [--culprit PATH] [--seed S] [--only instructions|wall] [--keep]
#   LUA_CLONE: a clone of github.com/lua/lua holding 8a32e0aa4a (CI cannot fetch; pass a clone).
# Builds Lua (one cc of onelua.c, about 4 s) and measures real processes: hold the shared lock.
# Each bisect took under 3 minutes on the 2-core development VM (2026-12-05); the wall-time
# one runs longer where its sittings need more pairs.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
culprit="${CULPRIT:-$root/build/cli/culprit}"
seed=1
keep=0
only=""
clone=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --culprit) culprit="$(realpath "$2")"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    -*) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    *) clone="$(realpath "$1")"; shift ;;
  esac
done
[[ -n "$clone" ]] || { echo "run.sh: give the path of a lua/lua clone (see --help)" >&2; exit 2; }
[[ -x "$culprit" ]] || { echo "run.sh: no culprit at $culprit (--culprit PATH)" >&2; exit 2; }
command -v jq >/dev/null || { echo "run.sh: needs jq" >&2; exit 2; }
good=6ccd24eff5 bad=8a32e0aa4a truth=511d53a826
for c in $good $bad $truth; do
  git -C "$clone" cat-file -e "$c^{commit}" 2>/dev/null ||
    { echo "run.sh: $clone does not hold $c (fetch github.com/lua/lua)" >&2; exit 2; }
done
good=$(git -C "$clone" rev-parse "$good") bad=$(git -C "$clone" rev-parse "$bad")
n=$(git -C "$clone" rev-list --first-parent --count "$good..$bad")
work="$(mktemp -d /tmp/instructions-bisect-XXXXXX)"
if ((keep)); then echo "work directory: $work"; else trap 'rm -rf "$work"' EXIT; fi

cat >"$work/sort.lua" <<'L'
local t = {}
for i = 1, 200000 do t[i] = (i * 7919) % 200003 end
table.sort(t)
print(t[100])
L

config_in() {  # dir metric
  mkdir -p "$1"
  cat >"$1/culprit.toml" <<T
[engine]
repo = '$clone'
build = [["cc", "-O2", "-std=c99", "-DLUA_USE_LINUX", "-o", "lua", "onelua.c", "-lm"]]
artifacts = ["lua"]
mode = "clean"

[queries.sort]
command = ["{artifact:lua}", "$work/sort.lua"]
metric = "$2"
timeout = "120s"

[measure]
aslr = false

[records]
dir = '$1/records'

[cache]
dir = '$1/cache'
T
}

report() {  # name dir rc seconds
  local dir="$2" recs="$2/records"
  echo "== $1: exit $3, $4 s"
  grep -E '^(CULPRIT|CHANGE|MERGE|INCONCLUSIVE|NOT)' "$dir/out" | head -3 || true
  local named
  named=$(grep -oE '^CULPRIT [0-9a-f]{10}' "$dir/out" | awk '{print $2}' | head -1 || true)
  local how=""
  if [[ -z "$named" ]]; then  # changes found, none shown to be the first bad commit
    named=$(grep -oE '^CHANGE [0-9a-f]{10}' "$dir/out" | awk '{print $2}' | head -1 || true)
    [[ -n "$named" ]] && how=" (its first CHANGE: no CULPRIT line)"
  fi
  echo "named: ${named:-none}$how; ground truth: $truth ($([[ "$named" == "$truth" ]] && echo right || echo WRONG))"
  echo "builds (cache entries): $(find "$dir/cache" -path '*/builds/*/entry.json' | wc -l); range N = $n, ceil(log2 N) + 2 = $(( $(echo "l($n)/l(2)" | bc -l | cut -d. -f1) + 1 + 2 ))"
  grep -E '^  builds [0-9]+' "$dir/out" | head -1 || true
  # every run of every sitting of the bisect (its step records), by the commit it ran; a
  # sample the record says it re-used (details.reused_samples) is a copy of an earlier step's
  jq -r '.arms as $a | ((.details.reused_samples // "") | split(",") | map(select(. != "") | tonumber)) as $r
    | .samples[] | .sequence as $s
    | "\($a[.arm].commit[0:10]) \(if .warmup then "warmup" elif any($r[]; . == $s) then "reused" else "measured" end)"' \
    "$recs"/*-bisect-step-*.json | sort | uniq -c >"$dir/runs"
  echo "sittings: $(ls "$recs"/*-bisect-step-*.json | wc -l); measured runs: $(awk '$3 == "measured" {s += $1} END {print s + 0}' "$dir/runs"), re-used: $(awk '$3 == "reused" {s += $1} END {print s + 0}' "$dir/runs"), warm-ups: $(awk '$3 == "warmup" {s += $1} END {print s + 0}' "$dir/runs")"
  echo "measured runs per commit in the whole bisect (warm-ups and re-used runs not counted):"
  awk '$3 == "measured" {print $1, $2}' "$dir/runs" | sort -rn | awk '{printf "  %s %s\n", $2, $1}'
  echo "pairs and verdict rule per sitting (kind, baseline, candidate, pairs, decided by; runs re-used):"
  for f in "$recs"/*-bisect-step-*.json; do
    jq -r '"  \(.details.step_kind) \(.arms[0].commit[0:10]) \(.arms[1].commit[0:10]) \([.samples[] | select(.warmup | not)] | length / 2) \(.details.decided_by // "the search / sequential looks")\(if .details.reused_runs then "; re-used " + .details.reused_runs else "" end)"' "$f"
  done
}

run_one() {  # metric
  local dir="$work/$1"
  config_in "$dir" "$1"
  local start rc
  start=$(date +%s)
  set +e
  (cd "$dir" && "$culprit" bisect run --good "$good" --bad "$bad" -q sort --band 0.02 --seed "$seed" >"$dir/out" 2>"$dir/err")
  rc=$?
  set -e
  report "$1" "$dir" "$rc" "$(( $(date +%s) - start ))"
}

echo "lua $clone: $good..$bad, $n first-parent commits; ground truth $truth"
[[ -z "$only" || "$only" == instructions ]] && run_one instructions
[[ -z "$only" || "$only" == wall ]] && run_one wall
exit 0
