#!/usr/bin/env python3
"""The share proven by band, split into the positions whose tables reach
further in the last file than in the first (its `tables` column larger:
the positions of the pairs whose levels were added) and the others, from
search_measure CSVs.

  python3 bench/search-real/pairs-top/by-pairs.py p16.csv top17.csv top18.csv

Counts the positions every file measured, as summarise.py does.
"""
import collections
import csv
import os
import sys


def main():
    files = sys.argv[1:]
    if not files:
        sys.exit(__doc__)
    runs = [{r["fen"]: r for r in csv.DictReader(open(f))} for f in files]
    common = set(runs[0]).intersection(*runs[1:])
    names = [os.path.basename(f).removesuffix(".csv") for f in files]
    counts = collections.defaultdict(collections.Counter)
    for fen in common:
        stones = int(runs[0][fen]["stones"])
        band = (stones - 15) // 5 * 5 + 15
        first, last = int(runs[0][fen]["tables"]), int(runs[-1][fen]["tables"])
        group = "reaching %d" % last if last > first else "others"
        counts[(band, group)]["n"] += 1
        for name, run in zip(names, runs):
            counts[(band, group)][name] += run[fen]["result"] != "unknown"
    print("| stones | positions | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 2) + "|")
    for (band, group), c in sorted(counts.items()):
        cells = ["%d (%.1f %%)" % (c[n], 100 * c[n] / c["n"]) for n in names]
        print("| %d-%d, %s | %d | %s |" % (band, band + 4, group, c["n"], " | ".join(cells)))


if __name__ == "__main__":
    main()
