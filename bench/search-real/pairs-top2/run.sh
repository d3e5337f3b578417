#!/usr/bin/env bash
# The next five tuzdyk pairs taken to 18 stones: the real positions of 20
# to 29 stones of ../pairs-top/real-800.fens at 1 s a position, both
# cores, the DTC tables to 12 with every pair's tables to 16 and the five
# pairs games reach most to 18 (top), then with the next five pairs'
# levels 17 and 18 beside them (top2), alternated position by position
# (docs/performance.md, "The next five pairs, to 18 stones"). Resumable:
# run it again after an interruption.
#
#   bash bench/search-real/pairs-top2/run.sh SEARCH_MEASURE T12 TOP TOP2 OUT
#
# TOP as for ../pairs-top/run.sh. TOP2: TOP's levels 1 to 16 linked into
# a folder, then `togyz-gen generate --metric dtc --max-stones 18
# --wdl-from 1 --wdl-pairs 3-6,4-6,1-2,1-4,7-8 --out TOP2`. TOP2's levels
# 17 and 18 are linked into OUT/next; delete it afterwards.
set -euo pipefail
sm=$1 t12=$2 top=$3 top2=$4 out=$5
here=$(dirname "$0")
mkdir -p "$out/next"
ln -f "$top2/togyz-17.tkb" "$top2/togyz-18.tkb" "$out/next/"
python3 "$here/../alternate.py" --stream "$here/../pairs-top/real-800.fens" "$out" \
    "top=$sm --tables $t12 --tables $top --seconds 1" \
    "top2=$sm --tables $t12 --tables $top --tables $out/next --seconds 1"
