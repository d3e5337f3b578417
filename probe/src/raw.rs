//! The table codec and the index, as the generator uses them.
//!
//! **For the generator (`togyz-gen`); no stability promise.** Public only
//! with the crate's feature `raw`, which the generator turns on. Nothing here is
//! needed to probe tables: an engine uses [`Tablebase`](crate::Tablebase),
//! [`Position`](crate::Position) and [`notation`](crate::notation). These
//! items may change in any release.
//!
//! * [`index`]: the dense, bijective numbering of positions (layouts, board
//!   ranks, board walkers, tuzdyk configurations).
//! * [`format`](mod@format): the table file (header, block index, block reader).
//! * The sowing primitives [`sow`], [`landing`] and [`tuzdyk_allowed`] in
//!   the cycle-index form, which the un-move generator inverts.

pub mod format;
pub mod index;

pub use crate::rules::sowing::{landing, sow, tuzdyk_allowed, Landing, Sown, NO_TUZDYK};
