//! Running `generate` and `assemble`: the driver ([`generate`]) over a
//! metric's solver ([`metric`]), its resource plan ([`plan`]), the folder
//! locks ([`lock`]), its errors ([`error`]) and progress ([`progress`]).

pub mod error;
pub mod event;
pub mod generate;
pub mod lock;
pub mod metric;
pub mod plan;
pub mod progress;
