"""Type stubs of the compiled module togyz_tb._native."""

import os
from typing import Literal, Optional, Sequence, Tuple, TypedDict, Union

DEFAULT_CACHE_BYTES: int
__version__: str

class TablebaseError(Exception):
    """Base class of every error togyz_tb raises."""

class BadFenError(TablebaseError):
    """The FEN text cannot be read."""

class IllegalMoveError(TablebaseError):
    """The move cannot be played in this position (or cannot be read)."""

class MissingTableError(TablebaseError):
    """No open table holds the position's stone count."""

class DamagedTableError(TablebaseError):
    """A table file is damaged, or the tables contradict each other."""

class TableIoError(TablebaseError):
    """A tables folder or file could not be read."""

Result = Literal["win", "draw", "loss"]

class MoveInfo(TypedDict):
    move: str
    """Traditional notation: hole played, landing hole, ``x`` for a tuzdyk."""
    uci: str
    hole: int
    """The hole played, 1..9 in the mover's row."""
    result: Result
    """For the player making the move."""
    dtm: Optional[int]
    """Plies to the end counted from before the move; None for a draw and
    where the table holds DTC."""
    dtc: Optional[int]
    """Plies to the next conversion counted from before the move, where the
    table holds DTC; None otherwise and for a draw."""
    fen: str
    """The position after the move."""

class ProbeResult(TypedDict):
    fen: str
    stones: int
    side: Literal["S", "N"]
    result: Result
    dtm: Optional[int]
    dtc: Optional[int]
    source: Literal["tables"]
    moves: list[MoveInfo]
    pv: list[str]

class Bounds(TypedDict):
    lower: Result
    upper: Result

class SearchStats(TypedDict):
    nodes: int
    depth: int
    graph_positions: int
    graph_closed: bool
    seconds: float
    table_stones: int
    """Every position with at most this many stones was probed."""

class SolveResult(TypedDict, total=False):
    fen: str
    stones: int
    side: Literal["S", "N"]
    result: Literal["win", "draw", "loss", "unknown"]
    source: Literal["rules", "tables", "search"]
    proven: Bounds
    """Only for "unknown": what was shown, over loss < draw < win."""
    best: Optional[str]
    """A move achieving the proven result (traditional notation)."""
    search: SearchStats

PathArg = Union[str, os.PathLike[str]]

class Position:
    """A Togyz Kumalak position (immutable and hashable)."""

    @staticmethod
    def from_fen(fen: str) -> Position:
        """Reads a PlayStrategy FEN. Raises BadFenError."""
    @staticmethod
    def start() -> Position: ...
    def fen(self) -> str: ...
    def legal_moves(self) -> list[int]:
        """Hole numbers 1..9 of the side to move that can be played."""
    def play(self, mv: Union[int, str]) -> Position:
        """The position after a move (a hole number 1..9, or notation such
        as ``"91"`` or ``"i1i2"``). Raises IllegalMoveError."""
    def traditional(self, mv: Union[int, str]) -> str: ...
    @property
    def side_to_move(self) -> Literal["S", "N"]: ...
    @property
    def holes(self) -> list[int]:
        """South's holes 1..9, then North's holes 1..9."""
    @property
    def kazans(self) -> Tuple[int, int]: ...
    @property
    def tuzdyks(self) -> Tuple[Optional[int], Optional[int]]:
        """South's and North's tuzdyk as hole numbers in the opponent's row."""
    @property
    def stones(self) -> int: ...
    def is_game_over(self) -> bool: ...
    def result(self) -> Optional[str]: ...

FenArg = Union[str, Position]

class Tablebase:
    """Tables opened from one or more folders; thread-safe, and probes
    release the GIL."""

    def __init__(
        self, paths: Union[PathArg, Sequence[PathArg]], cache_bytes: int = ...
    ) -> None:
        """Raises TableIoError (a folder cannot be listed) or
        DamagedTableError (a bad table header)."""
    @property
    def complete_up_to(self) -> int: ...
    def probe(self, fen: FenArg) -> ProbeResult:
        """The dict ``togyz-probe query --json`` prints. Raises BadFenError,
        MissingTableError, DamagedTableError, TableIoError."""
    def wdl(self, fen: FenArg) -> Literal[-1, 0, 1]:
        """1 win, 0 draw, -1 loss for the side to move."""
    def value(self, fen: FenArg) -> Tuple[Result, Optional[int]]: ...
    def moves(self, fen: FenArg) -> list[MoveInfo]:
        """Every legal move, best first."""
    def best_move(self, fen: FenArg) -> Optional[MoveInfo]: ...
    def wdl_many(self, fens: Sequence[str]) -> list[Literal[-1, 0, 1]]: ...
    def probe_many(self, fens: Sequence[str]) -> list[ProbeResult]: ...
    def solve(
        self,
        fen: FenArg,
        seconds: float = 5.0,
        nodes: Optional[int] = None,
        memory: Optional[int] = None,
    ) -> SolveResult:
        """The result proven by the tables or, above them, by proof search
        within ``seconds`` (and ``nodes`` per question), its tables taking
        at most ``memory`` bytes (default about 387 MB); "unknown" with the
        bounds shown when not proven. Raises ValueError (a bad limit),
        BadFenError, DamagedTableError, TableIoError."""

class Solver:
    """A proof searcher that keeps its tables from one ``solve`` to the
    next, so the positions of one game help each other."""

    def __init__(
        self,
        tb: Tablebase,
        seconds: float = 5.0,
        nodes: Optional[int] = None,
        memory: Optional[int] = None,
    ) -> None:
        """Limits for each ``solve``; ``memory`` bounds the tables it keeps
        (default about 387 MB). Raises ValueError (a bad limit)."""
    def solve(self, fen: FenArg) -> SolveResult:
        """As ``Tablebase.solve``, with this solver's limits and tables."""
