#!/usr/bin/env bash
# Each new level against a search over the level below it: the real
# positions of 17 and 18 stones in the five pairs (every position of
# every game, `real_positions --games real-games-1000.txt --bands 17-18
# --per-band 100000 --per-game 1000 --seed 1 --pairs 1-6,6-7,4-7,2-8,5-6`
# gives them all, split here by stones), read from the new level's table and
# searched at 1 s over the levels below (docs/performance.md, "The five
# pairs games reach most, to 18 stones").
#
#   bash bench/search-real/pairs-top/check/run.sh SEARCH_MEASURE T12 PAIRS16 TOP OUT
#
# PAIRS16 and TOP as for ../run.sh; OUT/top17 holds TOP's levels 1 to 17.
set -euo pipefail
sm=$1 t12=$2 pairs=$3 top=$4 out=$5
here=$(dirname "$0")
mkdir -p "$out/only17"
ln -f "$top/togyz-17.tkb" "$out/only17/togyz-17.tkb"
bash "$here/../../link-levels.sh" "$top" "$out/top17" 17
f17=$here/real-17-five-pairs.fens f18=$here/real-18-five-pairs.fens
"$sm" --tables "$t12" --tables "$pairs" --tables "$out/only17" --seconds 1 --fens "$f17" --out "$out/level17-table.csv"
"$sm" --tables "$t12" --tables "$pairs" --seconds 1 --fens "$f17" --out "$out/level17-search16.csv"
"$sm" --tables "$t12" --tables "$top" --seconds 1 --fens "$f18" --out "$out/level18-table.csv"
"$sm" --tables "$t12" --tables "$out/top17" --seconds 1 --fens "$f18" --out "$out/level18-search17.csv"
python3 "$here/../../../../scripts/search-agree.py" "$out"/level17-*.csv
python3 "$here/../../../../scripts/search-agree.py" "$out"/level18-*.csv
