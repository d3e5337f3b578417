"""togyz_tb against real tables: answers checked against the togyz-probe
command line (its --json output) and against each other."""

import json
import shutil
import subprocess
import threading

import pytest

import togyz_tb
from togyz_tb import (
    BadFenError,
    DamagedTableError,
    IllegalMoveError,
    MissingTableError,
    Position,
    Solver,
    TableIoError,
    Tablebase,
    TablebaseError,
)

SEED = "7,2S,1/8,2S 79 79 S 1"
# Positions with at most 4 stones: wins, draws, losses, a finished game.
FENS = [
    SEED,
    "1S,8/9 80 81 N 30",
    "2S,8/1S,8 79 80 S 3",
    "9/1S,3S,7 79 79 N 1",
    "1S,1S,7/1S,1S,7 79 79 S 5",
    "9/2S,2S,7 79 79 S 2",
    "8,4S/9 79 79 S 1",
]


def positions(limit=300, seeds=FENS):
    """`seeds` and every position reachable from them, up to `limit`."""
    seen, todo = [], [Position.from_fen(f) for f in seeds]
    while todo and len(seen) < limit:
        p = todo.pop(0)
        if p in seen:
            continue
        seen.append(p)
        todo.extend(p.play(h) for h in p.legal_moves())
    return seen


@pytest.fixture(scope="module")
def tb(tables):
    return Tablebase(tables)


def cli_json(probe_cli, tables, fen):
    out = subprocess.run(
        [str(probe_cli), "query", "--tables", str(tables), "--json", fen],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def without_holes(answer):
    return {**answer, "moves": [{k: v for k, v in m.items() if k != "hole"} for m in answer["moves"]]}


def test_the_seed_is_a_loss_in_4(tb):
    a = tb.probe(SEED)
    assert (a["result"], a["dtm"], a["stones"], a["side"]) == ("loss", 4, 4, "S")
    assert len(a["pv"]) == 4
    assert tb.wdl(SEED) == -1
    assert tb.value(SEED) == ("loss", 4)
    assert tb.complete_up_to == 4


def test_probe_is_the_cli_json(tb, tables, probe_cli):
    for p in positions(40):
        fen = p.fen()
        assert without_holes(tb.probe(fen)) == cli_json(probe_cli, tables, fen), fen


def test_values_follow_from_the_moves(tb):
    """A position's value is its best move's, and each move's value is its
    child's, one ply further from the other side."""
    flip = {"win": "loss", "loss": "win", "draw": "draw"}
    for p in positions():
        result, dtm = tb.value(p)
        moves = tb.moves(p)
        assert [m["hole"] for m in moves] != [] or p.is_game_over()
        assert sorted(m["hole"] for m in moves) == p.legal_moves()
        for m in moves:
            # Traditional notation starts with the hole number.
            assert m["move"][0] == str(m["hole"])
            child_result, child_dtm = tb.value(m["fen"])
            assert m["result"] == flip[child_result]
            assert m["dtm"] == (None if child_dtm is None else child_dtm + 1)
            assert Position.from_fen(m["fen"]) == p.play(m["hole"]) == p.play(m["move"])
        best = tb.best_move(p)
        if moves:
            assert best == moves[0]
            assert (best["result"], best["dtm"]) == (result, dtm)
        else:
            assert best is None and p.is_game_over()
        assert tb.wdl(p) == {"win": 1, "draw": 0, "loss": -1}[result]


def test_batches_answer_like_single_calls(tb):
    fens = [p.fen() for p in positions()]
    assert tb.wdl_many(fens) == [tb.wdl(f) for f in fens]
    assert tb.probe_many(fens[:50]) == [tb.probe(f) for f in fens[:50]]
    assert tb.wdl_many([]) == []


def test_threads_share_one_tablebase(tb):
    fens = [p.fen() for p in positions()]
    expected = tb.wdl_many(fens)
    results, errors = [], []

    def work():
        try:
            for _ in range(20):
                results.append(tb.wdl_many(fens) == expected)
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and results == [True] * 80


def test_position():
    p = Position.from_fen(SEED)
    assert p.fen() == SEED and str(p) == SEED
    assert eval(repr(p), {"Position": Position}) == p
    assert p.side_to_move == "S" and p.stones == 4 and p.kazans == (79, 79)
    assert p.holes[:9] == [0, 0, 0, 0, 0, 0, 0, 0, 2] and sum(p.holes) == 4
    assert p.legal_moves() == [9]
    assert p.play(9) == p.play("91") == p.play("i1i2")
    assert p.traditional(9) == "91"
    assert hash(p.play(9)) == hash(Position.from_fen(p.play(9).fen()))
    start = Position.start()
    assert start.legal_moves() == list(range(1, 10))
    assert start.tuzdyks == (None, None) and not start.is_game_over()
    assert Position.from_fen("9/1S,3S,7 79 79 N 1").result() is not None


def test_tuzdyk_numbers(tb):
    # North's row is written from hole 9 down: a tuzdyk ("t") in North's
    # hole 8 belongs to South.
    p = Position.from_fen("2S,t,7/1S,8 79 80 S 3")
    assert p.tuzdyks == (8, None)
    assert p.holes[9 + 8] == 2 and p.holes[9 + 7] == 0
    assert tb.probe(p)["fen"] == p.fen()


def test_errors(tb, tables, tmp_path):
    with pytest.raises(BadFenError):
        tb.wdl("not a fen")
    with pytest.raises(BadFenError):
        Position.from_fen("9S/9S 0 0 S 1")
    with pytest.raises(MissingTableError, match="no table for 5 stones"):
        tb.probe("9/5S,8 76 81 S 1")
    with pytest.raises(MissingTableError, match=r"fens\[1\]"):
        tb.wdl_many([SEED, "9/5S,8 76 81 S 1"])
    with pytest.raises(BadFenError, match=r"fens\[0\]"):
        tb.probe_many(["x"])
    with pytest.raises(IllegalMoveError):
        Position.from_fen(SEED).play(1)
    with pytest.raises(IllegalMoveError):
        Position.from_fen(SEED).play("zz")
    with pytest.raises(TypeError, match="a FEN .str. or a Position"):
        tb.wdl(42)
    with pytest.raises(TableIoError):
        Tablebase(tmp_path / "no such folder")
    for cls in (BadFenError, MissingTableError, DamagedTableError, IllegalMoveError, TableIoError):
        assert issubclass(cls, TablebaseError)
        assert cls.__module__ == "togyz_tb"

    broken = tmp_path / "broken"
    broken.mkdir()
    for f in tables.iterdir():
        shutil.copy(f, broken / f.name)
    table = broken / "togyz-04.tkb"
    table.write_bytes(table.read_bytes()[:-100])
    with pytest.raises(DamagedTableError):
        Tablebase([broken]).wdl(SEED)


def test_several_folders(tables, tmp_path):
    """The first folder holding a stone count wins; the others fill in."""
    small = tmp_path / "small"
    small.mkdir()
    shutil.copy(tables / "togyz-01.tkb", small)
    tb = Tablebase([small, str(tables)])
    assert tb.complete_up_to == 4
    assert tb.probe(SEED)["dtm"] == 4
    assert Tablebase([small]).complete_up_to == 1


def test_version():
    assert togyz_tb.__version__.count(".") == 2


@pytest.fixture(scope="module")
def truth6(tables6):
    return Tablebase(tables6)


def test_solve_above_the_tables_proves_what_bigger_tables_say(tb, truth6, tables, probe_cli):
    flip = {"win": "loss", "loss": "win", "draw": "draw"}
    seeds = ["2S,1S,7/1S,1S,1S,6 77 79 S 9", "1S,1,1S,6/2S,2S,7 78 78 N 12"]
    above = [p for p in positions(400, seeds) if p.stones > 4 and not p.is_game_over()][:40]
    assert len(above) == 40
    for p in above:
        want = truth6.value(p)[0]
        r = tb.solve(p, seconds=30)
        assert (r["fen"], r["stones"], r["side"]) == (p.fen(), p.stones, p.side_to_move)
        assert (r["result"], r["source"], "proven" in r) == (want, "search", False), p
        assert r["search"]["table_stones"] == 4 and r["search"]["nodes"] >= 0
        # The move named achieves the result.
        assert flip[truth6.value(p.play(r["best"]))[0]] == want, p
    # The dict is the command line's JSON without the moves.
    fen = above[0].fen()
    out = subprocess.run(
        [str(probe_cli), "query", "--tables", str(tables), "--json", "--search-time", "30", fen],
        check=True,
        capture_output=True,
        text=True,
    )
    cli = json.loads(out.stdout)
    r = tb.solve(fen, seconds=30)
    assert set(r) == set(cli) - {"moves"} and set(r["search"]) == set(cli["search"])
    assert [r[k] for k in ("fen", "stones", "side", "result", "source")] == [
        cli[k] for k in ("fen", "stones", "side", "result", "source")
    ]


def test_solve_says_unknown_and_what_was_shown(tb):
    # Within the tables: their answer and best move.
    r = tb.solve(SEED)
    assert (r["result"], r["source"], r["best"], r["search"]["nodes"]) == ("loss", "tables", "91", 0)
    # Twelve stones over the tables for 4, in 3 nodes a question: open.
    r = tb.solve("1,1S,1S,1S,1,2S,1,3S,1/2,3S,1,1S,4 74 76 S 109", seconds=0, nodes=3)
    assert (r["result"], r["proven"], r["best"]) == ("unknown", {"lower": "loss", "upper": "win"}, None)
    for bad in [
        dict(seconds=-1),
        dict(seconds=float("nan")),
        dict(seconds=float("inf")),
        dict(seconds=0),
        dict(memory=999_999),
        # More than the machine has: refused, not an abort at the search.
        dict(memory=2**64 - 1),
    ]:
        with pytest.raises(ValueError):
            tb.solve(SEED, **bad)
    with pytest.raises(BadFenError):
        tb.solve("nonsense")


def test_a_solver_walks_a_game_backwards(tables, truth6):
    import gc

    # The tablebase lives as long as the solver, with no other reference.
    solver = Solver(Tablebase(tables), seconds=30, memory=1_000_000)
    gc.collect()
    p, game = Position.from_fen("2S,1S,7/1S,1S,1S,6 77 79 S 9"), []
    while not p.is_game_over() and len(game) < 12:
        game.append(p)
        p = p.play(p.legal_moves()[len(game) % len(p.legal_moves())])
    assert any(g.stones > 4 for g in game)
    for g in reversed(game):
        r = solver.solve(g)
        assert r["result"] == truth6.value(g)[0], g
        assert r == {**r, "fen": g.fen(), "stones": g.stones}
    for bad in [dict(seconds=-1), dict(seconds=0), dict(memory=1000)]:
        with pytest.raises(ValueError):
            Solver(Tablebase(tables), **bad)
