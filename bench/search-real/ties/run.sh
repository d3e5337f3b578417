#!/usr/bin/env bash
# The last hole first among df-pn's ties: the real positions of 20 to 29
# stones of ../pairs-top/real-800.fens at 1 s a position, both cores, the
# build before (f558644, hole 1 first) and this one alternated position by
# position, over the DTC tables to 11 and every tuzdyk pair's tables to 14
# (docs/performance.md, "The last hole first among ties"). Resumable: run
# it again after an interruption.
#
#   bash bench/search-real/ties/run.sh BEFORE_SEARCH_MEASURE SEARCH_MEASURE T11 P14 OUT
#
# T11: `togyz-gen generate --metric dtc --max-stones 11`. P14: `togyz-gen
# generate --metric dtc --max-stones 14 --wdl-from 1 --wdl-pairs all`.
set -euo pipefail
before=$1 after=$2 t11=$3 p14=$4 out=$5
here=$(dirname "$0")
python3 "$here/../alternate.py" --stream "$here/../pairs-top/real-800.fens" "$out" \
    "before=$before --tables $p14 --tables $t11 --seconds 1" \
    "after=$after --tables $p14 --tables $t11 --seconds 1"
python3 "$here/../summarise.py" "$out/before.csv" "$out/after.csv"
