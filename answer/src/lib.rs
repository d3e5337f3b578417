//! # togyz-answer
//!
//! What the front ends of togyz-tb (the `togyz-probe` command line and its
//! HTTP server, the Python package, the C ABI) say the same way, defined
//! once so that they cannot drift apart:
//!
//! * [`Kind`]: why a position was not answered, with its exit code and its
//!   name in JSON error objects, and the one classification of a
//!   [`ProbeError`](togyz_tb::ProbeError) into it.
//! * The answer's JSON shape: [`TablesAnswer`] and [`MoveAnswer`] for the
//!   tables' answer, [`SearchAnswer`] above the tables, [`ErrorAnswer`] and
//!   [`BeyondAnswer`] when there is none, with what the server adds
//!   ([`Extra`], [`MoveExtra`]); [`Reply`], any of them; and the server's
//!   [`RequestError`].
//! * The annotation of a game record (`annotate --json`, the server's
//!   `POST /v1/annotate`): [`GameAnnotation`] per game, [`MoveAnnotation`]
//!   per ply, [`EvalAnswer`] per position, built from an [`AnnotatedGame`]
//!   (a record, its replay and an [`Eval`] per position), which also gives
//!   the text report its verdicts ([`Mistake`], [`winner`]).
//! * [`parse_bytes`]: a byte count as a command line takes it (`16G`).
//! * [`text`]: numbers for people (`7 plies`, `512,753,762`, `1.23 GB`),
//!   written the same way by the command line and `togyz-gen`.

mod annotation;
mod bytes;
mod json;
mod kind;
pub mod text;

pub use annotation::{
    winner, AnnotatedGame, Eval, EvalAnswer, GameAnnotation, Mistake, MoveAnnotation, Moves,
};
pub use bytes::parse_bytes;
pub use json::{
    BeyondAnswer, Distance, ErrorAnswer, Extra, MoveAnswer, MoveExtra, Proven, Reply, RequestError,
    SearchAnswer, SearchExtra, SearchMove, SearchMoveExtra, SearchStats, TablesAnswer,
};
pub use kind::Kind;
