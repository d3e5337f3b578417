#!/usr/bin/env bash
# Issue 9's benchmark-side proof: the DTC solver's win/draw/loss equals the
# DTM tables' for every position up to MAX stones (default 10), and no DTC
# exceeds the DTM. Uses the DTM tables in FOLDER, generating any that are
# missing first (up to 10 stones: about 7 minutes and 5.4 GB on the quiet
# 2-core machine, docs/performance.md).
#   scripts/dtc-check.sh [MAX] [FOLDER]
set -euo pipefail
cd "$(dirname "$0")/.."
max="${1:-10}"
dir="${2:-tables}"
cargo build --release -p togyz-gen --bin togyz-gen --example dtc_check
target/release/togyz-gen generate --max-stones "$max" --out "$dir"
/usr/bin/time -v target/release/examples/dtc_check "$dir" "$max"
