#!/usr/bin/env bash
# Long fuzz runs by hand (docs/performance.md, "Fuzzing"): each target named
# runs for the given seconds from fuzz/corpus/ plus what earlier runs left
# in fuzz/run-corpus/, one after another, at nice 19 so that builds on the
# same machine keep their share. Each log goes to bench/fuzz/run-<target>-<secs>s.log
# with libFuzzer's pulse lines and final statistics (NEW/REDUCE lines are
# counted, the last kept), the wall and CPU time and the load at the end.
# A target whose log already ends in "# exit 0" is skipped, so a chain
# stopped half way is resumed by running the same command again.
#
#   bench/fuzz/run-long.sh <seconds> <target>...
set -euo pipefail
cd "$(dirname "$0")/../.."
secs="$1"; shift
cd fuzz
cargo +nightly fuzz build -a >/dev/null 2>&1
for t in "$@"; do
    log="../bench/fuzz/run-$t-${secs}s.log"
    if [ -f "$log" ] && grep -q '^# exit 0' "$log"; then
        echo "$t: done already ($log)"; continue
    fi
    malloc=512
    [ "$t" = table ] && malloc=64
    mkdir -p "run-corpus/$t"
    raw="run-corpus/$t-${secs}s.raw"
    echo "# $t, $secs s, started $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)" >"$log"
    echo "# nice -n 19 cargo +nightly fuzz run -a $t run-corpus/$t corpus/$t -- -max_total_time=$secs -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=$malloc -print_final_stats=1" >>"$log"
    set +e
    { time nice -n 19 cargo +nightly fuzz run -a "$t" "run-corpus/$t" "corpus/$t" -- \
        -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -malloc_limit_mb="$malloc" -print_final_stats=1 ; } >"$raw" 2>&1
    rc=$?
    set -e
    grep -vE '^#[0-9]+[[:space:]]+(NEW|REDUCE)' "$raw" >>"$log"
    echo "NEW lines: $(grep -cE '^#[0-9]+[[:space:]]+NEW' "$raw"), REDUCE lines: $(grep -cE '^#[0-9]+[[:space:]]+REDUCE' "$raw")" >>"$log"
    grep -E '^#[0-9]+[[:space:]]+NEW' "$raw" | tail -n 1 | sed 's/^/last NEW: /' >>"$log" || true
    echo "# exit $rc at $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$log"
    rm -f "$raw"
    echo "$t: exit $rc ($log)"
done
