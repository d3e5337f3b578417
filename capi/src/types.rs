//! The types C sees: constants, statuses, the plain structs and the two
//! opaque handles.

use std::ffi::c_char;

use togyz_tb::search::Solver;
use togyz_tb::{Tablebase, DEFAULT_CACHE_BYTES};

#[cfg(doc)]
use crate::*;

/// Bytes a FEN written by [`togyz_position_to_fen`] can take, its closing
/// NUL included: a buffer of this size is always large enough.
pub const TOGYZ_FEN_MAX: usize = 128;

/// Most legal moves a position has: a buffer of this many
/// [`TogyzRootMove`]s always holds the answer of [`togyz_tb_root`].
pub const TOGYZ_MAX_MOVES: usize = 9;

/// The block cache [`togyz_tb_open`] users usually want: 256 MiB.
pub const TOGYZ_DEFAULT_CACHE_BYTES: u64 = 268_435_456;
// The header needs a literal; it must stay the Rust library's default.
const _: () = assert!(TOGYZ_DEFAULT_CACHE_BYTES == DEFAULT_CACHE_BYTES);

/// `side_to_move` of a [`TogyzPosition`]: South (P1, "white"), who moves
/// first.
pub const TOGYZ_SOUTH: u8 = 0;
/// `side_to_move` of a [`TogyzPosition`]: North (P2, "black").
pub const TOGYZ_NORTH: u8 = 1;

/// What a call did. Every value other than `TOGYZ_STATUS_OK` comes with a
/// message from [`togyz_tb_last_error`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TogyzStatus {
    /// Done.
    Ok = 0,
    /// A pointer argument that must not be null was null.
    NullPointer = 1,
    /// An argument is out of range: a length too large, a side that is
    /// neither 0 nor 1, a path or FEN that is not valid UTF-8.
    BadArgument = 2,
    /// The FEN text cannot be read.
    BadFen = 3,
    /// The position struct breaks a rule of the game (stones do not add up
    /// to 162, a tuzdyk in a 9th hole or holding stones, both tuzdyks with
    /// the same number).
    BadPosition = 4,
    /// No table holds the position's stone count.
    MissingTable = 5,
    /// A table file is damaged, or the tables contradict each other.
    DamagedTable = 6,
    /// A tables folder or file could not be read.
    Io = 7,
    /// The output buffer is too small; the call says how large it must be.
    BufferTooSmall = 8,
    /// A bug in togyz-tb (a caught panic). Please report the message.
    Internal = 9,
}

/// Win, draw or loss, for the side to move (or for the mover in a
/// [`TogyzRootMove`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TogyzWdl {
    /// A loss with best play.
    Loss = -1,
    /// Neither side can force a win.
    Draw = 0,
    /// A win with best play.
    Win = 1,
}

/// What the distance of a [`TogyzValue`] counts.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TogyzMetric {
    /// No distance: the value is a draw.
    None = 0,
    /// Distance to mate: plies to the end of the game, the winner hurrying
    /// and the loser delaying. The metric of today's tables.
    Dtm = 1,
    /// Distance to conversion: plies to the next capture, tuzdyk or end
    /// of the game, the winner heading for a conversion that keeps the win
    /// (the metric of tables written with `togyz-gen generate --metric
    /// dtc`).
    Dtc = 2,
}

/// A position, in the form players read it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TogyzPosition {
    /// Stones in each hole: `holes[0..9]` are South's holes 1..9,
    /// `holes[9..18]` North's holes 1..9 (the order of sowing). A tuzdyk
    /// holds 0.
    pub holes: [u8; 18],
    /// Kazans: `kazans[0]` South's, `kazans[1]` North's. Board and kazans
    /// hold 162 stones together.
    pub kazans: [u8; 2],
    /// `tuzdyks[0]`: South's tuzdyk, a hole number 1..8 in North's row, or
    /// 0 for none; `tuzdyks[1]`: North's, in South's row.
    pub tuzdyks: [u8; 2],
    /// [`TOGYZ_SOUTH`] or [`TOGYZ_NORTH`].
    pub side_to_move: u8,
    /// The move number of the FEN, kept for round trips; it must be at
    /// least 1. The rules ignore it.
    pub move_number: u32,
}

/// An exact value: who wins and how far away the end is.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TogyzValue {
    /// Win, draw or loss.
    pub wdl: TogyzWdl,
    /// What `distance` counts: the metric of the table holding the
    /// position ([`TogyzMetric::Dtm`] or [`TogyzMetric::Dtc`]) for a win or
    /// loss, [`TogyzMetric::None`] for a draw.
    pub metric: TogyzMetric,
    /// Plies to the end in `metric`; 0 for a draw and for a finished game.
    pub distance: u32,
}

/// One legal move of a root probe, with its value for the player making it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TogyzRootMove {
    /// The hole played, 1..9 in the mover's row.
    pub hole: u8,
    /// The move in traditional notation (`65`, `36x`), NUL-terminated.
    pub traditional: [c_char; 8],
    /// The move in PlayStrategy UCI notation (`f1e2`), NUL-terminated.
    pub uci: [c_char; 8],
    /// The value for the mover, counted from the position before the move
    /// (the move itself is ply 1).
    pub value: TogyzValue,
}

/// Where a [`TogyzSearchResult`] comes from.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TogyzSource {
    /// The game is over, or the kazans alone settle it.
    Rules = 0,
    /// The tables cover the position.
    Tables = 1,
    /// Proof search down to the tables.
    Search = 2,
}

/// What [`togyz_tb_solve`] showed about a position, for its side to move:
/// its value lies between `lower` and `upper` (loss < draw < win). It is
/// proven when the two are equal; a search that ran out of time or nodes
/// leaves them apart (`DRAW..WIN` is "at least a draw").
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TogyzSearchResult {
    /// The value is at least this.
    pub lower: TogyzWdl,
    /// The value is at most this.
    pub upper: TogyzWdl,
    /// 1 when `lower == upper`, else 0.
    pub proven: u8,
    /// When proven and the game is not over: the hole (1..9 in the
    /// mover's row) of a move that achieves the value; else 0.
    pub best_hole: u8,
    /// That move in traditional notation (`65`, `36x`), NUL-terminated;
    /// empty when `best_hole` is 0.
    pub best_traditional: [c_char; 8],
    /// Where the answer comes from.
    pub source: TogyzSource,
    /// The tables used: every position with at most this many stones.
    pub table_stones: u32,
    /// Nodes the depth-first provers visited.
    pub nodes: u64,
    /// Positions the retrograde solve above the tables enumerated.
    pub graph_positions: u64,
    /// Wall time spent, in seconds.
    pub seconds: f64,
}

/// Open tables: the handle [`togyz_tb_open`] returns. Opaque to C; free it
/// with [`togyz_tb_close`].
pub struct TogyzTb {
    pub(crate) tb: Tablebase,
}

// Probing from many threads at once is part of the contract.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<TogyzTb>();
};

/// A proof searcher over one handle's tables that keeps its search tables
/// between calls: made by [`togyz_solver_new`], freed by
/// [`togyz_solver_free`]. Opaque to C.
pub struct TogyzSolver {
    /// Borrows the handle's tables: `togyz_solver_new`'s contract keeps
    /// the handle open until the solver is freed.
    pub(crate) solver: Solver<'static>,
}
