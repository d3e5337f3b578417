#!/usr/bin/env python3
"""Share of real games in which a live position is proven, from the two
positions that decide it, several builds or table sets side by side.

  real_positions --games GAMES.txt --last > LAST.tsv
  bench/search-real/game-share.py LAST.tsv OUT_DIR \\
      'before=/tmp/before/search_measure --tables T8 --seconds 1' \\
      'after=target/release/examples/search_measure --tables T12 --tables PAIRS --seconds 1'

`togyz-probe annotate` walks a game from its end backwards and counts only
the unbroken run of evaluated positions that reaches the end, so it
settles a live position of a game exactly when the final position and the
position before the last move both evaluate (by the rules, the tables or a
proof). This script asks each variant about the final position of each
game and, where that is proven, about the position before the last move:
the game-level figure of issue 36 at a cost of one or two searches a game,
not a walk through the whole game. Each position is searched on its own
(annotate keeps one solver for a game, so a proof of the final position
can help the one before: annotate's own figure can only be higher).
Games that do not replay are not in LAST.tsv, so they are left out here,
where annotate counts them unsettled.

The variants take turns, the order rotating from one game to the next, so
that a machine whose speed drifts treats them alike. Each variant writes
NAME.csv (search_measure's lines) and NAME.games (a line a game: index,
settled 0/1) in OUT_DIR; a game already in NAME.games is skipped, so a run
stopped can be started again. Prints the shares, their 95 % intervals and
the games each variant settles that the first does not, and the other way
round.
"""
import csv
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from alternate import variants_of  # noqa: E402


def proven(csv_path, fen):
    """Whether the last line of `fen` in a search_measure CSV is proven."""
    result = None
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            if row["fen"] == fen:
                result = row["result"] != "unknown"
    if result is None:
        raise SystemExit(f"{csv_path}: no line for {fen}")
    return result


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    games = {}
    for line in open(sys.argv[1]):
        index, which, fen = line.rstrip("\n").split("\t")
        games.setdefault(int(index), {})[which] = fen
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    variants = variants_of(sys.argv[3:])
    done = {}
    for name, _, _ in variants:
        path = os.path.join(out, name + ".games")
        done[name] = {}
        if os.path.exists(path):
            for line in open(path):
                i, s = line.split()
                done[name][int(i)] = s == "1"
    with tempfile.TemporaryDirectory() as tmp:
        one = os.path.join(tmp, "one.fens")

        def search(words, env, name, fen):
            with open(one, "w") as f:
                f.write(fen + "\n")
            path = os.path.join(out, name + ".csv")
            subprocess.run(words + ["--fens", one, "--out", path], env=env,
                           stdout=subprocess.DEVNULL, check=True)
            return proven(path, fen)

        for n, (index, pair) in enumerate(sorted(games.items())):
            k = n % len(variants)
            for name, words, env in variants[k:] + variants[:k]:
                if index in done[name]:
                    continue
                settled = search(words, env, name, pair["final"]) and search(
                    words, env, name, pair["before"])
                done[name][index] = settled
                with open(os.path.join(out, name + ".games"), "a") as f:
                    f.write(f"{index} {int(settled)}\n")
            if (n + 1) % 50 == 0:
                print(f"{n + 1} of {len(games)} games", flush=True)
    first = variants[0][0]
    common = set.intersection(*(set(done[name]) for name, _, _ in variants))
    print(f"{len(common)} games measured by every variant")
    for name, _, _ in variants:
        k = sum(done[name][i] for i in common)
        p = k / len(common) if common else 0.0
        half = 1.96 * math.sqrt(p * (1 - p) / len(common)) if common else 0.0
        line = f"{name}: {k} of {len(common)} settle a live position ({100 * p:.1f} % +- {100 * half:.1f})"
        if name != first:
            gained = sum(done[name][i] and not done[first][i] for i in common)
            lost = sum(done[first][i] and not done[name][i] for i in common)
            line += f", against {first} +{gained} / -{lost}"
        print(line)


if __name__ == "__main__":
    main()
