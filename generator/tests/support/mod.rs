//! Helpers shared by the tests that run `togyz-gen generate`.

#![allow(dead_code)] // each test binary uses part of this module

use std::path::Path;
use std::process::Output;
use togyz_probe::raw::format::file_name;

/// Asserts that a run succeeded (showing its errors if not) and returns
/// its standard output.
pub fn ok_stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The bytes of the tables `1..=max` in `dir`.
pub fn read_all(dir: &Path, max: u32) -> Vec<Vec<u8>> {
    (1..=max)
        .map(|n| std::fs::read(dir.join(file_name(n))).expect("table written"))
        .collect()
}

/// Unit files in a work folder (0 when it is gone).
pub fn unit_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".tkv"))
                .count()
        })
        .unwrap_or(0)
}
