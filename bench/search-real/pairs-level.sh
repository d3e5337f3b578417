#!/usr/bin/env bash
# What one more level of tuzdyk pairs' tables proves: the positions of
# FENS at 1 s each, both cores, the DTC tables T12 with every pair's
# tables to LEVEL-1 and to LEVEL, alternated position by position
# (docs/performance.md, "Every tuzdyk pair's tables to 16 stones" and
# "to 17 stones"). Resumable: run it again after an interruption.
#
#   bash bench/search-real/pairs-level.sh SEARCH_MEASURE T12 PAIRS LEVEL FENS OUT
#
# PAIRS is a folder of `togyz-gen generate --metric dtc --max-stones LEVEL
# --wdl-from 1 --wdl-pairs all`; its levels 1 to LEVEL-1 are linked into
# OUT/below (the same files as a run to LEVEL-1 writes). Writes
# OUT/pLEVEL-1.csv and OUT/pLEVEL.csv; delete OUT/below afterwards.
set -euo pipefail
sm=$1 t12=$2 pairs=$3 level=$4 fens=$5 out=$6
here=$(dirname "$0")
below=$((level - 1))
bash "$here/link-levels.sh" "$pairs" "$out/below" "$below"
python3 "$here/alternate.py" --stream "$fens" "$out" \
    "p$below=$sm --tables $t12 --tables $out/below --seconds 1" \
    "p$level=$sm --tables $t12 --tables $pairs --seconds 1"
