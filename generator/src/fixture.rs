//! Real tables for the tests, benches and fuzz targets of every crate:
//! the DTM tables for 1..=N stones, solved and written into a temporary
//! folder (the feature `fixture`, so that `togyz-gen` itself and the
//! programs built on it carry no temporary-folder code).

use std::path::Path;
use std::sync::OnceLock;

use tempfile::TempDir;

use crate::files::write::write_levels;
use crate::solve::dtm::solve_all;

/// Stones of the tables [`small_tables`] holds.
pub const SMALL_STONES: u32 = 4;

/// Solves the DTM tables for 1..=`n` stones and writes them into `dir`.
///
/// # Panics
///
/// When they cannot be solved or written: a fixture that fails is the
/// test's failure.
pub fn write_dtm_tables(dir: &Path, n: u32) {
    let levels = solve_all(n).expect("levels solve");
    write_levels(dir, &levels).expect("tables written");
}

/// A new temporary folder with the DTM tables for 1..=`n` stones, removed
/// when dropped.
///
/// # Panics
///
/// As [`write_dtm_tables`], or when no temporary folder can be made.
pub fn dtm_tables(n: u32) -> TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    write_dtm_tables(dir.path(), n);
    dir
}

/// The folder of the DTM tables for 1..=[`SMALL_STONES`] stones, made
/// once per process (each test binary) and kept until it ends.
///
/// # Panics
///
/// As [`dtm_tables`].
pub fn small_tables() -> &'static Path {
    static DIR: OnceLock<TempDir> = OnceLock::new();
    DIR.get_or_init(|| dtm_tables(SMALL_STONES)).path()
}
