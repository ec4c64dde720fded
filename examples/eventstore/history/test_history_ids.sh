#!/usr/bin/env bash
# make-history is deterministic: two runs give the same HEAD, the same commit
# list and the same tags; it has at least 30 commits; it refuses a non-empty
# target; and the last commit holds exactly the engine source kept here.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "test_history_ids: $*" >&2; exit 1; }

"$here/make-history" "$work/a" >/dev/null
sleep 1  # a different wall-clock second must not change anything
"$here/make-history" "$work/b" >/dev/null
a=$(git -C "$work/a" log --format='%H %an %ae %ad %cn %ce %cd %s' --date=raw)
b=$(git -C "$work/b" log --format='%H %an %ae %ad %cn %ce %cd %s' --date=raw)
[[ "$a" == "$b" ]] || fail "the two histories differ"
[[ "$(git -C "$work/a" rev-parse HEAD)" == "$(git -C "$work/b" rev-parse HEAD)" ]] || fail "HEADs differ"
[[ "$(git -C "$work/a" show-ref --tags)" == "$(git -C "$work/b" show-ref --tags)" ]] || fail "tags differ"
count=$(git -C "$work/a" rev-list --count HEAD)
(( count >= 30 )) || fail "only $count commits"
[[ "$(git -C "$work/a" rev-parse v1.0)" == "$(git -C "$work/a" rev-list --max-parents=0 HEAD)" ]] ||
  fail "v1.0 is not the first commit"
[[ "$(git -C "$work/a" rev-parse v1.3)" == "$(git -C "$work/a" rev-parse HEAD)" ]] || fail "v1.3 is not HEAD"
subjects=$(git -C "$work/a" log --format=%s)
grep -q '^Persist the traversal index' <<<"$subjects" || fail "no persistence commit"

# The last commit is the engine as kept in examples/eventstore.
while read -r file; do
  cmp -s "$work/a/$file" "$here/$file" || fail "$file differs from the project's copy"
done < <(git -C "$work/a" ls-files)
# ...and the project's engine has no file the history lacks.
(cd "$here" && find .gitignore CMakeLists.txt CHANGELOG.md docs src tests -type f | sort) \
  >"$work/project-files"
git -C "$work/a" ls-files | sort >"$work/history-files"
diff "$work/project-files" "$work/history-files" >"$work/files-diff" ||
  fail "the history's files differ from the project's engine: $(cat "$work/files-diff")"

if "$here/make-history" "$work/a" 2>"$work/err"; then fail "accepted a non-empty target"; fi
grep -q "not empty" "$work/err" || fail "unclear refusal: $(cat "$work/err")"
echo "test_history_ids: ok ($count commits, HEAD $(git -C "$work/a" rev-parse --short HEAD))"
