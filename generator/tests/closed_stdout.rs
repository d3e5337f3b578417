//! `togyz-gen` with its standard output closed (a pipe into `head` that has
//! read what it wanted): no panic, and the work is done all the same.

use std::process::{Command, Stdio};

/// Runs `togyz-gen args` with standard output a pipe closed before it
/// writes; returns its exit status and standard error.
fn run_closed(args: &[&str]) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_togyz-gen"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn plan_and_generate_survive_a_closed_stdout() {
    let (status, stderr) = run_closed(&["plan", "--metric", "dtc", "--max-stones", "13"]);
    assert!(status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    for metric in ["dtm", "dtc"] {
        let sub = format!("{out}/{metric}");
        let (status, stderr) = run_closed(&[
            "generate",
            "--metric",
            metric,
            "--max-stones",
            "4",
            "--quiet",
            "--out",
            &sub,
        ]);
        assert!(status.success(), "{metric}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        for n in 1..=4 {
            let table = dir.path().join(metric).join(format!("togyz-{n:02}.tkb"));
            assert!(table.exists(), "{}", table.display());
        }
    }
}
