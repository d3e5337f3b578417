#!/usr/bin/env bash
# Side-by-side speed of two builds of togyz-gen (issue 27: the generator
# redesign must generate and verify within 3% of the build before it).
# Generates and verifies the 9-stone set in both metrics with each build,
# alternating the builds within each round (A B, then B A), three rounds;
# prints one CSV line a run (build, job, metric, round, wall s, CPU s,
# peak KB) and checks that both builds' files are byte-identical.
#
#   bench/generator-redesign/speed.sh BEFORE_BIN AFTER_BIN WORKDIR [ROUNDS] [STONES]
set -euo pipefail
before="$1"; after="$2"; work="$3"; rounds="${4:-3}"; n="${5:-9}"
mkdir -p "$work"
echo "build,job,metric,round,wall_s,cpu_s,peak_kb"
one() { # build bin job metric round
    local name="$1" bin="$2" job="$3" metric="$4" round="$5" out="$work/$1-$4"
    local t="$work/time.txt"
    if [ "$job" = generate ]; then
        rm -rf "$out"
        /usr/bin/time -o "$t" -f "%e %U %S %M" "$bin" generate --quiet --max-stones "$n" --metric "$metric" --out "$out" >/dev/null
    else
        /usr/bin/time -o "$t" -f "%e %U %S %M" "$bin" verify --quiet --tables "$out" >/dev/null
    fi
    read -r wall user sys peak <"$t"
    echo "$name,$job,$metric,$round,$wall,$(echo "$user + $sys" | bc),$peak"
}
for r in $(seq 1 "$rounds"); do
    for job in generate verify; do
        for metric in dtm dtc; do
            if [ $((r % 2)) = 1 ]; then order="before after"; else order="after before"; fi
            for b in $order; do
                if [ "$b" = before ]; then bin="$before"; else bin="$after"; fi
                one "$b" "$bin" "$job" "$metric" "$r"
            done
        done
    done
    for metric in dtm dtc; do
        for f in "$work/before-$metric"/*.tkb; do
            cmp "$f" "$work/after-$metric/$(basename "$f")" >&2 || { echo "DIFFER: $f" >&2; exit 1; }
        done
    done
done
echo "byte-identical: every table of both builds, both metrics, every round" >&2
