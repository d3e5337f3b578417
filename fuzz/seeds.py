#!/usr/bin/env python3
"""Writes the seed corpora of fuzz/corpus/ (except the table target's,
which its setup writes: TOGYZ_FUZZ_SEEDS=<folder>, see docs/fuzzing.md).

FENs are taken from the tests; positions are written the way
togyz_fuzz::position reads them (fuzz/src/lib.rs)."""
import hashlib
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "fuzz" / "corpus"


def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


def fens():
    found = set()
    for path in ["probe/tests", "probe/src", "capi/tests", "cli/tests"]:
        for f in sorted((ROOT / path).rglob("*.rs")):
            found.update(re.findall(r'"([0-9a-zSt,/]+ [0-9]+ [0-9]+ [SN] [0-9]+)"', f.read_text()))
    return sorted(found)


def parse_row(text):
    cells = []
    for tok in text.split(","):
        if tok == "t":
            cells.append("t")
        elif tok.endswith("S"):
            cells.append(int(tok[:-1]))
        else:
            cells.extend([0] * int(tok))
    return cells


def position_bytes(fen):
    """The 22 bytes of togyz_fuzz::position for a FEN, or None for one
    the tests use as a bad example."""
    try:
        return position_bytes_of(fen)
    except ValueError:
        return None


def position_bytes_of(fen):
    board, sk, nk, side, number = fen.split()
    north, south = board.split("/")
    north, south = parse_row(north), parse_row(south)
    if len(north) != 9 or len(south) != 9:
        return None
    holes = [0] * 18
    tuz = [0, 0]
    for i, c in enumerate(south):  # South holes 1..9
        if c == "t":
            tuz[1] = i + 1  # North's tuzdyk, in South's row
        else:
            holes[i] = c
    for slot, c in enumerate(north):  # North hole 9 down to 1
        hole = 9 - slot
        if c == "t":
            tuz[0] = hole
        else:
            holes[9 + hole - 1] = c
    if any(h > 31 for h in holes):
        return None
    kazans = 162 - sum(holes)
    south_k = int(sk)
    b20 = next((b for b in range(256) if b * (kazans + 1) // 256 == south_k), None)
    if b20 is None:
        return None
    b21 = (0 if side == "S" else 1) | (((int(number) - 1) % 128) << 1)
    return bytes(holes + tuz + [b20, b21])


def main():
    all_fens = fens()
    start = "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1"
    for fen in all_fens + [start]:
        put("fen", fen)
    for fen in all_fens[::4] + [start]:
        put("capi", fen)
    positions = [(f, position_bytes(f)) for f in all_fens + [start]]
    positions = [(f, p) for f, p in positions if p]
    for text in ["7", "76", "g1d2", "36x", "f1e2", "91", "a1b2", "9"]:
        put("moves", position_bytes(start) + text.encode())
    for f, p in positions[::3]:
        put("moves", p + b"1")
        put("capi", p + b"\x00\x00\x00\x00\x00")
    for f, p in positions:
        stones = sum(p[:18])
        if 3 <= stones <= 8:
            put("search", p + b"\x20\x00")
    sample = (ROOT / "probe/tests/data/sample-playok.txt").read_text()
    for game in sample.split("\n\n["):
        put("record", game if game.startswith("[") else "[" + game)
    put("record", sample)
    put("record", '[FEN "7,2S,1/8,2S 79 79 S 1"]\n\n1. 23 {a comment} 1/2-1/2\n')
    put("record", "1. 76 g1d2 2. 7 *\n")
    # The input of probe/tests/fuzz_found.rs (a doubled space in the FEN tag).
    put("record", '[FEN "7,2S,1/8,2S 79  79 N 1"]\n\n1... 21 2. 23 *\n')


if __name__ == "__main__":
    sys.exit(main())
