//! # togyz-gen
//!
//! The heavy half of togyz-tb, in layers, each importing only those above
//! it in this list:
//!
//! * [`solve`]: retrograde analysis of one level in memory, given the
//!   smaller ones (units, un-moves, the DTM and DTC solvers);
//! * [`files`]: unit work files, the table writer and the decoder;
//! * [`levels`]: the smaller levels read back from their table files;
//! * [`run`]: the `generate` driver with its plan, locks, shards and
//!   progress;
//! * [`verify`]: an independent check of written tables;
//! * [`stats`]: endgame statistics.

pub mod files;
pub mod levels;
pub mod run;
pub mod solve;
pub mod stats;
pub mod verify;
