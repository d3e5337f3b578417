//! `togyz-gen generate --metric dtc` unit by unit: the same bytes as the
//! in-memory solver and writer, after a kill and resume, and from three
//! shards; DTM and DTC units never mix.

mod support;
use std::path::Path;
use std::process::{Command, Stdio};
use support::{generate, kill_mid_level, ok_stdout, read_all, unit_files};
use togyz_gen::files::folder::work_dir;
use togyz_gen::files::work;
use togyz_gen::files::write::write_table;
use togyz_gen::solve::cells::LevelValues;
use togyz_gen::solve::dtc;
use togyz_gen::solve::unit::{level_units, KazanCut};
use togyz_tb::raw::format::file_name;
use togyz_tb::Metric;

/// The tables of the in-memory path: `dtc::solve_all` and `write_table`.
fn in_memory(dir: &Path, max: u32) -> Vec<Vec<u8>> {
    let (values, _) = dtc::solve_all(max).unwrap();
    for (n, v) in values.iter().enumerate().skip(1) {
        match v {
            LevelValues::Narrow(v) => write_table(dir, Metric::Dtc, n as u32, v).unwrap(),
            LevelValues::Wide(v) => write_table(dir, Metric::Dtc, n as u32, v).unwrap(),
        };
    }
    read_all(dir, max)
}

#[test]
fn units_give_the_bytes_of_the_in_memory_path_and_resume_after_a_kill() {
    let memory = tempfile::tempdir().unwrap();
    let expected = in_memory(memory.path(), 6);

    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("togyz-06.work");
    let child = generate("dtc", dir.path(), 6, 1, &[])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let kept = kill_mid_level(child, &work);
    assert!(work.join("metric-dtc").exists(), "the folder says DTC");
    assert!(!dir.path().join(file_name(6)).exists());

    // A DTM run does not take the DTC units for its own: over DTM tables
    // below, with a copy of the DTC work folder.
    let dtm_dir = tempfile::tempdir().unwrap();
    let dtm = |max: u32| {
        generate("dtm", dtm_dir.path(), max, 2, &[])
            .output()
            .unwrap()
    };
    ok_stdout(&dtm(5));
    let copy = dtm_dir.path().join("togyz-06.work");
    std::fs::create_dir(&copy).unwrap();
    for e in std::fs::read_dir(&work).unwrap().flatten() {
        std::fs::copy(e.path(), copy.join(e.file_name())).unwrap();
    }
    let refused = dtm(6);
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("holds units of DTC tables, not DTM"), "{err}");
    assert_eq!(unit_files(&copy), kept, "nothing of it is touched");
    assert!(!dtm_dir.path().join(file_name(6)).exists());

    let stdout = ok_stdout(&generate("dtc", dir.path(), 6, 2, &[]).output().unwrap());
    assert!(
        stdout.contains(&format!("{kept} of 37 units already solved")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("in {} units solved", 37 - kept)),
        "only the rest is solved: {stdout}"
    );
    assert!(stdout.contains("plan: "), "{stdout}");
    assert!(
        !work.exists(),
        "the work folder goes once the table is written"
    );
    assert_eq!(read_all(dir.path(), 6), expected);
}

#[test]
fn three_dtc_shards_give_the_bytes_of_one_process() {
    let shared = tempfile::tempdir().unwrap();
    let shards: Vec<_> = (0..3)
        .map(|i| {
            generate("dtc", shared.path(), 5, 1, &["--shard", &format!("{i}/3")])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut assembled = 0;
    for child in shards {
        let out = child.wait_with_output().unwrap();
        assembled += ok_stdout(&out).matches("table assembled").count();
    }
    assert_eq!(assembled, 5, "each level assembled once, by one shard");
    let single = tempfile::tempdir().unwrap();
    ok_stdout(&generate("dtc", single.path(), 5, 2, &[]).output().unwrap());
    assert_eq!(read_all(shared.path(), 5), read_all(single.path(), 5));
    let memory = tempfile::tempdir().unwrap();
    assert_eq!(read_all(single.path(), 5), in_memory(memory.path(), 5));
}

/// `togyz-gen assemble` writes DTC tables from work folders of DTC units
/// (solved here with `dtc::solve_unit`), the bytes of the in-memory path.
#[test]
fn assemble_writes_dtc_tables_from_dtc_units() {
    let out = tempfile::tempdir().unwrap();
    let progress = std::sync::atomic::AtomicU64::new(0);
    let mut lower = togyz_gen::below::DtcLevels::new();
    for n in 1..=4 {
        let dir = work_dir(out.path(), n);
        std::fs::create_dir_all(&dir).unwrap();
        work::claim_metric(&dir, Metric::Dtc).unwrap();
        for u in level_units(n) {
            let unit = dtc::solve_unit(n, &lower, u, KazanCut::WHOLE, &progress).unwrap();
            work::write_unit(&dir, n, u, &unit.values).unwrap();
        }
        lower
            .push(dtc::solve_level(n, &lower, &progress).unwrap().wdl)
            .unwrap();
    }
    let run = Command::new(env!("CARGO_BIN_EXE_togyz-gen"))
        .args(["assemble", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(ok_stdout(&run).matches("table assembled").count(), 4);
    let memory = tempfile::tempdir().unwrap();
    assert_eq!(read_all(out.path(), 4), in_memory(memory.path(), 4));
    assert!(!work_dir(out.path(), 4).exists());
}

/// Beyond this machine's memory: a DTC run states its plan and refuses
/// before any work, with a figure and what would fit.
#[test]
fn a_dtc_run_beyond_the_memory_is_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let out = generate("dtc", dir.path(), 17, 1, &[]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not enough memory") && stderr.contains("--max-stones"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("plan: "));
    assert!(!dir.path().join(file_name(1)).exists(), "no work done");
}
