//! A resume over a damaged unit file: the damage is found when the file is
//! read, named, and the unit solved again and its file replaced; the run
//! ends (issue 30: it used to solve the unit again for ever, its damaged
//! file never replaced, and `--wait-timeout` never stopped it).

mod support;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::{ok_stdout, read_all, unit_files};

const MAX: u32 = 3;
const DAMAGED: &str = "unit-01-09.tkv";

fn togyz_gen(args: &[&str], out: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_togyz-gen"));
    c.args(args).arg("--out").arg(out);
    c
}

/// Runs `cmd`, killing it if it has not ended within `limit`: a run that
/// never ends fails the test instead of hanging it.
fn run_bounded(mut cmd: Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs togyz-gen");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!(
                "still running after {limit:?}; its output:\n{}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// An output folder with the tables below `MAX` and all but one of
/// level `MAX`'s unit files: unit 00-00 is held (its lock taken here) so
/// the run stops waiting for it, as a killed run leaves the folder.
fn interrupted_level() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join(format!("togyz-{MAX:02}.work"));
    std::fs::create_dir_all(&work).unwrap();
    let held =
        togyz_gen::run::lock::try_exclusive(&work.join(".unit-00-00.lock"), "a test").unwrap();
    let max = MAX.to_string();
    let args = ["generate", "--quiet", "--max-stones", &max];
    let out = run_bounded(
        {
            let mut c = togyz_gen(&args, dir.path());
            c.args(["--threads", "1", "--wait-timeout", "1"]);
            c
        },
        Duration::from_secs(60),
    );
    assert!(!out.status.success(), "the held unit is never solved");
    drop(held);
    assert_eq!(unit_files(&work), 36);
    assert!(work.join(DAMAGED).exists());
    dir
}

/// Damages `DAMAGED` in the interrupted folder with `damage`, resumes, and
/// checks that the run ends, names the file and writes the right tables.
fn resumes_over(what: &str, damage: impl Fn(&mut Vec<u8>)) {
    resumes_over_damage(what, true, damage)
}

/// [`resumes_over`]; `assemble` names the file too when its `header` is
/// damaged (it reads headers only).
fn resumes_over_damage(what: &str, header: bool, damage: impl Fn(&mut Vec<u8>)) {
    let dir = interrupted_level();
    let file = dir
        .path()
        .join(format!("togyz-{MAX:02}.work"))
        .join(DAMAGED);
    let mut bytes = std::fs::read(&file).unwrap();
    damage(&mut bytes);
    std::fs::write(&file, &bytes).unwrap();
    if header {
        let out = togyz_gen(&["assemble"], dir.path()).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success()
                && stderr.contains(&format!("warning: {}: damaged unit file", file.display())),
            "{what}: {stderr}"
        );
    }
    let max = MAX.to_string();
    let mut cmd = togyz_gen(&["generate", "--quiet", "--max-stones", &max], dir.path());
    cmd.args(["--threads", "1", "--wait-timeout", "5"]);
    let out = run_bounded(cmd, Duration::from_secs(60));
    let stdout = ok_stdout(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("warning: {}: damaged unit file", file.display())),
        "{what}: the damaged file is named: {stderr}"
    );
    assert!(
        stdout.contains("35 of 37 units already solved") && stdout.contains("in 2 units solved"),
        "{what}: the held unit and the damaged one are solved: {stdout}"
    );
    let fresh = tempfile::tempdir().unwrap();
    ok_stdout(
        &togyz_gen(&["generate", "--quiet", "--max-stones", &max], fresh.path())
            .output()
            .unwrap(),
    );
    assert_eq!(
        read_all(dir.path(), MAX),
        read_all(fresh.path(), MAX),
        "{what}"
    );
}

#[test]
fn a_truncated_unit_file_is_solved_again() {
    resumes_over("truncated", |b| b.truncate(b.len() - 1));
}

#[test]
fn an_empty_unit_file_is_solved_again() {
    resumes_over("empty", Vec::clear);
}

#[test]
fn a_unit_file_with_a_flipped_header_byte_is_solved_again() {
    resumes_over("header byte 44", |b| b[44] ^= 0x01);
}

#[test]
fn a_unit_file_with_a_flipped_chunk_byte_is_solved_again() {
    // The header and length agree: only the chunk's checksum tells.
    resumes_over_damage("chunk byte", false, |b| {
        let last = b.len() - 3;
        b[last] ^= 0x40;
    });
}

#[test]
fn a_table_another_run_is_writing_is_waited_for_within_the_timeout() {
    // Another run holds the level's assembly lock: this one solves every
    // unit, waits for the table up to --wait-timeout, and says who holds
    // the lock (it used to wait on the lock for ever).
    let dir = tempfile::tempdir().unwrap();
    let lock = dir.path().join(format!(".togyz-{MAX:02}.assemble.lock"));
    let held = togyz_gen::run::lock::try_exclusive(&lock, "a test assembling").unwrap();
    let max = MAX.to_string();
    let mut cmd = togyz_gen(&["generate", "--quiet", "--max-stones", &max], dir.path());
    cmd.args(["--threads", "1", "--wait-timeout", "1"]);
    let out = run_bounded(cmd, Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("gave up after waiting 1 s for the table")
            && stderr.contains("a test assembling"),
        "{stderr}"
    );
    let out = togyz_gen(&["assemble"], dir.path()).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("being assembled by another run"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    drop(held);
    let out = togyz_gen(&["assemble"], dir.path()).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("table assembled"));
    let fresh = tempfile::tempdir().unwrap();
    ok_stdout(
        &togyz_gen(&["generate", "--quiet", "--max-stones", &max], fresh.path())
            .output()
            .unwrap(),
    );
    assert_eq!(read_all(dir.path(), MAX), read_all(fresh.path(), MAX));
}
