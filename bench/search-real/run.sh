#!/usr/bin/env bash
# The proof search on real games, two builds side by side
# (docs/performance.md, "Proof search on real games"):
#   1. positions of real games by band of stones, 1 s each, both cores, the
#      builds alternating position by position;
#   2. the same positions with a node budget (the same figures on any
#      machine);
#   3. the share of games in which annotate proves a live position.
# Resumable: each step skips what its output already holds.
#
#   bench/search-real/run.sh BEFORE_DIR AFTER_DIR TABLES OUT_DIR [PER_BAND [GAMES]]
#
# BEFORE_DIR and AFTER_DIR each hold a build's `togyz-probe` and
# `search_measure` (target/release/togyz-probe and
# target/release/examples/search_measure of `cargo build --release -p togyz-cli
# -p togyz-tb --bins --examples`).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ $# -lt 4 ]; then
    sed -n '2,16p' "$0" >&2
    exit 2
fi
before=$1 after=$2 tables=$3 out=$4 per=${5:-200} games=${6:-150}
record=${GAMES_FILE:-../shared/games/real-games-1000.txt}
mkdir -p "$out"
cargo build --release -q -p togyz-tb --example real_positions
fens=$out/real-$per.fens
[ -s "$fens" ] || target/release/examples/real_positions --games "$record" \
    --bands 15-44 --per-band "$per" > "$fens"
py=bench/search-real
python3 $py/alternate.py "$fens" "$out/time-1s" \
    "before=$before/search_measure --tables $tables --seconds 1" \
    "after=$after/search_measure --tables $tables --seconds 1"
python3 $py/summarise.py "$out/time-1s/before.csv" "$out/time-1s/after.csv"
for b in before after; do
    dir=$before; [ $b = after ] && dir=$after
    mkdir -p "$out/nodes-1m"
    "$dir/search_measure" --tables "$tables" --fens "$fens" --seconds 1 \
        --nodes 1000000 --out "$out/nodes-1m/$b.csv" > /dev/null
done
python3 $py/summarise.py "$out/nodes-1m/before.csv" "$out/nodes-1m/after.csv"
python3 $py/annotate-games.py "$record" "$games" 1 "$out/games-1s" \
    "before=$before/togyz-probe annotate --tables $tables --json --search-time 1" \
    "after=$after/togyz-probe annotate --tables $tables --json --search-time 1"
