#!/usr/bin/env python3
"""Checks that the search measurements agree with each other.

    python3 scripts/search-agree.py bench/search-measure/*.csv

Every CSV of `search_measure` (probe/examples/search_measure.rs) holds one
line per position searched: its proven result or the interval shown. The
same position is searched in many files (other tables, limits, builds), so
no two proven results of one FEN may differ, and every interval shown must
hold every proven result. Exits 1, listing them, if any contradict.
"""
import csv
import sys

RANK = {"loss": 0, "draw": 1, "win": 2}


def main(paths):
    lines = {}
    count = 0
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                count += 1
                lines.setdefault(row["fen"], []).append((path, row))
    bad = 0
    for fen, rows in lines.items():
        proven = {r["result"] for _, r in rows if r["result"] != "unknown"}
        if len(proven) > 1:
            bad += 1
            print(f"proven differently: {fen}: {sorted(proven)}")
        for value in proven:
            for path, r in rows:
                if not RANK[r["lower"]] <= RANK[value] <= RANK[r["upper"]]:
                    bad += 1
                    print(f"{path}: {fen}: [{r['lower']}, {r['upper']}] misses {value}")
    print(f"{count} lines, {len(lines)} positions, {len(paths)} files: {bad} contradictions")
    return 1 if bad or not count else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
