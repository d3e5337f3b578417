//! DTC tables read a part at a time: any range decoded by the per-range
//! decoder equals the same range of the whole table; `verify` checks a DTC
//! level unit by unit, with the smaller levels' win/draw/loss read per
//! unit from their files (`--hold-whole 0`) or held whole, passes on fresh
//! tables (DTC alone, or above DTM ones) and catches a rewritten entry;
//! `stats` per unit equals the census of the whole level.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use togyz_gen::event::silent;
use togyz_gen::files::decode::DecodeAll;
use togyz_gen::files::write::write_table;
use togyz_gen::solve::cells::LevelValues;
use togyz_gen::solve::dtc;
use togyz_gen::solve::dtm;
use togyz_gen::stats::{collect, level_stats};
use togyz_gen::verify::{verify_dir_holding, verify_dir_within, VerifyError};
use togyz_tb::raw::format::{file_name, TableFile};
use togyz_tb::raw::index::Layout;
use togyz_tb::Metric;
use togyz_tb::Value;

const MAX: u32 = 5;

/// The DTC levels up to [`MAX`], solved once.
fn dtc_levels() -> &'static [LevelValues] {
    static L: OnceLock<Vec<LevelValues>> = OnceLock::new();
    L.get_or_init(|| dtc::solve_all(MAX).unwrap().0)
}

/// Writes the DTC tables `from..=to` into `dir`.
fn write_dtc(dir: &Path, from: u32, to: u32) {
    for n in from..=to {
        write_table(dir, Metric::Dtc, n, &dtc_levels()[n as usize].widened()).unwrap();
    }
}

/// Verifies `dir` with the smaller levels read from files (`hold` 0),
/// held whole, and read from files in passes (a memory bound that fits
/// no unit beside its exits).
fn verify_both(dir: &Path) -> [Result<usize, VerifyError>; 3] {
    let [a, b] = [0, u64::MAX].map(|hold| verify_dir_holding(dir, hold, &silent).map(|r| r.len()));
    let passes = verify_dir_within(dir, 0, Some(1), &silent).map(|r| r.len());
    [a, b, passes]
}

#[test]
fn any_range_of_a_dtc_table_decodes_as_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    let n = MAX;
    write_dtc(dir.path(), n, n);
    let file = TableFile::open(dir.path().join(file_name(n))).unwrap();
    let whole = dtc_levels()[n as usize].widened().into_owned();
    assert_eq!(file.decode_all().unwrap(), whole);
    let per_block = file.header().distance_block_positions as u64 * file.layout().kazans();
    let positions = file.header().positions;
    assert!(positions > 3 * per_block, "the test needs several blocks");
    // Starts and ends inside boards, on block edges, across several blocks.
    for range in [
        0..1,
        5..7,
        per_block - 3..per_block + 4,
        per_block..2 * per_block,
        per_block + 1..3 * per_block - 1,
        positions - 10..positions,
        17..17,
    ] {
        let got = file.decode_range(range.clone()).unwrap();
        let got: Vec<u16> = (0..got.len()).map(|i| got.get(i)).collect();
        assert_eq!(got, whole[range.start as usize..range.end as usize]);
    }
    let layout = Layout::new(n);
    for config in [0, 1, 40, 72] {
        let got = file.decode_config(config).unwrap();
        let first = layout.index_at(layout.global_board(config, 0), 0) as usize;
        let got: Vec<u16> = (0..got.len()).map(|i| got.get(i)).collect();
        assert_eq!(got, whole[first..first + got.len()]);
    }
    assert!(file.decode_range(0..positions + 1).is_err());
}

#[test]
fn per_unit_dtc_verify_passes_on_fresh_tables() {
    let dir = tempfile::tempdir().unwrap();
    write_dtc(dir.path(), 1, MAX);
    for r in verify_both(dir.path()) {
        assert_eq!(r.unwrap(), MAX as usize);
    }
    // DTC tables above DTM ones: the conversions read the DTM tables'
    // win/draw/loss, per unit or whole.
    let mixed = tempfile::tempdir().unwrap();
    let dtm = dtm::solve_all(2).unwrap();
    for n in 1..=2 {
        write_table(mixed.path(), Metric::Dtm, n, &dtm.table(n)).unwrap();
    }
    write_dtc(mixed.path(), 3, MAX);
    for r in verify_both(mixed.path()) {
        assert_eq!(r.unwrap(), MAX as usize);
    }
}

#[test]
fn per_unit_dtc_verify_catches_a_rewritten_entry() {
    // A win in d >= 2 stored one ply slower, at the top level and at a
    // level below the top (whose wrong entry the levels above do not see).
    for n in [MAX, MAX - 1] {
        let mut values = dtc_levels()[n as usize].widened().into_owned();
        let at = values
            .iter()
            .rposition(|&v| matches!(Value::unpack(v), Value::Win(d) if d >= 2))
            .unwrap();
        let Value::Win(d) = Value::unpack(values[at]) else {
            unreachable!()
        };
        values[at] = Value::Win(d + 1).pack().unwrap();
        let dir = tempfile::tempdir().unwrap();
        write_dtc(dir.path(), 1, n - 1);
        write_table(dir.path(), Metric::Dtc, n, &values).unwrap();
        write_dtc(dir.path(), n + 1, MAX);
        for r in verify_both(dir.path()) {
            match r {
                Err(VerifyError::Inconsistent { stones, .. }) => assert_eq!(stones, n),
                other => panic!("{other:?}"),
            }
        }
        // The command line, reading the levels below from their files.
        let out = Command::new(env!("CARGO_BIN_EXE_togyz-gen"))
            .args(["verify", "--quiet", "--hold-whole", "0", "--tables"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with("error: inconsistent entry") && stderr.contains("DTC; moves"),
            "{stderr}"
        );
    }
}

#[test]
fn dtc_stats_per_unit_equal_the_whole_level_census() {
    let dir = tempfile::tempdir().unwrap();
    write_dtc(dir.path(), 1, MAX);
    let per_unit = collect(dir.path(), 3, &silent).unwrap();
    assert_eq!(per_unit.len(), MAX as usize);
    for (s, n) in per_unit.iter().zip(1..) {
        let values = dtc_levels()[n as usize].widened();
        let counted = std::sync::atomic::AtomicU64::new(0);
        let whole = level_stats(n, &values, 3, &counted);
        assert_eq!(*s, whole, "{n} stones");
        assert_eq!(counted.into_inner(), values.len() as u64, "{n} stones");
    }
}
