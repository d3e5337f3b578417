#!/usr/bin/env python3
"""Runs search_measure builds side by side, position by position.

For each FEN of FENS, each variant searches it in turn (the order rotating
from one position to the next), so that a machine whose speed drifts, or
which other jobs share, treats every variant alike. A variant is
NAME=COMMAND, COMMAND a search_measure binary with its options (environment
assignments first are allowed); each writes NAME.csv in OUT_DIR. Resumable:
a position already in a variant's CSV is skipped by search_measure itself.

  bench/search-real/alternate.py FENS OUT_DIR 'before=/tmp/before/search_measure --tables T --seconds 1' \
      'after=target/release/examples/search_measure --tables T --seconds 1'

With --stream first, each variant is one search_measure process, started
once with `--fens -` (builds since stop 56), that answers one FEN at a
time: a variant with `--keep-solver` then searches every position with
one solver, as annotate and an engine keep one. A position already in a
variant's CSV is skipped here.
"""
import csv
import os
import shlex
import subprocess
import sys
import tempfile

# search_measure's CSV header.
HEAD = ("stones,tables,seconds_limit,result,lower,upper,nodes,depth,"
        "graph_positions,graph_closed,seconds,fen")


def variants_of(args):
    """(NAME, argv, environment) of each NAME=COMMAND, the COMMAND's
    leading VAR=VALUE words moved into its environment."""
    variants = []
    for v in args:
        name, _, command = v.partition("=")
        words = shlex.split(command)
        env = dict(os.environ)
        while words and "=" in words[0] and not words[0].startswith("-"):
            k, _, val = words.pop(0).partition("=")
            env[k] = val
        variants.append((name, words, env))
    return variants


class Stream:
    """One search_measure process, started with `--fens -`, that answers a
    FEN at a time and appends its lines to OUT_DIR/NAME.csv."""

    def __init__(self, name, words, env, out):
        self.name = name
        self.path = os.path.join(out, name + ".csv")
        self.proc = subprocess.Popen(
            words + ["--fens", "-", "--out", self.path], env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def ask(self, fen):
        """search_measure's line for `fen`, as a dict."""
        self.proc.stdin.write(fen + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"{self.name}: the search ended without answering {fen}")
        return next(csv.DictReader([HEAD, line]))

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def streamed(fens, out, variants):
    """--stream: one process a variant, the positions in turn."""
    streams = [Stream(name, words, env, out) for name, words, env in variants]
    done = {}
    for s in streams:
        done[s.name] = set()
        if os.path.exists(s.path):
            done[s.name] = {r["fen"] for r in csv.DictReader(open(s.path, newline=""))}
    for i, fen in enumerate(fens):
        k = i % len(streams)
        for s in streams[k:] + streams[:k]:
            if fen not in done[s.name]:
                s.ask(fen)
        if (i + 1) % 20 == 0:
            print(f"{i + 1} of {len(fens)} positions", flush=True)
    for s in streams:
        s.close()


def main():
    stream = len(sys.argv) > 1 and sys.argv[1] == "--stream"
    args = sys.argv[2:] if stream else sys.argv[1:]
    if len(args) < 3:
        sys.exit(__doc__)
    fens = [l.strip() for l in open(args[0]) if l.strip()]
    out = args[1]
    os.makedirs(out, exist_ok=True)
    variants = variants_of(args[2:])
    if stream:
        streamed(fens, out, variants)
        return
    with tempfile.TemporaryDirectory() as tmp:
        one = os.path.join(tmp, "one.fens")
        for i, fen in enumerate(fens):
            with open(one, "w") as f:
                f.write(fen + "\n")
            k = i % len(variants)
            for name, words, env in variants[k:] + variants[:k]:
                csv = os.path.join(out, name + ".csv")
                subprocess.run(words + ["--fens", one, "--out", csv], env=env,
                               stdout=subprocess.DEVNULL, check=True)
            if (i + 1) % 20 == 0:
                print(f"{i + 1} of {len(fens)} positions", flush=True)


if __name__ == "__main__":
    main()
