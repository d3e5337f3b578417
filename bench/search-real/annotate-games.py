#!/usr/bin/env python3
"""Share of real games in which `togyz-probe annotate` proves a live
position, two builds side by side, game by game.

  bench/search-real/annotate-games.py GAMES.txt COUNT SEED OUT_DIR \\
      'before=/tmp/before/togyz-probe annotate --tables T --json --search-time 1' \\
      'after=target/release/togyz-probe annotate --tables T --json --search-time 1'

COUNT games are drawn from the record file with the seed (all of them when
COUNT is at least their number). Each build annotates each game in turn,
the order rotating from one game to the next; each writes NAME.jsonl in
OUT_DIR, one JSON object a game. Resumable: games already in a file are
skipped. A game counts as settled when some position a move was played
from is proven (`first_settled` at most `plies`): annotate walks from the
end backwards, so that is a live position. Prints the shares at the end.
"""
import json
import os
import random
import shlex
import subprocess
import sys
import tempfile


def games_of(text):
    """The records of a PlayOK file: a record starts at its first tag line."""
    out, cur = [], []
    for line in text.splitlines():
        if line.startswith("[Event") and any(l.strip() and not l.startswith("[") for l in cur):
            out.append("\n".join(cur).strip() + "\n")
            cur = []
        cur.append(line)
    if any(l.strip() for l in cur):
        out.append("\n".join(cur).strip() + "\n")
    return out


def settled(obj):
    return obj.get("first_settled") is not None and obj["first_settled"] <= obj["plies"]


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    path, count, seed, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    games = games_of(open(path, encoding="utf-8").read())
    picked = sorted(random.Random(seed).sample(range(len(games)), min(count, len(games))))
    os.makedirs(out, exist_ok=True)
    builds = []
    for v in sys.argv[5:]:
        name, _, command = v.partition("=")
        builds.append((name, shlex.split(command), os.path.join(out, name + ".jsonl")))
    done = {}
    for name, _, file in builds:
        done[name] = set()
        if os.path.exists(file):
            for line in open(file):
                done[name].add(json.loads(line)["index"])
    with tempfile.TemporaryDirectory() as tmp:
        one = os.path.join(tmp, "game.txt")
        for i, g in enumerate(picked):
            with open(one, "w", encoding="utf-8") as f:
                f.write(games[g])
            k = i % len(builds)
            for name, words, file in builds[k:] + builds[:k]:
                if g in done[name]:
                    continue
                r = subprocess.run(words + [one], capture_output=True, text=True)
                lines = [l for l in r.stdout.splitlines() if l.strip()]
                obj = json.loads(lines[0]) if lines else {"error": r.stderr.strip()}
                obj["index"] = g
                obj.pop("moves", None)
                with open(file, "a") as f:
                    f.write(json.dumps(obj) + "\n")
            if (i + 1) % 10 == 0:
                print(f"{i + 1} of {len(picked)} games", flush=True)
    for name, _, file in builds:
        objs = [json.loads(l) for l in open(file)]
        objs = [o for o in objs if o["index"] in set(picked)]
        s = sum(settled(o) for o in objs)
        print(f"{name}: {s} of {len(objs)} games settle a live position ({100 * s / max(1, len(objs)):.1f} %)")


if __name__ == "__main__":
    main()
