//! Helpers shared by the tests that run `togyz-gen generate`.

#![allow(dead_code)] // each test binary uses part of this module

use std::path::Path;
use std::process::{Child, Command, Output};
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

/// `togyz-gen generate --quiet --metric METRIC` up to `max` stones into
/// `out` with `threads` threads and `extra` flags.
pub fn generate(metric: &str, out: &Path, max: u32, threads: usize, extra: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_togyz-gen"));
    c.args(["generate", "--quiet", "--metric", metric, "--max-stones"])
        .arg(max.to_string())
        .args(["--threads", &threads.to_string()])
        .args(extra)
        .arg("--out")
        .arg(out);
    c
}

/// The files of work folder `work` whose names hold `marker` (`.part-`
/// for kazan parts and seeds, `.part-seed-` for seeds alone), none when it
/// is gone.
pub fn work_files(work: &Path, marker: &str) -> Vec<String> {
    std::fs::read_dir(work)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|name| name.contains(marker))
                .collect()
        })
        .unwrap_or_default()
}

/// Kills `child` (a run) once files named with `marker` appear in work
/// folder `work` (or after two minutes); returns those left there.
pub fn kill_once_there(mut child: Child, work: &Path, marker: &str) -> Vec<String> {
    let start = std::time::Instant::now();
    while work_files(work, marker).is_empty() && start.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    work_files(work, marker)
}
