#!/usr/bin/env python3
"""Summarises bench/search-memory.sh's output folder: one row a build and
bound (proven, median and mean time of a proof, time of a position left
open past its limit, the run's wall, CPU and peak memory).

    python3 bench/search-memory-summary.py bench/search-memory/s20-1s
"""
import csv
import re
import statistics
import sys
from pathlib import Path

out = Path(sys.argv[1])
print("| build | bound | proven | median proof | mean proof | slowest open (limit) | wall | CPU (user + kernel) | peak memory |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for m in ["64M", "default", "2G", "8G"]:
    for b in ["before", "after"]:
        f = out / f"{b}-{m}.csv"
        t = out / f"{b}-{m}.time"
        if not f.exists() or not t.exists() or not t.read_text().strip():
            continue
        rows = list(csv.DictReader(f.open()))
        proofs = [float(r["seconds"]) for r in rows if r["result"] != "unknown"]
        open_ = [float(r["seconds"]) for r in rows if r["result"] == "unknown"]
        limit = rows[0]["seconds_limit"] if rows else "?"
        time = t.read_text().strip().splitlines()[-1]
        g = dict(re.findall(r"(wall|user|kernel|peak) ([\d.]+)", time))
        cpu = float(g["user"]) + float(g["kernel"])
        print(
            f"| {b} | {m} | {len(proofs)} of {len(rows)} | "
            f"{statistics.median(proofs) if proofs else 0:.3f} s | "
            f"{statistics.mean(proofs) if proofs else 0:.3f} s | "
            f"{max(open_) if open_ else 0:.2f} s ({limit} s) | {float(g['wall']):.1f} s | "
            f"{cpu:.1f} s ({g['user']} + {g['kernel']}) | {int(g['peak']) / 1000:.0f} MB |"
        )
