#!/usr/bin/env bash
# Five tuzdyk pairs taken two levels further: the real positions of 20
# to 29 stones of real-800.fens (400 a band, drawn from all 1,000 games
# by `real_positions --bands 20-29 --per-band 400 --seed 59`) at 1 s a
# position, both cores, the DTC tables to 12 with every pair's tables
# to 16 (p16), then with the five pairs' level 17 (top17) and 17 and 18
# (top18) above them, alternated position by position
# (docs/performance.md, "The pairs that games reach most, to 18
# stones"). Resumable: run it again after an interruption.
#
#   bash bench/search-real/pairs-top/run.sh SEARCH_MEASURE T12 PAIRS16 TOP OUT
#
# PAIRS16: `togyz-gen generate --metric dtc --max-stones 16 --wdl-from 1
# --wdl-pairs all`. TOP: PAIRS16's levels linked into a folder, then
# `togyz-gen generate --metric dtc --max-stones 18 --wdl-from 1
# --wdl-pairs 1-6,4-7,6-7,2-8,5-6 --out TOP`. TOP's levels 1 to 17 are
# linked into OUT/top17; delete it afterwards.
set -euo pipefail
sm=$1 t12=$2 pairs=$3 top=$4 out=$5
here=$(dirname "$0")
bash "$here/../link-levels.sh" "$top" "$out/top17" 17
python3 "$here/../alternate.py" --stream "$here/real-800.fens" "$out" \
    "p16=$sm --tables $t12 --tables $pairs --seconds 1" \
    "top17=$sm --tables $t12 --tables $out/top17 --seconds 1" \
    "top18=$sm --tables $t12 --tables $top --seconds 1"
