#!/usr/bin/env bash
# What culprit's build cache saves, on the demo engine, in one run.
#
# Creates the demo engine's 32-commit history (examples/eventstore/make-history)
# and times, side by side, building commit N+1 (a commit that changes one
# source file) right after commit N:
#   - incremental: `culprit build --rebuild N` (untimed: puts the scratch
#     checkout and its build directory at N), then `culprit build --rebuild N+1`
#     (timed): culprit switches the checkout's changed files only, so the build
#     recompiles one translation unit and relinks;
#   - clean: `culprit build --rebuild N+1` with mode = "clean" (timed): a fresh
#     checkout, configure and full compile.
# The two alternate round by round (ABBA order, so a host that drifts during the
# run favours neither); the report gives each round, the medians and the ratio
# clean / incremental. Then it runs `culprit build N N+1` once more without
# --rebuild and checks that no build step ran: both print "cached", no
# "culprit: building" progress line, and the cache entries' build.log files keep
# their modification times.
#
# Usage: bench/build/run.sh [--culprit PATH] [--rounds R] [--commit REV] [--keep]
#   --culprit  the culprit binary (default: $CULPRIT, else culprit on PATH, else
#              build/cli/culprit under the repository)
#   --rounds   alternations (default 4)
#   --commit   N+1 (default db8663f "series.count: skip rows recorded after the
#              latest snapshot", one file: src/scan/series_count.cc); N is its parent
#   --keep     keep the work directory and print its path
# It measures compile times: run it while nobody else compiles on the host
# (on a shared host, under the shared build lock:
#   flock /tmp/culprit-build.lock bench/build/run.sh).
set -euo pipefail

rounds=4
commit=db8663f
keep=0
culprit="${CULPRIT:-}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --culprit) culprit="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --commit) commit="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
if [[ -z "$culprit" ]]; then
  if command -v culprit >/dev/null 2>&1; then
    culprit="$(command -v culprit)"
  else
    culprit="$repo/build/cli/culprit"
  fi
fi
for tool in git cmake python3; do
  command -v "$tool" >/dev/null 2>&1 || { echo "run.sh: $tool is not installed" >&2; exit 1; }
done
[[ -x "$culprit" ]] || {
  echo "run.sh: no culprit binary at '$culprit'; build it or pass --culprit PATH" >&2
  exit 1
}

work="$(mktemp -d "${TMPDIR:-/tmp}/culprit-buildbench-XXXXXX")"
if [[ $keep -eq 0 ]]; then trap 'rm -rf "$work"' EXIT; fi

"$repo/examples/eventstore/make-history" "$work/engine" >&2
next=$(git -C "$work/engine" rev-parse --verify "$commit^{commit}")
prev=$(git -C "$work/engine" rev-parse --verify "$next^")
echo "N   = $(git -C "$work/engine" log -1 --format='%h %s' "$prev")" >&2
echo "N+1 = $(git -C "$work/engine" log -1 --format='%h %s' "$next")" >&2
echo "files changed by N+1: $(git -C "$work/engine" diff --name-only "$prev" "$next" | tr '\n' ' ')" >&2

# The demo's build steps (examples/eventstore/culprit.toml.in); one cache for
# both modes (the mode is not part of a cache entry's key, so --rebuild is
# what makes every timed build a real one).
for mode in incremental clean; do
  cat >"$work/$mode.toml" <<TOML
[engine]
repo = "engine"
build = [["cmake", "-S", ".", "-B", "build", "-DCMAKE_BUILD_TYPE=Release"],
         ["cmake", "--build", "build", "-j2", "--target", "eventstore"]]
artifacts = ["build/eventstore"]
build_timeout = "10m"
mode = "$mode"

[queries.none]
command = ["true"]
metric = "wall"

[records]
dir = "records"

[cache]
dir = "cache"
TOML
done

now() { date +%s.%N; }

build() {  # mode label revisions... ; appends "label seconds" to times
  local mode="$1" label="$2" start end
  shift 2
  start=$(now)
  if ! (cd "$work" && "$culprit" --config "$work/$mode.toml" build "$@" \
        >"$work/$label.out" 2>"$work/$label.err"); then
    echo "run.sh: culprit build $* ($mode) failed:" >&2
    cat "$work/$label.err" >&2
    exit 1
  fi
  end=$(now)
  echo "$label $(python3 -c "print(f'{$end - $start:.3f}')")" >>"$work/times"
}

# The first build of the scratch checkout is a full one: not part of any arm.
build incremental warmup "$prev"

incremental() {  # round
  build incremental "reset-$1" --rebuild "$prev"
  build incremental "incremental-$1" --rebuild "$next"
}
clean() {  # round
  build clean "clean-$1" --rebuild "$next"
}
for ((r = 1; r <= rounds; r++)); do
  if ((r % 4 == 1 || r % 4 == 0)); then
    incremental "$r"; clean "$r"
  else
    clean "$r"; incremental "$r"
  fi
  echo "round $r/$rounds done" >&2
done

# A second build of the same commits: served from the cache.
logs=$(find "$work/cache" -path "*/builds/*" -name build.log | sort)
stat -c '%n %Y.%y' $logs >"$work/logs-before"
build incremental again "$prev" "$next"
stat -c '%n %Y.%y' $logs >"$work/logs-after"

python3 - "$work" "$rounds" <<'PY'
import statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
times = dict(line.split() for line in open(f"{work}/times"))
t = {k: float(v) for k, v in times.items()}

print(f"{'round':>5} {'incremental':>12} {'clean':>9} {'clean/incr':>11}")
for r in range(1, rounds + 1):
    i, c = t[f"incremental-{r}"], t[f"clean-{r}"]
    print(f"{r:>5} {i:>10.2f} s {c:>7.2f} s {c / i:>11.2f}")
inc = statistics.median(t[f"incremental-{r}"] for r in range(1, rounds + 1))
cln = statistics.median(t[f"clean-{r}"] for r in range(1, rounds + 1))
print(f"median incremental {inc:.2f} s, median clean {cln:.2f} s: "
      f"clean / incremental = {cln / inc:.2f}")
print(f"(first full build of N, not counted: {t['warmup']:.2f} s)")

out = open(f"{work}/again.out").read()
err = open(f"{work}/again.err").read()
lines = out.splitlines()
cached = len(lines) == 2 and all(l.split()[-1] == "cached" for l in lines)
no_step = "culprit: building" not in err
same_logs = open(f"{work}/logs-before").read() == open(f"{work}/logs-after").read()
print()
print(f"second `culprit build N N+1`: {t['again']:.2f} s")
for l in lines:
    print(f"  {l}")
print(f"  both cached: {'yes' if cached else 'NO'}; build progress lines on stderr: "
      f"{'none' if no_step else 'SOME'}; build.log files untouched: "
      f"{'yes' if same_logs else 'NO'}")
if not (cached and no_step and same_logs):
    sys.exit("run.sh: the second build was not served from the cache")
PY
if [[ $keep -eq 1 ]]; then echo "work directory: $work"; fi
