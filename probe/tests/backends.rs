//! The two ways of reading a table file, positioned reads and a memory map,
//! give the same answers, and a file damaged or cut short after it was
//! opened gives an error with positioned reads, not a crash.

use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom, Write};

use togyz_tb::raw::format::{file_name, Section, TableFile};
use togyz_tb::raw::index::Layout;
use togyz_tb::{terminal_value, Tablebase};
use togyz_tb::{Backend, ProbeError, TableError};

const MAX: u32 = 5;

fn tables() -> tempfile::TempDir {
    togyz_gen::fixture::dtm_tables(MAX)
}

#[test]
fn both_backends_answer_alike_on_every_position() {
    let dir = tables();
    let cache = togyz_tb::DEFAULT_CACHE_BYTES;
    let mapped = Tablebase::open_with([dir.path()], cache, Backend::Mmap).unwrap();
    let read = Tablebase::open_with([dir.path()], cache, Backend::Pread).unwrap();
    let mut probed = 0;
    for n in 1..=MAX {
        let layout = Layout::new(n);
        for i in 0..layout.positions() {
            let p = layout.slot(i).position();
            if terminal_value(&p).is_some() {
                continue;
            }
            assert_eq!(mapped.value(&p).unwrap(), read.value(&p).unwrap(), "{p}");
            probed += 1;
        }
    }
    assert!(probed > 10_000, "{probed}");
    // And without the cache, every probe reading its blocks.
    let mapped = Tablebase::open_with([dir.path()], 0, Backend::Mmap).unwrap();
    let read = Tablebase::open_with([dir.path()], 0, Backend::Pread).unwrap();
    let layout = Layout::new(MAX);
    for i in (0..layout.positions()).step_by(997) {
        let p = layout.slot(i).position();
        if terminal_value(&p).is_none() {
            assert_eq!(mapped.value(&p).unwrap(), read.value(&p).unwrap(), "{p}");
        }
    }
}

#[test]
fn pread_reports_a_block_damaged_after_opening() {
    let dir = tables();
    let path = dir.path().join(file_name(MAX));
    let file = TableFile::open_with(&path, Backend::Pread).unwrap();
    assert_eq!(file.backend(), Backend::Pread);
    file.check_block(Section::Distance, 0).unwrap();
    file.check_body().unwrap();
    // Flip one byte of the first DTM block.
    let at = file.entry(Section::Distance, 0).unwrap().offset;
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    f.seek(SeekFrom::Start(at)).unwrap();
    let mut byte = [0u8];
    std::io::Read::read_exact(&mut f, &mut byte).unwrap();
    f.seek(SeekFrom::Start(at)).unwrap();
    f.write_all(&[byte[0] ^ 0xFF]).unwrap();
    drop(f);
    assert!(matches!(
        file.read_block(Section::Distance, 0),
        Err(TableError::BlockChecksum { .. })
    ));
    assert!(matches!(
        file.check_body(),
        Err(TableError::FileChecksum { .. })
    ));
}

#[test]
fn pread_reports_a_file_cut_short_after_opening() {
    let dir = tables();
    let path = dir.path().join(file_name(MAX));
    let tb = Tablebase::open_with([dir.path()], 0, Backend::Pread).unwrap();
    let layout = Layout::new(MAX);
    let pos = (0..layout.positions())
        .map(|i| layout.slot(i).position())
        .find(|p| terminal_value(p).is_none())
        .unwrap();
    tb.value(&pos).unwrap();
    OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(200)
        .unwrap();
    // Every block now lies past the end: an error, never a crash.
    let last = (0..layout.positions())
        .rev()
        .map(|i| layout.slot(i).position())
        .find(|p| terminal_value(p).is_none())
        .unwrap();
    assert!(matches!(
        tb.value(&last),
        Err(ProbeError::Table(TableError::Truncated { .. }))
    ));
}
