#!/usr/bin/env python3
"""The inputs of "Annotating games: memory flat however long the input"
(the figures in docs/performance.md, "Annotating games"; the session's log
in git history: git log -- '*history.md'):
python3 make-inputs.py SAMPLE OUTDIR, SAMPLE being
probe/tests/data/sample-playok.txt."""
import sys

sample, out = sys.argv[1], sys.argv[2]
# An endless cycle of 18 plies (docs/rules.md sets no move limit): one stone
# a side walks round the board and the position comes back.
CYCLE = ["91", "91"] + [f"{h}{h + 1}" for h in range(1, 9) for _ in (0, 1)]
HEAD = '[White "a"]\n[Black "b"]\n[FEN "1S,8/8,1S 80 80 S 1"]\n\n'


def cycle(path, stop):
    with open(path, "w") as f:
        f.write(HEAD)
        ply, n = 0, 1
        while not stop(ply, f.tell()):
            line = []
            for m in CYCLE:
                if ply % 2 == 0:
                    line.append(f"{n}. {m}")
                else:
                    line.append(m)
                    n += 1
                ply += 1
            f.write(" ".join(line) + "\n")
        f.write("*\n")


# 50 MB, 6,814,818 plies: one game.
cycle(f"{out}/cycle50.txt", lambda ply, size: size >= 50_000_000)
# 99,990 plies: a game just under the cap.
cycle(f"{out}/cap100k.txt", lambda ply, size: ply >= 99_990)
# 50 MB of ordinary games: the three samples, 79,368 games in all.
text = open(sample).read().rstrip("\n") + "\n\n"
with open(f"{out}/many50.txt", "w") as f:
    f.write(text * (50_000_000 // len(text) + 1))
# query -: one 60 MB line, then a FEN.
fen = "7,2S,1/8,2S 79 79 S 1"
with open(f"{out}/line60.txt", "w") as f:
    f.write(fen + " 91 12" * 10_000_000 + "\n" + fen + "\n")
