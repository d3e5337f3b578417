//! # togyz-probe
//!
//! Exact endgame answers for Togyz Kumalak: the rules, positions and their
//! notation, and a reader for the tables `togyz-gen` writes.
//!
//! * [`Tablebase`]: opens a folder of tables and answers [`Value`]s
//!   (win, draw or loss with the distance in plies), [`Wdl`]s, the value of
//!   every move and a line of best play, from any number of threads.
//! * [`Position`], [`Move`], [`Side`]: the rules ([`rules`]); holes are
//!   numbered 1..=9 as players number them.
//! * [`notation`]: PlayStrategy FEN, traditional (`65`, `36x`), UCI
//!   (`f1e2`) and bare-hole (`6`) moves.
//! * Errors: [`ProbeError`], [`TableError`], [`NotationError`],
//!   [`IllegalMove`], [`PositionError`].
//!
//! [`raw`] holds the table codec and the index for the generator, with no
//! stability promise.
//!
//! ```
//! use togyz_probe::{notation, Tablebase, Value};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # // Hidden: solve and write the 1- to 4-stone tables into a temporary folder.
//! # let dir = tempfile::tempdir()?;
//! # let levels = togyz_gen::solve::dtm::solve_all(4)?;
//! # for n in 1..=4 {
//! #     togyz_gen::files::write::write_table(dir.path(), n, &levels.table(n))?;
//! # }
//! # let tables = dir.path();
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

pub mod bytes;
pub mod notation;
pub mod raw;
pub mod record;
pub mod rules;
pub mod search;
pub mod tablebase;
pub mod value;

pub use notation::{parse_fen, parse_move, NotationError};
pub use raw::format::{Backend, TableError};
pub use rules::{IllegalMove, Move, MoveReport, Outcome, Position, PositionError, Side};
pub use search::{Budget, SearchResult, Solver};
pub use tablebase::{MoveValue, ProbeError, Tablebase};
pub use value::{Metric, Value, Wdl};
