//! WDL tables (`docs/format.md`, "WDL tables"): the win/draw/loss of the
//! positions with a tuzdyk alone, without distances. Written from the
//! DTC solve's draw splits, read back by `Tablebase` as the DTC tables
//! answer, refused where they hold nothing, and searched into.

use std::path::Path;
use std::sync::OnceLock;
use tempfile::TempDir;
use togyz_gen::event::silent;
use togyz_gen::files::folder::{unit_lock_name, work_dir};
use togyz_gen::files::work;
use togyz_gen::files::write::{write_table, write_wdl_table, WriteError};
use togyz_gen::run::error::GenerateError;
use togyz_gen::run::generate::generate;
use togyz_gen::run::lock;
use togyz_gen::run::options::GenerateOptions;
use togyz_gen::run::shard::Shard;
use togyz_gen::solve::cells::LevelValues;
use togyz_gen::solve::dtc;
use togyz_gen::solve::held::DtcLevels;
use togyz_gen::solve::unit::{held_units, level_units, KazanCut, UnitId};
use togyz_gen::verify::{verify_dir, verify_dir_within, VerifyError};
use togyz_tb::raw::format::{file_name, read_header, Contents, TableFile};
use togyz_tb::raw::index::Layout;
use togyz_tb::search::{Budget, Source};
use togyz_tb::{Horizon, Metric, Position, ProbeError, Side, TableError, Tablebase, TuzdykPairs};

const MAX: u32 = 6;

/// The DTC solve up to [`MAX`]: values and draw splits.
fn solved() -> &'static (Vec<LevelValues>, DtcLevels) {
    static SOLVED: OnceLock<(Vec<LevelValues>, DtcLevels)> = OnceLock::new();
    SOLVED.get_or_init(|| dtc::solve_all(MAX).unwrap())
}

/// DTC tables up to `full`, WDL tables above it up to [`MAX`].
fn write_set(dir: &Path, full: u32) {
    let (values, splits) = solved();
    for n in 1..=MAX {
        if n <= full {
            write_table(dir, Metric::Dtc, n, &values[n as usize].widened()).unwrap();
        } else {
            write_wdl_table(dir, n, Contents::Wdl, splits.level(n).splits()).unwrap();
        }
    }
}

/// DTC tables up to [`MAX`], and DTC tables up to 3 with WDL tables
/// above: their folders, and each opened.
fn two_sets() -> (TempDir, TempDir, Tablebase, Tablebase) {
    let (full_dir, wdl_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_set(full_dir.path(), MAX);
    write_set(wdl_dir.path(), 3);
    let full = Tablebase::open([full_dir.path()]).unwrap();
    let wdl = Tablebase::open([wdl_dir.path()]).unwrap();
    (full_dir, wdl_dir, full, wdl)
}

/// Every `step`-th board of level `n`, each at every kazan offset.
fn sample(n: u32, step: u64) -> impl Iterator<Item = Position> {
    let layout = Layout::new(n);
    let mut out = Vec::new();
    for gb in (0..layout.boards()).step_by(step as usize) {
        out.extend((0..=n).map(|j| layout.slot(layout.index_at(gb, j)).position()));
    }
    out.into_iter()
}

#[test]
fn wdl_tables_answer_as_the_dtc_tables_and_hold_nothing_else() {
    let (full_dir, wdl_dir, full, wdl) = two_sets();
    assert_eq!(wdl.complete_up_to(), 3);
    assert_eq!(wdl.horizon(), Horizon::new(3, MAX));
    assert_eq!(full.horizon(), Horizon::new(MAX, MAX));

    let (mut held, mut left_out) = (0, 0);
    for n in 4..=MAX {
        // The header: the DTC table's census less the boards left out.
        let h = read_header(&wdl_dir.path().join(file_name(n))).unwrap();
        let d = read_header(&full_dir.path().join(file_name(n))).unwrap();
        assert_eq!(h.contents, Contents::Wdl);
        assert_eq!(h.distance_blocks, 0);
        let layout = Layout::new(n);
        let absent = layout.config_boards(0);
        let split = |gb: u64| solved().1.level(n).split(gb) as u64;
        let absent_losses: u64 = (0..absent).map(split).sum();
        let absent_wins = absent * n as u64 - absent_losses;
        assert_eq!(h.losses, d.losses - absent_losses, "{n}");
        assert_eq!(h.wins, d.wins - absent_wins, "{n}");
        assert_eq!(h.draws, d.draws - absent, "{n}");
        TableFile::open(wdl_dir.path().join(file_name(n)))
            .unwrap()
            .check_body()
            .unwrap();

        for pos in sample(n, 7) {
            if pos.outcome().is_some() {
                continue;
            }
            let got = wdl.wdl(&pos);
            if pos.has_tuzdyk() {
                assert_eq!(got.unwrap(), full.wdl(&pos).unwrap(), "{}", pos.fen());
                held += 1;
                // No distances: the value is not held, by design.
                assert!(
                    matches!(
                        wdl.value(&pos),
                        Err(ProbeError::NotHeld { stones, contents: Contents::Wdl }) if stones == n
                    ),
                    "{}",
                    pos.fen()
                );
                // Its moves' results are the DTC tables' (a move's
                // successor may be in a smaller table of either kind).
                let moves = wdl.wdl_moves(&pos).unwrap();
                let by_full = full.moves(&pos).unwrap();
                assert_eq!(moves.len(), by_full.len());
                assert_eq!(moves[0].1, full.wdl(&pos).unwrap(), "{}", pos.fen());
                for (mv, w) in moves {
                    let f = by_full.iter().find(|m| m.mv == mv).unwrap();
                    assert_eq!(w, f.value.wdl(), "{} {mv}", pos.fen());
                }
            } else {
                not_held(got, n, &pos);
                left_out += 1;
            }
        }
    }
    assert!(held > 10_000 && left_out > 1_000, "{held} {left_out}");

    // The file reader refuses the same.
    let file = TableFile::open(wdl_dir.path().join(file_name(5))).unwrap();
    assert!(matches!(file.wdl(0, 0), Err(TableError::NotHeld { .. })));
    let gb = Layout::new(5).global_board(20, 3);
    assert_eq!(
        file.wdl(gb, 2).unwrap(),
        full_file_wdl(full_dir.path(), 5, gb, 2)
    );
    assert!(matches!(file.value(gb, 2), Err(TableError::NotHeld { .. })));
}

/// An error unless `got` is the refusal of a position the `n`-stone table
/// does not hold.
fn not_held(got: Result<togyz_tb::Wdl, ProbeError>, n: u32, pos: &Position) {
    assert!(
        matches!(got, Err(ProbeError::NotHeld { stones, .. }) if stones == n),
        "{}: {got:?}",
        pos.fen()
    );
}

fn full_file_wdl(dir: &Path, n: u32, gb: u64, j: u32) -> togyz_tb::Wdl {
    TableFile::open(dir.join(file_name(n)))
        .unwrap()
        .wdl(gb, j)
        .unwrap()
}

/// The search stops at the WDL tables where the root has a tuzdyk: a
/// position they hold is answered from them, with a move that keeps its
/// result; one above them is proven as over the DTC tables.
#[test]
fn the_search_reads_the_wdl_tables() {
    let (_full_dir, _wdl_dir, full, wdl) = two_sets();

    // Held: answered by the tables, its best move keeps the result.
    let mut answered = 0;
    for pos in sample(6, 997).filter(|p| p.has_tuzdyk() && p.outcome().is_none()) {
        let r = wdl.solve(&pos, Budget::nodes(1000)).unwrap();
        assert_eq!(r.source, Source::Tables, "{}", pos.fen());
        assert_eq!(r.table_stones, MAX);
        let w = full.wdl(&pos).unwrap();
        assert_eq!(r.proven(), Some(w), "{}", pos.fen());
        let child = pos.after_unchecked(r.best_move.unwrap());
        assert_eq!(full.wdl(&child).unwrap().flip(), w, "{}", pos.fen());
        answered += 1;
    }
    assert!(answered > 100, "{answered}");

    // Above the tables, and below them without a tuzdyk: what either set
    // proves agrees with the other and with the DTC tables.
    let mut proven = 0;
    let above = sample(7, 4999).filter(|p| p.outcome().is_none()).take(300);
    let without = sample(6, 3001)
        .filter(|p| !p.has_tuzdyk() && p.outcome().is_none())
        .take(100);
    for pos in above.chain(without) {
        let a = full.solve(&pos, Budget::nodes(20_000)).unwrap();
        let b = wdl.solve(&pos, Budget::nodes(20_000)).unwrap();
        if let (Some(x), Some(y)) = (a.proven(), b.proven()) {
            assert_eq!(x, y, "{}", pos.fen());
        }
        if pos.stones_on_board() <= MAX {
            assert_eq!(b.proven().unwrap_or(a.lower), a.lower, "{}", pos.fen());
        }
        proven += usize::from(b.proven().is_some());
    }
    assert!(proven > 200, "{proven}");
}

/// A split past the last kazan offset is refused, and nothing is left.
#[test]
fn a_split_past_the_board_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let n = 2;
    let mut splits = solved().1.level(n).splits().to_vec();
    let last = splits.len() - 1;
    splits[last] = 3;
    let r = write_wdl_table(dir.path(), n, Contents::Wdl, &splits);
    assert!(matches!(r, Err(WriteError::SplitAbove { .. })), "{r:?}");
    let r = write_wdl_table(dir.path(), n, Contents::Wdl, &splits[1..]);
    assert!(matches!(r, Err(WriteError::WrongLength { .. })), "{r:?}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// Rewrites the header checksum of a table whose header was changed.
fn reseal_header(bytes: &mut [u8]) {
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..160]);
    bytes[160..168].copy_from_slice(&sum.to_le_bytes());
}

/// A header whose contents byte contradicts the file is refused: a DTC
/// table called a WDL table, a WDL table called complete, a code this
/// reader does not know, a DTM table without distances.
#[test]
fn contents_that_contradict_the_file_are_refused() {
    let (full_dir, wdl_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (values, splits) = solved();
    let n = 4;
    write_table(
        full_dir.path(),
        Metric::Dtc,
        n,
        &values[n as usize].widened(),
    )
    .unwrap();
    write_wdl_table(wdl_dir.path(), n, Contents::Wdl, splits.level(n).splits()).unwrap();
    let full = std::fs::read(full_dir.path().join(file_name(n))).unwrap();
    let wdl = std::fs::read(wdl_dir.path().join(file_name(n))).unwrap();
    let out = tempfile::tempdir().unwrap();
    let path = out.path().join(file_name(n));
    for (what, good, at, byte) in [
        ("DTC as WDL", &full, 43, 3u8),
        ("WDL as complete", &wdl, 43, 0),
        ("unknown code", &wdl, 43, 1),
        ("unknown bit", &wdl, 43, 0x83),
        ("DTM without distances", &wdl, 42, 0),
        ("tuzdyk pairs without a pair", &wdl, 43, 7),
        ("a pair in a WDL table", &wdl, 52, 1),
        ("a pair past the 28", &wdl, 55, 0x10),
    ] {
        let mut bad = good.clone();
        bad[at] = byte;
        reseal_header(&mut bad);
        std::fs::write(&path, &bad).unwrap();
        match TableFile::open(&path) {
            Err(
                e @ (TableError::InconsistentHeader { .. } | TableError::UnsupportedVersion { .. }),
            ) => {
                assert_eq!(e.path(), path, "{what}")
            }
            other => panic!("{what}: {other:?}"),
        }
        assert!(
            Tablebase::open([out.path()]).unwrap().damaged().count() == 1,
            "{what}"
        );
    }
}

/// `verify` checks a WDL table's every result against its moves: a set
/// with WDL tables passes, a flipped result is found and named, and a
/// table of every position above a WDL table is refused.
#[test]
fn verify_checks_wdl_tables() {
    let dir = tempfile::tempdir().unwrap();
    write_set(dir.path(), 3);
    let reports = verify_dir(dir.path()).unwrap();
    let layout = Layout::new(MAX);
    let held = layout.positions() - layout.config_boards(0) * layout.kazans();
    assert_eq!(reports.last().unwrap().positions, held);

    // One split moved by one on a board with a tuzdyk: a result changes.
    let (_, splits) = solved();
    let n = 5;
    let mut bad = splits.level(n).splits().to_vec();
    let gb = Layout::new(n).global_board(30, 11);
    bad[gb as usize] = if bad[gb as usize] == 0 {
        1
    } else {
        bad[gb as usize] - 1
    };
    std::fs::remove_file(dir.path().join(file_name(n))).unwrap();
    write_wdl_table(dir.path(), n, Contents::Wdl, &bad).unwrap();
    let whole = match verify_dir(dir.path()) {
        Err(e @ VerifyError::Inconsistent { stones, .. }) if stones == n => e,
        other => panic!("{other:?}"),
    };
    // In passes over the levels below (no level held whole, a bound that
    // fits no unit beside its exits), the same entry is named.
    let passes = verify_dir_within(dir.path(), 0, Some(1), &silent).unwrap_err();
    assert_eq!(passes.to_string(), whole.to_string());

    // A DTC table of every position above the WDL tables.
    let above = tempfile::tempdir().unwrap();
    let (values, _) = solved();
    for n in 1..=MAX {
        if n == 4 {
            write_wdl_table(above.path(), n, Contents::Wdl, splits.level(n).splits()).unwrap();
        } else {
            write_table(above.path(), Metric::Dtc, n, &values[n as usize].widened()).unwrap();
        }
    }
    refused_above(above.path(), "togyz-04.tkb");
}

/// `verify` of `dir` is refused with a table above one that lacks its
/// positions, the error naming `needle`.
fn refused_above(dir: &Path, needle: &str) {
    match verify_dir(dir) {
        Err(e @ VerifyError::AboveHoldsMore { .. }) => {
            assert!(e.to_string().contains(needle), "{e}")
        }
        other => panic!("{other:?}"),
    }
}

/// `stats`, which counts distances, gives a clear error on a folder with
/// WDL tables, never a panic or a census of the wrong values.
#[test]
fn stats_refuses_wdl_tables() {
    let dir = tempfile::tempdir().unwrap();
    write_set(dir.path(), 4);
    let r = togyz_gen::stats::stats(&togyz_gen::stats::StatsOptions::new(dir.path()), &|_| {});
    let e = r.expect_err("an error").to_string();
    assert!(e.contains("togyz-05.tkb") && e.contains("tuzdyk"), "{e}");
}

/// `generate --metric dtc --wdl-from 4` writes the DTC tables below 4 and,
/// from 4 up, the bytes `write_wdl_table` writes from the solve's draw
/// splits, never solving the unit without a tuzdyk; the set verifies, and
/// a second run keeps it.
#[test]
fn generate_writes_wdl_tables_from_the_level_asked() {
    let (out, reference) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_set(reference.path(), 3);
    let mut args = GenerateOptions::new(MAX, out.path());
    args.metric = Metric::Dtc;
    args.wdl_from = Some(4);
    let summaries = generate(&args, &silent).unwrap();
    for n in 1..=MAX {
        let a = std::fs::read(out.path().join(file_name(n))).unwrap();
        let b = std::fs::read(reference.path().join(file_name(n))).unwrap();
        assert!(a == b, "n={n}: generate and the reference differ");
        let held = Contents::Wdl.held_boards(&Layout::new(n)) * (n as u64 + 1);
        if n >= 4 {
            assert_eq!(summaries[n as usize - 1].positions, held, "n={n}");
        }
    }
    verify_dir(out.path()).unwrap();
    let again = generate(&args, &silent).unwrap();
    assert!(again.iter().all(|s| s.reused));

    // The levels below read from their files (none held whole), the
    // units whole or cut into kazan parts: the same bytes.
    for pairs in [None, Some(1)] {
        let other = tempfile::tempdir().unwrap();
        let mut args = args.clone();
        args.out = other.path().to_path_buf();
        args.hold_whole = Some(0);
        args.kazan_pairs = pairs.map(|p| KazanCut::pairs(p).unwrap());
        generate(&args, &silent).unwrap();
        for n in 4..=MAX {
            let a = std::fs::read(other.path().join(file_name(n))).unwrap();
            let b = std::fs::read(reference.path().join(file_name(n))).unwrap();
            assert!(
                a == b,
                "n={n}, {pairs:?} pairs: generate and the reference differ"
            );
        }
    }
}

/// A reference set (DTC tables up to 3, WDL tables above), an empty
/// output folder, and the options of a DTC run up to `n` into it with
/// WDL tables from `n`.
fn wdl_run(n: u32) -> (TempDir, TempDir, GenerateOptions) {
    let (reference, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_set(reference.path(), 3);
    let mut args = GenerateOptions::new(n, out.path());
    args.metric = Metric::Dtc;
    args.wdl_from = Some(n);
    (reference, out, args)
}

/// A WDL level resumes unit by unit: a run that cannot finish a unit
/// (its lock held elsewhere) leaves the others, and the unit without a
/// tuzdyk is never solved; the next run finishes the level with the same
/// bytes. The shards of a WDL run share its units.
#[test]
fn wdl_levels_resume_and_shard_by_unit() {
    let n = 4;
    let (reference, out, mut args) = wdl_run(n);
    args.wait_timeout = 0;
    let dir = work_dir(out.path(), n);
    std::fs::create_dir_all(&dir).unwrap();
    let held_unit = held_units(n, Contents::Wdl)[3];
    let lock = lock::try_exclusive(&dir.join(unit_lock_name(held_unit)), "a test").unwrap();
    let r = generate(&args, &silent);
    assert!(
        matches!(r, Err(GenerateError::WaitTimeout { missing: 1, units, .. }) if units == level_units(n).len() - 1),
        "{r:?}"
    );
    assert!(!work::unit_done(&dir, n, UnitId::of(0)));
    let done = held_units(n, Contents::Wdl)
        .into_iter()
        .filter(|&u| work::unit_done(&dir, n, u))
        .count();
    assert_eq!(done, level_units(n).len() - 2);
    drop(lock);
    // `togyz-gen assemble` waits for the unit left; then shard 1 of 2
    // finishes the level.
    togyz_gen::run::assemble::assemble(out.path(), &silent).unwrap();
    assert!(!out.path().join(file_name(n)).exists());
    args.shard = Some(Shard::parse("1/2").unwrap());
    generate(&args, &silent).unwrap();
    let a = std::fs::read(out.path().join(file_name(n))).unwrap();
    let b = std::fs::read(reference.path().join(file_name(n))).unwrap();
    assert!(a == b, "the resumed level differs");
    assert!(!dir.exists(), "the work folder is removed");
}

/// `togyz-gen assemble` writes a WDL table from a WDL run's work folder.
#[test]
fn assemble_writes_a_wdl_runs_units_as_a_wdl_table() {
    let n = 4;
    let (reference, out, args) = wdl_run(n);
    generate(&args, &silent).unwrap();
    let table = out.path().join(file_name(n));
    let dir = units_left_for_assemble(out.path(), &args, n);
    assert_eq!(work::marked_wdl(&dir), Some(Contents::Wdl));
    togyz_gen::run::assemble::assemble(out.path(), &silent).unwrap();
    let a = std::fs::read(&table).unwrap();
    let b = std::fs::read(reference.path().join(file_name(n))).unwrap();
    assert!(a == b, "assemble and the reference differ");
}

/// Level `n`'s table removed and its units solved again into its work
/// folder by a run of `args` that cannot write the table (its assembly
/// lock held), as shards leave them for `assemble`: the work folder.
fn units_left_for_assemble(out: &Path, args: &GenerateOptions, n: u32) -> std::path::PathBuf {
    std::fs::remove_file(out.join(file_name(n))).unwrap();
    let mut shard = args.clone();
    shard.wait_timeout = 0;
    let dir = work_dir(out, n);
    std::fs::create_dir_all(&dir).unwrap();
    let lock_name = format!(".togyz-{n:02}.assemble.lock");
    let assembly = lock::try_exclusive(&out.join(lock_name), "a test").unwrap();
    let r = generate(&shard, &silent);
    assert!(
        matches!(r, Err(GenerateError::AssemblyTimeout { .. })),
        "{r:?}"
    );
    drop(assembly);
    dir
}

/// A run refuses a folder whose tables lack positions it writes, and
/// `--wdl-from` without DTC, before any work; a table holding more than
/// asked is kept.
#[test]
fn wdl_runs_refuse_what_does_not_match() {
    let out = tempfile::tempdir().unwrap();
    write_set(out.path(), 3);
    let mut args = GenerateOptions::new(MAX, out.path());
    args.metric = Metric::Dtc;
    let r = generate(&args, &silent);
    let err = r.unwrap_err().to_string();
    assert!(
        err.contains("togyz-04.tkb") && err.contains("--wdl-from"),
        "{err}"
    );
    args.wdl_from = Some(5);
    let err = generate(&args, &silent).unwrap_err().to_string();
    assert!(err.contains("togyz-04.tkb"), "{err}");
    args.metric = Metric::Dtm;
    args.wdl_from = Some(4);
    let r = generate(&args, &silent);
    assert!(matches!(r, Err(GenerateError::WdlNeedsDtc)), "{r:?}");
    // Nothing was touched.
    let names: Vec<_> = std::fs::read_dir(out.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".tkb"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
    // A table of every position holds what a WDL level asks: kept.
    args.metric = Metric::Dtc;
    args.wdl_from = Some(3);
    let kept = generate(&args, &silent).unwrap();
    assert!(kept.iter().all(|s| s.reused), "{kept:?}");
}

/// The tuzdyk pairs of the tests: a tuzdyk in holes 3 and 6, and in 1
/// and 8.
fn pairs() -> TuzdykPairs {
    "3-6,1-8".parse().unwrap()
}

/// `generate --wdl-from 4 --wdl-pairs 3-6,1-8` solves the units of those
/// pairs alone and writes the bytes `write_wdl_table` writes of the same
/// contents; the tables answer the positions of those pairs as the DTC
/// tables do, refuse the others, and verify; the search stops at them
/// for a position of those pairs and proves what the DTC tables say.
#[test]
fn wdl_tables_of_tuzdyk_pairs() {
    let contents = Contents::Pairs(pairs());
    let (out, reference) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (values, splits) = solved();
    for n in 1..=MAX {
        if n < 4 {
            write_table(
                reference.path(),
                Metric::Dtc,
                n,
                &values[n as usize].widened(),
            )
            .unwrap();
        } else {
            write_wdl_table(reference.path(), n, contents, splits.level(n).splits()).unwrap();
        }
    }
    let mut args = GenerateOptions::new(MAX, out.path());
    args.metric = Metric::Dtc;
    args.wdl_from = Some(4);
    args.wdl_pairs = Some(pairs());
    args.hold_whole = Some(0);
    let summaries = generate(&args, &silent).unwrap();
    for n in 1..=MAX {
        let a = std::fs::read(out.path().join(file_name(n))).unwrap();
        let b = std::fs::read(reference.path().join(file_name(n))).unwrap();
        assert!(a == b, "n={n}: generate and the reference differ");
    }
    for n in 4..=MAX {
        assert_eq!(held_units(n, contents).len(), 2);
        let layout = Layout::new(n);
        assert_eq!(
            summaries[n as usize - 1].positions,
            contents.held_boards(&layout) * layout.kazans()
        );
        assert_eq!(
            read_header(&out.path().join(file_name(n)))
                .unwrap()
                .contents,
            contents
        );
    }
    let reports = verify_dir(out.path()).unwrap();
    assert_eq!(reports.len(), MAX as usize);

    let full_dir = tempfile::tempdir().unwrap();
    write_set(full_dir.path(), MAX);
    let full = Tablebase::open([full_dir.path()]).unwrap();
    let tb = Tablebase::open([out.path()]).unwrap();
    let horizon = tb.horizon();
    assert_eq!(
        (horizon.all, horizon.with_tuzdyk, horizon.most()),
        (3, 3, MAX)
    );
    let (mut held, mut refused) = (0, 0);
    for n in 4..=MAX {
        for pos in sample(n, 5).filter(|p| p.outcome().is_none()) {
            let slot = togyz_tb::raw::index::Slot::of(&pos).unwrap();
            let pair = TuzdykPairs::config_bit(slot.config.id());
            // The horizon reads the pair from the position as the index
            // does from its configuration.
            let bit = match (pos.tuzdyk(Side::South), pos.tuzdyk(Side::North)) {
                (Some(a), Some(b)) => TuzdykPairs::bit(a - 1, b - 1),
                _ => None,
            };
            assert_eq!(pair, bit, "{}", pos.fen());
            if contents.holds_config(slot.config.id()) {
                assert_eq!(horizon.of(&pos), MAX);
                assert_eq!(
                    tb.wdl(&pos).unwrap(),
                    full.wdl(&pos).unwrap(),
                    "{}",
                    pos.fen()
                );
                held += 1;
            } else {
                assert_eq!(horizon.of(&pos), 3);
                not_held(tb.wdl(&pos), n, &pos);
                refused += 1;
            }
        }
    }
    assert!(held > 1_000 && refused > 10_000, "{held} {refused}");

    // A 7-stone position of the pairs is searched down into them: what
    // is proven is what the DTC tables up to 6 prove.
    let mut proven = 0;
    let roots = sample(7, 401)
        .filter(|p| p.outcome().is_none())
        .filter(|p| contents.holds_config(togyz_tb::raw::index::Slot::of(p).unwrap().config.id()))
        .take(150);
    for pos in roots {
        let a = full.solve(&pos, Budget::nodes(20_000)).unwrap();
        let b = tb.solve(&pos, Budget::nodes(20_000)).unwrap();
        assert_eq!(b.table_stones, MAX);
        if let (Some(x), Some(y)) = (a.proven(), b.proven()) {
            assert_eq!(x, y, "{}", pos.fen());
        }
        assert!(b.lower <= a.upper && a.lower <= b.upper, "{}", pos.fen());
        proven += usize::from(b.proven().is_some());
    }
    assert!(proven > 100, "{proven}");

    // A WDL table of every position with a tuzdyk above these is refused
    // by verify: it needs positions of other pairs.
    std::fs::remove_file(out.path().join(file_name(MAX))).unwrap();
    write_wdl_table(out.path(), MAX, Contents::Wdl, splits.level(MAX).splits()).unwrap();
    refused_above(out.path(), "holes 1-8,3-6");
}

/// A pairs run resumes and assembles as a WDL run does: the marker names
/// the pairs, `assemble` writes their table; a run for other pairs over
/// the same folder is refused before any work.
#[test]
fn wdl_pair_runs_assemble_and_refuse_other_pairs() {
    let n = 4;
    let (_reference, out, mut args) = wdl_run(n);
    args.wdl_pairs = Some(pairs());
    generate(&args, &silent).unwrap();
    let table = out.path().join(file_name(n));
    let written = std::fs::read(&table).unwrap();
    let dir = units_left_for_assemble(out.path(), &args, n);
    assert_eq!(work::marked_wdl(&dir), Some(Contents::Pairs(pairs())));
    togyz_gen::run::assemble::assemble(out.path(), &silent).unwrap();
    assert!(
        std::fs::read(&table).unwrap() == written,
        "assemble differs"
    );

    args.wdl_pairs = Some("2-5".parse().unwrap());
    let err = generate(&args, &silent).unwrap_err().to_string();
    assert!(err.contains("togyz-04.tkb"), "{err}");
}

/// `generate --wdl-from 1 --wdl-pairs 3-6`: the tables of one tuzdyk pair
/// from one stone up, no other table beneath (a game whose two tuzdyks
/// stand never leaves their pair). Each level is the bytes
/// `write_wdl_table` writes of the pair from the DTC solve; the set
/// verifies, answers the pair's positions as the DTC tables do, and
/// a search from a position of the pair proves what they prove.
#[test]
fn a_tuzdyk_pairs_tables_from_one_stone_need_no_other_table() {
    let pair: TuzdykPairs = "3-6".parse().unwrap();
    let contents = Contents::Pairs(pair);
    let (out, reference) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (_, splits) = solved();
    for n in 1..=MAX {
        write_wdl_table(reference.path(), n, contents, splits.level(n).splits()).unwrap();
    }
    let mut args = GenerateOptions::new(MAX, out.path());
    args.metric = Metric::Dtc;
    args.wdl_from = Some(1);
    args.wdl_pairs = Some(pair);
    generate(&args, &silent).unwrap();
    for n in 1..=MAX {
        let a = std::fs::read(out.path().join(file_name(n))).unwrap();
        let b = std::fs::read(reference.path().join(file_name(n))).unwrap();
        assert!(a == b, "n={n}: generate and the reference differ");
    }
    assert_eq!(verify_dir(out.path()).unwrap().len(), MAX as usize);

    let full_dir = tempfile::tempdir().unwrap();
    write_set(full_dir.path(), MAX);
    let full = Tablebase::open([full_dir.path()]).unwrap();
    let tb = Tablebase::open([out.path()]).unwrap();
    let held = |p: &Position| {
        contents.holds_config(togyz_tb::raw::index::Slot::of(p).unwrap().config.id())
    };
    let mut answered = 0;
    for n in 1..=MAX {
        for pos in sample(n, 3).filter(|p| p.outcome().is_none() && held(p)) {
            assert_eq!(tb.horizon().of(&pos), MAX);
            assert_eq!(
                tb.wdl(&pos).unwrap(),
                full.wdl(&pos).unwrap(),
                "{}",
                pos.fen()
            );
            answered += 1;
        }
    }
    assert!(answered > 500, "{answered}");
    let mut proven = 0;
    for pos in sample(7, 97)
        .filter(|p| p.outcome().is_none() && held(p))
        .take(60)
    {
        let a = full.solve(&pos, Budget::nodes(20_000)).unwrap();
        let b = tb.solve(&pos, Budget::nodes(20_000)).unwrap();
        if let (Some(x), Some(y)) = (a.proven(), b.proven()) {
            assert_eq!(x, y, "{}", pos.fen());
        }
        assert!(b.lower <= a.upper && a.lower <= b.upper, "{}", pos.fen());
        proven += usize::from(b.proven().is_some());
    }
    assert!(proven > 20, "{proven}");
}

/// Folders of one tuzdyk pair each, opened together after a folder of
/// the DTC tables up to 3: each level answers a position from the table
/// that holds its pair, the horizon reaches the top for both pairs and
/// stops at 3 for the others, which are refused naming both pairs.
#[test]
fn folders_of_one_pair_each_open_together() {
    let (_, splits) = solved();
    let (full3, a, b) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    write_set(full3.path(), 3);
    for n in 4..=MAX {
        std::fs::remove_file(full3.path().join(file_name(n))).unwrap();
    }
    let pair = |text: &str| Contents::Pairs(text.parse().unwrap());
    let (one, two) = (pair("3-6"), pair("1-8"));
    for n in 1..=MAX {
        write_wdl_table(a.path(), n, one, splits.level(n).splits()).unwrap();
        write_wdl_table(b.path(), n, two, splits.level(n).splits()).unwrap();
    }
    let tb = Tablebase::open([full3.path(), a.path(), b.path()]).unwrap();
    let full_dir = tempfile::tempdir().unwrap();
    write_set(full_dir.path(), MAX);
    let full = Tablebase::open([full_dir.path()]).unwrap();
    let h = tb.horizon();
    assert_eq!((h.all, h.with_tuzdyk, h.most()), (3, 3, MAX));
    let (mut by_pair, mut refused) = ([0; 2], 0);
    for n in 1..=MAX {
        for pos in sample(n, 7).filter(|p| p.outcome().is_none()) {
            let config = togyz_tb::raw::index::Slot::of(&pos).unwrap().config.id();
            let held = [one, two].map(|c| c.holds_config(config));
            if n <= 3 || held.contains(&true) {
                assert_eq!(
                    tb.wdl(&pos).unwrap(),
                    full.wdl(&pos).unwrap(),
                    "{}",
                    pos.fen()
                );
                assert_eq!(
                    h.of(&pos),
                    if n <= 3 && !held.contains(&true) {
                        3
                    } else {
                        MAX
                    }
                );
                for (k, &is) in held.iter().enumerate() {
                    by_pair[k] += usize::from(is && n > 3);
                }
            } else {
                assert_eq!(h.of(&pos), 3);
                match tb.wdl(&pos) {
                    Err(ProbeError::NotHeld { contents, .. }) => {
                        assert_eq!(contents, pair("1-8,3-6"))
                    }
                    other => panic!("{}: {other:?}", pos.fen()),
                }
                refused += 1;
            }
        }
    }
    assert!(
        by_pair.iter().all(|&k| k > 100) && refused > 1000,
        "{by_pair:?} {refused}"
    );
    // A folder given first with a table of every position answers its
    // levels whole: the pairs' tables of those levels are not opened.
    let tb = Tablebase::open([full_dir.path(), a.path()]).unwrap();
    assert_eq!(tb.horizon().all, MAX);
    assert!(tb.damaged().next().is_none());
}

/// A folder of one pair's WDL tables given before a folder of the DTC
/// tables of the same levels: the positions of the pair still get their
/// distances from the DTC tables (value, moves, the best move, a search
/// that starts at a table), where the first table of each level, which
/// holds them without distances, used to answer "not held".
#[test]
fn a_pairs_folder_first_does_not_hide_the_distances_after_it() {
    let (_, splits) = solved();
    let (a, full_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let one = Contents::Pairs("3-6".parse().unwrap());
    for n in 1..=MAX {
        write_wdl_table(a.path(), n, one, splits.level(n).splits()).unwrap();
    }
    write_set(full_dir.path(), MAX);
    let full = Tablebase::open([full_dir.path()]).unwrap();
    let tb = Tablebase::open([a.path(), full_dir.path()]).unwrap();
    assert_eq!(tb.horizon().all, MAX);
    let mut held = 0;
    for n in 1..=MAX {
        assert_eq!(tb.metric(n), Some(Metric::Dtc));
        for pos in sample(n, 5).filter(|p| p.outcome().is_none()) {
            let fen = pos.fen();
            assert_eq!(tb.value(&pos).unwrap(), full.value(&pos).unwrap(), "{fen}");
            assert_eq!(tb.moves(&pos).unwrap(), full.moves(&pos).unwrap(), "{fen}");
            assert_eq!(tb.best_move(&pos).unwrap(), full.best_move(&pos).unwrap());
            let config = togyz_tb::raw::index::Slot::of(&pos).unwrap().config.id();
            if one.holds_config(config) {
                held += 1;
                let s = tb.solve(&pos, Budget::nodes(1000)).unwrap();
                assert_eq!(s.source, Source::Tables, "{fen}");
                assert_eq!(s.proven(), Some(full.wdl(&pos).unwrap()), "{fen}");
            }
        }
    }
    assert!(held > 100, "{held}");
}

/// A pairs run over a folder whose levels below hold more pairs keeps
/// them and solves its pair above them: `--wdl-pairs 3-6 --max-stones 6`
/// over the tables of 3-6 and 1-8 up to 5 writes, at 6, the bytes of a
/// run of 3-6 alone from one stone, leaves the levels below as they were,
/// verifies, and the horizon reaches 6 for pair 3-6 and 5 for 1-8. A run
/// for a pair the levels below lack is still refused.
#[test]
fn a_pairs_run_goes_higher_over_the_levels_of_more_pairs() {
    let (_, splits) = solved();
    let (out, reference) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let one: TuzdykPairs = "3-6".parse().unwrap();
    for n in 1..=MAX {
        write_wdl_table(
            reference.path(),
            n,
            Contents::Pairs(one),
            splits.level(n).splits(),
        )
        .unwrap();
    }
    for n in 1..MAX {
        write_wdl_table(
            out.path(),
            n,
            Contents::Pairs(pairs()),
            splits.level(n).splits(),
        )
        .unwrap();
    }
    let below: Vec<Vec<u8>> = (1..MAX)
        .map(|n| std::fs::read(out.path().join(file_name(n))).unwrap())
        .collect();
    let mut args = GenerateOptions::new(MAX, out.path());
    args.metric = Metric::Dtc;
    args.wdl_from = Some(1);
    args.wdl_pairs = Some(one);
    args.hold_whole = Some(0);
    let summaries = generate(&args, &silent).unwrap();
    for n in 1..MAX {
        assert!(summaries[n as usize - 1].reused, "n={n}");
        let now = std::fs::read(out.path().join(file_name(n))).unwrap();
        assert!(now == below[n as usize - 1], "n={n}: a kept table changed");
    }
    assert!(!summaries[MAX as usize - 1].reused);
    let top = std::fs::read(out.path().join(file_name(MAX))).unwrap();
    let expected = std::fs::read(reference.path().join(file_name(MAX))).unwrap();
    assert!(
        top == expected,
        "the level above differs from a run of its pair alone"
    );
    assert_eq!(verify_dir(out.path()).unwrap().len(), MAX as usize);
    let h = Tablebase::open([out.path()]).unwrap().horizon();
    let bit = |a: u8, b: u8| h.pairs[TuzdykPairs::bit(a - 1, b - 1).unwrap() as usize] as u32;
    assert_eq!((bit(3, 6), bit(1, 8), h.most()), (MAX, MAX - 1, MAX));

    // Run again: everything is kept, nothing written.
    let again = generate(&args, &silent).unwrap();
    assert!(again.iter().all(|s| s.reused));

    let other = tempfile::tempdir().unwrap();
    for n in 1..MAX {
        write_wdl_table(
            other.path(),
            n,
            Contents::Pairs(one),
            splits.level(n).splits(),
        )
        .unwrap();
    }
    let mut wider = GenerateOptions::new(MAX, other.path());
    wider.metric = Metric::Dtc;
    wider.wdl_from = Some(1);
    wider.wdl_pairs = Some(pairs());
    let err = generate(&wider, &silent).unwrap_err();
    assert!(
        matches!(err, GenerateError::OtherContents { stones: 1, .. }),
        "{err}"
    );
    assert!(!other.path().join(file_name(MAX)).exists());
}
