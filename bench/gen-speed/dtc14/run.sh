#!/bin/bash
# resumable: rerun this script to continue
cd /work/main/tables/dtc14
echo "=== segment start $(date -u)" >> /work/dtc14.log
/usr/bin/time -v nice -n 15 /work/gen-fwd2 generate --metric dtc --max-stones 14 --out /work/main/tables/dtc14 --threads 2 --max-memory 16G --quiet >> /work/dtc14.log 2>&1
echo "=== segment end rc=$? $(date -u)" >> /work/dtc14.log
