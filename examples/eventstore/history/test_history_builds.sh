#!/usr/bin/env bash
# Every commit of the generated history configures, builds and passes its own
# unit tests (one incremental build directory, oldest commit first).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
jobs="${EVENTSTORE_BUILD_JOBS:-2}"

"$here/make-history" "$work/repo" >/dev/null
failed=()
n=0
for commit in $(git -C "$work/repo" rev-list --reverse HEAD); do
  n=$((n + 1))
  git -C "$work/repo" checkout -q "$commit"
  subject=$(git -C "$work/repo" log -1 --format=%s)
  if cmake -S "$work/repo" -B "$work/build" -DCMAKE_BUILD_TYPE=Release >"$work/log" 2>&1 &&
     cmake --build "$work/build" -j"$jobs" >>"$work/log" 2>&1 &&
     "$work/build/eventstore_tests" >>"$work/log" 2>&1; then
    echo "ok    $n ${commit:0:10} $subject"
  else
    echo "FAIL  $n ${commit:0:10} $subject"
    tail -n 20 "$work/log"
    failed+=("$commit")
  fi
done
if (( ${#failed[@]} > 0 )); then
  echo "test_history_builds: ${#failed[@]} commit(s) failed" >&2
  exit 1
fi
echo "test_history_builds: all $n commits build and pass their tests"
