//! The `togyz-gen generate` command: determinism, resuming, and never
//! overwriting what is not ours.

use std::path::Path;
use std::process::Command;
use togyz_probe::raw::format::file_name;

fn generate(out: &Path, max: u32, threads: usize) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_togyz-gen"))
        .args([
            "generate",
            "--quiet",
            "--max-stones",
            &max.to_string(),
            "--threads",
            &threads.to_string(),
            "--out",
        ])
        .arg(out)
        .output()
        .expect("runs togyz-gen")
}

fn read_all(dir: &Path, max: u32) -> Vec<Vec<u8>> {
    (1..=max)
        .map(|n| std::fs::read(dir.join(file_name(n))).expect("table written"))
        .collect()
}

#[test]
fn same_command_gives_identical_bytes_whatever_the_threads() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let ra = generate(a.path(), 4, 1);
    assert!(
        ra.status.success(),
        "{}",
        String::from_utf8_lossy(&ra.stderr)
    );
    let rb = generate(b.path(), 4, 2);
    assert!(
        rb.status.success(),
        "{}",
        String::from_utf8_lossy(&rb.stderr)
    );
    assert_eq!(read_all(a.path(), 4), read_all(b.path(), 4));
    let summary = String::from_utf8_lossy(&ra.stdout);
    assert!(
        summary.contains("positions/s"),
        "summary printed: {summary}"
    );
    assert!(
        summary.contains("1785242"),
        "total positions up to 4 stones: {summary}"
    );
}

#[test]
fn a_second_run_keeps_complete_tables_and_fills_gaps() {
    let dir = tempfile::tempdir().unwrap();
    assert!(generate(dir.path(), 3, 2).status.success());
    let before = read_all(dir.path(), 3);
    let mtime = |n| {
        std::fs::metadata(dir.path().join(file_name(n)))
            .unwrap()
            .modified()
            .unwrap()
    };
    let t2 = mtime(2);
    // Lose the 3-stone table as an interrupted run would, then resume to 4.
    std::fs::remove_file(dir.path().join(file_name(3))).unwrap();
    let out = generate(dir.path(), 4, 2);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(" 2 stones: complete table found"),
        "{stdout}"
    );
    assert_eq!(mtime(2), t2, "a complete table is not rewritten");
    assert_eq!(
        read_all(dir.path(), 3),
        before,
        "the regenerated table is identical"
    );
    assert!(dir.path().join(file_name(4)).exists());
}

#[test]
fn an_invalid_file_in_the_way_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(file_name(2));
    std::fs::write(&path, b"my notes, not a table").unwrap();
    let out = generate(dir.path(), 3, 2);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: ") && stderr.contains("togyz-02.tkb"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"my notes, not a table");
    assert!(
        !dir.path().join(file_name(1)).exists(),
        "nothing is generated before the check"
    );
}

#[test]
fn a_truncated_table_is_refused_not_reused() {
    let dir = tempfile::tempdir().unwrap();
    assert!(generate(dir.path(), 2, 2).status.success());
    let path = dir.path().join(file_name(2));
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 7]).unwrap();
    let out = generate(dir.path(), 3, 2);
    assert!(!out.status.success());
    assert_eq!(
        std::fs::read(&path).unwrap().len(),
        bytes.len() - 7,
        "left as it was"
    );
}

#[test]
fn bad_arguments_exit_with_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = generate(dir.path(), 0, 2);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--max-stones"));
}

#[test]
fn a_killed_run_leaves_nothing_that_passes_as_complete() {
    use togyz_gen::write::{table_status, TableStatus};
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_togyz-gen"))
        .args([
            "generate",
            "--quiet",
            "--max-stones",
            "6",
            "--threads",
            "2",
            "--out",
        ])
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    child.kill().unwrap();
    child.wait().unwrap();
    for n in 1..=6 {
        let status = table_status(dir.path(), n);
        assert!(
            matches!(status, TableStatus::Missing | TableStatus::Complete),
            "n={n}: {status:?}"
        );
    }
    // Resuming finishes the job, removes the dead run's temporary file, and
    // gives the same bytes as an uninterrupted run.
    let out = generate(dir.path(), 6, 2);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let fresh = tempfile::tempdir().unwrap();
    assert!(generate(fresh.path(), 6, 2).status.success());
    assert_eq!(read_all(dir.path(), 6), read_all(fresh.path(), 6));
}

#[test]
fn only_our_dead_temporaries_are_removed() {
    use togyz_gen::write::remove_stale_temporaries;
    let dir = tempfile::tempdir().unwrap();
    let dead = dir.path().join(".togyz-07.tkb.4000000000.tmp");
    let live = dir
        .path()
        .join(format!(".togyz-07.tkb.{}.tmp", std::process::id()));
    let foreign = [
        ".notes.4000000000.tmp",
        ".togyz-7.tkb.4000000000.tmp",
        "togyz-07.tkb",
    ];
    for path in [&dead, &live] {
        std::fs::write(path, b"partial").unwrap();
    }
    for name in foreign {
        std::fs::write(dir.path().join(name), b"mine").unwrap();
    }
    assert_eq!(remove_stale_temporaries(dir.path()), vec![dead.clone()]);
    assert!(!dead.exists());
    assert!(live.exists(), "a running process's file stays");
    for name in foreign {
        assert!(
            dir.path().join(name).exists(),
            "{name} is not ours to remove"
        );
    }
    // Through the command too: the run removes and reports it.
    std::fs::write(&dead, b"partial").unwrap();
    let out = generate(dir.path(), 1, 1);
    assert!(String::from_utf8_lossy(&out.stdout).contains("left by an interrupted run"));
    assert!(!dead.exists());
}
