#!/usr/bin/env python3
"""The table of docs/performance.md's "Fuzzing" section from the run logs
given (bench/fuzz/run-*.log): one row per log."""
import re
import sys

print("| target | time | CPU | executions | execs/s | coverage (edges) | features | corpus | peak RSS | load at start | crashes |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for path in sys.argv[1:]:
    text = open(path).read()
    target = re.search(r"fuzz run -a (\w+)", text).group(1)
    def stat(name):
        m = re.search(rf"^stat::{name}:\s+(\d+)", text, re.M)
        return int(m.group(1)) if m else None
    done = re.findall(r"^#\d+\s+(?:DONE|REDUCE|NEW|pulse)\s+cov: (\d+) ft: (\d+) corp: (\d+)/(\S+)", text, re.M)
    cov, ft, corp, corp_bytes = done[-1] if done else ("?",) * 4
    real = re.search(r"^real\s+(\S+)", text, re.M)
    cpu = [re.search(rf"^{k}\s+(\d+)m([\d.]+)s", text, re.M) for k in ("user", "sys")]
    cpu = f"{sum(int(m.group(1)) * 60 + float(m.group(2)) for m in cpu) / 60:.1f} min" if all(cpu) else "?"
    load = re.search(r"load ([\d.]+)", text)
    crash = "none" if re.search(r"^# exit 0", text, re.M) else "**see log**"
    runs = stat("number_of_executed_units")
    print(f"| `{target}` | {real.group(1) if real else '?'} | {cpu} | {runs:,} | {stat('average_exec_per_sec'):,} | {cov} | {ft} | {corp} ({corp_bytes}) | {stat('peak_rss_mb')} MB | {load.group(1) if load else '?'} | {crash} |"
          if runs is not None else f"| `{target}` | {real.group(1) if real else '?'} | {cpu} | ? | ? | {cov} | {ft} | {corp} ({corp_bytes}) | ? | {load.group(1) if load else '?'} | {crash} |")
