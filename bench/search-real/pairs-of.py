#!/usr/bin/env python3
"""Keeps the FENs (one a line, from stdin) whose two tuzdyks stand in
one of the given pairs of holes, as `togyz-gen --wdl-pairs` names them.

  python3 bench/search-real/pairs-of.py 3-6,4-6,1-2,1-4,7-8 < all.fens > some.fens

A row's cells: `NS` a hole of N stones, `t` a tuzdyk, a bare digit that
many empty holes. The North row is written from hole 9 down to 1, the
South row from 1 up to 9; a `t` in a row is the other side's tuzdyk in
that hole (docs/rules.md, "Positions: the PlayStrategy FEN").
"""
import sys


def tuzdyk_hole(row, north):
    slot = 0
    for cell in row.split(","):
        if cell == "t":
            return 9 - slot if north else slot + 1
        slot += int(cell) if cell.isdigit() else 1
    return None


def pair(fen):
    north, south = fen.split()[0].split("/")
    holes = tuzdyk_hole(north, True), tuzdyk_hole(south, False)
    return None if None in holes else tuple(sorted(holes))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    wanted = {tuple(sorted(map(int, p.split("-")))) for p in sys.argv[1].split(",")}
    for line in sys.stdin:
        if line.strip() and pair(line) in wanted:
            sys.stdout.write(line)


if __name__ == "__main__":
    main()
