//! Helpers shared by the tests that run `togyz-gen generate`.

#![allow(dead_code)] // each test binary uses part of this module

use std::path::Path;
use std::process::{Child, Output};
use togyz_tb::raw::format::file_name;

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

/// Kills a run once some, not all, of the 37 units of the level whose work
/// folder is `work` are on disk; returns how many are.
pub fn kill_mid_level(mut child: Child, work: &Path) -> usize {
    let start = std::time::Instant::now();
    while unit_files(work) < 3 && start.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let kept = unit_files(work);
    assert!(
        (3..37).contains(&kept),
        "killed mid-level with {kept} units done"
    );
    kept
}
