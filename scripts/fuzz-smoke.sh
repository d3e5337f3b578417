#!/usr/bin/env bash
# A short run of every fuzz target (fuzz/, README "Fuzzing"): a few seconds
# each from the seeds in fuzz/corpus/, so that CI catches a target that no
# longer builds or a crash the seeds or a short run reach. The long runs are
# done by hand (docs/performance.md, "Fuzzing").
#
# Needs a nightly toolchain and cargo-fuzz; without them it says so and
# skips (exit 0) rather than installing cargo-fuzz, which takes minutes.
#
#   scripts/fuzz-smoke.sh [seconds per target, default 5]
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-${FUZZ_SMOKE_SECONDS:-5}}"

if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    echo "== fuzz smoke: skipped, no rustup with a nightly toolchain (rustup toolchain install nightly)"
    exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "== fuzz smoke: skipped, cargo-fuzz is not installed (cargo install cargo-fuzz)"
    exit 0
fi

echo "== fuzz smoke: every target for ${secs} s (nightly, cargo-fuzz, debug assertions on)"
cd fuzz
start=$SECONDS
cargo +nightly fuzz build -a
echo "   built in $((SECONDS - start)) s"
for t in $(cargo +nightly fuzz list); do
    # New inputs go to run-corpus/ (ignored by git); corpus/ stays the seeds.
    mkdir -p "run-corpus/$t"
    malloc=512
    # A table file of a few KB justifies no large allocation.
    [ "$t" = table ] && malloc=64
    log="run-corpus/$t.log"
    # A fixed seed: CI explores the same way each time, so a failure there
    # is the code's, not the draw's (the long runs by hand vary the seed).
    if ! cargo +nightly fuzz run -a "$t" "run-corpus/$t" "corpus/$t" -- \
        -seed=1 -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -malloc_limit_mb="$malloc" -print_final_stats=1 >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        echo "fuzz target $t failed (the input is in fuzz/artifacts/$t/, the log in fuzz/$log)" >&2
        exit 1
    fi
    echo "-- $t: $(grep -E '^stat::number_of_executed_units' "$log" | grep -oE '[0-9]+$') runs," \
        "$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | grep -oE 'cov: [0-9]+ ft: [0-9]+')"
done
echo "   fuzz smoke done in $((SECONDS - start)) s"
