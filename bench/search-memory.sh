#!/usr/bin/env bash
# Search memory is a ceiling, not a cost (issue 28): the same positions under
# bounds of 64M, the default (442 MB), 2G and 8G, two builds side by side
# (each bound: BEFORE then AFTER), wall time and peak resident memory of
# each run. Resumable: search_measure skips the positions already in a CSV.
#
#   bench/search-memory.sh BEFORE_DIR AFTER_DIR TABLES OUT_DIR [STONES [PER_COUNT [SECONDS]]]
#
# BEFORE_DIR and AFTER_DIR each hold a release `search_measure`
# (`cargo build --release -p togyz-tb --example search_measure`).
set -euo pipefail
if [ $# -lt 4 ]; then
    echo "usage: $0 BEFORE_DIR AFTER_DIR TABLES OUT_DIR [STONES [PER_COUNT [SECONDS]]]" >&2
    exit 2
fi
before=$1 after=$2 tables=$3 out=$4 stones=${5:-20} per=${6:-100} secs=${7:-1}
mkdir -p "$out"
for m in 64M default 2G 8G; do
    for b in before after; do
        dir=$before
        [ "$b" = after ] && dir=$after
        mem=()
        [ "$m" = default ] || mem=(--memory "$m")
        csv="$out/$b-$m.csv"
        /usr/bin/time -f "$b $m: wall %e s, user %U s, kernel %S s, peak %M KB" \
            "$dir/search_measure" --tables "$tables" --stones "$stones" --per-count "$per" \
            --seconds "$secs" "${mem[@]}" --out "$csv" >"$out/$b-$m.log" 2>"$out/$b-$m.time"
        tail -1 "$out/$b-$m.time"
    done
done
