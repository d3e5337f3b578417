#!/usr/bin/env python3
"""The share proven by band of stones, from search_measure CSVs, side by side.

  bench/search-real/summarise.py before.csv after.csv [more.csv ...]

Prints a Markdown table: one row per band of 5 stones, one column per file
(its name without .csv), each cell the share proven with its 95 % interval
(normal approximation), and the positions that every file measured (only
those are counted, so that files stopped at different points compare).
A last column counts, for the first two files, the positions the second
proves and the first does not, and the other way round.
"""
import csv
import math
import os
import sys


def load(path):
    rows = {}
    for r in csv.DictReader(open(path)):
        rows[r["fen"]] = (int(r["stones"]), r["result"] != "unknown")
    return rows


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    files = sys.argv[1:]
    runs = [load(f) for f in files]
    common = set(runs[0]).intersection(*runs[1:])
    bands = sorted({(runs[0][f][0] - 15) // 5 * 5 + 15 for f in common})
    names = [os.path.basename(f)[:-4] if f.endswith(".csv") else f for f in files]
    head = "| stones | positions | " + " | ".join(names)
    head += " | gained / lost |" if len(runs) > 1 else " |"
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for b in bands:
        fens = [f for f in common if b <= runs[0][f][0] <= b + 4]
        n = len(fens)
        cells = []
        for run in runs:
            p = sum(run[f][1] for f in fens) / n
            half = 1.96 * math.sqrt(p * (1 - p) / n)
            cells.append(f"{100 * p:.1f} % ± {100 * half:.1f}")
        row = f"| {b}-{b + 4} | {n} | " + " | ".join(cells)
        if len(runs) > 1:
            gained = sum(runs[1][f][1] and not runs[0][f][1] for f in fens)
            lost = sum(runs[0][f][1] and not runs[1][f][1] for f in fens)
            row += f" | +{gained} / -{lost}"
        print(row + " |")


if __name__ == "__main__":
    main()
