#!/usr/bin/env bash
# The tables issue 36's measurements search over, made in the order that
# pays most first, each step resumable (`togyz-gen generate` keeps every
# finished table and unit): run it again after an interruption, and it
# goes on where it stopped.
#
#   bash bench/search-real/tables36.sh TOGYZ_GEN WORK [STEP...]
#
# Steps (all, in this order, when none is named):
#   t11   DTC tables 1-11 (WORK/t11; 10 minutes on this machine)
#   p14   every tuzdyk pair's WDL tables 1-14 (WORK/p14; 35 minutes)
#   top   the five pairs games reach most to 18, over p14 (WORK/top;
#         about 1.5 hours)
#   top2  the next five pairs to 18, over p14 (WORK/top2; about as long)
#   p16   every pair to 16, over p14 (WORK/p16; about 1.7 hours)
# The searches then take `--tables WORK/t11 --tables WORK/top` (and so on),
# as docs/performance.md says. Runs at nice 19, so that searches measured
# meanwhile keep their cores (stop it with SIGSTOP while measuring, to be
# fair to both sides of a comparison).
set -euo pipefail
gen=$1 work=$2
shift 2
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(t11 p14 top top2 p16)
mkdir -p "$work"

# A pairs run over p14: p14's files linked into OUT first (the same
# bytes, no copy), then the run from there.
over_p14() {
    local out=$1 stones=$2 pairs=$3
    mkdir -p "$out"
    for f in "$work"/p14/togyz-*.tkb; do
        [ -e "$out/$(basename "$f")" ] || ln "$f" "$out/"
    done
    nice -n 19 "$gen" generate --metric dtc --max-stones "$stones" --wdl-from 1 \
        --wdl-pairs "$pairs" --out "$out" --threads 2
}

for step in "${steps[@]}"; do
    echo "== $step: $(date -u +%FT%TZ)"
    case $step in
    t11) nice -n 19 "$gen" generate --metric dtc --max-stones 11 --out "$work/t11" --threads 2 ;;
    p14) nice -n 19 "$gen" generate --metric dtc --max-stones 14 --wdl-from 1 --wdl-pairs all \
        --out "$work/p14" --threads 2 ;;
    top) over_p14 "$work/top" 18 1-6,4-7,6-7,2-8,5-6 ;;
    top2) over_p14 "$work/top2" 18 3-6,4-6,1-2,1-4,7-8 ;;
    p16) over_p14 "$work/p16" 16 all ;;
    *)
        echo "unknown step: $step (t11, p14, top, top2, p16)" >&2
        exit 2
        ;;
    esac
done
echo "== done: $(date -u +%FT%TZ)"
