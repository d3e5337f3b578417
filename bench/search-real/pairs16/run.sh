#!/usr/bin/env bash
# The real positions of 20 to 29 stones of "One guide" (lines 1-520 of
# real-200.fens) at 1 s a position, both cores, the DTC tables to 12 with
# every tuzdyk pair's tables to 15 and to 16 alternated position by
# position (docs/performance.md, "Every tuzdyk pair's tables to 16
# stones"). Resumable: run it again after an interruption.
#
#   bash bench/search-real/pairs16/run.sh SEARCH_MEASURE T12 PAIRS16 OUT
#
# PAIRS16 is `togyz-gen generate --metric dtc --max-stones 16 --wdl-from 1
# --wdl-pairs all --out PAIRS16`; its levels 1 to 15 are linked into
# OUT/pairs15 (the same files as a run to 15 writes).
set -euo pipefail
sm=$1 t12=$2 pairs=$3 out=$4
here=$(dirname "$0")
mkdir -p "$out/pairs15"
for n in $(seq -w 1 15); do
    ln -f "$pairs/togyz-$n.tkb" "$out/pairs15/togyz-$n.tkb"
done
python3 "$here/../alternate.py" --stream "$here/real-2029.fens" "$out" \
    "p15=$sm --tables $t12 --tables $out/pairs15 --seconds 1" \
    "p16=$sm --tables $t12 --tables $pairs --seconds 1"
