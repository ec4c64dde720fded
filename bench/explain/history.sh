#!/usr/bin/env bash
# A 3-commit history of a small C engine in three files, for `culprit explain` (issue 28 §3):
#   1. "The engine": main() calls Hash (hash.c) and Scan (scan.c).
#   2. "Hash every key twice": hash.c doubles Hash's rounds (the change touches the function
#      that moves).
#   3. "Scan twice the rows": main.c doubles the rows it passes to Scan (the function that
#      moves is on the query's path in a file the change did not touch).
# Built with -g, so that cachegrind names each function's file and lines.
# Usage: bench/explain/history.sh DIR, then
#   cd DIR && culprit --config culprit.toml explain HEAD~1 -q lookup
set -euo pipefail
d=${1:?usage: history.sh DIR}
if [ -e "$d" ]; then echo "$d exists: give a new directory" >&2; exit 2; fi
mkdir -p "$d/repo"; cd "$d/repo"
git init -q -b main .
git config user.email t@example.com; git config user.name t
# Fixed dates: the same commit ids on every run.
export GIT_AUTHOR_DATE="2026-12-01T12:00:00Z" GIT_COMMITTER_DATE="2026-12-01T12:00:00Z"
hash() {
  cat > hash.c <<C
// The hash: one multiply-add per round.
static volatile unsigned sink;
__attribute__((noinline)) void Hash(long n) {
  unsigned x = sink + 1;
  for (long i = 0; i < n * $1; ++i) x = x * 1664525u + 1013904223u;
  sink = x;
}
C
}
main_c() {
  cat > main.c <<C
#include <stdio.h>
void Hash(long n);
void Scan(long n);
int main(void) {
  Hash(200000);
  Scan($1);
  printf("done\n");
  return 0;
}
C
}
cat > scan.c <<'C'
// The scan: a shift and xor per element.
static volatile unsigned sink;
__attribute__((noinline)) void Scan(long n) {
  unsigned x = sink;
  for (long i = 0; i < n; ++i) x ^= (x << 3) + (unsigned)i;
  sink = x;
}
C
hash 1; main_c 300000
git add -A; git commit -qm "The engine"
hash 2; git commit -qam "Hash every key twice"
main_c 600000; git commit -qam "Scan twice the rows"
cat > "$d/culprit.toml" <<'T'
[engine]
repo = 'repo'
build = [["cc", "-O1", "-g", "-o", "prog", "main.c", "hash.c", "scan.c"]]
artifacts = ["prog"]

[queries."lookup"]
command = ["{artifact:prog}"]
metric = "instructions"
timeout = "60s"

[records]
dir = 'records'

[cache]
dir = 'cache'
T
