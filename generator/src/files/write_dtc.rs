//! Writing DTC tables (`docs/format.md`, DTC tables): the WDL section as
//! one draw split a board, the distance section as the DTC of every won
//! position (draws, one a board, and losses, which one ply of search over
//! the wins recovers, are left out), both block-compressed
//! and checksummed like a DTM table's, through the same sink
//! ([`crate::files::write`]): deterministic bytes, atomic appearance on disk, never
//! over an existing file.

use crate::files::write::{
    write_section, Blocks, Census, Sections, Sink, SliceStream, ValueStream, WriteError,
    WriteSummary,
};
use crate::solve::score::{draw_split, WdlLevel};
use rayon::prelude::*;
use std::path::Path;
use togyz_probe::raw::format::{
    distance_width_for, Section, DTC_BLOCK_BOARDS, DTC_WDL_BLOCK_BOARDS,
};
use togyz_probe::raw::index::{Layout, MAX_STONES};
use togyz_probe::{Metric, Value};

/// zstd level of a DTC table's WDL section (65536 boards a block). On the
/// 7-stone level (`docs/performance.md`, "DTC table files"): 0.0486 bits a
/// position in 2.2 s; level 19 0.0478 in 8.1 s, level 9 0.0583 in 0.2 s.
pub const DTC_WDL_LEVEL: i32 = 15;
/// zstd level of a DTC table's distance section (262144 entries a block).
/// On the 7-stone level: 0.336 bits a position in 15 s; level 19 0.327 in
/// 39 s, level 9 0.411 in 1.7 s.
pub const DTC_LEVEL: i32 = 15;

/// Values read from the source at a time: bounds the memory of the
/// census pass and of [`Decisive`] (2 bytes a value). The bytes written do
/// not depend on it.
const READ_VALUES: usize = 1 << 24;

/// Streams the distances of the won and lost positions of a stream of
/// packed values, skipping the draws (the writer keeps the wins').
struct Decisive<S> {
    inner: S,
    /// Values of the source not yet read.
    left: u64,
    buffer: Vec<u16>,
    at: usize,
}

impl<S: ValueStream> ValueStream for Decisive<S> {
    fn read(&mut self, count: usize, out: &mut Vec<u16>) -> Result<(), WriteError> {
        let mut left = count;
        while left > 0 {
            if self.at == self.buffer.len() {
                if self.left == 0 {
                    return Err(WriteError::ShortInput);
                }
                let take = self.left.min(READ_VALUES as u64) as usize;
                self.buffer.clear();
                self.inner.read(take, &mut self.buffer)?;
                self.left -= take as u64;
                self.at = 0;
            }
            let v = self.buffer[self.at];
            self.at += 1;
            if let Some(d) = Value::unpack(v).distance() {
                // Within u16: the values are packed.
                out.push(d as u16);
                left -= 1;
            }
        }
        Ok(())
    }
}

/// Writes the DTC table for `n` stones into `dir` from its packed values in
/// index order ([`crate::solve::dtc::DtcLevel::values`]: the distance of a value
/// is its DTC).
///
/// # Errors
///
/// [`WriteError::TooManyStones`], [`WriteError::WrongLength`];
/// [`WriteError::Score`] naming a board that is not one draw split (the
/// format cannot hold it); [`WriteError::Exists`] if the file is there;
/// I/O and compression errors.
pub fn write_dtc_table<T: Copy + Into<u16> + Sync>(
    dir: &Path,
    n: u32,
    values: &[T],
) -> Result<WriteSummary, WriteError> {
    if n == 0 || n > MAX_STONES {
        return Err(WriteError::TooManyStones(n));
    }
    let positions = Layout::new(n).positions();
    if values.len() as u64 != positions {
        return Err(WriteError::WrongLength {
            n,
            expected: positions,
            found: values.len() as u64,
        });
    }
    let (summary, _) = write_dtc_table_from(dir, n, || Ok(SliceStream::new(values)))?;
    Ok(summary)
}

/// Writes the DTC table for `n` stones into `dir` from a stream of its
/// packed values in index order, never holding the level whole:
/// `open()` starts a stream from the first value, once for the draw splits
/// and the census and once for the distances. Only the draw splits, one
/// byte a board, are held; they are returned with the summary (the
/// win/draw/loss the levels above need). The bytes are those
/// [`write_dtc_table`] writes for the same values.
///
/// # Errors
///
/// As [`write_dtc_table`], and the stream's errors (a unit file that is
/// damaged or short).
pub fn write_dtc_table_from<S: ValueStream + Send>(
    dir: &Path,
    n: u32,
    mut open: impl FnMut() -> Result<S, WriteError>,
) -> Result<(WriteSummary, WdlLevel), WriteError> {
    if n == 0 || n > MAX_STONES {
        return Err(WriteError::TooManyStones(n));
    }
    let layout = Layout::new(n);
    let positions = layout.positions();
    let boards = layout.boards();
    let k = layout.kazans() as usize;
    // The draw splits, checking one draw a board, and the census (folded
    // per run of boards: a census a board would outweigh the level).
    const RUN: usize = 4096;
    let mut splits = vec![0u8; boards as usize];
    let mut census = Census::default();
    let mut stream = open()?;
    let mut batch = Vec::new();
    let batch_boards = (READ_VALUES / k).max(1);
    for (b, part) in splits.chunks_mut(batch_boards).enumerate() {
        batch.clear();
        stream.read(part.len() * k, &mut batch)?;
        let first = (b * batch_boards) as u64;
        let c = part
            .par_chunks_mut(RUN)
            .zip(batch.par_chunks(RUN * k))
            .enumerate()
            .map(|(r, (splits, run))| {
                let mut c = Census::default();
                for (i, (split, board)) in splits.iter_mut().zip(run.chunks(k)).enumerate() {
                    let wdl = board.iter().map(|&v| {
                        let v = Value::unpack(v);
                        c.add(v);
                        v.wdl()
                    });
                    *split = draw_split(n, first + (r * RUN + i) as u64, wdl)? as u8;
                }
                Ok::<Census, WriteError>(c)
            })
            .try_reduce(Census::default, |mut a, b| {
                a.merge(&b);
                Ok(a)
            })?;
        census.merge(&c);
    }
    drop((stream, batch));

    let mut sink = Sink::create(dir, n)?;
    let wb = DTC_WDL_BLOCK_BOARDS;
    let wdl_data_offset = sink.pos;
    let wdl_blocks = boards.div_ceil(wb as u64);
    let mut wdl_index = Vec::with_capacity(wdl_blocks as usize);
    write_section(
        &mut sink,
        Blocks {
            count: wdl_blocks,
            values: wb as u64,
            total: boards,
        },
        &mut SliceStream::new(&splits),
        DTC_WDL_LEVEL,
        Section::Wdl,
        &mut wdl_index,
        |_, splits, raw| {
            raw.extend(splits.iter().map(|&s| s as u8));
            Ok(Census::default())
        },
    )?;

    let distance_width = distance_width_for(census.longest_win.max(census.longest_loss));
    let per = DTC_BLOCK_BOARDS;
    let distance_data_offset = sink.pos;
    let distance_blocks = boards.div_ceil(per as u64);
    let mut distance_index = Vec::with_capacity(distance_blocks as usize);
    let nu = n as usize;
    write_section(
        &mut sink,
        Blocks {
            count: distance_blocks,
            values: per as u64 * n as u64,
            total: boards * n as u64,
        },
        &mut Decisive {
            inner: open()?,
            left: positions,
            buffer: Vec::new(),
            at: 0,
        },
        DTC_LEVEL,
        Section::Distance,
        &mut distance_index,
        |block, distances, raw| {
            // The block's wins, board by board; the losses are left out
            // (one ply over the wins recovers them, `loss_dtc`) and zero
            // entries in their number fill the block to its fixed length,
            // which zstd stores in a few bytes (docs/format.md).
            let first = (block * per as u64) as usize;
            let mut losses = 0;
            for (i, board) in distances.chunks(nu).enumerate() {
                let s = splits[first + i] as usize;
                losses += s;
                for &d in &board[s..] {
                    crate::files::write::push_entry(raw, distance_width, d);
                }
            }
            raw.resize(raw.len() + losses * distance_width as usize, 0);
            Ok(Census::default())
        },
    )?;

    let summary = sink.finish_table(
        dir,
        n,
        &census,
        Sections {
            metric: Metric::Dtc,
            wdl_width: 1,
            distance_width,
            wdl_block_boards: wb,
            distance_block_positions: per,
            wdl_data_offset,
            distance_data_offset,
            wdl_index,
            distance_index,
        },
    )?;
    Ok((summary, WdlLevel::from_splits(n, splits)?))
}
