#!/usr/bin/env bash
# Does one sitting cancel a drifting host? A 4-query, 2-arm table of real programs (gzip -6
# against bzip2 -1, each compressing one of four inputs), measured three ways in one run:
#
#   1. quiet:      `culprit table` on the host as it is;
#   2. drifting:   the same table, with CPU hogs (one busy loop per CPU) started halfway
#                  through it (after half the quiet table's wall time) and left running;
#   3. separate:   the two arms as two sittings, one arm each (`culprit run`): gzip on the
#                  quiet host, then bzip2 with the hogs running, as a table measured "before
#                  and after" at two different times would be. Its ratio is bzip2's median
#                  over gzip's.
#
# Printed per query: the quiet table's ratio (bzip2 / gzip), the drifting table's, and the
# separate sittings', each with its difference from the quiet table. The issue's goal: every
# ratio of the drifting table within ±3% of the quiet one, where the separate sittings are
# off by the drift. Every table has a fixed number of blocks (--blocks) so that both see the
# same design; nothing else runs a build or a measurement meanwhile (run it under the lock
# other jobs take, e.g. `flock /tmp/culprit-heavy.lock bench/table/drift.sh`).
#
# Usage: bench/table/drift.sh [--culprit PATH] [--blocks N] [--hogs N] [--seed S]
# Needs jq, gzip, bzip2, python3. Takes about 3 minutes on 2 cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
culprit="${CULPRIT:-$root/build/cli/culprit}"
blocks=40
hogs="$(nproc)"
seed=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --culprit) culprit="$2"; shift 2 ;;
    --blocks) blocks="$2"; shift 2 ;;
    --hogs) hogs="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "drift.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for tool in jq gzip bzip2 python3; do
  command -v "$tool" > /dev/null || { echo "drift.sh: needs $tool (apt-get install $tool)" >&2; exit 2; }
done

work="$(mktemp -d)"
hog_pids=()
stop_hogs() {
  for pid in "${hog_pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  for pid in "${hog_pids[@]}"; do wait "$pid" 2> /dev/null || true; done
  hog_pids=()
}
start_hogs() {
  for _ in $(seq "$hogs"); do
    (while :; do :; done) &
    hog_pids+=("$!")
  done
}
trap 'stop_hogs; rm -rf "$work"' EXIT
cd "$work"

# Four inputs of different character, the same on every run (seeded or generated).
seq 1 400000 > numbers.txt
python3 -c "import random,sys; random.seed(3); sys.stdout.write(''.join(f'2026-12-04T{random.randrange(24):02}:{random.randrange(60):02} GET /api/v{random.randrange(3)}/item/{random.randrange(10**6)} {random.choice([200,200,200,404,500])} {random.randrange(10**4)}ms\\n' for _ in range(60000)))" \
  > log.txt
python3 -c "import random,sys; random.seed(1); sys.stdout.buffer.write(random.randbytes(1500000))" \
  > random.bin
python3 -c "import random,sys; random.seed(2); w=['select','from','where','join','on','group','by','order','limit']; sys.stdout.write(' '.join(random.choice(w) for _ in range(400000)))" \
  > words.txt
queries=(numbers.txt log.txt random.bin words.txt)
arm_a='gzip -6 -c {query} > /dev/null'
arm_b='bzip2 -1 -c {query} > /dev/null'
q_flags=()
for q in "${queries[@]}"; do q_flags+=(-q "$q"); done

table() {  # table SEED OUT: one fixed-size table, its record as JSON in OUT
  "$culprit" table "${q_flags[@]}" --min-pairs "$blocks" --max-pairs "$blocks" --seed "$1" \
    --format json -- "$arm_a" -- "$arm_b" > "$2" 2> "$2.err" || true
  # What the sitting noticed about the host (a calibration drift, a load change), as recorded.
  jq -r '.notes[]? | select(test("drift|load|changed"))' "$2" 2> /dev/null |
    sed 's/^/   culprit noted: /' || true
}
ratio_of() {  # ratio_of RECORD ROW: the cell's ratio and interval, or "-"
  jq -r --argjson row "$2" \
    '.payload.cells[] | select(.row == $row and .arm == 1) |
     if .ratio == null then "-" else "\(.ratio) \(.low) \(.high)" end' "$1"
}

echo "== 1. quiet table: ${#queries[@]} queries x 2 arms, $blocks blocks (seed $seed)"
start=$(date +%s.%N)
table "$seed" quiet.json
quiet_seconds=$(python3 -c "import time; print(round(time.time() - $start, 1))")
echo "   took ${quiet_seconds} s"

half=$(python3 -c "print($quiet_seconds / 2)")
echo "== 2. the same table; $hogs CPU hogs start after ${half} s"
( sleep "$half"; echo "   (hogs started)" ) &
sleeper=$!
table "$((seed + 1))" drifting.json &
table_pid=$!
wait "$sleeper"
start_hogs
wait "$table_pid"
stop_hogs

echo "== 3. two separate sittings: gzip alone on the quiet host, then bzip2 alone with $hogs hogs"
declare -A median_a=() median_b=()
for q in "${queries[@]}"; do
  "$culprit" run -n "$blocks" --seed "$seed" --json -- sh -c "${arm_a//\{query\}/$q}" > "a-$q.json"
  median_a[$q]=$(jq '.arms[0].median' "a-$q.json")
done
start_hogs
for q in "${queries[@]}"; do
  "$culprit" run -n "$blocks" --seed "$seed" --json -- sh -c "${arm_b//\{query\}/$q}" > "b-$q.json"
  median_b[$q]=$(jq '.arms[0].median' "b-$q.json")
done
stop_hogs

echo
echo "ratios bzip2 -1 / gzip -6 (the table's: Hodges-Lehmann with its interval; separate: medians)"
rows=""
for i in "${!queries[@]}"; do
  q="${queries[$i]}"
  rows+="$q|$(ratio_of quiet.json "$i")|$(ratio_of drifting.json "$i")|${median_a[$q]}|${median_b[$q]}"$'\n'
done
ROWS="$rows" python3 - << 'EOF'
import os
rows = [r.split("|") for r in os.environ["ROWS"].strip().split("\n")]
print(f"{'query':<12} {'quiet table':<26} {'drifting table':<26} {'vs quiet':>8}  "
      f"{'separate':>8} {'vs quiet':>8}")
worst_table, worst_separate, missing = 0.0, 0.0, False
for q, quiet, drifting, a, b in rows:
    if quiet == "-" or drifting == "-":
        print(f"{q:<12} a cell has no ratio (see the records' errors)")
        missing = True
        continue
    qr, ql, qh = map(float, quiet.split())
    dr, dl, dh = map(float, drifting.split())
    sr = float(b) / float(a)
    dt, ds = dr / qr - 1, sr / qr - 1
    worst_table, worst_separate = max(worst_table, abs(dt)), max(worst_separate, abs(ds))
    print(f"{q:<12} {qr:.3f} [{ql:.3f}, {qh:.3f}]{'':5} {dr:.3f} [{dl:.3f}, {dh:.3f}]{'':5} "
          f"{dt:+8.1%}  {sr:8.3f} {ds:+8.1%}")
if not missing:
    print(f"\ndrifting table: largest difference from the quiet table {worst_table:.1%} "
          f"({'within' if worst_table <= 0.03 else 'NOT within'} ±3%)")
    print(f"separate sittings: largest difference from the quiet table {worst_separate:.1%}")
EOF
