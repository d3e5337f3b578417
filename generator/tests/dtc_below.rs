//! The DTC solve reading the levels below from their table files, a
//! unit's share at a time (`DtcBelow::for_unit`), as `generate --metric
//! dtc` does for the levels it does not hold whole (`--hold-whole`, or
//! the memory): the same values as from every level held whole, for
//! whole units and units cut into kazan parts, over DTC and DTM tables
//! below; and the same bytes from `generate` (a cut unit then seeded
//! apart), also resumed after a kill between a unit's seeding and its
//! solve, and from three shards.

mod support;
use rayon::prelude::*;
use std::process::Stdio;
use std::sync::atomic::AtomicU64;
use support::{generate, kill_once_there, ok_stdout, read_all};
use togyz_gen::below::DtcBelow;
use togyz_gen::files::write::write_table;
use togyz_gen::solve::unit::{level_units, KazanCut};
use togyz_gen::solve::{dtc, dtm};
use togyz_tb::raw::format::{file_name, TableFile};
use togyz_tb::{Backend, Metric};

/// Level 6 solved unit by unit, whole and cut into kazan parts of one
/// pair, from levels 1 to 5 held whole and from their table files with
/// none held whole (levels 1 and 2 DTM tables, 3 to 5 DTC ones): the same
/// values and draw splits.
#[test]
fn units_from_table_files_solve_as_from_every_level_held_whole() {
    let n = 6;
    let (values, levels) = dtc::solve_all(n - 1).unwrap();
    let dtm_levels = dtm::solve_all(2).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for m in 1..n {
        match m {
            1 | 2 => write_table(dir.path(), Metric::Dtm, m, &dtm_levels.table(m)),
            _ => write_table(dir.path(), Metric::Dtc, m, &values[m as usize].widened()),
        }
        .unwrap();
    }
    let mut below = DtcBelow::new(0);
    for m in 1..n {
        let file = TableFile::open_with(dir.path().join(file_name(m)), Backend::Pread).unwrap();
        below.push(file, None).unwrap();
    }
    assert!(!below.holds_all_below(n) && !below.holds_whole(1));
    let progress = AtomicU64::new(0);
    level_units(n).into_par_iter().for_each(|u| {
        let share = below.for_unit(n, u).unwrap();
        for cut in [KazanCut::WHOLE, KazanCut::pairs(1).unwrap()] {
            let whole = dtc::solve_unit(n, &levels, u, cut, &progress).unwrap();
            let read = dtc::solve_unit(n, &share, u, cut, &progress).unwrap();
            assert_eq!(read.values, whole.values, "{u:?} {cut:?}");
            assert_eq!(read.splits, whole.splits, "{u:?} {cut:?}");
        }
    });
}

/// The tables up to `max` stones of a run with `extra` flags.
fn tables(max: u32, extra: &[&str]) -> Vec<Vec<u8>> {
    let dir = tempfile::tempdir().unwrap();
    let stdout = ok_stdout(&generate("dtc", dir.path(), max, 2, extra).output().unwrap());
    if extra.contains(&"--hold-whole") {
        assert!(stdout.contains("plan: none held whole"), "{stdout}");
    }
    read_all(dir.path(), max)
}

#[test]
fn nothing_held_whole_gives_the_bytes_of_every_level_held_whole() {
    let expected = tables(6, &[]);
    let none = ["--hold-whole", "0"];
    assert_eq!(tables(6, &none), expected, "units whole");
    let cut = ["--hold-whole", "0", "--kazan-pairs", "1"];
    assert_eq!(tables(6, &cut), expected, "units cut, seeded apart");
}

/// A run killed while a unit seeded apart holds its seeds (or its parts)
/// leaves them as temporaries: the next run removes them and solves the
/// unit again, to the same bytes.
#[test]
fn a_run_killed_mid_unit_resumes_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("togyz-07.work");
    let cut = ["--hold-whole", "0", "--kazan-pairs", "1"];
    let child = generate("dtc", dir.path(), 7, 1, &cut)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    // The biggest unit goes first: kill it once it is seeded.
    let left = kill_once_there(child, &work, ".part-seed-");
    assert!(!left.is_empty(), "killed with seeds on disk");
    let resumed = ["--hold-whole", "0", "--kazan-pairs", "2"];
    let stdout = ok_stdout(
        &generate("dtc", dir.path(), 7, 2, &resumed)
            .output()
            .unwrap(),
    );
    assert!(
        stdout.contains("left by an interrupted run") && stdout.contains(".part-seed-"),
        "{stdout}"
    );
    assert_eq!(read_all(dir.path(), 7), tables(7, &[]));
}

#[test]
fn three_shards_read_the_levels_below_from_the_shared_folder() {
    let shared = tempfile::tempdir().unwrap();
    let shards: Vec<_> = (0..3)
        .map(|i| {
            let shard = format!("{i}/3");
            let extra = ["--hold-whole", "0", "--kazan-pairs", "1", "--shard", &shard];
            generate("dtc", shared.path(), 5, 1, &extra)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in shards {
        ok_stdout(&child.wait_with_output().unwrap());
    }
    assert_eq!(read_all(shared.path(), 5), tables(5, &[]));
}
