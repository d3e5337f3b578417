//! `togyz-gen reblock`: a WDL table written again with other blocks holds
//! the same entries, answers every position as before, verifies, and
//! nothing is overwritten or written from a table with distances.

use std::path::Path;
use std::sync::OnceLock;
use togyz_gen::files::reblock::{reblock, ReblockError};
use togyz_gen::files::write::{write_table, write_wdl_table, WriteError};
use togyz_gen::solve::cells::LevelValues;
use togyz_gen::solve::dtc;
use togyz_gen::solve::held::DtcLevels;
use togyz_gen::verify::verify_dir;
use togyz_tb::raw::format::{file_name, read_header, Contents};
use togyz_tb::raw::index::Layout;
use togyz_tb::{Metric, ProbeError, Tablebase, TuzdykPairs};

const MAX: u32 = 6;

/// DTC tables up to 3 stones, WDL tables of `contents` above, to [`MAX`].
fn write_set(dir: &Path, contents: Contents) {
    static SOLVED: OnceLock<(Vec<LevelValues>, DtcLevels)> = OnceLock::new();
    let (values, splits) = SOLVED.get_or_init(|| dtc::solve_all(MAX).unwrap());
    for n in 1..=MAX {
        if n <= 3 {
            write_table(dir, Metric::Dtc, n, &values[n as usize].widened()).unwrap();
        } else {
            write_wdl_table(dir, n, contents, splits.level(n).splits()).unwrap();
        }
    }
}

#[test]
fn reblocked_tables_answer_as_before() {
    let pairs: TuzdykPairs = "3-6,1-8".parse().unwrap();
    for contents in [Contents::Wdl, Contents::Pairs(pairs)] {
        let src = tempfile::tempdir().unwrap();
        write_set(src.path(), contents);
        // Blocks of one board, of an odd size, and larger than the table.
        for boards in [1, 777, 1 << 24] {
            let dst = tempfile::tempdir().unwrap();
            for n in 1..=3 {
                std::fs::copy(src.path().join(file_name(n)), dst.path().join(file_name(n)))
                    .unwrap();
            }
            for n in 4..=MAX {
                let s = reblock(&src.path().join(file_name(n)), dst.path(), boards).unwrap();
                let h = read_header(&s.path).unwrap();
                assert_eq!((h.wdl_block_boards, h.contents), (boards, contents));
                let layout = Layout::new(n);
                assert_eq!(h.wdl_blocks, layout.boards().div_ceil(u64::from(boards)));
            }
            verify_dir(dst.path()).unwrap();
            let (a, b) = (
                Tablebase::open([src.path()]).unwrap(),
                Tablebase::open([dst.path()]).unwrap(),
            );
            for n in 4..=MAX {
                let layout = Layout::new(n);
                let mut held = 0;
                for i in (0..layout.positions()).step_by(101) {
                    let pos = layout.slot(i).position();
                    let (x, y) = (a.wdl(&pos), b.wdl(&pos));
                    match (x, y) {
                        (Ok(x), Ok(y)) => {
                            assert_eq!(x, y, "{n} stones, position {i}");
                            held += 1;
                        }
                        // Positions the table does not hold, in both.
                        (
                            Err(x @ ProbeError::NotHeld { .. }),
                            Err(y @ ProbeError::NotHeld { .. }),
                        ) => {
                            assert_eq!(x.to_string(), y.to_string())
                        }
                        (x, y) => panic!("{n} stones, position {i}: {x:?} against {y:?}"),
                    }
                }
                assert!(held > 0);
            }
        }
    }
}

#[test]
fn reblock_refuses_what_it_cannot_do_and_overwrites_nothing() {
    let src = tempfile::tempdir().unwrap();
    write_set(src.path(), Contents::Wdl);
    // A DTC table has a distance section.
    let err = reblock(&src.path().join(file_name(3)), src.path(), 64).unwrap_err();
    assert!(matches!(err, ReblockError::HasDistances(_)), "{err}");
    // Into its own folder: the file is there.
    let path = src.path().join(file_name(5));
    let before = std::fs::read(&path).unwrap();
    let err = reblock(&path, src.path(), 64).unwrap_err();
    assert!(
        matches!(err, ReblockError::Write(WriteError::Exists { .. })),
        "{err}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // No boards a block.
    let dst = tempfile::tempdir().unwrap();
    let err = reblock(&path, dst.path(), 0).unwrap_err();
    assert!(
        matches!(err, ReblockError::Write(WriteError::BadOptions)),
        "{err}"
    );
    assert!(std::fs::read_dir(dst.path()).unwrap().next().is_none());
    // A damaged table is named, and nothing is left of the new one.
    let damaged = tempfile::tempdir().unwrap();
    let mut bytes = before.clone();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    std::fs::write(damaged.path().join(file_name(5)), &bytes).unwrap();
    let err = reblock(&damaged.path().join(file_name(5)), dst.path(), 64).unwrap_err();
    assert!(err.to_string().contains(&file_name(5)), "{err}");
    assert!(std::fs::read_dir(dst.path()).unwrap().next().is_none());
}

/// The command: one line a table written, then an error naming the file
/// and a non-zero exit for a table already there.
#[test]
fn the_command_writes_and_refuses() {
    let src = tempfile::tempdir().unwrap();
    write_set(src.path(), Contents::Wdl);
    let out = tempfile::tempdir().unwrap();
    let run = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_togyz-gen"))
            .arg("reblock")
            .args([4, 5].map(|n| src.path().join(file_name(n))))
            .arg("--out")
            .arg(out.path())
            .args(["--block-boards", "100"])
            .output()
            .unwrap()
    };
    let first = run();
    assert!(first.status.success());
    let said = String::from_utf8(first.stdout).unwrap();
    assert_eq!(said.lines().count(), 2, "{said}");
    assert!(said.contains("100 boards a block"), "{said}");
    for n in [4, 5] {
        assert_eq!(
            read_header(&out.path().join(file_name(n)))
                .unwrap()
                .wdl_block_boards,
            100
        );
    }
    let again = run();
    assert!(!again.status.success());
    let err = String::from_utf8(again.stderr).unwrap();
    assert!(
        err.contains("already exists") && err.contains(&file_name(4)),
        "{err}"
    );
}
