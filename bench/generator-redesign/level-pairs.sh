#!/usr/bin/env bash
# Paired per-level timing of `generate` for two togyz-gen builds, order
# alternated within each pair: the solve and assembly seconds each build
# reports for every level, and the run's CPU seconds. Finer than whole
# runs when the machine's speed drifts from minute to minute.
# Prints CSV: build, pair, stones, solve_s, assemble_s, run_cpu_s.
#
#   bench/generator-redesign/level-pairs.sh BEFORE_BIN AFTER_BIN WORKDIR PAIRS STONES [METRIC]
set -euo pipefail
before="$1"; after="$2"; work="$3"; pairs="$4"; n="$5"; metric="${6:-dtm}"
mkdir -p "$work"
echo "build,pair,stones,solve_s,assemble_s,run_cpu_s"
for p in $(seq 1 "$pairs"); do
    if [ $((p % 2)) = 1 ]; then order="before after"; else order="after before"; fi
    for b in $order; do
        if [ "$b" = before ]; then bin="$before"; else bin="$after"; fi
        rm -rf "$work/$b"
        /usr/bin/time -o "$work/time.txt" -f "%U %S" \
            "$bin" generate --max-stones "$n" --metric "$metric" --out "$work/$b" >"$work/out.txt" 2>&1
        read -r user sys <"$work/time.txt"
        cpu=$(echo "$user + $sys" | bc)
        # "8 stones: ... solved in 13.1s into ..." and "8 stones: table assembled in 3.0s: ..."
        awk -v b="$b" -v p="$p" -v cpu="$cpu" '
            / solved in / { s=$1; for (i=1;i<=NF;i++) if ($i=="in" && $(i-1)=="solved") { t=$(i+1); sub("s","",t); solve[s]=t } }
            / assembled in / { s=$1; for (i=1;i<=NF;i++) if ($i=="in" && $(i-1)=="assembled") { t=$(i+1); sub("s:","",t); sub("s","",t); asm[s]=t } }
            END { for (s in solve) print b "," p "," s "," solve[s] "," asm[s] "," cpu }' "$work/out.txt" | sort -t, -k3 -n
    done
done
