#!/usr/bin/env python3
"""Checks game-share.py's model of annotate against annotate itself, game
by game, on the first COUNT games of a record file.

  bench/search-real/game-share-check.py GAMES.txt COUNT LAST.tsv GS_DIR VARIANT ANNOTATE...

  real_positions --games GAMES.txt --last > LAST.tsv
  game-share-check.py ../shared/games/real-games-1000.txt 60 LAST.tsv OUT \\
      'PLAYED_MOVE=1 target/release/examples/search_measure --keep-solver --tables T --seconds 1 --nodes 200000 --dfpn-threads 1' \\
      target/release/togyz-probe annotate --tables T --json --search-nodes 200000

Runs game-share.py with the one variant VARIANT (named `model`) on the
games of LAST.tsv numbered below COUNT, and ANNOTATE (an annotate command
line with `--json`, the record file is added) on the same games, then
prints the games where the two disagree on whether a live position is
settled: annotate's count is that of the positions a move was played from
that are evaluated, and not by the rules alone. Node budgets make both
reproducible.
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), os.path.join(HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    if len(sys.argv) < 7:
        sys.exit(__doc__)
    records, count, last, out, variant = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
    annotate = sys.argv[6:]
    games = load("annotate-games").games_of(open(records, encoding="utf-8", errors="replace").read())[:count]
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        some = os.path.join(tmp, "last.tsv")
        with open(some, "w") as f:
            for line in open(last):
                if int(line.split("\t")[0]) < count:
                    f.write(line)
        subprocess.run([sys.executable, os.path.join(HERE, "game-share.py"), some, out,
                        "model=" + variant], check=True, stdout=subprocess.DEVNULL)
        record = os.path.join(tmp, "games.txt")
        with open(record, "w") as f:
            f.write("\n".join(games))
        text = subprocess.run(annotate + [record], check=True, capture_output=True, text=True).stdout
    seen = {}
    for line in text.splitlines():
        game = json.loads(line)
        seen[game["game"] - 1] = any(
            m["before"] is not None and m["before"]["source"] != "rules" for m in game["moves"])
    model = {}
    for line in open(os.path.join(out, "model.games")):
        i, s = line.split()
        model[int(i)] = s == "1"
    differ = sorted(i for i in model if seen.get(i) != model[i])
    print(f"{len(model)} games: annotate settles {sum(seen.values())}, the model "
          f"{sum(model.values())}; they differ on {len(differ)}: {differ}")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
