//! Units cut along the kazan axis (`generate --kazan-pairs`, hidden, for
//! tests): in both metrics, parts of one or two pairs of kazan offsets give
//! the bytes of whole units, with the units' quiet-move graphs stored or
//! not (`--no-graph`, hidden too), also after a kill and resume (between a unit's
//! parts too, and between a DTM unit's seeding and its solve) and from
//! three shards; a cut that is not a number of pairs is refused.

mod support;
use std::process::{Command, Stdio};
use support::{generate, kill_mid_level, kill_once_there, ok_stdout, read_all};

/// The tables of whole units, up to `max` stones.
fn whole(metric: &str, max: u32) -> Vec<Vec<u8>> {
    let dir = tempfile::tempdir().unwrap();
    ok_stdout(&generate(metric, dir.path(), max, 2, &[]).output().unwrap());
    read_all(dir.path(), max)
}

#[test]
fn parts_of_one_or_two_pairs_give_the_bytes_of_whole_units_in_both_metrics() {
    for metric in ["dtm", "dtc"] {
        let expected = whole(metric, 6);
        let ways: [&[&str]; 4] = [
            &["--kazan-pairs", "1"],
            &["--kazan-pairs", "2"],
            &["--kazan-pairs", "1", "--no-graph"],
            &["--no-graph"],
        ];
        for extra in ways {
            let dir = tempfile::tempdir().unwrap();
            ok_stdout(&generate(metric, dir.path(), 6, 2, extra).output().unwrap());
            assert_eq!(read_all(dir.path(), 6), expected, "{metric} {extra:?}");
        }
    }
}

#[test]
fn dtm_parts_seeded_apart_from_table_files_give_the_bytes_of_whole_units() {
    // No level held whole: every pass decodes its exits from the files.
    let expected = whole("dtm", 6);
    let dir = tempfile::tempdir().unwrap();
    let extra = ["--kazan-pairs", "1", "--hold-whole", "0"];
    ok_stdout(&generate("dtm", dir.path(), 6, 2, &extra).output().unwrap());
    assert_eq!(read_all(dir.path(), 6), expected);
}

#[test]
fn a_cut_run_killed_mid_level_resumes_to_the_same_bytes() {
    for metric in ["dtm", "dtc"] {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("togyz-06.work");
        let child = generate(metric, dir.path(), 6, 1, &["--kazan-pairs", "1"])
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let kept = kill_mid_level(child, &work);
        // Resumed with another cut: the finished units are kept as they are.
        let extra = ["--kazan-pairs", "3"];
        let stdout = ok_stdout(&generate(metric, dir.path(), 6, 2, &extra).output().unwrap());
        assert!(
            stdout.contains(&format!("{kept} of 37 units already solved")),
            "{metric}: {stdout}"
        );
        assert_eq!(read_all(dir.path(), 6), whole(metric, 6), "{metric}");
    }
}

#[test]
fn a_run_killed_mid_unit_leaves_parts_that_are_removed_and_never_taken_for_a_unit() {
    for metric in ["dtm", "dtc"] {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("togyz-07.work");
        let child = generate(metric, dir.path(), 7, 1, &["--kazan-pairs", "1"])
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        // The biggest unit goes first: kill it between its parts.
        let left = kill_once_there(child, &work, ".part-");
        assert!(!left.is_empty(), "{metric}: killed with a part on disk");
        // A DTM unit keeps its parts' seeds first (seeded apart).
        assert!(
            metric == "dtc" || left.iter().any(|f| f.contains(".part-seed-")),
            "{metric}: {left:?}"
        );
        let units = std::fs::read_dir(&work)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tkv"))
            .count();
        assert!(units < 37, "{metric}: the unit being solved is not done");
        let extra = ["--kazan-pairs", "2"];
        let stdout = ok_stdout(&generate(metric, dir.path(), 7, 2, &extra).output().unwrap());
        assert!(
            stdout.contains("left by an interrupted run") && stdout.contains(".part-"),
            "{metric}: {stdout}"
        );
        assert!(!work.exists(), "{metric}: the work folder is gone");
        assert_eq!(read_all(dir.path(), 7), whole(metric, 7), "{metric}");
    }
}

#[test]
fn three_shards_of_cut_units_give_the_bytes_of_whole_units() {
    for metric in ["dtm", "dtc"] {
        let shared = tempfile::tempdir().unwrap();
        let shards: Vec<_> = (0..3)
            .map(|i| {
                let shard = format!("{i}/3");
                generate(
                    metric,
                    shared.path(),
                    5,
                    1,
                    &["--kazan-pairs", "1", "--shard", &shard],
                )
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
            })
            .collect();
        for child in shards {
            ok_stdout(&child.wait_with_output().unwrap());
        }
        assert_eq!(read_all(shared.path(), 5), whole(metric, 5), "{metric}");
    }
}

#[test]
fn a_cut_of_no_pairs_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["0", "1.5", "two"] {
        let out = generate("dtc", dir.path(), 3, 1, &["--kazan-pairs", bad])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("not a whole number of pairs"), "{bad}: {err}");
    }
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "nothing written"
    );
}

#[test]
fn plan_cuts_units_to_fit_the_memory_given() {
    let plan = |metric: &str, max_memory: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_togyz-gen"))
            .args([
                "plan",
                "--metric",
                metric,
                "--max-stones",
                "14",
                "--threads",
                "1",
            ])
            .args(["--max-memory", max_memory])
            .output()
            .unwrap();
        ok_stdout(&out)
    };
    for metric in ["dtm", "dtc"] {
        let roomy = plan(metric, "1000G");
        assert!(roomy.contains("every unit solved whole"), "{roomy}");
        let tight = plan(metric, "16G");
        assert!(tight.contains("cut along the kazan axis"), "{tight}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_togyz-gen"))
        .args(["plan", "--max-memory", "lots"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}
