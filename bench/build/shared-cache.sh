#!/usr/bin/env bash
# What a compiler cache shared by hosts saves: a second "host" building a commit that
# the first already built, through ccache's remote storage on a real redis-server.
#
#   bench/build/shared-cache.sh --culprit PATH --repo ENGINE_REPO [--rev REV] [--rounds N]
#                               [--step 'CMD'...] [--artifact PATH]
#
# Each round starts an empty redis-server (a unix socket, no persistence) and two fresh
# culprit build caches standing for two hosts (each its own [cache] dir, scratch checkout
# and local ccache directory; only redis is shared). Host A builds REV cold (every object
# compiled and sent to redis); host B then builds the same REV (objects fetched from
# redis). It prints each build's wall time (`culprit build REV`, the whole command:
# checkout, every step, artifacts) with ccache's line, and the ratio cold / shared.
# The default steps build fmt with its tests (a real C++ project of ~40 translation
# units): cmake -G Ninja -DFMT_TEST=ON, then cmake --build.
# Compile times: nobody else may compile meanwhile (hold the shared build lock).
set -euo pipefail

culprit="" repo="" rev="HEAD" rounds=2 artifact="build/libfmt.a"
steps=()
while (($#)); do
  case "$1" in
    --culprit) culprit="$(realpath "$2")"; shift 2 ;;
    --repo) repo="$(realpath "$2")"; shift 2 ;;
    --rev) rev="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --step) steps+=("$2"); shift 2 ;;
    --artifact) artifact="$2"; shift 2 ;;
    *) echo "shared-cache.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -x "$culprit" && -d "$repo" ]] || { echo "usage: see the head of $0" >&2; exit 2; }
for tool in ccache redis-server; do
  command -v "$tool" >/dev/null || { echo "shared-cache.sh: $tool is needed" >&2; exit 1; }
done
if ((${#steps[@]} == 0)); then
  steps=('["cmake", "-S", ".", "-B", "build", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release", "-DFMT_TEST=ON", "-DFMT_DOC=OFF"]'
         '["cmake", "--build", "build", "-j2"]')
fi

work="$(mktemp -d /tmp/shared-cache-XXXXXX)"
redis_pid=""
cleanup() {
  [[ -n "$redis_pid" ]] && kill "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

host_config() {  # host_dir
  mkdir -p "$1"
  {
    echo "[engine]"
    echo "repo = '$repo'"
    printf 'build = [%s]\n' "$(IFS=,; echo "${steps[*]}")"
    echo "artifacts = ['$artifact']"
    echo 'build_timeout = "30m"'
    echo 'compiler_cache = "ccache"'
    echo "compiler_cache_remote = 'redis+unix:$work/redis.sock'"
    echo "[cache]"
    echo "dir = '$1/cache'"
  } >"$1/culprit.toml"
}

timed_build() {  # host_dir -> prints "SECONDS|ccache line"
  local start end line
  start=$(date +%s.%N)
  "$culprit" --config "$1/culprit.toml" build "$rev" >"$1/out" 2>"$1/err"
  end=$(date +%s.%N)
  line="$(grep -o 'ccache: .*' "$1/err" | tail -1)"
  echo "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')|$line"
}

echo "shared-cache.sh: $(git -C "$repo" log --oneline -1 "$rev"), $rounds round(s), $(ccache --version | head -1)"
ratios=()
for ((r = 1; r <= rounds; ++r)); do
  rm -f "$work/redis.sock"
  redis-server --port 0 --unixsocket "$work/redis.sock" --save '' --appendonly no \
    --dir "$work" >"$work/redis.log" 2>&1 &
  redis_pid=$!
  for _ in $(seq 200); do [[ -S "$work/redis.sock" ]] && break; sleep 0.05; done
  host_config "$work/r$r-a"
  host_config "$work/r$r-b"
  IFS='|' read -r cold cold_line <<<"$(timed_build "$work/r$r-a")"
  IFS='|' read -r warm warm_line <<<"$(timed_build "$work/r$r-b")"
  ratio=$(awk -v c="$cold" -v w="$warm" 'BEGIN { printf "%.2f", c / w }')
  ratios+=("$ratio")
  printf 'round %d: host A cold %6.1f s (%s)\n' "$r" "$cold" "$cold_line"
  printf '         host B      %6.1f s (%s)   cold / shared = %s\n' "$warm" "$warm_line" "$ratio"
  kill "$redis_pid"; wait "$redis_pid" 2>/dev/null || true; redis_pid=""
done
echo "ratios cold / shared: ${ratios[*]}"
