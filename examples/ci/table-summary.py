#!/usr/bin/env python3
"""A pull request's summary of a `culprit table` record, in Markdown.

    table-summary.py TABLE_JSON [--better lower|higher] [--regressions FILE]
                     [--base-label REV] [--head-label REV]

TABLE_JSON is what `culprit table --format json` prints (the table record).
The summary lists only what a reviewer must read: each cell that moved beyond
the band (EFFECT: a regression or an improvement, by --better), each cell the
sitting could not decide (with culprit's own explanation of what it would
take), and each cell not measured (with its error). When every cell is a tie
it prints nothing at all, so a workflow posts nothing. --regressions FILE
receives the queries that regressed, one per line (empty when none).

Ratios are the column's over the baseline's (the first column), with the
interval culprit reported at the table's family-wise confidence.
"""

import argparse
import json
import sys


def percent(ratio):
    return f"{(ratio - 1) * 100:+.1f}%"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table_json")
    parser.add_argument("--better", choices=["lower", "higher"], default="lower")
    parser.add_argument("--regressions")
    parser.add_argument("--base-label")
    parser.add_argument("--head-label")
    args = parser.parse_args()

    try:
        with open(args.table_json, encoding="utf-8") as f:
            record = json.load(f)
        payload = record["payload"]
        arms = payload["arms"]
        rows = payload["rows"]
        cells = payload["cells"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"table-summary.py: {args.table_json} is not a culprit table record: {e}",
              file=sys.stderr)
        return 1
    if record.get("kind") != "table":
        print(f"table-summary.py: {args.table_json} is a {record.get('kind')!r} record, "
              "not a table", file=sys.stderr)
        return 1

    def arm_name(index):
        if index == 0 and args.base_label:
            return args.base_label
        if index == len(arms) - 1 and len(arms) == 2 and args.head_label:
            return args.head_label
        return arms[index]["name"]

    moved, undecided, missing, regressions = [], [], [], []
    for cell in cells:
        if cell.get("status") == "baseline":
            continue
        query = rows[cell["row"]]["query"]
        unit = rows[cell["row"]].get("unit", "")
        column = arm_name(cell["arm"])
        if cell.get("status") != "measured":
            missing.append(f"- **{query}** · {column}: not measured: {cell.get('error') or 'no samples'}")
            continue
        verdict = cell.get("verdict", "")
        if verdict == "EFFECT" and cell.get("ratio") is not None:
            ratio = cell["ratio"]
            worse = ratio > 1 if args.better == "lower" else ratio < 1
            word = "regression" if worse else "improvement"
            if worse and query not in regressions:
                regressions.append(query)
            moved.append(f"| {query} | {column} | **{word}** {percent(ratio)} | "
                         f"{ratio:.3f} [{cell['low']:.3f}, {cell['high']:.3f}] | {unit} |")
        elif verdict != "NULL":
            explanation = cell.get("explanation") or verdict or "undecided"
            undecided.append(f"- **{query}** · {column}: {verdict or 'undecided'}: {explanation}")

    if args.regressions:
        with open(args.regressions, "w", encoding="utf-8") as f:
            f.write("".join(q + "\n" for q in regressions))

    if not (moved or undecided or missing):
        return 0  # every cell a tie: nothing to say

    band = payload.get("band", 0)
    baseline = arm_name(0)
    out = [f"### culprit: {baseline} → " + ", ".join(arm_name(a) for a in range(1, len(arms))),
           ""]
    out.append(f"Measured in one sitting (record `{record['id']}`), ratios to {baseline}; "
               f"the band is ±{band * 100:g}%, {args.better} is better.")
    if moved:
        out += ["", "| query | column | change | ratio [interval] | metric |",
                "|---|---|---|---|---|"] + moved
        confidence = payload.get("confidence")
        tested = payload.get("cells_tested")
        if confidence and tested:
            out += ["", f"Intervals at {confidence * 100:g}% for the whole table "
                        f"(Bonferroni over {tested} cells)."]
    if undecided:
        out += ["", "Not decided in this sitting (neither shown to move nor shown to tie):"]
        out += undecided
    if missing:
        out += ["", "Not measured:"] + missing
    ties = sum(1 for c in cells if c.get("verdict") == "NULL")
    if ties:
        out += ["", f"{ties} other cell{'' if ties == 1 else 's'} "
                    f"{'ties' if ties == 1 else 'tie'} within the band."]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
