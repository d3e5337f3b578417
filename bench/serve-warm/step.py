#!/usr/bin/env python3
"""Steps through real games on two running servers, as a player does on the
board: every position of a game in a band of stones, in the order played,
one `GET /v1/togyzkumalak?search_time=S` each. The servers take turns game
by game (the first server first on even games), so that a busy machine
slows both alike; each writes a CSV of what it proved.

    step.py GAMES N SEED LOW-HIGH SECONDS OUT NAME=URL NAME=URL

GAMES is a PlayOK record file, shuffled with SEED; its first N games that
reach the band are stepped through. The positions come from the first
server's tables-only annotation of each game (`POST
/v1/annotate?search_time=0`), those with LOW to HIGH stones on the board
and the game not over. OUT/NAME.csv gets a line a position:
game, ply, stones, result (win, draw, loss, or unknown), lower, upper,
seconds, fen.

With BACK=1 in the environment, each server then steps back through the
game's positions, from its last to its first, as a player reviewing the
game does; OUT/NAME-back.csv gets those lines.
"""

import csv
import json
import os
import random
import re
import sys
import time
import urllib.parse
import urllib.request


def games_of(path):
    """The records of a PlayOK file, each as its text."""
    text = open(path, encoding="utf-8", errors="replace").read()
    parts = re.split(r"\n(?=\[Event )", text)
    return [p.strip() + "\n" for p in parts if p.strip()]


def post(url, body):
    req = urllib.request.Request(url, data=body.encode(), method="POST")
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.loads(r.read())


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=600) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        return json.loads(e.read())


def stones(fen):
    """Stones on the board: a hole's stones are written `3S`; a bare
    number is a run of empty holes, `t` a tuzdyk."""
    board = fen.split()[0]
    return sum(int(c[:-1]) for c in re.split("[,/]", board) if c.endswith("S"))


def outcome(j):
    """(result, lower, upper) for the side to move from an answer."""
    r = j.get("result")
    if r is None:
        return ("error", "", "")
    bounds = j.get("proven") or {"lower": r, "upper": r}
    return (r, bounds["lower"], bounds["upper"])


def main():
    games_path, n, seed, band, seconds, out = sys.argv[1:7]
    servers = [a.split("=", 1) for a in sys.argv[7:]]
    low, high = map(int, band.split("-"))
    records = games_of(games_path)
    random.Random(int(seed)).shuffle(records)
    os.makedirs(out, exist_ok=True)
    passes = ["", "-back"] if os.environ.get("BACK") == "1" else [""]
    files = {
        name + p: open(os.path.join(out, f"{name}{p}.csv"), "w", newline="")
        for name, _ in servers
        for p in passes
    }
    writers = {name: csv.writer(f) for name, f in files.items()}
    for w in writers.values():
        w.writerow(["game", "ply", "stones", "result", "lower", "upper", "seconds", "fen"])
    done = 0
    for g, record in enumerate(records):
        if done == int(n):
            break
        try:
            annotated = post(servers[0][1] + "/v1/annotate?search_time=0&format=json", record)
        except urllib.error.HTTPError:
            continue
        if not annotated or "moves" not in annotated[0]:
            continue
        fens = [
            (m["ply"], m["fen_before"])
            for m in annotated[0]["moves"]
            if low <= stones(m["fen_before"]) <= high
        ]
        if not fens:
            continue
        order = servers if done % 2 == 0 else servers[::-1]
        done += 1
        for name, url in order:
            for p in passes:
                for ply, fen in fens if p == "" else fens[::-1]:
                    q = urllib.parse.urlencode({"fen": fen, "search_time": seconds})
                    t = time.monotonic()
                    j = get(f"{url}/v1/togyzkumalak?{q}")
                    took = time.monotonic() - t
                    r, lo, hi = outcome(j)
                    writers[name + p].writerow([g, ply, stones(fen), r, lo, hi, f"{took:.3f}", fen])
                files[name + p].flush()
        print(f"game {g}: {len(fens)} positions", file=sys.stderr)
    for f in files.values():
        f.close()


if __name__ == "__main__":
    main()
