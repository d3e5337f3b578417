#!/usr/bin/env bash
# Each new level of the next five pairs against a search over the level
# below it: the real positions of 17 and 18 stones with both tuzdyks in
# 3-6, 4-6, 1-2, 1-4 or 7-8 (every position of every game,
# `real_positions --games real-games-1000.txt --bands 17-17 --per-band
# 100000 --per-game 1000 --seed 1 --pairs 3-6,4-6,1-2,1-4,7-8`, and the
# same for 18-18), read from the new level's table
# and searched at 1 s over the levels below (docs/performance.md, "The
# next five pairs, to 18 stones").
#
#   bash bench/search-real/pairs-top2/check.sh SEARCH_MEASURE T12 TOP2 OUT
#
# TOP2 as for run.sh (it holds every pair's levels 1 to 16).
set -euo pipefail
sm=$1 t12=$2 top2=$3 out=$4
here=$(dirname "$0")
mkdir -p "$out/below17" "$out/below18"
bash "$here/../link-levels.sh" "$top2" "$out/below17" 16
bash "$here/../link-levels.sh" "$top2" "$out/below18" 17
f17=$here/real-17-next-pairs.fens f18=$here/real-18-next-pairs.fens
"$sm" --tables "$t12" --tables "$out/below18" --seconds 1 --fens "$f17" --out "$out/level17-table.csv"
"$sm" --tables "$t12" --tables "$out/below17" --seconds 1 --fens "$f17" --out "$out/level17-search16.csv"
"$sm" --tables "$t12" --tables "$top2" --seconds 1 --fens "$f18" --out "$out/level18-table.csv"
"$sm" --tables "$t12" --tables "$out/below18" --seconds 1 --fens "$f18" --out "$out/level18-search17.csv"
python3 "$here/../../../scripts/search-agree.py" "$out"/level17-*.csv
python3 "$here/../../../scripts/search-agree.py" "$out"/level18-*.csv
