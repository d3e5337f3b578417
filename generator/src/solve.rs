//! Retrograde solving of one level given the smaller ones, in memory: the
//! units a level splits into ([`unit`](mod@unit)), the quiet un-moves ([`unmove`]),
//! a board's moves played forward ([`moves`]), where a cut unit's parts go
//! ([`parts`]), packed values in one- or
//! two-byte cells ([`cells`]), the draw split of every board ([`score`]), and the two
//! metrics' solvers ([`dtm`], [`dtc`]), and the units with a tuzdyk solved
//! forward, one byte a board ([`forward`]), which asks for the bytes it
//! reads next ahead of reading them ([`prefetch`]).
//!
//! The lowest layer of the generator: it reads and writes no file. What
//! the solvers read of the smaller levels is [`crate::below`]'s, in memory
//! (`held`, named in [`crate::below`]).

pub mod cells;
pub mod core;
pub mod dtc;
pub mod dtm;
pub mod error;
pub mod forward;
pub mod held;
pub mod moves;
pub mod parts;
pub mod prefetch;
pub mod score;
pub mod unit;
pub mod unmove;
