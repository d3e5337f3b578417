"""Warm WDL probes from Python: one call per position, and batched.

    python python/bench/bench_wdl.py TABLES_DIR [--stones N]

Probes 1000 random live positions of the N-stone table (default: the
largest complete one), every block already in the cache; prints the median
time per position over several timeit repeats, next to the raw Rust probe
time measured by `cargo bench -p togyz-tb-capi --bench wdl`.
"""

import argparse
import random
import statistics
import timeit

from togyz_tb import Position, Tablebase


def random_positions(n, count, seed=1):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        holes = [0] * 18
        for _ in range(n):
            holes[rng.randrange(18)] += 1
        kazans = 162 - n
        south = kazans // 2 - rng.randrange(3)
        side = rng.choice("SN")
        fen = fen_of(holes, south, kazans - south, side)
        if not Position.from_fen(fen).is_game_over():
            out.append(fen)
    return out


def fen_of(holes, south, north, side):
    """A FEN from holes in sowing order (South 1..9, North 1..9)."""

    def row(cells):
        parts, run = [], 0
        for c in cells:
            if c == 0:
                run += 1
                continue
            if run:
                parts.append(str(run))
                run = 0
            parts.append(f"{c}S")
        if run:
            parts.append(str(run))
        return ",".join(parts)

    return f"{row(reversed(holes[9:]))}/{row(holes[:9])} {south} {north} {side} 1"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tables")
    ap.add_argument("--stones", type=int)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    tb = Tablebase(args.tables)
    n = args.stones or tb.complete_up_to
    fens = random_positions(n, 1000)
    positions = [Position.from_fen(f) for f in fens]
    # Check the FEN writer against the library's, then warm the cache.
    assert [p.fen() for p in positions] == fens
    expected = tb.wdl_many(fens)
    assert [tb.wdl(f) for f in fens] == expected

    def per_position(stmt, number):
        times = timeit.repeat(stmt, repeat=args.repeat, number=number)
        return statistics.median(times) / (number * len(fens)) * 1e6

    print(f"{n}-stone table, {len(fens)} positions, median of {args.repeat} repeats (us/position):")
    print(f"  tb.wdl(fen)           {per_position(lambda: [tb.wdl(f) for f in fens], 20):.3f}")
    print(f"  tb.wdl(position)      {per_position(lambda: [tb.wdl(p) for p in positions], 20):.3f}")
    print(f"  tb.wdl_many(fens)     {per_position(lambda: tb.wdl_many(fens), 50):.3f}")


if __name__ == "__main__":
    main()
