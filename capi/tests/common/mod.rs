//! Shared by the integration tests: real tables for 1..=4 stones, solved
//! and written by the generator into a temporary folder once per test
//! binary, and positions to probe in them.

use std::path::Path;

/// Positions with at most 4 stones: wins, draws, losses, a tuzdyk, a
/// finished game.
#[allow(dead_code)] // not every test binary uses it
pub const FENS: &[&str] = &[
    "7,2S,1/8,2S 79 79 S 1",
    "1S,8/9 80 81 N 30",
    "2S,8/1S,8 79 80 S 3",
    "9/1S,3S,7 79 79 N 1",
    "1S,1S,7/1S,1S,7 79 79 S 5",
    "9/2S,2S,7 79 79 S 2",
    "8,4S/9 79 79 S 1",
    "2S,t,7/1S,8 79 80 S 3",
];

/// The folder of the solved tables for 1..=4 stones.
pub fn tables() -> &'static Path {
    togyz_gen::fixture::small_tables()
}
