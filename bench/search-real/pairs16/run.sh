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
# --wdl-pairs all --out PAIRS16`. (Until stop 59 this script linked the
# levels below into OUT/pairs15 and named its variants p15 and p16, as
# now.)
set -euo pipefail
here=$(dirname "$0")
bash "$here/../pairs-level.sh" "$1" "$2" "$3" 16 "$here/real-2029.fens" "$4"
