#!/usr/bin/env bash
# Smaller WDL blocks: the real positions of 20 to 29 stones of
# ../pairs-top/real-800.fens at 1 s a position, both cores, over the DTC
# tables to 11 with every pair's tables to 14 as generated (65536 boards a
# WDL block) and the same pairs' tables written again with 4096 boards a
# block, alternated position by position, with the block cache CACHE
# (docs/performance.md, "Smaller blocks for the search"). Resumable: run
# it again after an interruption.
#
#   bash bench/search-real/small-blocks/run.sh SEARCH_MEASURE T11 P14 RB4096 CACHE OUT
#
# T11: `togyz-gen generate --metric dtc --max-stones 11`. P14: `togyz-gen
# generate --metric dtc --max-stones 14 --wdl-from 1 --wdl-pairs all`.
# RB4096: `togyz-gen reblock --block-boards 4096 --out RB4096
# P14/togyz-1[0-4].tkb`, with P14's levels 1 to 9 linked beside them.
set -euo pipefail
sm=$1 t11=$2 p14=$3 rb=$4 cache=$5 out=$6
here=$(dirname "$0")
python3 "$here/../alternate.py" --stream "$here/../pairs-top/real-800.fens" "$out" \
    "b64k=$sm --tables $p14 --tables $t11 --seconds 1 --cache $cache" \
    "b4k=$sm --tables $rb --tables $t11 --seconds 1 --cache $cache"
