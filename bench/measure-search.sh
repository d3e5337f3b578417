#!/usr/bin/env bash
# Share of self-play positions above the tables that proof search settles,
# by stone count and time limit (docs/performance.md, "Proof search above the
# tables"). Resumable: positions already in the CSV for a limit are skipped.
# Give the limits in increasing order. With PAUSE_FILE set, the run waits
# between two positions while that file exists (to build on the same cores
# without measuring beside the build).
#
#   bench/measure-search.sh TABLES_DIR OUT.csv [STONES [PER_COUNT [SECONDS...]]]
#   bench/measure-search.sh /work/tables8 t8.csv 12-16 100 2 10
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
    echo "usage: $0 TABLES_DIR OUT.csv [STONES (12-22)] [PER_COUNT (500)] [SECONDS... (1 10)]" >&2
    exit 2
fi
tables=$1 out=$2 stones=${3:-12-22} per=${4:-500}
shift $(( $# < 4 ? $# : 4 ))
limits=("$@")
[ ${#limits[@]} -gt 0 ] || limits=(1 10)
cargo build --release -q -p togyz-tb --example search_measure
# Limits in increasing order: with --reuse, a position proven under a
# smaller limit is copied, not searched again.
for s in "${limits[@]}"; do
    target/release/examples/search_measure --tables "$tables" --stones "$stones" \
        --per-count "$per" --seconds "$s" --reuse --out "$out" \
        ${PAUSE_FILE:+--pause-file "$PAUSE_FILE"}
done
