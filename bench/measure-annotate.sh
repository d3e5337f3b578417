#!/usr/bin/env bash
# How far back `togyz-probe annotate` settles self-play games, and how long
# it takes (docs/performance.md, "Annotating games"). The games are the
# seed's first GAMES self-play games of `search_measure` (the games the
# positions of the search grid come from), from the initial position to
# the end. Prints, over all games: the plies settled (from the first
# settled position to the end), the median stones on the board at the
# first settled position, and the wall time. PROBE picks the binary
# (default: target/release/togyz-probe, built here).
#
#   bench/measure-annotate.sh TABLES_DIR SECONDS [GAMES (30)] [SEED (1)]
#   PROBE=/tmp/old-probe bench/measure-annotate.sh /work/tables8 0.5
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
    echo "usage: $0 TABLES_DIR SECONDS [GAMES (30)] [SEED (1)]" >&2
    exit 2
fi
tables=$1 seconds=$2 games=${3:-30} seed=${4:-1}
cargo build --release -q -p togyz-tb --example search_measure
[ -n "${PROBE:-}" ] || cargo build --release -q -p togyz-cli
probe=${PROBE:-target/release/togyz-probe}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/release/examples/search_measure --games-out "$work/games.txt" --games "$games" --seed "$seed"
start=$(date +%s.%N)
# Exit code 2 would mean a game could not be replayed: a bug here.
"$probe" annotate --tables "$tables" --search-time "$seconds" --json "$work/games.txt" > "$work/out.json"
end=$(date +%s.%N)
python3 - "$work/out.json" "$start" "$end" <<'PY'
import json, statistics, sys
games = [json.loads(l) for l in open(sys.argv[1])]
def stones(fen):
    return sum(int(p[:-1]) for p in fen.split()[0].replace("/", ",").split(",") if p.endswith("S"))
settled, at = 0, []
for g in games:
    first = g["first_settled"]
    if first is None:
        continue
    settled += g["plies"] - first
    move = [m for m in g["moves"] if m["ply"] == first + 1]
    if move:
        at.append(stones(move[0]["fen_before"]))
seconds = float(sys.argv[3]) - float(sys.argv[2])
print(f"{len(games)} games, {sum(g['plies'] for g in games)} plies: {settled} settled; "
      f"median stones at the first settled position {statistics.median(at):g}; {seconds:.1f} s")
PY
