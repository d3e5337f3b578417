//! # togyz-tb
//!
//! Exact endgame answers for Togyz Kumalak: the rules, positions and their
//! notation, and a reader for the tables `togyz-gen` writes.
//!
//! Each public name has one path. At the root:
//!
//! * [`Tablebase`]: opens a folder of tables and answers [`Value`]s
//!   (win, draw or loss with the distance in plies, in the table's
//!   [`Metric`]), [`Wdl`]s, the value of every move ([`MoveValue`]) and a
//!   line of best play, from any number of threads.
//! * [`Position`], [`Move`], [`Side`], [`perft`]: the rules; holes are
//!   numbered 1..=9 as players number them.
//! * Errors: [`ProbeError`], [`TableError`], [`IllegalMove`],
//!   [`PositionError`].
//!
//! Modules with a job of their own:
//!
//! * [`notation`]: PlayStrategy FEN, traditional (`65`, `36x`), UCI
//!   (`f1e2`) and bare-hole (`6`) moves, and their errors.
//! * [`search`]: proof search above the tables ([`search::Solver`]).
//! * [`record`]: game records (PlayOK and PlayStrategy files).
//!
//! How big the tables are, for front ends that say what a missing table
//! would take: [`MAX_STONES`], [`positions_for`], [`max_solver_stones`].
//!
//! With the feature `raw` (which `togyz-gen` turns on), the module `raw`
//! is public too: the table codec and the index as the generator uses
//! them, with no stability promise. An engine has no need of it.
//!
//! ```
//! use togyz_tb::{notation, Tablebase, Value};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # // Hidden: the 1- to 4-stone tables, solved into a temporary folder.
//! # let tables = togyz_gen::fixture::small_tables();
//! // `tables`: a folder with the 1- to 4-stone tables (`togyz-gen generate`).
//! let tb = Tablebase::open([tables])?;
//! let pos = notation::parse_fen("7,2S,1/8,2S 79 79 S 1")?;
//! assert_eq!(tb.value(&pos)?, Value::Loss(4));
//! let line = tb.principal_variation(&pos)?;
//! // Moves, in traditional notation from where each is played.
//! assert_eq!(notation::line(&pos, &line)?.join(" "), "91 12 91 12");
//! # Ok(())
//! # }
//! ```

// Each public name has one path: the prober's types at the root, and four
// modules with a job of their own.
pub mod notation;
#[cfg(feature = "raw")]
pub mod raw;
// Without the feature, what only the generator calls is unused here.
#[cfg(not(feature = "raw"))]
#[allow(dead_code, unused_imports)]
mod raw;
pub mod record;
mod rules;
pub mod search;
mod tablebase;
mod value;

pub use raw::format::error::TableError;
pub use raw::format::file::Backend;
pub use raw::format::{Contents, TuzdykPairs};
pub use raw::index::{max_solver_stones, positions_for, MAX_STONES};
pub use rules::{
    perft, EndReason, IllegalMove, Move, MoveReport, Outcome, Position, PositionError, Side, CYCLE,
    HALF, ROW, TOTAL_STONES,
};
pub use tablebase::{
    terminal_value, Horizon, MoveValue, ProbeError, Tablebase, DEFAULT_CACHE_BYTES, DRAW_LINE_PLIES,
};
pub use value::{Metric, Value, Wdl, MAX_PACKED_DISTANCE};
