//! The `togyz-gen generate` command: determinism, resuming, and never
//! overwriting what is not ours.

mod support;
use std::path::Path;
use std::process::Command;
use support::{kill_mid_level, ok_stdout, read_all};
use togyz_tb::raw::format::file_name;

/// `togyz-gen generate` (DTM) up to `max` stones into `out`, run to the end.
fn generate(out: &Path, max: u32, threads: usize) -> std::process::Output {
    support::generate("dtm", out, max, threads, &[])
        .output()
        .expect("runs togyz-gen")
}

/// Starts `generate` in the background (its output dropped).
fn spawn_generate(out: &Path, max: u32, threads: usize) -> std::process::Child {
    support::generate("dtm", out, max, threads, &[])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("runs togyz-gen")
}

#[test]
fn same_command_gives_identical_bytes_whatever_the_threads() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let ra = generate(a.path(), 4, 1);
    ok_stdout(&ra);
    let rb = generate(b.path(), 4, 2);
    ok_stdout(&rb);
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
fn levels_read_from_their_files_give_the_bytes_of_levels_held_whole() {
    let whole = tempfile::tempdir().unwrap();
    ok_stdout(&generate(whole.path(), 5, 2));
    // Nothing held whole, then levels 1 and 2 whole and the rest read per
    // unit from the files.
    for hold in ["0", "40000"] {
        let dir = tempfile::tempdir().unwrap();
        let run = togyz_gen(
            &[
                "generate",
                "--quiet",
                "--max-stones",
                "5",
                "--hold-whole",
                hold,
            ],
            dir.path(),
        );
        ok_stdout(&run);
        assert_eq!(
            read_all(dir.path(), 5),
            read_all(whole.path(), 5),
            "--hold-whole {hold}"
        );
    }
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
    let stdout = ok_stdout(&out);
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
    use togyz_gen::files::write::{table_status, TableStatus};
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn_generate(dir.path(), 6, 2);
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
    // Resuming finishes the job, removes the dead run's temporary files, and
    // gives the same bytes as an uninterrupted run.
    let out = generate(dir.path(), 6, 2);
    ok_stdout(&out);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.ends_with(".tmp") || name.ends_with(".work")
        })
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let fresh = tempfile::tempdir().unwrap();
    assert!(generate(fresh.path(), 6, 2).status.success());
    assert_eq!(read_all(dir.path(), 6), read_all(fresh.path(), 6));
}

#[test]
fn only_our_dead_temporaries_are_removed() {
    use togyz_gen::files::folder::remove_stale_temporaries;
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

fn togyz_gen(args: &[&str], out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_togyz-gen"))
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .expect("runs togyz-gen")
}

#[test]
fn a_run_killed_mid_level_keeps_its_finished_units() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("togyz-06.work");
    let kept = kill_mid_level(spawn_generate(dir.path(), 6, 1), &work);
    assert!(!dir.path().join(file_name(6)).exists());
    let out = generate(dir.path(), 6, 2);
    let stdout = ok_stdout(&out);
    assert!(
        stdout.contains(&format!("{kept} of 37 units already solved")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("in {} units solved", 37 - kept)),
        "only the rest is solved: {stdout}"
    );
    assert!(
        !work.exists(),
        "the work folder goes once the table is written"
    );
    let fresh = tempfile::tempdir().unwrap();
    assert!(generate(fresh.path(), 6, 2).status.success());
    assert_eq!(read_all(dir.path(), 6), read_all(fresh.path(), 6));
}

#[test]
fn three_shards_give_the_bytes_of_one_process() {
    let shared = tempfile::tempdir().unwrap();
    let shards: Vec<_> = (0..3)
        .map(|i| {
            support::generate("dtm", shared.path(), 5, 1, &["--shard", &format!("{i}/3")])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut assembled = 0;
    for child in shards {
        let out = child.wait_with_output().unwrap();
        ok_stdout(&out);
        assembled += String::from_utf8_lossy(&out.stdout)
            .matches("table assembled")
            .count();
    }
    assert_eq!(assembled, 5, "each level assembled once, by one shard");
    let single = tempfile::tempdir().unwrap();
    assert!(generate(single.path(), 5, 2).status.success());
    assert_eq!(read_all(shared.path(), 5), read_all(single.path(), 5));
}

#[test]
fn a_shard_alone_solves_what_nobody_else_does_and_waits_for_what_others_hold() {
    let shared = tempfile::tempdir().unwrap();
    // Shard 0 of 2 alone: shard 1 never starts, so shard 0 solves its
    // units too.
    let out = togyz_gen(
        &["generate", "--quiet", "--max-stones", "2", "--shard", "0/2"],
        shared.path(),
    );
    ok_stdout(&out);
    // A unit held by another process (its lock taken here) is waited for,
    // with a message, up to the timeout.
    let work = shared.path().join("togyz-03.work");
    std::fs::create_dir_all(&work).unwrap();
    let held =
        togyz_gen::run::lock::try_exclusive(&work.join(".unit-00-00.lock"), "a test").unwrap();
    let out = togyz_gen(
        &[
            "generate",
            "--quiet",
            "--max-stones",
            "3",
            "--shard",
            "1/2",
            "--wait-timeout",
            "2",
        ],
        shared.path(),
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("gave up after waiting 2 s") && stderr.contains("1 of 37 units"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("waiting for the other shards"));
    let out = togyz_gen(&["assemble"], shared.path());
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("1 of 37 units not solved yet"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    drop(held);
    let out = generate(shared.path(), 3, 1);
    ok_stdout(&out);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("36 of 37 units already solved"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let single = tempfile::tempdir().unwrap();
    assert!(generate(single.path(), 3, 1).status.success());
    assert_eq!(read_all(shared.path(), 3), read_all(single.path(), 3));
}

#[test]
fn a_second_run_into_a_locked_folder_names_the_holder() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = spawn_generate(dir.path(), 7, 1);
    let start = std::time::Instant::now();
    while !dir.path().join(file_name(1)).exists() && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let second = generate(dir.path(), 7, 1);
    first.kill().unwrap();
    first.wait().unwrap();
    assert_eq!(second.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(
        stderr.contains("locked by another togyz-gen run")
            && stderr.contains(&format!("pid {}", first.id()))
            && stderr.contains("--max-stones 7"),
        "{stderr}"
    );
    // Since when, as a date.
    assert!(
        stderr.contains(" UTC: ") && !stderr.contains("unix time"),
        "{stderr}"
    );
}

#[test]
fn what_cannot_be_done_is_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    // Beyond the solver: the limit is named.
    let out = generate(dir.path(), 18, 1);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("between 1 and 17"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Beyond this machine's memory: refused before any work, with a
    // figure and what would fit.
    let out = generate(dir.path(), 17, 1);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not enough memory") && stderr.contains("--max-stones"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("plan: "));
    assert!(!dir.path().join(file_name(1)).exists(), "no work done");
    // Beyond the memory given: the 8-stone run needs hundreds of megabytes.
    let out = Command::new(env!("CARGO_BIN_EXE_togyz-gen"))
        .args([
            "generate",
            "--quiet",
            "--max-stones",
            "8",
            "--max-memory",
            "50M",
            "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not enough memory") && stderr.contains("--max-memory allows 50 MB"),
        "{stderr}"
    );
    assert!(!dir.path().join(file_name(1)).exists(), "no work done");
    // A memory that is no byte count.
    let out = Command::new(env!("CARGO_BIN_EXE_togyz-gen"))
        .args(["generate", "--max-memory", "16Q", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("K, M, G or T"));
    // A file as the output folder.
    let file = dir.path().join("README.md");
    std::fs::write(&file, b"notes").unwrap();
    let out = generate(&file, 2, 1);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is a file, not a folder"), "{stderr}");
    assert_eq!(std::fs::read(&file).unwrap(), b"notes");
    // No threads.
    let out = generate(dir.path(), 2, 0);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("at least 1"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A bad shard.
    let out = togyz_gen(&["generate", "--shard", "3/3"], dir.path());
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 <= I < K"));
}

#[test]
fn a_folder_that_cannot_be_written_is_found_before_any_work() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("ro");
    std::fs::create_dir(&out_dir).unwrap();
    std::fs::set_permissions(&out_dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    if std::fs::write(out_dir.join("probe"), b"").is_ok() {
        // Running as root: permissions do not stop us; nothing to test.
        return;
    }
    let out = generate(&out_dir, 3, 1);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot write into the output folder"),
        "{stderr}"
    );
}
