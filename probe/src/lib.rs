//! # togyz-probe
//!
//! The light half of togyz-tb: the rules of Togyz Kumalak, positions and
//! their notation, the dense index of endgame positions, and a reader that
//! memory-maps generated tables and answers exact endgame queries.
//!
//! The data flows through the modules in this order:
//! [`rules`] (sowing, captures, tuzdyks, the end of the game) →
//! [`notation`] (PlayStrategy FEN, traditional and UCI moves) →
//! [`index`] (rank and unrank) → [`value`] → [`format`] (the table file) →
//! [`tablebase`] (lazy, thread-safe probing).
//!
//! ```no_run
//! use togyz_probe::{notation, Tablebase, Value};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let tb = Tablebase::open(["tables"])?;
//! let pos = notation::parse_fen("7,2S,1/8,2S 79 79 S 1")?;
//! assert_eq!(tb.value(&pos)?, Value::Loss(4));
//! let line = tb.principal_variation(&pos)?; // 91 12 91 12
//! assert_eq!(line.len(), 4);
//! # Ok(())
//! # }
//! ```

pub mod format;
pub mod index;
pub mod notation;
pub mod record;
pub mod rules;
pub mod search;
pub mod tablebase;
pub mod value;

pub use index::{Layout, Slot, TuzdykClass, TuzdykConfig};
pub use notation::{parse_fen, parse_move, NotationError};
pub use rules::{Move, MoveReport, Outcome, Position, Side};
pub use search::{Budget, SearchResult, Solver};
pub use tablebase::{MoveValue, ProbeError, Tablebase};
pub use value::{Value, Wdl};
