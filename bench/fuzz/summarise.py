#!/usr/bin/env python3
"""The table of docs/performance.md's "Fuzzing" section from the run logs
given (bench/fuzz/run-*.log): one row per log."""
import re
import sys

print("| target | time | executions | execs/s | coverage (edges) | features | corpus | peak RSS | load at start | crashes |")
print("|---|---|---|---|---|---|---|---|---|---|")
for path in sys.argv[1:]:
    text = open(path).read()
    target = re.search(r"fuzz run -a (\w+)", text).group(1)
    def stat(name):
        m = re.search(rf"^stat::{name}:\s+(\d+)", text, re.M)
        return int(m.group(1)) if m else None
    done = re.findall(r"^#\d+\s+(?:DONE|REDUCE|NEW|pulse)\s+cov: (\d+) ft: (\d+) corp: (\d+)/(\S+)", text, re.M)
    cov, ft, corp, corp_bytes = done[-1] if done else ("?",) * 4
    real = re.search(r"^real\s+(\S+)", text, re.M)
    load = re.search(r"load ([\d.]+)", text)
    crash = "none" if re.search(r"^# exit 0", text, re.M) else "**see log**"
    runs = stat("number_of_executed_units")
    print(f"| `{target}` | {real.group(1) if real else '?'} | {runs:,} | {stat('average_exec_per_sec'):,} | {cov} | {ft} | {corp} ({corp_bytes}) | {stat('peak_rss_mb')} MB | {load.group(1) if load else '?'} | {crash} |"
          if runs is not None else f"| `{target}` | {real.group(1) if real else '?'} | ? | ? | {cov} | {ft} | {corp} ({corp_bytes}) | ? | {load.group(1) if load else '?'} | {crash} |")
