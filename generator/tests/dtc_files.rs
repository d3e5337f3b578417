//! DTC table files (`docs/format.md`, `docs/dtc.md`): written, read back
//! through the reader, the generator's decoder and `Tablebase`, played out,
//! damaged and verified.

use std::path::Path;
use std::sync::OnceLock;
use togyz_gen::below::DtmLevels;
use togyz_gen::event::silent;
use togyz_gen::files::decode::DecodeAll;
use togyz_gen::files::write::{write_table, write_table_with, WriteError, WriteOptions};
use togyz_gen::run::options::GenerateOptions;
use togyz_gen::solve::cells::LevelValues;
use togyz_gen::solve::dtc;
use togyz_gen::solve::dtm;
use togyz_gen::verify::{verify_dir, VerifyError};
use togyz_tb::raw::format::{file_name, Section, TableFile, HEADER_LEN};
use togyz_tb::raw::index::Layout;
use togyz_tb::ProbeError;
use togyz_tb::TableError;
use togyz_tb::{Metric, Tablebase, Value, Wdl};

const MAX: u32 = 6;

/// Solved levels, DTC and DTM.
struct Solved {
    dtc: Vec<LevelValues>,
    dtm: DtmLevels,
}

/// The levels up to [`MAX`], once for the tests that need them.
fn solved() -> &'static Solved {
    static SOLVED: OnceLock<Solved> = OnceLock::new();
    SOLVED.get_or_init(|| Solved {
        dtc: dtc::solve_all(MAX).unwrap().0,
        dtm: dtm::solve_all(MAX).unwrap(),
    })
}

/// The levels up to 4 stones, for the quick tests.
fn small() -> &'static Solved {
    static SMALL: OnceLock<Solved> = OnceLock::new();
    SMALL.get_or_init(|| Solved {
        dtc: dtc::solve_all(4).unwrap().0,
        dtm: dtm::solve_all(4).unwrap(),
    })
}

/// Writes the DTC tables of levels `from..=to` of `s` into `dir`.
fn write_dtc(s: &Solved, dir: &Path, from: u32, to: u32) {
    for n in from..=to {
        write_table(dir, Metric::Dtc, n, &s.dtc[n as usize].widened()).unwrap();
    }
}

/// The DTC tables read back equal the solver's values, their WDL is the
/// DTM tables' for every position up to 6 stones, and `Tablebase` answers
/// the same with the DTC metric.
#[test]
fn dtc_tables_read_back_as_solved_and_match_the_dtm_wdl() {
    let s = solved();
    let dir = tempfile::tempdir().unwrap();
    write_dtc(s, dir.path(), 1, MAX);
    let tb = Tablebase::open([dir.path()]).unwrap();
    for n in 1..=MAX {
        let file = TableFile::open(dir.path().join(file_name(n))).unwrap();
        assert_eq!(file.metric(), Metric::Dtc);
        let h = file.header();
        assert_eq!(h.draws, h.boards, "one draw a board");
        let decoded = file.decode_all().unwrap();
        assert_eq!(&decoded[..], &s.dtc[n as usize].widened()[..], "n={n}");
        let dtm = s.dtm.table(n);
        let layout = Layout::new(n);
        for (i, (&c, &m)) in decoded.iter().zip(dtm.iter()).enumerate() {
            assert_eq!(
                Value::unpack(c).wdl(),
                Value::unpack(m).wdl(),
                "n={n} {}",
                layout.slot(i as u64).position().fen()
            );
        }
        // The probe path (block cache, distance location, a loss's DTC
        // recovered over the stored wins) on a sample.
        for i in (0..layout.positions()).step_by(97) {
            let pos = layout.slot(i).position();
            if pos.outcome().is_some() {
                continue;
            }
            let want = Value::unpack(decoded[i as usize]);
            assert_eq!(tb.value_with_metric(&pos).unwrap(), (want, Metric::Dtc));
            // The uncached reader, which recovers a loss the same way (on
            // a sparser sample: each probe decompresses its blocks).
            if i % (97 * 9) == 0 {
                let k = layout.kazans();
                assert_eq!(file.value(i / k, (i % k) as u32).unwrap(), want);
            }
            assert_eq!(tb.wdl(&pos).unwrap(), want.wdl());
        }
        // The WDL section alone gives the solver's draw splits.
        let splits = togyz_gen::files::splits::wdl_level(&file).unwrap();
        let from_dtm = togyz_gen::solve::score::WdlLevel::from_packed(n, &dtm).unwrap();
        assert_eq!(splits, from_dtm, "n={n}");
    }
}

/// DTC tables written with small block sizes (many blocks, a short last
/// one, distance blocks of a few boards inside each WDL block) read back as
/// solved through the decoder, the probe and the WDL section; sizes whose
/// distance blocks straddle WDL blocks are refused, leaving nothing.
#[test]
fn dtc_tables_with_other_block_sizes_read_back_and_bad_sizes_are_refused() {
    let s = small();
    let dir = tempfile::tempdir().unwrap();
    let options = WriteOptions {
        wdl_block_boards: 12,
        distance_block_positions: 3,
    };
    for n in 1..=4 {
        let values = s.dtc[n as usize].widened();
        write_table_with(dir.path(), Metric::Dtc, n, &values, &options).unwrap();
        let file = TableFile::open(dir.path().join(file_name(n))).unwrap();
        let h = file.header();
        assert_eq!((h.wdl_block_boards, h.distance_block_positions), (12, 3));
        assert!(h.blocks(Section::Distance) > 1, "n={n}");
        assert_eq!(file.decode_all().unwrap(), &values[..], "n={n}");
        let splits = togyz_gen::files::splits::wdl_level(&file).unwrap();
        let from_dtm = togyz_gen::solve::score::WdlLevel::from_packed(n, &s.dtm.table(n)).unwrap();
        assert_eq!(splits, from_dtm, "n={n}");
    }
    let tb = Tablebase::open([dir.path()]).unwrap();
    let layout = Layout::new(4);
    let decoded = s.dtc[4].widened();
    for i in (0..layout.positions()).step_by(31) {
        let pos = layout.slot(i).position();
        if pos.outcome().is_none() {
            let want = Value::unpack(decoded[i as usize]);
            assert_eq!(tb.value_with_metric(&pos).unwrap(), (want, Metric::Dtc));
        }
    }
    let other = tempfile::tempdir().unwrap();
    let straddling = WriteOptions {
        wdl_block_boards: 10,
        distance_block_positions: 4,
    };
    assert!(matches!(
        write_table_with(
            other.path(),
            Metric::Dtc,
            2,
            &s.dtc[2].widened(),
            &straddling
        ),
        Err(WriteError::BlocksNotNested {
            wdl: 10,
            distance: 4
        })
    ));
    assert_eq!(std::fs::read_dir(other.path()).unwrap().count(), 0);
}

/// From won positions of DTC levels above DTM ones, the principal variation
/// keeps the win, lowers the DTC at each of the winner's quiet moves, and
/// ends the game won, through the smaller levels of both kinds.
#[test]
fn dtc_principal_variations_win_through_lower_levels() {
    let dir = tempfile::tempdir().unwrap();
    for n in 1..=3 {
        write_table(dir.path(), Metric::Dtm, n, &solved().dtm.table(n)).unwrap();
    }
    write_dtc(solved(), dir.path(), 4, MAX);
    let tb = Tablebase::open([dir.path()]).unwrap();
    assert_eq!(tb.metric(3), Some(Metric::Dtm));
    assert_eq!(tb.metric(4), Some(Metric::Dtc));
    let mut games = 0;
    for n in 4..=MAX {
        let layout = Layout::new(n);
        let step = (layout.positions() / 400).max(1);
        for i in (0..layout.positions()).step_by(step as usize) {
            let start = layout.slot(i).position();
            if start.outcome().is_some() || tb.wdl(&start).unwrap() != Wdl::Win {
                continue;
            }
            let winner = start.side_to_move();
            let line = tb.principal_variation(&start).unwrap();
            let mut pos = start;
            for mv in line {
                let (before, metric) = tb.value_with_metric(&pos).unwrap();
                let mover = pos.side_to_move();
                let stones = pos.stones_on_board();
                pos.play(mv).unwrap();
                let after = tb.value(&pos).unwrap();
                if mover == winner {
                    assert_eq!(before.wdl(), Wdl::Win, "{}", start.fen());
                    if metric == Metric::Dtc
                        && pos.outcome().is_none()
                        && pos.stones_on_board() == stones
                    {
                        // A quiet move: the opponent's loss is nearer to a
                        // conversion.
                        assert!(
                            after.wdl() == Wdl::Loss && after.distance() < before.distance(),
                            "{}: {before} then {after}",
                            start.fen()
                        );
                    }
                }
            }
            let o = pos.outcome().expect("the line ends the game");
            assert_eq!(o.winner, Some(winner), "from {}", start.fen());
            games += 1;
        }
    }
    assert!(games > 300, "only {games} games");
}

/// `generate --metric dtc` keeps the DTM tables it finds, reads their WDL
/// for the levels above, and writes the same bytes `write_table` does.
#[test]
fn generate_dtc_resumes_over_dtm_tables() {
    let dir = tempfile::tempdir().unwrap();
    let reference = tempfile::tempdir().unwrap();
    for n in 1..=2 {
        write_table(dir.path(), Metric::Dtm, n, &small().dtm.table(n)).unwrap();
    }
    write_dtc(small(), reference.path(), 3, 4);
    let mut args = GenerateOptions::new(4, dir.path());
    args.metric = Metric::Dtc;
    let summaries = togyz_gen::run::generate::generate(&args, &silent).unwrap();
    assert_eq!(
        summaries.iter().map(|s| s.reused).collect::<Vec<_>>(),
        [true, true, false, false]
    );
    for n in 3..=4 {
        let a = std::fs::read(dir.path().join(file_name(n))).unwrap();
        let b = std::fs::read(reference.path().join(file_name(n))).unwrap();
        assert!(a == b, "n={n}: generate and write_table differ");
    }
    // A second run keeps everything; a DTM run cannot build on DTC.
    let again = togyz_gen::run::generate::generate(&args, &silent).unwrap();
    assert!(again.iter().all(|s| s.reused));
    let mut dtm = GenerateOptions::new(5, dir.path());
    dtm.metric = Metric::Dtm;
    let err = togyz_gen::run::generate::generate(&dtm, &silent)
        .unwrap_err()
        .to_string();
    assert!(err.contains("togyz-03.tkb") && err.contains("DTC"), "{err}");
    verify_dir(dir.path()).unwrap();
}

/// Rewrites the header checksum of a table whose header was changed, so
/// that the change reaches the structural checks.
fn reseal_header(bytes: &mut [u8]) {
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..160]);
    bytes[160..168].copy_from_slice(&sum.to_le_bytes());
}

/// A damaged DTC file gives a clear error naming it, never a value.
#[test]
fn damaged_dtc_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_dtc(small(), dir.path(), 1, 4);
    let path = dir.path().join(file_name(4));
    let good = std::fs::read(&path).unwrap();
    let file = TableFile::open(&path).unwrap();
    let h = file.header().clone();
    drop(file);

    // A byte of the DTC section: that block's checksum.
    let mut bad = good.clone();
    bad[h.distance_data_offset as usize + 3] ^= 0x40;
    std::fs::remove_file(&path).unwrap();
    std::fs::write(&path, &bad).unwrap();
    let tb = Tablebase::open([dir.path()]).unwrap();
    let layout = Layout::new(4);
    let mut seen = None;
    for i in 0..layout.positions() {
        let pos = layout.slot(i).position();
        if pos.outcome().is_none() && tb.wdl(&pos).unwrap() != Wdl::Draw {
            seen = Some(tb.value(&pos));
            break;
        }
    }
    match seen.unwrap() {
        Err(ProbeError::Table(e @ TableError::BlockChecksum { .. })) => {
            assert_eq!(e.path(), path);
            assert!(e.to_string().contains("distance section"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        togyz_gen::files::write::table_status(dir.path(), 4),
        togyz_gen::files::write::TableStatus::Invalid(_)
    ));

    // An unknown metric code, and a draw count that is not one a board.
    for (at, value) in [(42usize, 7u8), (120, 0)] {
        let mut bad = good.clone();
        bad[at] = value;
        reseal_header(&mut bad[..HEADER_LEN]);
        std::fs::write(&path, &bad).unwrap();
        match TableFile::open(&path) {
            Err(e @ TableError::InconsistentHeader { .. }) => {
                assert_eq!(e.path(), path);
            }
            other => panic!("byte {at}: {other:?}"),
        }
    }

    // A DTC table of format version 1 stored its losses too: read the
    // new way its entries would be wrong, so it is refused, saying so;
    // a version this reader does not know is refused before its metric
    // byte is read.
    for (version, metric) in [(1u32, Metric::Dtc), (3, Metric::Dtm)] {
        let mut bad = good.clone();
        bad[8..12].copy_from_slice(&version.to_le_bytes());
        reseal_header(&mut bad[..HEADER_LEN]);
        std::fs::write(&path, &bad).unwrap();
        match TableFile::open(&path) {
            Err(e @ TableError::UnsupportedVersion { .. }) => {
                assert_eq!(e.path(), path);
                let TableError::UnsupportedVersion {
                    found, metric: m, ..
                } = &e
                else {
                    unreachable!()
                };
                assert_eq!((*found, *m), (version, metric));
                let text = e.to_string();
                assert_eq!(text.contains("generate it again"), version == 1, "{text}");
            }
            other => panic!("version {version}: {other:?}"),
        }
    }

    // A draw split past the board's last kazan split decodes to an error,
    // not a value.
    std::fs::write(&path, &good).unwrap();
    let file = TableFile::open(&path).unwrap();
    let err = file.thresholds_in(&[5], 0, 0).unwrap_err();
    assert!(matches!(err, TableError::BadEntry { .. }), "{err}");
}

/// A lost position whose quiet move leads to a position the table does not
/// hold as a win (the table contradicts itself): its DTC, which one ply over
/// the stored wins recovers, cannot be found, and the probe, the decoder
/// and `verify` say so instead of answering.
#[test]
fn a_loss_one_ply_does_not_recover_is_an_error() {
    let n = 4;
    let values = small().dtc[n as usize].widened().into_owned();
    let layout = Layout::new(n);
    let k = n as u64 + 1;
    let value_of = |pos: &togyz_tb::Position| {
        let slot = togyz_tb::raw::index::Slot::of(pos).unwrap();
        Value::unpack(values[layout.index(&slot) as usize])
    };
    // A board whose draw, moved one kazan split up (the draw becoming a
    // loss, the win above it the draw), has a quiet move to a draw.
    let (index, pos) = (0..layout.boards())
        .find_map(|gb| {
            let at = (0..k).find(|&j| values[(gb * k + j) as usize] == 0)?;
            if at == n as u64 {
                return None;
            }
            let index = gb * k + at;
            let pos = layout.slot(index).position();
            let quiet_draw = pos.legal_moves().any(|mv| {
                let child = pos.after_unchecked(mv);
                child.outcome().is_none()
                    && child.stones_on_board() == n
                    && value_of(&child) == Value::Draw
            });
            quiet_draw.then_some((index, pos))
        })
        .expect("a draw with a quiet drawing move");
    let mut bad = values.clone();
    bad[index as usize] = Value::Loss(3).pack().unwrap();
    bad[index as usize + 1] = Value::Draw.pack().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_dtc(small(), dir.path(), 1, n - 1);
    write_table(dir.path(), Metric::Dtc, n, &bad).unwrap();

    let tb = Tablebase::open([dir.path()]).unwrap();
    assert_eq!(tb.wdl(&pos).unwrap(), Wdl::Loss);
    match tb.value(&pos) {
        Err(ProbeError::Table(e @ TableError::BadEntry { .. })) => {
            assert!(e.to_string().contains("does not lose"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    let file = TableFile::open(dir.path().join(file_name(n))).unwrap();
    match file.decode_all() {
        Err(e @ TableError::BadEntry { .. }) => {
            assert!(e.to_string().contains(&pos.fen()), "{e}");
        }
        other => panic!("{:?}", other.map(|v| v.len())),
    }
    assert!(file.value(index / k, (index % k) as u32).is_err());
    assert!(verify_dir(dir.path()).is_err());
}

/// A damaged table whose losses form a cycle of quiet moves (each lost
/// position's quiet move leads to the next, stored as a loss too): the one
/// ply that recovers a loss's DTC reads only stored wins, so the probe, the
/// file reader, the decoder and `verify` give an error instead of following
/// the cycle without end.
#[test]
fn a_cycle_of_losses_in_a_damaged_table_is_an_error_not_a_loop() {
    use std::collections::HashMap;
    use togyz_tb::raw::index::Slot;
    let n = 4;
    let k = n as u64 + 1;
    let layout = Layout::new(n);
    // The first quiet move of a position (no capture, tuzdyk or feed, the
    // game going on), as the index seats it.
    let quiet = |pos: &togyz_tb::Position| {
        pos.legal_moves().find_map(|mv| {
            let child = pos.after_unchecked(mv);
            (child.outcome().is_none() && child.stones_on_board() == n)
                .then(|| layout.index(&Slot::of(&child).unwrap()))
        })
    };
    // Following first quiet moves from a position at kazan offset n / 2
    // (a quiet move maps offset j to n - j, so the walk stays there) ends in
    // a cycle unless it reaches a position without one.
    let cycle = (0..layout.boards())
        .find_map(|gb| {
            let mut seen = HashMap::new();
            let mut at = gb * k + n as u64 / 2;
            let mut path = Vec::new();
            loop {
                if let Some(&i) = seen.get(&at) {
                    let cycle: Vec<u64> = path[i..].to_vec();
                    return (cycle.len() > 1).then_some(cycle);
                }
                seen.insert(at, path.len());
                path.push(at);
                at = quiet(&layout.slot(at).position())?;
            }
        })
        .expect("a cycle of quiet moves at 4 stones");
    // Every position of the cycle lost: its board's draw split just above.
    let mut bad = small().dtc[n as usize].widened().into_owned();
    for &index in &cycle {
        let gb = index / k;
        for j in 0..k {
            let cell = &mut bad[(gb * k + j) as usize];
            let split = n as u64 / 2 + 1;
            *cell = match (j.cmp(&split), Value::unpack(*cell)) {
                (std::cmp::Ordering::Less, _) => Value::Loss(2),
                (std::cmp::Ordering::Equal, _) => Value::Draw,
                (_, w @ Value::Win(_)) => w,
                _ => Value::Win(1),
            }
            .pack()
            .unwrap();
        }
    }
    let dir = tempfile::tempdir().unwrap();
    write_dtc(small(), dir.path(), 1, n - 1);
    write_table(dir.path(), Metric::Dtc, n, &bad).unwrap();

    let pos = layout.slot(cycle[0]).position();
    let tb = Tablebase::open([dir.path()]).unwrap();
    assert_eq!(tb.wdl(&pos).unwrap(), Wdl::Loss);
    assert!(
        matches!(
            tb.value(&pos),
            Err(ProbeError::Table(TableError::BadEntry { .. }))
        ),
        "{:?}",
        tb.value(&pos)
    );
    let file = TableFile::open(dir.path().join(file_name(n))).unwrap();
    for &index in &cycle {
        match file.value(index / k, (index % k) as u32) {
            Err(e @ TableError::BadEntry { .. }) => {
                assert!(e.to_string().contains("does not lose"), "{e}")
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(file.decode_all().is_err());
    assert!(verify_dir(dir.path()).is_err());
}

/// `verify` finds a DTC entry changed by one ply, and a table whose values
/// the DTC writer refuses (two draws on a board) cannot be written.
#[test]
fn verify_catches_a_wrong_dtc_entry() {
    let n = 4;
    let dir = tempfile::tempdir().unwrap();
    write_dtc(small(), dir.path(), 1, n - 1);
    let mut values = small().dtc[n as usize].widened().into_owned();
    let at = values
        .iter()
        .position(|&v| matches!(Value::unpack(v), Value::Win(d) if d > 1))
        .unwrap();
    let Value::Win(d) = Value::unpack(values[at]) else {
        unreachable!()
    };
    values[at] = Value::Win(d - 1).pack().unwrap();
    write_table(dir.path(), Metric::Dtc, n, &values).unwrap();
    match verify_dir(dir.path()) {
        Err(VerifyError::Inconsistent {
            stones,
            stored,
            expected,
            ..
        }) => {
            assert_eq!(stones, n);
            assert_eq!((stored, expected), (Value::Win(d - 1), Value::Win(d)));
        }
        other => panic!("{other:?}"),
    }

    let mut two_draws = small().dtc[n as usize].widened().into_owned();
    let loss = two_draws
        .iter()
        .position(|&v| matches!(Value::unpack(v), Value::Loss(_)))
        .unwrap();
    two_draws[loss] = Value::Draw.pack().unwrap();
    let other = tempfile::tempdir().unwrap();
    assert!(matches!(
        write_table(other.path(), Metric::Dtc, n, &two_draws),
        Err(WriteError::Score(_))
    ));
}

/// The command line: `--metric dtc` writes DTC tables that `verify`
/// accepts; an unknown metric is refused clearly.
#[test]
fn generate_metric_dtc_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let gen = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_togyz-gen"))
            .args(args)
            .output()
            .unwrap()
    };
    let made = gen(&[
        "generate",
        "--metric",
        "dtc",
        "--max-stones",
        "3",
        "--out",
        out,
        "--quiet",
    ]);
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    for n in 1..=3 {
        let file = TableFile::open(dir.path().join(file_name(n))).unwrap();
        assert_eq!(file.metric(), Metric::Dtc);
    }
    let checked = gen(&["verify", "--tables", out, "--quiet"]);
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    let bad = gen(&["generate", "--metric", "dtz", "--out", out]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("`dtz` is not a metric"));
}
