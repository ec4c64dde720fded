#!/usr/bin/env bash
# A 12-commit history of a C loop: commit 3 makes the work x1.4, commit 8 x3 more.
set -euo pipefail
# Usage: bench/bisect-sim/two_changes_history.sh DIR, then
#   cd DIR && culprit --config culprit.toml bisect run --good HEAD~11 --bad HEAD
d=${1:?usage: two_changes_history.sh DIR}
if [ -e "$d" ]; then echo "$d exists: give a new directory" >&2; exit 2; fi
mkdir -p "$d/repo"; cd "$d/repo"
git init -q -b main .
git config user.email t@example.com; git config user.name t
for i in $(seq 0 11); do
  w=1000000
  [ $i -ge 3 ] && w=1400000
  [ $i -ge 8 ] && w=4200000
  cat > main.c <<C
// revision $i
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static volatile unsigned sink;
static double NowMs(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static void Work(long n) { unsigned x = sink + 1; for (long i = 0; i < n; ++i) x = x * 1664525u + 1013904223u; sink = x; }
static int Less(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return (x > y) - (x < y); }
int main(void) { double t[5]; for (int r = 0; r < 5; ++r) { double s = NowMs(); Work(${w}L); t[r] = NowMs() - s; } qsort(t, 5, sizeof t[0], Less); printf("min_ms=%.4f\n", t[0]); return 0; }
C
  msg="revision $i"; [ $i -eq 3 ] && msg="Lengthen the loop x1.4"; [ $i -eq 8 ] && msg="Lengthen the loop x3"
  git add main.c; git commit -qm "$msg"
done
cat > "$d/culprit.toml" <<T
[engine]
repo = 'repo'
build = [["cc", "-O1", "-o", "prog", "main.c"]]
artifacts = ["prog"]

[queries."loop"]
command = ["{artifact:prog}"]
metric = { regex = 'min_ms=([0-9.]+)' }
timeout = "10s"

[measure]
band = 0.1
min_pairs = 10
max_pairs = 40

[records]
dir = 'records'

[cache]
dir = 'cache'
T
