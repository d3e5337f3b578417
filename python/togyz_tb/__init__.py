"""Exact endgame tablebase for Togyz Kumalak: probe togyz-tb tables.

>>> from togyz_tb import Tablebase
>>> tb = Tablebase("tables")                 # doctest: +SKIP
>>> tb.probe("7,2S,1/8,2S 79 79 S 1")["dtm"] # doctest: +SKIP
4

Probes release the GIL; one Tablebase may be shared by many threads.
"""

from ._native import (
    DEFAULT_CACHE_BYTES,
    BadFenError,
    DamagedTableError,
    IllegalMoveError,
    MissingTableError,
    Position,
    Solver,
    TableIoError,
    Tablebase,
    TablebaseError,
    __version__,
)

__all__ = [
    "DEFAULT_CACHE_BYTES",
    "BadFenError",
    "DamagedTableError",
    "IllegalMoveError",
    "MissingTableError",
    "Position",
    "Solver",
    "TableIoError",
    "Tablebase",
    "TablebaseError",
    "__version__",
]
