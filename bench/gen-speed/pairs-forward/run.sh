#!/bin/sh
# WDL tables of the three commonest tuzdyk pairs of the real positions of
# 20-34 stones (1-6, 6-7, 4-7) from one stone up, no other table beneath:
# each unit solved forward on draw splits alone. Resumable (run again to
# go on, or with a larger MAX to add levels). Log: generate17.log here.
set -e
OUT=${OUT:-/work/pairs}
MAX=${MAX:-17}
/usr/bin/time -v togyz-gen generate --metric dtc --max-stones "$MAX" --wdl-from 1 \
  --wdl-pairs 1-6,6-7,4-7 --out "$OUT" --threads 2
