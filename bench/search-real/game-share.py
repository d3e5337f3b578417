#!/usr/bin/env python3
"""Share of real games in which a live position is proven, from the two
positions that decide it, several builds or table sets side by side.

  real_positions --games GAMES.txt --last > LAST.tsv
  bench/search-real/game-share.py LAST.tsv OUT_DIR \\
      'before=/tmp/before/search_measure --tables T8 --seconds 1' \\
      'after=PLAYED_MOVE=1 target/release/examples/search_measure --keep-solver --tables T12 --tables PAIRS --seconds 1'

`togyz-probe annotate` walks a game from its end backwards and counts only
the unbroken run of evaluated positions that reaches the end, so it
settles a live position of a game exactly when the final position and the
position before the last move both evaluate (by the rules, the tables or a
proof). This script asks each variant about the final position of each
game and, where that is proven, about the position before the last move:
the game-level figure of issue 36 at a cost of one or two searches a game,
not a walk through the whole game.

Each variant is one search_measure process, started once with `--fens -`
(it reads one position at a time and answers each at once), so a variant
with `--keep-solver` searches every position with one solver, as annotate
keeps one for all the games of a file; without it each position gets a
fresh solver. `PLAYED_MOVE=1` in front of a variant's command models the
annotate that also counts the move played (since stop 56): the position
before the last move is settled without a search when the final position
is proven lost for its side to move, and a search of it that shows only
"cannot win" settles it when the final position is a draw (cli/src/
annotate.rs, `evaluate`). `FORWARD=1` asks about the position before the
last move first and then the final one, in the order played. Games that do not replay are not in LAST.tsv, so
they are left out here, where annotate counts them unsettled.

The variants take turns, the order rotating from one game to the next, so
that a machine whose speed drifts treats them alike. Each variant writes
NAME.csv (search_measure's lines) and NAME.games (a line a game: index,
settled 0/1) in OUT_DIR; a game already in NAME.games is skipped, so a run
stopped can be started again. Prints the shares, their 95 % intervals and
the games each variant settles that the first does not, and the other way
round.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from alternate import Stream, variants_of  # noqa: E402


class Variant(Stream):
    """A variant's process, and whether it models the move played."""

    def __init__(self, name, words, env, out):
        self.played = env.pop("PLAYED_MOVE", "") == "1"
        self.forward = env.pop("FORWARD", "") == "1"
        super().__init__(name, words, env, out)

    def settles(self, final, before):
        """Whether annotate, as this variant models it, settles the game.
        `FORWARD=1` asks about the position before the last move first, so
        that the final position's search starts from its tables."""
        b = self.ask(before) if self.forward else None
        f = self.ask(final)
        if f["result"] == "unknown":
            return False
        # The last move reached a position lost for the side to move: the
        # mover before it wins by it.
        if self.played and f["result"] == "loss":
            return True
        b = b or self.ask(before)
        if b["result"] != "unknown":
            return True
        return self.played and f["result"] == "draw" and b["upper"] == "draw"


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    games = {}
    for line in open(sys.argv[1]):
        index, which, fen = line.rstrip("\n").split("\t")
        games.setdefault(int(index), {})[which] = fen
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    variants = [Variant(name, words, env, out) for name, words, env in variants_of(sys.argv[3:])]
    done = {}
    for v in variants:
        path = os.path.join(out, v.name + ".games")
        done[v.name] = {}
        if os.path.exists(path):
            for line in open(path):
                i, s = line.split()
                done[v.name][int(i)] = s == "1"
    for n, (index, pair) in enumerate(sorted(games.items())):
        k = n % len(variants)
        for v in variants[k:] + variants[:k]:
            if index in done[v.name]:
                continue
            settled = v.settles(pair["final"], pair["before"])
            done[v.name][index] = settled
            with open(os.path.join(out, v.name + ".games"), "a") as f:
                f.write(f"{index} {int(settled)}\n")
        if (n + 1) % 50 == 0:
            print(f"{n + 1} of {len(games)} games", flush=True)
    for v in variants:
        v.close()
    first = variants[0].name
    common = set.intersection(*(set(done[v.name]) for v in variants))
    print(f"{len(common)} games measured by every variant")
    for v in variants:
        name = v.name
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
