//! The table file format end to end, on synthetic tables: the writer
//! (`togyz_gen::files::write`), the reader (`togyz_tb::raw::format`) and the
//! tablebase (`togyz_tb::tablebase`). The synthetic values are monotone
//! along the kazan axis, as the format requires, but not game-correct, so
//! only format properties are tested here (`probe_real.rs` has the real
//! values).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use togyz_gen::files::decode::DecodeAll;
use togyz_tb::Metric;

use byteorder::{ByteOrder, LittleEndian as LE};
use proptest::prelude::*;
use togyz_gen::files::write::{
    table_status, write_table, write_table_with, TableStatus, WriteError, WriteOptions,
};
use togyz_tb::raw::format::{
    file_name, Section, TableFile, DISTANCE_BLOCK_POSITIONS, HEADER_LEN, INDEX_ENTRY_LEN,
    WDL_BLOCK_BOARDS,
};
use togyz_tb::raw::index::{Layout, Slot};
use togyz_tb::TableError;
use togyz_tb::{terminal_value, ProbeError, Tablebase};
use togyz_tb::{Position, Value, Wdl};
use xxhash_rust::xxh3::xxh3_64;

/// splitmix64: a deterministic stream of pseudo-random numbers.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Packed values for the `n`-stone table: per board, random thresholds
/// (losses, then draws, then wins along the kazan axis), and random
/// distances up to `max_distance` (losses may be 0, wins at least 1).
fn synthetic(n: u32, seed: u64, max_distance: u32) -> Vec<u16> {
    let layout = Layout::new(n);
    let k = n as u64 + 1;
    let mut out = Vec::with_capacity(layout.positions() as usize);
    for gb in 0..layout.boards() {
        let r = mix(seed ^ gb.wrapping_mul(0x1234_5678_9ABC_DEF1));
        let d = r % (k + 1);
        let w = d + (r >> 20) % (k + 1 - d);
        for j in 0..k {
            let r = mix(r ^ (j + 1));
            let dist = (r >> 8) as u32 % max_distance;
            let v = if j < d {
                Value::Loss(dist)
            } else if j < w {
                Value::Draw
            } else {
                Value::Win(dist + 1)
            };
            out.push(v.pack().unwrap());
        }
    }
    out
}

fn counts(values: &[u16]) -> (u64, u64, u64, u32, u32) {
    let mut c = (0, 0, 0, 0, 0);
    for &v in values {
        match Value::unpack(v) {
            Value::Win(d) => {
                c.0 += 1;
                c.3 = c.3.max(d);
            }
            Value::Draw => c.1 += 1,
            Value::Loss(d) => {
                c.2 += 1;
                c.4 = c.4.max(d);
            }
        }
    }
    c
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary folder")
}

/// The block sizes the generator writes DTM tables with.
const DEFAULT_BLOCKS: WriteOptions = WriteOptions {
    wdl_block_boards: WDL_BLOCK_BOARDS,
    distance_block_positions: DISTANCE_BLOCK_POSITIONS,
};

/// Writes, reads back everything, and checks the header's statistics.
fn check_round_trip(dir: &Path, n: u32, values: &[u16], options: &WriteOptions) -> TableFile {
    let summary = write_table_with(dir, Metric::Dtm, n, values, options).unwrap();
    let (wins, draws, losses, longest_win, longest_loss) = counts(values);
    assert_eq!(
        (
            summary.wins,
            summary.draws,
            summary.losses,
            summary.longest_win,
            summary.longest_loss
        ),
        (wins, draws, losses, longest_win, longest_loss)
    );
    assert_eq!(
        summary.bytes,
        std::fs::metadata(&summary.path).unwrap().len()
    );
    assert_eq!(summary.path, dir.join(file_name(n)));
    let t = TableFile::open(&summary.path).unwrap();
    let h = t.header();
    assert_eq!((h.wins, h.draws, h.losses), (wins, draws, losses));
    assert_eq!((h.longest_win, h.longest_loss), (longest_win, longest_loss));
    assert_eq!(
        h.distance_width,
        if longest_win.max(longest_loss) > 255 {
            2
        } else {
            1
        }
    );
    assert_eq!(t.decode_all().unwrap(), values);
    t.verify_checksums().unwrap();
    // Uncached single probes agree with the bulk decode.
    let k = n as u64 + 1;
    for index in (0..values.len() as u64).step_by(97) {
        let (gb, j) = (index / k, (index % k) as u32);
        let want = Value::unpack(values[index as usize]);
        assert_eq!(t.value(gb, j).unwrap(), want, "n={n} index={index}");
        assert_eq!(t.wdl(gb, j).unwrap(), want.wdl());
    }
    assert!(matches!(
        t.wdl(t.header().boards, 0),
        Err(TableError::OutOfRange { .. })
    ));
    assert!(matches!(
        t.wdl(0, n + 1),
        Err(TableError::OutOfRange { .. })
    ));
    assert_eq!(table_status(dir, n), TableStatus::Complete);
    t
}

#[test]
fn round_trip_default_blocks() {
    let dir = tempdir();
    for n in 1..=4 {
        let values = synthetic(n, n as u64, 200);
        let t = check_round_trip(dir.path(), n, &values, &DEFAULT_BLOCKS);
        // n = 3 and 4 span several blocks of each section.
        if n >= 3 {
            assert!(t.header().wdl_blocks > 1 && t.header().distance_blocks > 1);
        }
    }
}

#[test]
fn round_trip_odd_blocks_and_wide_distances() {
    let dir = tempdir();
    let cases = [
        (1, 7, 13, 700),     // two-byte distances, short last blocks
        (2, 1, 1, 300),      // one entry per block
        (3, 100, 1000, 255), // the widest one-byte distance
    ];
    for (n, wb, dp, max_distance) in cases {
        let values = synthetic(n, 77 + n as u64, max_distance + 1);
        let options = WriteOptions {
            wdl_block_boards: wb,
            distance_block_positions: dp,
        };
        let t = check_round_trip(dir.path(), n, &values, &options);
        assert_eq!(t.header().wdl_block_boards, wb);
        assert_eq!(t.header().distance_block_positions, dp);
    }
}

#[test]
fn writes_are_byte_identical_across_runs_and_thread_counts() {
    let values = synthetic(3, 5, 400);
    // Small DTM blocks: several parallel batches.
    let options = WriteOptions {
        wdl_block_boards: 500,
        distance_block_positions: 100,
    };
    let mut files = Vec::new();
    for threads in [1, 2, 2] {
        let dir = tempdir();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let s = pool
            .install(|| write_table_with(dir.path(), Metric::Dtm, 3, &values, &options))
            .unwrap();
        files.push(std::fs::read(&s.path).unwrap());
        // Nothing but the table is left in the folder.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, [file_name(3)]);
    }
    assert_eq!(files[0], files[1]);
    assert_eq!(files[1], files[2]);
}

#[test]
fn non_monotone_values_are_rejected_and_leave_nothing() {
    let dir = tempdir();
    let mut values = synthetic(2, 9, 50);
    // Board 5: a win at kazan offset 0, a loss at 1.
    values[15] = Value::Win(3).pack().unwrap();
    values[16] = Value::Loss(2).pack().unwrap();
    match write_table(dir.path(), Metric::Dtm, 2, &values) {
        Err(WriteError::NotMonotone {
            n,
            index,
            board,
            kazan,
            previous,
            found,
        }) => {
            assert_eq!((n, index, board, kazan), (2, 16, 5, 1));
            assert_eq!((previous, found), (Wdl::Win, Wdl::Loss));
        }
        other => panic!("expected NotMonotone, got {other:?}"),
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    assert_eq!(table_status(dir.path(), 2), TableStatus::Missing);
    // A draw below a loss is rejected too.
    let mut values = synthetic(1, 9, 50);
    values[0] = Value::Draw.pack().unwrap();
    values[1] = Value::Loss(0).pack().unwrap();
    assert!(matches!(
        write_table(dir.path(), Metric::Dtm, 1, &values),
        Err(WriteError::NotMonotone { index: 1, .. })
    ));
}

#[test]
fn wrong_sizes_are_rejected() {
    let dir = tempdir();
    let values = synthetic(2, 1, 10);
    assert!(matches!(
        write_table(dir.path(), Metric::Dtm, 3, &values),
        Err(WriteError::WrongLength { n: 3, .. })
    ));
    assert!(matches!(
        write_table::<u16>(dir.path(), Metric::Dtm, 41, &[]),
        Err(WriteError::TooManyStones(41))
    ));
    let zero = WriteOptions {
        wdl_block_boards: 0,
        distance_block_positions: 10,
    };
    assert!(matches!(
        write_table_with(dir.path(), Metric::Dtm, 2, &values, &zero),
        Err(WriteError::BadOptions)
    ));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn an_existing_file_is_never_overwritten() {
    let dir = tempdir();
    let values = synthetic(2, 3, 10);
    let s = write_table(dir.path(), Metric::Dtm, 2, &values).unwrap();
    let before = std::fs::read(&s.path).unwrap();
    let other = synthetic(2, 4, 10);
    assert!(matches!(
        write_table(dir.path(), Metric::Dtm, 2, &other),
        Err(WriteError::Exists { .. })
    ));
    assert_eq!(std::fs::read(&s.path).unwrap(), before);
    // Not even a broken file is replaced.
    std::fs::write(&s.path, b"junk").unwrap();
    assert!(matches!(
        write_table(dir.path(), Metric::Dtm, 2, &values),
        Err(WriteError::Exists { .. })
    ));
    assert_eq!(std::fs::read(&s.path).unwrap(), b"junk");
}

#[test]
fn table_status_sees_missing_complete_and_invalid() {
    let dir = tempdir();
    assert_eq!(table_status(dir.path(), 2), TableStatus::Missing);
    let s = write_table(dir.path(), Metric::Dtm, 2, &synthetic(2, 3, 10)).unwrap();
    assert_eq!(table_status(dir.path(), 2), TableStatus::Complete);
    let good = std::fs::read(&s.path).unwrap();
    // A flipped byte in the middle of the data: only the whole-file checksum
    // and one block see it.
    let mut bad = good.clone();
    let mid = HEADER_LEN + 10;
    bad[mid] ^= 0x40;
    std::fs::write(&s.path, &bad).unwrap();
    assert!(
        matches!(table_status(dir.path(), 2), TableStatus::Invalid(r) if r.contains("togyz-02.tkb"))
    );
    // Truncated (as an interrupted copy would leave it).
    std::fs::write(&s.path, &good[..good.len() - 1]).unwrap();
    assert!(
        matches!(table_status(dir.path(), 2), TableStatus::Invalid(r) if r.contains("truncated"))
    );
    // A valid table under the wrong name.
    std::fs::write(&s.path, &good).unwrap();
    std::fs::rename(&s.path, dir.path().join(file_name(3))).unwrap();
    assert!(
        matches!(table_status(dir.path(), 3), TableStatus::Invalid(r) if r.contains("2-stone"))
    );
}

// ---------------------------------------------------------------------------
// Tablebase probing and corruption.

/// Writes synthetic tables for `ns` into a fresh folder; returns the folder
/// and the values by stone count.
fn synthetic_tables(ns: std::ops::RangeInclusive<u32>) -> (tempfile::TempDir, Vec<Vec<u16>>) {
    let dir = tempdir();
    let mut all = vec![Vec::new()];
    for n in ns {
        let values = synthetic(n, 1000 + n as u64, 120);
        write_table(dir.path(), Metric::Dtm, n, &values).unwrap();
        all.push(values);
    }
    (dir, all)
}

/// Every live position of the `n`-stone table, with its index.
fn live_positions(n: u32) -> impl Iterator<Item = (u64, Position)> {
    let layout = Layout::new(n);
    (0..layout.positions()).filter_map(move |i| {
        let p = layout.slot(i).position();
        terminal_value(&p).is_none().then_some((i, p))
    })
}

fn expect_table_error(e: ProbeError, file: &str) -> TableError {
    match e {
        ProbeError::Table(t) => {
            assert!(t.to_string().contains(file), "{t} does not name {file}");
            assert!(t.path().ends_with(file));
            t
        }
        other => panic!("expected a table error, got {other:?}"),
    }
}

#[test]
fn tablebase_answers_match_the_written_values() {
    let (dir, values) = synthetic_tables(1..=3);
    let tb = Tablebase::open([dir.path()]).unwrap();
    assert_eq!(tb.stones().collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(tb.complete_up_to(), 3);
    for n in 1..=3 {
        for (i, p) in live_positions(n) {
            let want = Value::unpack(values[n as usize][i as usize]);
            assert_eq!(tb.value(&p).unwrap(), want);
            assert_eq!(tb.wdl(&p).unwrap(), want.wdl());
            // The colour mirror is the same entry.
            assert_eq!(tb.value(&p.mirrored()).unwrap(), want);
        }
    }
}

#[test]
fn missing_tables_name_the_stone_count() {
    let (dir, _) = synthetic_tables(1..=2);
    let tb = Tablebase::open([dir.path()]).unwrap();
    let p: Position = "9/1S,8 80 81 S 1".parse().unwrap();
    assert_eq!(p.stones_on_board(), 1);
    assert!(tb.value(&p).is_ok());
    let four: Position = "9/1S,3S,7 79 79 S 1".parse().unwrap();
    assert_eq!(four.stones_on_board(), 4);
    match tb.value(&four) {
        Err(ProbeError::MissingTable { stones: 4 }) => {}
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        tb.wdl(&four),
        Err(ProbeError::MissingTable { stones: 4 })
    ));
    // A missing folder is an error naming it; an empty one is just empty.
    let gone = dir.path().join("nowhere");
    match Tablebase::open([&gone]) {
        Err(e @ ProbeError::Directory { .. }) => {
            assert_eq!(
                e.io_error().map(|e| e.kind()),
                Some(io::ErrorKind::NotFound)
            );
            assert!(matches!(e, ProbeError::Directory { path, .. } if path == gone));
        }
        other => panic!("{other:?}"),
    }
    let empty = tempdir();
    let tb = Tablebase::open([empty.path()]).unwrap();
    assert_eq!(tb.complete_up_to(), 0);
    let e = tb.wdl(&p).unwrap_err();
    assert!(matches!(e, ProbeError::MissingTable { stones: 1 }));
    assert_eq!(e.to_string(), "no table for 1 stone on the board");
    // Finished games need no table.
    let over: Position = "9/4S,8 79 79 N 1".parse().unwrap();
    assert_eq!(tb.value(&over).unwrap(), Value::Loss(0));
    assert!(tb.moves(&over).unwrap().is_empty());
}

#[test]
fn the_first_folder_wins() {
    let (a, va) = synthetic_tables(1..=1);
    let b = tempdir();
    write_table(b.path(), Metric::Dtm, 1, &synthetic(1, 4242, 120)).unwrap();
    let tb = Tablebase::open([a.path(), b.path()]).unwrap();
    assert_eq!(tb.path(1).unwrap(), a.path().join(file_name(1)));
    for (i, p) in live_positions(1) {
        assert_eq!(tb.value(&p).unwrap(), Value::unpack(va[1][i as usize]));
    }
}

/// The error the table for `n` stones, the only damaged one, was set aside
/// with when `tb` was opened; the positions that need it answer it, and
/// the other tables still answer theirs.
fn damaged_error(tb: &Tablebase, n: u32) -> ProbeError {
    let damaged: Vec<(u32, TableError)> = tb.damaged().map(|(m, e)| (m, e.clone())).collect();
    assert_eq!(damaged.len(), 1, "{damaged:?}");
    assert_eq!(damaged[0].0, n);
    let (_, p) = live_positions(n).next().unwrap();
    assert_eq!(
        tb.value(&p).unwrap_err().to_string(),
        damaged[0].1.to_string()
    );
    let (_, one) = live_positions(1).next().unwrap();
    assert!(tb.value(&one).is_ok());
    ProbeError::Table(damaged[0].1.clone())
}

#[test]
fn a_table_that_cannot_be_read_is_not_called_damaged() {
    let (dir, _) = synthetic_tables(1..=1);
    // A folder in a table's place opens but cannot be read (any user, root
    // too, unlike a file without read permission).
    std::fs::create_dir(dir.path().join(file_name(2))).unwrap();
    let e = damaged_error(&Tablebase::open([dir.path()]).unwrap(), 2);
    assert!(e.io_error().is_some(), "{e:?}");
    let t = expect_table_error(e, &file_name(2));
    assert!(matches!(t, TableError::Io { .. }));
    assert!(t.to_string().contains("cannot read the file"), "{t}");
}

/// The table file's bytes, the index entries of a section, and helpers to
/// find positions in a block.
struct Damage {
    path: PathBuf,
    good: Vec<u8>,
}

impl Damage {
    fn new(dir: &Path, n: u32) -> Damage {
        let path = dir.join(file_name(n));
        let good = std::fs::read(&path).unwrap();
        Damage { path, good }
    }

    fn header_u64(&self, at: usize) -> u64 {
        LE::read_u64(&self.good[at..])
    }

    /// (offset, length) of every block of a section, from the index.
    fn blocks(&self, section: Section) -> Vec<(u64, u32)> {
        let (index, count) = match section {
            Section::Wdl => (self.header_u64(88), self.header_u64(56)),
            Section::Distance => (self.header_u64(96), self.header_u64(64)),
        };
        (0..count)
            .map(|b| {
                let at = (index + b * INDEX_ENTRY_LEN as u64) as usize;
                (
                    LE::read_u64(&self.good[at..]),
                    LE::read_u32(&self.good[at + 8..]),
                )
            })
            .collect()
    }

    fn write_flipped(&self, at: usize) {
        let mut bad = self.good.clone();
        bad[at] ^= 0x01;
        std::fs::write(&self.path, bad).unwrap();
    }

    fn restore(&self) {
        std::fs::write(&self.path, &self.good).unwrap();
    }
}

#[test]
fn flipped_bytes_and_truncation_are_errors_naming_the_file() {
    let (dir, values) = synthetic_tables(1..=3);
    let n = 3;
    let name = file_name(n);
    let dmg = Damage::new(dir.path(), n);
    let k = n as u64 + 1;
    let positions: Vec<(u64, Position)> = live_positions(n).collect();

    // Header: caught when the tablebase is opened.
    for at in [
        0, 8, 12, 16, 20, 24, 40, 41, 44, 56, 72, 104, 112, 136, 144, 152, 160, 167,
    ] {
        dmg.write_flipped(at);
        let e = damaged_error(&Tablebase::open([dir.path()]).unwrap(), n);
        // Read and found damaged: not an I/O failure.
        assert!(e.io_error().is_none(), "{e}");
        expect_table_error(e, &name);
        assert!(TableFile::open(&dmg.path).is_err());
    }
    dmg.restore();

    // Truncated, or with bytes appended.
    std::fs::write(&dmg.path, &dmg.good[..dmg.good.len() - 5]).unwrap();
    let e = damaged_error(&Tablebase::open([dir.path()]).unwrap(), n);
    assert!(matches!(
        expect_table_error(e, &name),
        TableError::Truncated { .. }
    ));
    std::fs::write(&dmg.path, &dmg.good[..100]).unwrap();
    let e = damaged_error(&Tablebase::open([dir.path()]).unwrap(), n);
    assert!(matches!(
        expect_table_error(e, &name),
        TableError::Truncated { .. }
    ));
    let mut longer = dmg.good.clone();
    longer.push(0);
    std::fs::write(&dmg.path, longer).unwrap();
    let e = damaged_error(&Tablebase::open([dir.path()]).unwrap(), n);
    assert!(matches!(
        expect_table_error(e, &name),
        TableError::TrailingBytes { .. }
    ));

    // Block index (either section): caught when the file is first mapped.
    let wdl_index = dmg.header_u64(88) as usize;
    let distance_index = dmg.header_u64(96) as usize;
    for at in [
        wdl_index,
        wdl_index + 9,
        distance_index + 13,
        dmg.good.len() - 1,
    ] {
        dmg.write_flipped(at);
        let tb = Tablebase::open([dir.path()]).unwrap();
        let e = tb.wdl(&positions[0].1).unwrap_err();
        assert!(matches!(
            expect_table_error(e, &name),
            TableError::IndexChecksum { .. }
        ));
        // Smaller tables still answer.
        let small: Position = "9/1S,8 80 81 S 1".parse().unwrap();
        assert!(tb.wdl(&small).is_ok());
    }

    // Data: every probe into the damaged block is an error, every other
    // probe is exact, and WDL probes never touch DTM data.
    for section in [Section::Wdl, Section::Distance] {
        let blocks = dmg.blocks(section);
        for b in [0, blocks.len() / 2, blocks.len() - 1] {
            let (offset, length) = blocks[b];
            dmg.write_flipped((offset + length as u64 / 2) as usize);
            let tb = Tablebase::open([dir.path()]).unwrap();
            let (mut errors, mut exact) = (0, 0);
            for (i, p) in &positions {
                let want = Value::unpack(values[n as usize][*i as usize]);
                let in_block = match section {
                    Section::Wdl => i / k / WDL_BLOCK_BOARDS as u64 == b as u64,
                    Section::Distance => i / DISTANCE_BLOCK_POSITIONS as u64 == b as u64,
                };
                let (wdl, value) = (tb.wdl(p), tb.value(p));
                if in_block {
                    let e = value.unwrap_err();
                    match expect_table_error(e, &name) {
                        TableError::BlockChecksum {
                            section: s, block, ..
                        } => {
                            assert_eq!((s, block), (section, b as u64));
                        }
                        other => panic!("{other:?}"),
                    }
                    errors += 1;
                } else {
                    assert_eq!(value.unwrap(), want);
                    exact += 1;
                }
                if section == Section::Distance || !in_block {
                    assert_eq!(wdl.unwrap(), want.wdl());
                } else {
                    wdl.unwrap_err();
                }
            }
            assert!(
                errors > 0 && exact > 0,
                "{section} block {b}: {errors} errors, {exact} exact"
            );
            let t = TableFile::open(&dmg.path).unwrap();
            assert!(matches!(
                t.verify_checksums(),
                Err(TableError::FileChecksum { .. })
            ));
            assert!(matches!(
                t.decode_all(),
                Err(TableError::BlockChecksum { .. })
            ));
        }
    }
    dmg.restore();
    let tb = Tablebase::open([dir.path()]).unwrap();
    assert_eq!(
        tb.value(&positions[0].1).unwrap(),
        Value::unpack(values[3][positions[0].0 as usize])
    );
}

/// Recomputes every checksum of a (damaged) table so that the damage gets
/// past them, using the header offsets of docs/format.md.
fn reseal(bytes: &mut [u8]) {
    if bytes.len() < HEADER_LEN {
        return;
    }
    let index = LE::read_u64(&bytes[88..]) as usize;
    let end = LE::read_u64(&bytes[104..]) as usize;
    if index <= end && end <= bytes.len() {
        let sum = xxh3_64(&bytes[index..end]);
        LE::write_u64(&mut bytes[144..], sum);
    }
    if HEADER_LEN <= end && end <= bytes.len() {
        let sum = xxh3_64(&bytes[HEADER_LEN..end]);
        LE::write_u64(&mut bytes[152..], sum);
    }
    let sum = xxh3_64(&bytes[..160]);
    LE::write_u64(&mut bytes[160..], sum);
}

/// A small valid table with many blocks, and its values.
fn fuzz_seed() -> &'static (Vec<u8>, Vec<u16>) {
    static SEED: OnceLock<(Vec<u8>, Vec<u16>)> = OnceLock::new();
    SEED.get_or_init(|| {
        let dir = tempdir();
        let values = synthetic(2, 31, 300);
        let options = WriteOptions {
            wdl_block_boards: 700,
            distance_block_positions: 2000,
        };
        let s = write_table_with(dir.path(), Metric::Dtm, 2, &values, &options).unwrap();
        (std::fs::read(s.path).unwrap(), values)
    })
}

/// Opens `bytes` as a table and exercises every read path; returns the
/// decoded values if everything succeeded.
fn exercise(bytes: &[u8]) -> Option<Vec<u16>> {
    let dir = tempdir();
    let path = dir.path().join(file_name(2));
    std::fs::write(&path, bytes).unwrap();
    if let Ok(tb) = Tablebase::open([dir.path()]) {
        for (_, p) in live_positions(2).step_by(53) {
            let _ = tb.value(&p);
            let _ = tb.moves(&p);
        }
    }
    let t = TableFile::open(&path).ok()?;
    let _ = t.verify_checksums();
    for gb in (0..t.header().boards).step_by(101) {
        let _ = t.value(gb, 1);
    }
    t.decode_all().ok()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        // Failures print their input; no regression files in the tree.
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..3000)) {
        prop_assert!(exercise(&bytes).is_none());
    }

    #[test]
    fn arbitrary_bytes_behind_a_valid_header_never_panic(
        tail in proptest::collection::vec(any::<u8>(), 0..3000),
    ) {
        let (good, _) = fuzz_seed();
        let mut bytes = good[..HEADER_LEN].to_vec();
        bytes.extend_from_slice(&tail);
        // Make the header's file length match, then reseal everything.
        let len = bytes.len() as u64;
        LE::write_u64(&mut bytes[104..], len);
        reseal(&mut bytes);
        let _ = exercise(&bytes);
    }

    /// Any flipped bytes are caught by a checksum: never a wrong answer.
    #[test]
    fn flipped_bytes_are_always_caught(
        flips in proptest::collection::vec((any::<proptest::sample::Index>(), 1u8..=255), 1..6),
    ) {
        let (good, _) = fuzz_seed();
        let mut bytes = good.clone();
        for (at, x) in &flips {
            let i = at.index(bytes.len());
            bytes[i] ^= x;
        }
        prop_assume!(bytes != *good);
        prop_assert!(exercise(&bytes).is_none());
    }

    /// Damage with the checksums recomputed over it: the structural checks
    /// alone must stop it without a panic (answers may then be wrong: only
    /// the checksums can tell).
    #[test]
    fn resealed_damage_never_panics(
        flips in proptest::collection::vec((any::<proptest::sample::Index>(), 1u8..=255), 1..6),
        cut in any::<proptest::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let (good, values) = fuzz_seed();
        let mut bytes = good.clone();
        for (at, x) in &flips {
            let i = at.index(bytes.len());
            bytes[i] ^= x;
        }
        if truncate {
            bytes.truncate(cut.index(bytes.len()));
        }
        reseal(&mut bytes);
        if let Some(decoded) = exercise(&bytes) {
            prop_assert_eq!(decoded.len(), values.len());
        }
    }

    /// Truncation anywhere is an error.
    #[test]
    fn truncation_is_always_caught(cut in any::<proptest::sample::Index>()) {
        let (good, _) = fuzz_seed();
        let len = cut.index(good.len());
        prop_assert!(exercise(&good[..len]).is_none());
    }
}

#[test]
fn the_fuzz_seed_itself_decodes() {
    let (good, values) = fuzz_seed();
    assert_eq!(exercise(good).as_ref(), Some(values));
}

#[test]
fn eight_threads_agree_with_one() {
    let (dir, _) = synthetic_tables(1..=4);
    // Random positions of every table, some mirrored.
    let mut positions = Vec::new();
    for i in 0..3000u64 {
        let r = mix(i ^ 0xABCDEF);
        let n = 1 + (r % 4) as u32;
        let layout = Layout::new(n);
        let slot: Slot = layout.slot(mix(r) % layout.positions());
        let p = slot.position();
        positions.push(if r & 1 << 40 != 0 { p.mirrored() } else { p });
    }
    let answer = |tb: &Tablebase, p: &Position| -> String {
        format!("{:?} {:?} {:?}", tb.wdl(p), tb.value(p), tb.moves(p))
    };
    let single = Tablebase::open([dir.path()]).unwrap();
    let expected: Vec<String> = positions.iter().map(|p| answer(&single, p)).collect();
    // A fresh tablebase, so the threads race to map the files, and a small
    // cache, so they race on evictions too.
    for cache in [64 << 10, 64 << 20] {
        let shared = Tablebase::open_with_cache([dir.path()], cache).unwrap();
        std::thread::scope(|s| {
            for t in 0..8 {
                let (shared, positions, expected) = (&shared, &positions, &expected);
                s.spawn(move || {
                    for round in 0..2 {
                        for k in 0..positions.len() {
                            let i = (k * 7 + t * 389 + round * 11) % positions.len();
                            assert_eq!(answer(shared, &positions[i]), expected[i], "thread {t}");
                        }
                    }
                });
            }
        });
    }
}

#[test]
fn tablebase_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Tablebase>();
    check::<TableFile>();
}

/// A block whose checksums all match but which decompresses to fewer or
/// more bytes than the header says is an error on both read paths (the
/// reused buffer, and the shared block the cache keeps, which is only
/// taken as written when every byte was): never a panic, never an answer.
#[test]
fn a_block_of_the_wrong_length_is_refused() {
    let (good, _) = fuzz_seed();
    let block0 = {
        let dir = tempdir();
        std::fs::write(dir.path().join(file_name(2)), good).unwrap();
        let t = TableFile::open(dir.path().join(file_name(2))).unwrap();
        t.read_block(Section::Wdl, 0).unwrap()
    };
    let index = LE::read_u64(&good[88..]) as usize;
    let offset = LE::read_u64(&good[index..]) as usize;
    let length = LE::read_u32(&good[index + 8..]) as usize;
    for wrong in [
        &block0[..block0.len() - 1],
        &[&block0[..], &[0][..]].concat()[..],
    ] {
        // The block replaced by a valid frame of the wrong length, every
        // offset after it moved, every checksum made again.
        let frame = zstd::bulk::compress(wrong, 3).unwrap();
        let shift = frame.len() as i64 - length as i64;
        let mut bytes = good[..offset].to_vec();
        bytes.extend_from_slice(&frame);
        bytes.extend_from_slice(&good[offset + length..]);
        let moved = |v: u64| (v as i64 + shift) as u64;
        for at in [80, 88, 96, 104] {
            let v = LE::read_u64(&bytes[at..]);
            LE::write_u64(&mut bytes[at..], moved(v));
        }
        let (index, end) = (
            moved(index as u64) as usize,
            LE::read_u64(&bytes[104..]) as usize,
        );
        for e in (index..end).step_by(INDEX_ENTRY_LEN) {
            let at = LE::read_u64(&bytes[e..]);
            if at as usize > offset {
                LE::write_u64(&mut bytes[e..], moved(at));
            }
        }
        LE::write_u32(&mut bytes[index + 8..], frame.len() as u32);
        LE::write_u64(&mut bytes[index + 12..], xxh3_64(&frame));
        reseal(&mut bytes);

        let dir = tempdir();
        std::fs::write(dir.path().join(file_name(2)), &bytes).unwrap();
        let t = TableFile::open(dir.path().join(file_name(2))).unwrap();
        t.verify_checksums().unwrap();
        let bad = |e: &TableError| {
            matches!(
                e,
                TableError::BlockLength { .. } | TableError::Decompress { .. }
            )
        };
        let e = t.read_block(Section::Wdl, 0).unwrap_err();
        assert!(bad(&e), "{e}");
        let e = t.read_block_shared(Section::Wdl, 0).unwrap_err();
        assert!(bad(&e), "{e}");
        // A probe of a board of block 0 goes through the cache.
        let tb = Tablebase::open([dir.path()]).unwrap();
        let (i, p) = live_positions(2).next().unwrap();
        assert!(i / 3 < 700, "the first live position's board is in block 0");
        let e = expect_table_error(tb.wdl(&p).unwrap_err(), &file_name(2));
        assert!(bad(&e), "{e}");
    }
}
