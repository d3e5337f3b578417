//! # togyz-gen
//!
//! The heavy half of togyz-tb, in layers, each importing only those above
//! it in this list:
//!
//! * [`event`], [`pool`]: what the long-running commands (`run`, `verify`,
//!   `stats`) share: the events they report, and their worker pool;
//! * [`solve`]: retrograde analysis of one level in memory, given the
//!   smaller ones (units, un-moves, the DTM and DTC solvers);
//! * [`files`]: unit work files, the table writer and the decoder;
//! * [`below`]: what a level reads of the levels under it, for both
//!   metrics: held in memory ([`solve::held`], which the solvers of
//!   [`solve`] read, and which imports only `solve`'s cells, scores and
//!   errors), and read back from their table files ([`below::dtm`],
//!   [`below::dtc`]);
//! * the three commands, side by side (none imports another):
//!   [`run`], the `generate` driver with its plan, locks, shards and
//!   resuming; [`verify`], an independent check of written tables;
//!   [`stats`], endgame statistics.
//!
//! With the feature `fixture`, `fixture` writes real tables into a
//! temporary folder for the other crates' tests, benches and fuzz targets.

pub mod below;
pub mod event;
pub mod files;
#[cfg(feature = "fixture")]
pub mod fixture;
pub mod pool;
pub mod run;
pub mod solve;
pub mod stats;
pub mod verify;
