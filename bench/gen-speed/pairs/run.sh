#!/bin/sh
# WDL tables of three tuzdyk pairs (the three commonest of the real
# positions of 20-29 stones in bench/search-real/real-200.fens) from 13
# stones up, over the DTC tables up to 12 of tables/dtc14 (hard links).
# The 14-stone DTC generation was stopped (SIGSTOP) while this ran.
set -e
OUT=${OUT:-/work/p15}
MAX=${MAX:-15}
/usr/bin/time -v togyz-gen generate --metric dtc --max-stones "$MAX" --wdl-from 13 \
  --wdl-pairs 1-6,6-7,4-7 --out "$OUT" --threads 2 --max-memory 11G
