#!/usr/bin/env python3
"""The markdown table docs/performance.md gives for a speed.sh CSV: each
job's wall times by round for both builds, the means, the differences of
the mean wall and CPU times (after against before) and the peak memory.

    python3 bench/generator-redesign/summarise.py speed.csv
"""
import csv
import sys
from collections import defaultdict
from statistics import mean

runs = defaultdict(list)
with open(sys.argv[1]) as f:
    for row in csv.DictReader(f):
        runs[(row["job"], row["metric"], row["build"])].append(row)

print("| job | before, s, by round | after, s, by round | mean before | mean after"
      " | wall | CPU | peak memory before / after |")
print("|---|---|---|---|---|---|---|---|")
for job in ("generate", "verify"):
    for metric in ("dtm", "dtc"):
        b, a = runs[(job, metric, "before")], runs[(job, metric, "after")]
        if not b or not a:
            continue
        wb, wa = [float(r["wall_s"]) for r in b], [float(r["wall_s"]) for r in a]
        cb, ca = [float(r["cpu_s"]) for r in b], [float(r["cpu_s"]) for r in a]
        mb = max(int(r["peak_kb"]) for r in b) // 1024
        ma = max(int(r["peak_kb"]) for r in a) // 1024
        print(f"| {job} {metric.upper()} | {' / '.join(f'{x:.2f}' for x in wb)}"
              f" | {' / '.join(f'{x:.2f}' for x in wa)}"
              f" | {mean(wb):.1f} | {mean(wa):.1f}"
              f" | {100 * (mean(wa) / mean(wb) - 1):+.1f}%"
              f" | {100 * (mean(ca) / mean(cb) - 1):+.1f}%"
              f" | {mb} / {ma} MB |")
