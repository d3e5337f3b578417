//! Why a command could not answer: a [`Kind`] (its exit code and its JSON
//! name, shared by every front end) and a message, with the position where
//! a move list stopped.
//!
//! The exit codes, here and in docs/cli.md and `--help`: 0 answered;
//! 1 standard input could not be read or the output written; 2 bad input (a
//! FEN, a move, or the command line itself, which clap reports); 3 no table
//! covers the position; 4 a table is damaged; 5 a table or its folder
//! cannot be read (permissions, an I/O failure).

use std::fmt::Write as _;
use std::io;

pub use togyz_answer::Kind;
use togyz_tb::notation::NotationError;
use togyz_tb::Position;

use crate::common::render::diagram;

/// Where a list of moves stopped: the bad move and the position before it.
#[derive(Clone, Debug)]
pub struct Stop {
    /// 1-based place of the bad move in the list.
    pub index: usize,
    /// The moves played before it, in traditional notation.
    pub played: Vec<String>,
    /// The position the bad move was tried in.
    pub pos: Position,
}

/// A failure: its kind, a one-line message, and where a move list stopped.
#[derive(Clone, Debug)]
pub struct Failure {
    /// What went wrong.
    pub kind: Kind,
    /// One line, without the `error: ` prefix.
    pub message: String,
    /// Set when a move of a list could not be played.
    pub stop: Option<Stop>,
}

impl Failure {
    /// A failure without a move list.
    pub fn new(kind: Kind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
            stop: None,
        }
    }

    /// The failure for a FEN or move that could not be read.
    pub fn notation(e: &NotationError) -> Failure {
        Failure::new(Kind::of_notation(e), e.to_string())
    }

    /// Whether this is standard output closing under us (a reader such as
    /// `head` that has seen enough): the program then stops quietly.
    pub fn is_closed_output(&self) -> bool {
        self.kind == Kind::Io && self.message.is_empty()
    }

    /// A failure to read standard input.
    pub fn input(e: io::Error) -> Failure {
        Failure::new(Kind::Io, format!("cannot read standard input: {e}"))
    }

    /// The text for standard error: the `error: ` line, then, for a move
    /// list that stopped, the moves before the bad one and the board there.
    pub fn text(&self) -> String {
        let mut s = format!("error: {}\n", self.message.replace('\n', " "));
        if let Some(stop) = &self.stop {
            let before = if stop.played.is_empty() {
                "before any move".to_string()
            } else {
                format!("after {}", stop.played.join(" "))
            };
            let _ = writeln!(s, "The position {before}: {}", stop.pos.fen());
            s.push_str(&diagram(&stop.pos));
        }
        s
    }
}

/// A failure to write standard output. A closed pipe gets an empty message
/// (see [`Failure::is_closed_output`]).
impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Failure::new(Kind::Io, "")
        } else {
            Failure::new(Kind::Io, format!("cannot write the output: {e}"))
        }
    }
}
