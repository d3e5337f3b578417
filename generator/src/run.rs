//! Running `generate` and `assemble`: the run ([`generate`]) with its
//! options ([`options`]) and shards ([`shard`]), its resource check against
//! the plan ([`resources`], [`plan`]), each level solved unit by unit
//! ([`units`]) and assembled ([`assemble`]) over a metric's solver
//! ([`metric`]); the folder locks ([`lock`]) and the errors ([`error`]).
//! The events it reports and its worker pool are the crate's
//! ([`crate::event`], [`crate::pool`]), shared with `verify` and `stats`.

pub mod assemble;
pub mod error;
pub mod generate;
pub mod lock;
pub mod metric;
pub mod options;
pub mod plan;
pub mod resources;
pub mod shard;
pub mod units;
