//! The table file reader: the fuzzed bytes (after a mode byte) are written
//! as a table file and opened with `Tablebase::open_with`, then a fixed
//! sample of positions spread over every block is probed.
//!
//! Mode bit 0 clear: the bytes go in as they are. They must give a clear
//! error, or, where they open and answer, the answers of the original
//! table (every part of a file is checksummed, so a change that opens is
//! one no probe reads). Mode bit 0 set: the checksums are recomputed over
//! the bytes first (a crafted file, as anyone can make one): the answers
//! may differ then, but there must still be no panic, no hang and no
//! allocation out of proportion (run with -rss_limit_mb and
//! -malloc_limit_mb). Mode bit 1 picks the backend (memory map or pread).
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use togyz_gen::files::write::write_table;
use togyz_gen::solve::cells::LevelValues;
use togyz_gen::solve::dtc::solve_all as solve_dtc;
use togyz_gen::solve::dtm::solve_all;
use togyz_tb::raw::format::{file_name, HEADER_LEN, INDEX_ENTRY_LEN, METRIC_DTC};
use togyz_tb::raw::index::Layout;
use togyz_tb::Metric;
use togyz_tb::{Backend, Position, ProbeError, Tablebase, Value, Wdl};
use xxhash_rust::xxh3::xxh3_64;

/// Stone counts of the original tables.
const STONES: u32 = 2;
/// Positions probed per table.
const SAMPLE: u64 = 600;

/// One metric's original tables (1..=STONES stones) and their answers.
struct Originals {
    /// The original files, by stone count (`files[n - 1]`).
    files: Vec<Vec<u8>>,
    /// `answers[n - 1]`: a sample of the `n`-stone positions and the
    /// original tables' answers there.
    answers: Vec<Vec<Answer>>,
    /// A copy of the originals, where the fuzzed file replaces one of them
    /// (this process's own folder).
    work: tempfile::TempDir,
}

type Answer = (Position, Option<Wdl>, Option<Value>);

fn sample(n: u32) -> Vec<Position> {
    let layout = Layout::new(n);
    let total = layout.positions();
    (0..SAMPLE)
        .map(|i| layout.slot(i * total / SAMPLE).position())
        .collect()
}

fn originals(write: impl Fn(&Path, u32), seeds: Option<&Path>, metric: &str) -> Originals {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for n in 1..=STONES {
        write(dir.path(), n);
    }
    let tb = Tablebase::open_with_cache([dir.path()], 0).expect("tables just written");
    let answers = (1..=STONES)
        .map(|n| {
            sample(n)
                .into_iter()
                .map(|p| (p, tb.wdl(&p).ok(), tb.value(&p).ok()))
                .collect()
        })
        .collect();
    let files: Vec<Vec<u8>> = (1..=STONES)
        .map(|n| std::fs::read(dir.path().join(file_name(n))).expect("a table just written"))
        .collect();
    // Seeds for the corpus: `TOGYZ_FUZZ_SEEDS=<folder>` writes each
    // original with a raw and a sealed mode.
    if let Some(out) = seeds {
        for (i, bytes) in files.iter().enumerate() {
            for mode in [0u8, 3] {
                let mut seed = vec![mode];
                seed.extend_from_slice(bytes);
                let name = format!("{metric}-{:02}-mode{mode}", i + 1);
                std::fs::write(out.join(name), seed).expect("a seed written");
            }
        }
    }
    Originals {
        files,
        answers,
        work: dir,
    }
}

/// `[DTM, DTC]`.
fn setup() -> &'static [Originals; 2] {
    static S: OnceLock<[Originals; 2]> = OnceLock::new();
    S.get_or_init(|| {
        let seeds = std::env::var_os("TOGYZ_FUZZ_SEEDS").map(PathBuf::from);
        let levels = solve_all(STONES).expect("levels solve");
        let (dtc, _) = solve_dtc(STONES).expect("DTC levels solve");
        let write_dtm =
            |d: &Path, n: u32| drop(write_table(d, Metric::Dtm, n, &levels.table(n)).unwrap());
        let write_dtc = |d: &Path, n: u32| match &dtc[n as usize] {
            LevelValues::Narrow(v) => drop(write_table(d, Metric::Dtc, n, v).unwrap()),
            LevelValues::Wide(v) => drop(write_table(d, Metric::Dtc, n, v).unwrap()),
        };
        [
            originals(write_dtm, seeds.as_deref(), "dtm"),
            originals(write_dtc, seeds.as_deref(), "dtc"),
        ]
    })
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

fn put_u64(b: &mut [u8], at: usize, v: u64) {
    if let Some(s) = b.get_mut(at..at + 8) {
        s.copy_from_slice(&v.to_le_bytes());
    }
}

/// Recomputes every checksum of a table file over its (fuzzed) bytes, as
/// docs/format.md lays them out: each block's in its index entry, the
/// index's, the body's and the header's. Fields out of the file's bounds
/// are left alone.
fn seal(b: &mut [u8]) {
    let len = b.len() as u64;
    let (Some(wdl_index), Some(file_length)) = (u64_at(b, 88), u64_at(b, 104)) else {
        return;
    };
    let index_end = file_length.min(len);
    if wdl_index < index_end {
        let mut at = wdl_index;
        // Bounded by the file: every entry is INDEX_ENTRY_LEN bytes of it.
        while at + INDEX_ENTRY_LEN as u64 <= index_end {
            let e = at as usize;
            if let Some(offset) = u64_at(b, e) {
                let length = u32::from_le_bytes(b[e + 8..e + 12].try_into().unwrap()) as u64;
                if offset.checked_add(length).is_some_and(|end| end <= len) {
                    let sum = xxh3_64(&b[offset as usize..(offset + length) as usize]);
                    put_u64(b, e + 12, sum);
                }
            }
            at += INDEX_ENTRY_LEN as u64;
        }
        let sum = xxh3_64(&b[wdl_index as usize..index_end as usize]);
        put_u64(b, 144, sum);
    }
    if (HEADER_LEN as u64) <= index_end {
        let sum = xxh3_64(&b[HEADER_LEN..index_end as usize]);
        put_u64(b, 152, sum);
    }
    if b.len() >= HEADER_LEN {
        let sum = xxh3_64(&b[..160]);
        put_u64(b, 160, sum);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, file)) = data.split_first() else {
        return;
    };
    let sealed = mode & 1 == 1;
    let backend = if mode & 2 == 0 {
        Backend::Mmap
    } else {
        Backend::Pread
    };
    let mut bytes = file.to_vec();
    if sealed {
        seal(&mut bytes);
    }
    // In place of the table of the stone count and metric its header
    // claims (if they are ones we have), so that the header is checked
    // beyond the name.
    let stones = bytes
        .get(16..20)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .filter(|n| (1..=STONES).contains(n))
        .unwrap_or(1);
    let o = &setup()[usize::from(bytes.get(42) == Some(&METRIC_DTC))];
    let path = o.work.path().join(file_name(stones));
    // No tablebase is open here, so no map of the file is live.
    std::fs::write(&path, &bytes).unwrap();
    check(o, stones, sealed, backend);
    std::fs::write(&path, &o.files[stones as usize - 1]).unwrap();
});

fn check(o: &Originals, stones: u32, sealed: bool, backend: Backend) {
    let tb = match Tablebase::open_with([o.work.path()], 1 << 20, backend) {
        Ok(tb) => tb,
        Err(e) => {
            assert!(matches!(e, ProbeError::Table(_)), "{e:?}");
            return;
        }
    };
    for (pos, wdl, value) in &o.answers[stones as usize - 1] {
        let got_wdl = tb.wdl(pos);
        let got_value = tb.value(pos);
        for e in [got_wdl.as_ref().err(), got_value.as_ref().err()]
            .into_iter()
            .flatten()
        {
            // A crafted table may contradict itself; a damaged one only
            // fails to read.
            let ok = match e {
                ProbeError::Table(_) => true,
                ProbeError::Inconsistent { .. } | ProbeError::MissingTable { .. } => sealed,
                _ => false,
            };
            assert!(ok, "{pos}: {e:?}");
        }
        if !sealed {
            if let Ok(w) = got_wdl {
                assert_eq!(Some(w), *wdl, "{pos}: WDL");
            }
            if let Ok(v) = got_value {
                assert_eq!(Some(v), *value, "{pos}: value");
            }
        }
    }
}
