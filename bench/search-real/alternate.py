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
"""
import os
import shlex
import subprocess
import sys
import tempfile


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


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    fens = [l.strip() for l in open(sys.argv[1]) if l.strip()]
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    variants = variants_of(sys.argv[3:])
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
