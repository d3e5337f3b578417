//! What a search answers: the interval, its best move and how it was
//! obtained.

use std::fmt;
use std::time::Duration;

use crate::rules::Move;
use crate::value::Wdl;

/// How a result was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The game is over, or the kazans alone settle it.
    Rules,
    /// The tables cover the position.
    Tables,
    /// Search down to the tables.
    Search,
}

/// What a search showed about a position, for its side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The value is at least this.
    pub lower: Wdl,
    /// The value is at most this.
    pub upper: Wdl,
    /// When proven and the game is not over: a move that achieves the value
    /// (for a loss, any move does).
    pub best_move: Option<Move>,
    /// Where the answer came from.
    pub source: Source,
    /// Nodes visited by the depth-first provers (iterative deepening and
    /// df-pn).
    pub nodes: u64,
    /// The deepest completed iteration of the depth-first search (plies).
    pub depth: u32,
    /// Positions the retrograde solve enumerated above the tables.
    pub graph_positions: u64,
    /// Whether that enumeration closed (every leaf settled).
    pub graph_closed: bool,
    /// Wall time spent.
    pub elapsed: Duration,
    /// The tables used: every position with at most this many stones
    /// and the root's tuzdyks, or without them ([`crate::Horizon::of`]
    /// the root).
    pub table_stones: u32,
}

impl Source {
    /// `"rules"`, `"tables"` or `"search"`.
    pub fn name(self) -> &'static str {
        match self {
            Source::Rules => "rules",
            Source::Tables => "tables",
            Source::Search => "search",
        }
    }
}

impl SearchResult {
    /// The value, when the interval has closed.
    pub fn proven(&self) -> Option<Wdl> {
        (self.lower == self.upper).then_some(self.lower)
    }
}

impl fmt::Display for SearchResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.proven() {
            Some(v) => write!(f, "{v}"),
            None => write!(f, "between {} and {}", self.lower, self.upper),
        }
    }
}
