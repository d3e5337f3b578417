#!/usr/bin/env bash
# Paired timing of one job of two togyz-gen builds, the order alternated
# within each pair (A B, then B A), for a tighter comparison than
# speed.sh's three rounds where the machine's own spread is large.
# Prints one CSV line a run (build, pair, wall s, CPU s, peak KB).
#
#   bench/generator-redesign/paired.sh BEFORE_BIN AFTER_BIN WORKDIR PAIRS STONES METRIC
set -euo pipefail
before="$1"; after="$2"; work="$3"; pairs="$4"; n="$5"; metric="$6"
mkdir -p "$work"
echo "build,pair,wall_s,cpu_s,peak_kb"
for p in $(seq 1 "$pairs"); do
    if [ $((p % 2)) = 1 ]; then order="before after"; else order="after before"; fi
    for b in $order; do
        if [ "$b" = before ]; then bin="$before"; else bin="$after"; fi
        rm -rf "$work/$b"
        /usr/bin/time -o "$work/time.txt" -f "%e %U %S %M" \
            "$bin" generate --quiet --max-stones "$n" --metric "$metric" --out "$work/$b" >/dev/null
        read -r wall user sys peak <"$work/time.txt"
        echo "$b,$p,$wall,$(echo "$user + $sys" | bc),$peak"
    done
    for f in "$work/before"/*.tkb; do
        cmp "$f" "$work/after/$(basename "$f")" >&2 || { echo "DIFFER: $f" >&2; exit 1; }
    done
done
