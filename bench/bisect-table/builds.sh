#!/usr/bin/env bash
# What bisecting several queries in one command saves in builds (issue 31 §4): a real
# history of 100 commits after its start where three queries move at three different
# commits (a at 23, b at 51, c at 78, each 2.5x slower from there on: clear on a loaded
# 2-core host), bisected once with `culprit bisect run -q a -q b -q c`, then as three
# separate bisects, each with a fresh build cache so that its builds are its own. Prints
# the distinct commits built (cache entries) by each, the changes each named, and the
# sum of the separate ones.
#
# Usage: bench/bisect-table/builds.sh [--culprit PATH] [--seed S] [--keep]
# Builds with cc and measures real processes: hold the shared lock, a few minutes on 2 cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
culprit="${CULPRIT:-$root/build/cli/culprit}"
seed=1
keep=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --culprit) culprit="$(realpath "$2")"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "builds.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -x "$culprit" ]] || { echo "builds.sh: no culprit at $culprit (--culprit PATH)" >&2; exit 2; }
work="$(mktemp -d /tmp/bisect-table-XXXXXX)"
if ((keep)); then echo "work directory: $work"; else trap 'rm -rf "$work"' EXIT; fi

last=100
declare -A moves=([a]=23 [b]=51 [c]=78)
queries=(a b c)

source_of() {  # work
  cat <<C
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static volatile unsigned sink;
static double NowMs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static int Less(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}
int main(void) {
  double t[5];
  for (int r = 0; r < 5; ++r) {
    double start = NowMs();
    unsigned x = sink + 1;
    for (long i = 0; i < $1L; ++i) x = x * 1664525u + 1013904223u;
    sink = x;
    t[r] = NowMs() - start;
  }
  qsort(t, 5, sizeof t[0], Less);
  printf("min_ms=%.4f\n", t[0]);
  return 0;
}
C
}

repo="$work/repo"
git init -q "$repo"
git -C "$repo" config user.email bench@example.invalid
git -C "$repo" config user.name bench
commits=()
for ((i = 0; i <= last; ++i)); do
  message="revision $i"
  for q in "${queries[@]}"; do
    work_n=2000000
    ((i >= moves[$q])) && work_n=5000000
    ((i == moves[$q])) && message="Slow down $q"
    source_of "$work_n" >"$repo/$q.c"
  done
  echo "revision $i" >"$repo/NOTES"
  git -C "$repo" add -A
  git -C "$repo" commit -q -m "$message"
  commits+=("$(git -C "$repo" rev-parse HEAD)")
done

config_in() {  # dir: a culprit.toml with its own records, cache and bisect state
  mkdir -p "$1"
  cat >"$1/culprit.toml" <<T
[engine]
repo = '$repo'
build = [["cc", "-O1", "-o", "a", "a.c"], ["cc", "-O1", "-o", "b", "b.c"], ["cc", "-O1", "-o", "c", "c.c"]]
artifacts = ["a", "b", "c"]

[queries.a]
command = ["{artifact:a}"]
metric = { regex = 'min_ms=([0-9.]+)' }
timeout = "10s"

[queries.b]
command = ["{artifact:b}"]
metric = { regex = 'min_ms=([0-9.]+)' }
timeout = "10s"

[queries.c]
command = ["{artifact:c}"]
metric = { regex = 'min_ms=([0-9.]+)' }
timeout = "10s"

[measure]
band = 0.2
min_pairs = 10
max_pairs = 40

[records]
dir = '$1/records'

[cache]
dir = '$1/cache'
T
}

builds_in() {  # dir: cache entries with an entry.json (one per commit built)
  find "$1/cache" -path '*/builds/*/entry.json' | wc -l
}

named_in() {  # output file: the short ids of the changes named
  grep -oE '^(CULPRIT|CHANGE|  CHANGE) [0-9a-f]{10}' "$1" | awk '{print $2}' | sort -u | tr '\n' ' '
}

good="${commits[0]}" bad="${commits[$last]}"
echo "history: $last commits after $(git -C "$repo" rev-parse --short=10 "$good"); moves:" \
  "a at #23 $(git -C "$repo" rev-parse --short=10 "${commits[23]}")," \
  "b at #51 $(git -C "$repo" rev-parse --short=10 "${commits[51]}")," \
  "c at #78 $(git -C "$repo" rev-parse --short=10 "${commits[78]}")"

config_in "$work/multi"
set +e
"$culprit" --config "$work/multi/culprit.toml" bisect run --good "$good" --bad "$bad" \
  -q a -q b -q c --seed "$seed" >"$work/multi.out" 2>"$work/multi.err"
rc=$?
set -e
multi=$(builds_in "$work/multi")
echo "multi-query bisect (-q a -q b -q c): exit $rc, $multi distinct commits built;" \
  "named: $(named_in "$work/multi.out")"

total=0
for q in "${queries[@]}"; do
  config_in "$work/$q"
  set +e
  "$culprit" --config "$work/$q/culprit.toml" bisect run --good "$good" --bad "$bad" \
    -q "$q" --seed "$seed" >"$work/$q.out" 2>"$work/$q.err"
  rc=$?
  set -e
  n=$(builds_in "$work/$q")
  total=$((total + n))
  echo "separate bisect of $q (fresh cache): exit $rc, $n distinct commits built;" \
    "named: $(named_in "$work/$q.out")"
done
echo "separate bisects, total: $total distinct builds (multi-query: $multi)"
