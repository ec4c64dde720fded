#!/bin/sh
# The eventstore executable end to end: bench output, serve over a pipe (bad
# commands answered with one error line, the process still usable, quit exits
# 0 with nothing on stdout but answers), registry order, and usage errors.
set -u
exe="$1"
fail() { echo "cli_test: $*" >&2; exit 1; }
# Checkpoints of the traversal index go to a directory removed at exit.
EVENTSTORE_DATA_DIR=$(mktemp -d) || fail "mktemp failed"
export EVENTSTORE_DATA_DIR
trap 'rm -rf "$EVENTSTORE_DATA_DIR"' EXIT

out=$("$exe" bench --query series.count --events 20000 --reps 3 --warmup 0) || fail "bench failed"
[ "$(echo "$out" | grep -c '^rep=[0-9]* ms=')" -eq 3 ] || fail "bench: expected 3 rep lines: $out"
echo "$out" | grep -q '^median_ms=[0-9.]* checksum=0x[0-9a-f]\{16\} ' || fail "bench: no median line: $out"

out=$(printf 'hold traversal_index\nnonsense\nrun series.count 2\nrelease traversal_index\nrelease traversal_index\nquit\n' |
      "$exe" serve --events 20000 2>/dev/null)
status=$?
[ $status -eq 0 ] || fail "serve exited $status"
expected_shape='ok
error
ms
ok
error'
[ "$(echo "$out" | cut -d' ' -f1)" = "$expected_shape" ] || fail "serve answers: $out"

out=$("$exe" registry --events 20000 --reps 2) || fail "registry failed"
[ "$(echo "$out" | cut -d' ' -f1 | tr '\n' ' ')" = "path.traverse series.count interval.join " ] ||
  fail "registry order: $out"
out=$("$exe" registry --events 20000 --reps 2 --only series.count) || fail "registry --only failed"
[ "$(echo "$out" | grep -c median_ms)" -eq 1 ] && echo "$out" | grep -q '^series.count median_ms=' ||
  fail "registry --only: $out"

"$exe" bench --query nope >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown query should exit 2"
"$exe" bench --query series.count --reps 0 >/dev/null 2>&1; [ $? -eq 2 ] || fail "--reps 0 should exit 2"
"$exe" frob >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown command should exit 2"
echo "cli_test: ok"
