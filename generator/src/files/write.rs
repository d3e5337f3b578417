//! Writing table files of either metric (`docs/format.md`): compression in
//! parallel, deterministic bytes, atomic appearance on disk.
//!
//! A table is written to a temporary file in the output folder, synced, and
//! only then renamed to `togyz-NN.tkb`, so an interrupted run never leaves a
//! file that passes as complete. Blocks are compressed independently with a
//! fixed zstd level, so the bytes do not depend on the number of threads.
//! An existing file with the table's name is never overwritten: the
//! `generate` driver asks [`table_status`] first and skips or refuses.
//!
//! One writer serves both metrics: the flow is here (`write_table_from`),
//! what a metric decides of its file is its `TableFormat` (`format.rs`):
//! [`Dtm`] and [`Dtc`]; the machinery every section shares is in
//! `sink.rs`.

pub mod dtc;
pub mod dtm;
mod format;
mod sink;
pub mod wdl;

pub use dtc::Dtc;
pub use dtm::Dtm;
pub(crate) use format::TableFormat;
pub use format::WriteOptions;
pub(crate) use sink::Census;
pub use sink::{SliceStream, ValueStream, WriteError, WriteSummary};
pub use wdl::WdlOnly;

use crate::files::decode::DecodeAll;
use format::{check_blocks, DistanceBlock};
use sink::{write_section, SectionPlan, Sections, Sink, Written};
use std::io;
use std::path::Path;
use togyz_tb::raw::format::Contents;
use togyz_tb::raw::format::{
    distance_positions_of, distance_width_for, file_name, wdl_entry_width, Section, TableFile,
};
use togyz_tb::raw::index::{Layout, MAX_STONES};
use togyz_tb::Metric;

/// What is on disk under a table's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableStatus {
    /// No file.
    Missing,
    /// A table whose header, block index, blocks and whole-file checksum are
    /// all valid, for the right stone count.
    Complete,
    /// A file that is not a valid table; the reason says why.
    Invalid(String),
}

/// Looks at `dir/togyz-NN.tkb`: missing, complete and valid, or invalid.
/// Reads the whole file (its checksums), not its decompressed contents.
pub fn table_status(dir: &Path, n: u32) -> TableStatus {
    let path = dir.join(file_name(n));
    match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return TableStatus::Missing,
        Err(e) => return TableStatus::Invalid(format!("{}: {e}", path.display())),
        Ok(_) => {}
    }
    let checked = TableFile::open(&path).and_then(|t| {
        t.verify_checksums()?;
        Ok(t.header().stones)
    });
    match checked {
        Ok(stones) if stones == n => TableStatus::Complete,
        Ok(stones) => TableStatus::Invalid(format!(
            "{}: holds the {stones}-stone table",
            path.display()
        )),
        Err(e) => TableStatus::Invalid(e.to_string()),
    }
}

/// Writes the `metric` table for `n` stones into `dir` with the block
/// sizes the generator writes. `values` are packed [`Value`]s in index
/// order ([`Layout`]), the distance of a value counting in `metric`.
///
/// # Errors
///
/// As [`write_table_with`].
///
/// [`Value`]: togyz_tb::Value
pub fn write_table<T: Copy + Into<u16> + Sync>(
    dir: &Path,
    metric: Metric,
    n: u32,
    values: &[T],
) -> Result<WriteSummary, WriteError> {
    write_values(dir, metric, n, values, None)
}

/// [`write_table`] with explicit block sizes.
///
/// # Errors
///
/// [`WriteError::TooManyStones`], [`WriteError::WrongLength`];
/// [`WriteError::BadOptions`] or [`WriteError::BlocksNotNested`] for block
/// sizes the format cannot hold; values the format cannot hold
/// ([`WriteError::NotMonotone`] for DTM, [`WriteError::Score`] naming a
/// DTC board that is not one draw split); [`WriteError::Exists`] if the
/// file is there; I/O and compression errors. Nothing is left in `dir`
/// after an error.
pub fn write_table_with<T: Copy + Into<u16> + Sync>(
    dir: &Path,
    metric: Metric,
    n: u32,
    values: &[T],
    options: &WriteOptions,
) -> Result<WriteSummary, WriteError> {
    write_values(dir, metric, n, values, Some(options))
}

/// [`write_table_with`], the metric's own block sizes unless `options`.
fn write_values<T: Copy + Into<u16> + Sync>(
    dir: &Path,
    metric: Metric,
    n: u32,
    values: &[T],
    options: Option<&WriteOptions>,
) -> Result<WriteSummary, WriteError> {
    check_length(n, values.len(), Layout::positions)?;
    let open = |_| Ok(SliceStream::new(values));
    // The by-product is for the driver, which streams: a caller with the
    // values in memory has it already.
    Ok(match metric {
        Metric::Dtm => write_table_from::<Dtm, _>(dir, n, Contents::Full, open, options, false)?.0,
        Metric::Dtc => write_table_from::<Dtc, _>(dir, n, Contents::Full, open, options, false)?.0,
    })
}

/// An error unless `n` is within the index and `len` values are what
/// `expected` says its layout takes (positions, or boards).
fn check_length(n: u32, len: usize, expected: fn(&Layout) -> u64) -> Result<(), WriteError> {
    if n > MAX_STONES {
        return Err(WriteError::TooManyStones(n));
    }
    let expected = expected(&Layout::new(n));
    if len as u64 != expected {
        return Err(WriteError::WrongLength {
            n,
            expected,
            found: len as u64,
        });
    }
    Ok(())
}

/// Writes the WDL table ("WDL tables", `docs/format.md`) of `contents`
/// (the positions with a tuzdyk, or those of some tuzdyk pairs) for `n`
/// stones into `dir` from its draw splits, one a board in global board
/// order, of the boards it holds (what `splits` holds for the others is
/// not read).
///
/// # Errors
///
/// [`WriteError::TooManyStones`], [`WriteError::WrongLength`] unless there
/// is one split a board; [`WriteError::Contents`] for contents of every
/// position; [`WriteError::SplitAbove`] for a split past the
/// board's last kazan offset; [`WriteError::Exists`] if the file is there;
/// I/O and compression errors. Nothing is left in `dir` after an error.
pub fn write_wdl_table(
    dir: &Path,
    n: u32,
    contents: Contents,
    splits: &[u8],
) -> Result<WriteSummary, WriteError> {
    check_length(n, splits.len(), Layout::boards)?;
    let open = |_| Ok(SliceStream::new(splits));
    Ok(write_table_from::<WdlOnly, _>(dir, n, contents, open, None, false)?.0)
}

/// Writes the table of every level in `levels` (1 to its highest) into
/// `dir`: how tests, benchmarks and examples make the small complete DTM
/// sets they solve in memory with [`crate::solve::dtm::solve_all`]. Large
/// sets go through `togyz-gen generate`, which streams, resumes and checks
/// resources first.
///
/// # Errors
///
/// The first [`WriteError`] of [`write_table`].
pub fn write_levels(dir: &Path, levels: &crate::solve::held::DtmLevels) -> Result<(), WriteError> {
    for n in 1..=levels.max_stones() {
        write_table(dir, Metric::Dtm, n, &levels.table(n))?;
    }
    Ok(())
}

/// Writes the format `F` table for `n` stones into `dir` from a stream of
/// its packed values in index order, never holding the level whole:
/// `open(section)` starts a stream from the first value, once for the WDL
/// section and once for the distance section; the format's own block sizes
/// unless `options`. Returns what was written and, with `keep`, the
/// format's by-product (DTC: the level's draw splits, found by the WDL
/// section, gathered only then: at 16 stones they take 27.6 GB). The bytes
/// are those [`write_table_with`] writes for the same values.
///
/// # Errors
///
/// As [`write_table_with`], and the stream's errors (a unit file that is
/// damaged or short).
pub(crate) fn write_table_from<F: TableFormat, S: ValueStream + Send>(
    dir: &Path,
    n: u32,
    contents: Contents,
    mut open: impl FnMut(Section) -> Result<S, WriteError>,
    options: Option<&WriteOptions>,
    keep: bool,
) -> Result<(WriteSummary, Option<F::ByProduct>), WriteError> {
    if n > MAX_STONES {
        return Err(WriteError::TooManyStones(n));
    }
    if contents.has_distances() != F::DISTANCES {
        return Err(WriteError::Contents {
            format: F::METRIC,
            contents,
        });
    }
    let options = options.unwrap_or(&F::BLOCKS);
    check_blocks::<F>(n, options)?;
    let layout = Layout::new(n);
    let positions = layout.positions();
    let (wb, per) = (options.wdl_block_boards, options.distance_block_positions);
    let per_board = F::stream_per_board(n);
    let mut sink = Sink::create(dir, n)?;

    // WDL section: one entry a board, checking that the format can hold
    // the board and counting the census.
    let mut kept = Vec::new();
    let wdl_data_offset = sink.pos;
    let wdl = write_section(
        &mut sink,
        SectionPlan {
            section: Section::Wdl,
            total: layout.boards() * per_board,
            per_block: wb as u64 * per_board,
            level: F::WDL_LEVEL,
        },
        &mut open(Section::Wdl)?,
        (F::KEEPS_WDL && keep).then_some(&mut kept),
        |block, values, raw| F::encode_wdl(n, contents, block * wb as u64, values, raw),
    )?;

    // Distance section, in the width the longest distance needs.
    let census = wdl.census;
    let distance_width = distance_width_for(census.longest_win.max(census.longest_loss));
    let distance_data_offset = sink.pos;
    let distance = if !F::DISTANCES {
        Written {
            index: Vec::new(),
            census: Census::default(),
        }
    } else {
        write_section(
            &mut sink,
            SectionPlan {
                section: Section::Distance,
                total: positions,
                per_block: distance_positions_of(F::METRIC, n, per as u64),
                level: F::DISTANCE_LEVEL,
            },
            &mut open(Section::Distance)?,
            None,
            |_, values, raw| {
                let at = DistanceBlock {
                    n,
                    width: distance_width,
                };
                F::encode_distance(&at, values, raw);
                Ok(Census::default())
            },
        )?
    };

    let summary = sink.finish_table(
        dir,
        n,
        &census,
        Sections {
            metric: F::METRIC,
            contents,
            wdl_width: wdl_entry_width(F::METRIC, n),
            distance_width,
            wdl_block_boards: wb,
            distance_block_positions: per,
            wdl_data_offset,
            distance_data_offset,
            wdl_index: wdl.index,
            distance_index: distance.index,
        },
    )?;
    let by_product = keep.then(|| F::by_product(n, kept)).transpose()?;
    Ok((summary, by_product))
}
