//! Writing table files (`docs/format.md`): compression in parallel,
//! deterministic bytes, atomic appearance on disk.
//!
//! A table is written to a temporary file in the output folder, synced, and
//! only then renamed to `togyz-NN.tkb`, so an interrupted run never leaves a
//! file that passes as complete. Blocks are compressed independently with a
//! fixed zstd level, so the bytes do not depend on the number of threads.
//! An existing file with the table's name is never overwritten: the
//! `generate` driver asks [`table_status`] first and skips or refuses.

use crate::files::decode::DecodeAll;
use crate::files::folder::{temporary_path, TempFile};
use crate::files::work::{LevelStream, UnitFileError};
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use togyz_probe::raw::format::{
    self, distance_width_for, format_version, pack_thresholds, wdl_width_for, BlockEntry, Header,
    Section, TableFile, DISTANCE_BLOCK_POSITIONS, HEADER_LEN, INDEX_ENTRY_LEN, MAX_BLOCK_BYTES,
    RULES_VARIANT, WDL_BLOCK_BOARDS,
};
use togyz_probe::raw::index::{Layout, CONFIG_COUNT, MAX_STONES};
use togyz_probe::{Metric, Value, Wdl};
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// zstd level of the WDL section. On the 8-stone table (16384 boards a
/// block, two busy cores): level 9 gives 3.33 MB at 36 MB/s, level 6
/// 3.51 MB at 120 MB/s, level 12 3.30 MB at 18 MB/s (docs/format.md).
pub const WDL_LEVEL: i32 = 9;
/// zstd level of the DTM section. On the 8-stone table (65536 positions a
/// block): level 9 gives 24.2 MB at 141 MB/s, level 6 25.7 MB at 249 MB/s,
/// level 12 23.5 MB at 25 MB/s.
pub const DTM_LEVEL: i32 = 9;
/// Blocks compressed in parallel before their bytes are written: bounds the
/// compressed data held in memory.
const BATCH_BLOCKS: u64 = 512;
/// Values read from the source for one batch, at most: bounds the memory of
/// a batch (2 bytes a value) whatever the level's size. The bytes written do
/// not depend on it.
const BATCH_VALUES: u64 = 1 << 25;

/// A level's packed [`Value`]s in index order, read front to back (a slice
/// in memory, or the unit files of a level being assembled).
pub trait ValueStream {
    /// Appends the next `count` values to `out`; an error if there are
    /// fewer.
    fn read(&mut self, count: usize, out: &mut Vec<u16>) -> Result<(), WriteError>;
}

/// A [`ValueStream`] over values in memory.
pub struct SliceStream<'a, T> {
    values: &'a [T],
    at: usize,
}

impl<'a, T> SliceStream<'a, T> {
    /// Streams `values` from the first.
    pub fn new(values: &'a [T]) -> SliceStream<'a, T> {
        SliceStream { values, at: 0 }
    }
}

impl<T: Copy + Into<u16>> ValueStream for SliceStream<'_, T> {
    fn read(&mut self, count: usize, out: &mut Vec<u16>) -> Result<(), WriteError> {
        let end = self.at + count;
        let part = self
            .values
            .get(self.at..end)
            .ok_or(WriteError::ShortInput)?;
        out.extend(part.iter().map(|&v| v.into()));
        self.at = end;
        Ok(())
    }
}

impl ValueStream for LevelStream {
    fn read(&mut self, count: usize, out: &mut Vec<u16>) -> Result<(), WriteError> {
        Ok(self.read_into(count, out)?)
    }
}

/// Block geometry of a written table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// Boards per WDL block.
    pub wdl_block_boards: u32,
    /// Positions per DTM block.
    pub distance_block_positions: u32,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            wdl_block_boards: WDL_BLOCK_BOARDS,
            distance_block_positions: DISTANCE_BLOCK_POSITIONS,
        }
    }
}

/// What was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteSummary {
    /// The table file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Positions in the table.
    pub positions: u64,
    /// Positions won by the side to move.
    pub wins: u64,
    /// Drawn positions.
    pub draws: u64,
    /// Positions lost by the side to move.
    pub losses: u64,
    /// The longest win, in plies.
    pub longest_win: u32,
    /// The longest loss, in plies.
    pub longest_loss: u32,
}

/// Appends one entry of a section, `width` bytes (1 or 2) little-endian.
#[inline]
pub(crate) fn push_entry(raw: &mut Vec<u8>, width: u8, value: u16) {
    match width {
        1 => raw.push(value as u8),
        _ => raw.extend_from_slice(&value.to_le_bytes()),
    }
}

/// Why a table could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The stone count is outside the index.
    #[error("cannot write a table for {0} stones: the index goes up to {MAX_STONES}")]
    TooManyStones(u32),
    /// The values do not cover the table exactly.
    #[error("the {n}-stone table has {expected} positions, but {found} values were given")]
    WrongLength {
        /// Stones on the board.
        n: u32,
        /// Positions in the table.
        expected: u64,
        /// Values given.
        found: u64,
    },
    /// Block sizes out of range.
    #[error("block sizes must be at least 1 and at most {MAX_BLOCK_BYTES} bytes decompressed")]
    BadOptions,
    /// A board whose results are not losses, then draws, then wins as the
    /// mover's kazan grows: the values are wrong, and the format cannot
    /// hold them.
    #[error("the {n}-stone table is not monotone along the kazan axis: position {index} (board {board}, kazan offset {kazan}) is a {found} after a {previous}")]
    NotMonotone {
        /// Stones on the board.
        n: u32,
        /// Index of the offending position.
        index: u64,
        /// Its global board.
        board: u64,
        /// Its kazan offset.
        kazan: u32,
        /// The result at the previous kazan offset.
        previous: Wdl,
        /// The result here.
        found: Wdl,
    },
    /// A file with the table's name is already there.
    #[error("{}: already exists; a table is never overwritten", .path.display())]
    Exists {
        /// The file.
        path: PathBuf,
    },
    /// Reading or writing failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// The values ran out before the table was complete.
    #[error("the values given end before the table does")]
    ShortInput,
    /// A unit file of the level being assembled is missing or damaged.
    #[error(transparent)]
    Unit(#[from] UnitFileError),
    /// A DTC table's board that is not one draw split (`docs/dtc.md`).
    #[error(transparent)]
    Score(#[from] crate::solve::score::ScoreError),
    /// zstd failed to compress a block.
    #[error("cannot compress block {block} of the {section} section: {detail}")]
    Compress {
        /// The section.
        section: Section,
        /// The block.
        block: u64,
        /// zstd's message.
        detail: String,
    },
}

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
    let path = dir.join(format::file_name(n));
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

/// Writes the table for `n` stones into `dir` with the default block sizes.
/// `values` are packed [`Value`]s in index order ([`Layout`]). Fails if the
/// values are not monotone along the kazan axis or if the file already
/// exists.
pub fn write_table<T: Copy + Into<u16> + Sync>(
    dir: &Path,
    n: u32,
    values: &[T],
) -> Result<WriteSummary, WriteError> {
    write_table_with(dir, n, values, &WriteOptions::default())
}

/// Writes the table of every level in `levels` (1 to its highest) into
/// `dir`: how tests, benchmarks and examples make the small complete sets
/// they solve in memory with [`crate::solve::dtm::solve_all`]. Large sets go
/// through `togyz-gen generate`, which streams, resumes and checks
/// resources first.
///
/// # Errors
///
/// The first [`WriteError`] of [`write_table`].
pub fn write_levels(dir: &Path, levels: &crate::solve::below::Levels) -> Result<(), WriteError> {
    for n in 1..=levels.max_stones() {
        write_table(dir, n, &levels.table(n))?;
    }
    Ok(())
}

/// Wins, draws, losses and the longest distances of a run of positions
/// (also what verify checks a header against).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Census {
    pub(crate) wins: u64,
    pub(crate) draws: u64,
    pub(crate) losses: u64,
    pub(crate) longest_win: u32,
    pub(crate) longest_loss: u32,
}

impl Census {
    /// Counts one value.
    pub(crate) fn add(&mut self, v: Value) {
        match v {
            Value::Win(d) => {
                self.wins += 1;
                self.longest_win = self.longest_win.max(d);
            }
            Value::Draw => self.draws += 1,
            Value::Loss(d) => {
                self.losses += 1;
                self.longest_loss = self.longest_loss.max(d);
            }
        }
    }

    /// Adds another run's counts.
    pub(crate) fn merge(&mut self, o: &Census) {
        self.wins += o.wins;
        self.draws += o.draws;
        self.losses += o.losses;
        self.longest_win = self.longest_win.max(o.longest_win);
        self.longest_loss = self.longest_loss.max(o.longest_loss);
    }
}

/// The output file, hashing what goes into it.
pub(crate) struct Sink {
    out: BufWriter<File>,
    path: PathBuf,
    /// Bytes written so far, the header's place included.
    pub(crate) pos: u64,
    body: Xxh3,
    final_path: PathBuf,
    tmp: TempFile,
}

impl Sink {
    /// Starts the table file for `n` stones in `dir`: a temporary file
    /// with room for the header, which [`Sink::finish`] writes last.
    pub(crate) fn create(dir: &Path, n: u32) -> Result<Sink, WriteError> {
        let final_path = dir.join(format::file_name(n));
        if final_path.exists() {
            return Err(WriteError::Exists { path: final_path });
        }
        let tmp_path = temporary_path(dir, &format::file_name(n));
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp_path)
            .map_err(|e| io_err(&tmp_path, e))?;
        let mut sink = Sink {
            out: BufWriter::with_capacity(1 << 20, file),
            path: tmp_path.clone(),
            pos: 0,
            body: Xxh3::new(),
            final_path,
            tmp: TempFile::new(tmp_path.clone()),
        };
        // The header goes in last, once every offset and checksum is known.
        sink.out
            .write_all(&[0u8; HEADER_LEN])
            .map_err(|e| io_err(&tmp_path, e))?;
        sink.pos = HEADER_LEN as u64;
        Ok(sink)
    }

    /// Writes both block indexes (hashed together); returns their bytes'
    /// checksum and the offset of the second index.
    pub(crate) fn write_indexes(
        &mut self,
        first: &[BlockEntry],
        second: &[BlockEntry],
    ) -> Result<(u64, u64), WriteError> {
        let start = self.pos;
        let mut bytes = Vec::with_capacity((first.len() + second.len()) * INDEX_ENTRY_LEN);
        for e in first.iter().chain(second) {
            bytes.extend_from_slice(&e.to_bytes());
        }
        self.write(&bytes)?;
        Ok((
            xxh3_64(&bytes),
            start + (first.len() * INDEX_ENTRY_LEN) as u64,
        ))
    }

    /// The checksum of everything written after the header.
    pub(crate) fn body_checksum(&self) -> u64 {
        self.body.digest()
    }

    /// Writes `header` in its place, syncs, renames the file into place
    /// (never over an existing table) and syncs the folder.
    pub(crate) fn finish(self, header: &Header, dir: &Path) -> Result<PathBuf, WriteError> {
        let Sink {
            out,
            path: tmp_path,
            final_path,
            mut tmp,
            ..
        } = self;
        let mut file = out
            .into_inner()
            .map_err(|e| io_err(&tmp_path, e.into_error()))?;
        let finish = |file: &mut File| -> io::Result<()> {
            file.seek(SeekFrom::Start(0))?;
            file.write_all(&header.to_bytes())?;
            file.sync_all()
        };
        finish(&mut file).map_err(|e| io_err(&tmp_path, e))?;
        drop(file);
        // Checked again right before the rename: rename would replace silently.
        if final_path.exists() {
            return Err(WriteError::Exists { path: final_path });
        }
        std::fs::rename(&tmp_path, &final_path).map_err(|e| io_err(&final_path, e))?;
        tmp.keep();
        // Make the rename itself durable.
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| io_err(dir, e))?;
        Ok(final_path)
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        self.out
            .write_all(bytes)
            .map_err(|e| io_err(&self.path, e))?;
        self.body.update(bytes);
        self.pos += bytes.len() as u64;
        Ok(())
    }
}

pub(crate) fn io_err(path: &Path, source: io::Error) -> WriteError {
    WriteError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// [`write_table`] with explicit block sizes.
pub fn write_table_with<T: Copy + Into<u16> + Sync>(
    dir: &Path,
    n: u32,
    values: &[T],
    options: &WriteOptions,
) -> Result<WriteSummary, WriteError> {
    if n > MAX_STONES {
        return Err(WriteError::TooManyStones(n));
    }
    let layout = Layout::new(n);
    if values.len() as u64 != layout.positions() {
        return Err(WriteError::WrongLength {
            n,
            expected: layout.positions(),
            found: values.len() as u64,
        });
    }
    write_table_from(dir, n, |_| Ok(SliceStream::new(values)), options)
}

/// Writes the table for `n` stones into `dir` from a stream of its packed
/// values in index order, never holding the level whole: `open(section)`
/// starts a stream from the first value, once for the WDL section and once
/// for the DTM section. The bytes are those [`write_table_with`] writes for
/// the same values.
pub fn write_table_from<S: ValueStream + Send>(
    dir: &Path,
    n: u32,
    mut open: impl FnMut(Section) -> Result<S, WriteError>,
    options: &WriteOptions,
) -> Result<WriteSummary, WriteError> {
    if n > MAX_STONES {
        return Err(WriteError::TooManyStones(n));
    }
    let layout = Layout::new(n);
    let wdl_width = wdl_width_for(n);
    let (wb, dp) = (options.wdl_block_boards, options.distance_block_positions);
    // 2 bytes is the widest DTM entry.
    if wb == 0
        || dp == 0
        || wb as u64 * wdl_width as u64 > MAX_BLOCK_BYTES
        || dp as u64 * 2 > MAX_BLOCK_BYTES
    {
        return Err(WriteError::BadOptions);
    }
    let mut sink = Sink::create(dir, n)?;

    let kazans = layout.kazans() as usize;
    let boards = layout.boards();
    let positions = layout.positions();

    // WDL section: thresholds per board, checking monotonicity and counting.
    let wdl_data_offset = sink.pos;
    let wdl_blocks = boards.div_ceil(wb as u64);
    let mut census = Census::default();
    let mut wdl_index = Vec::with_capacity(wdl_blocks as usize);
    write_section(
        &mut sink,
        Blocks {
            count: wdl_blocks,
            values: wb as u64 * kazans as u64,
            total: positions,
        },
        &mut open(Section::Wdl)?,
        WDL_LEVEL,
        Section::Wdl,
        &mut wdl_index,
        |block, values, raw| {
            let first = block * wb as u64;
            let mut c = Census::default();
            for (gb, board) in (first..).zip(values.chunks_exact(kazans)) {
                let (d, w) = thresholds(n, gb, board, &mut c)?;
                push_entry(raw, wdl_width, pack_thresholds(n, d, w));
            }
            Ok(c)
        },
    )?
    .iter()
    .for_each(|c| census.merge(c));

    // DTM section: distances per position, in the width the longest needs.
    let distance_width = distance_width_for(census.longest_win.max(census.longest_loss));
    let distance_data_offset = sink.pos;
    let distance_blocks = positions.div_ceil(dp as u64);
    let mut distance_index = Vec::with_capacity(distance_blocks as usize);
    write_section(
        &mut sink,
        Blocks {
            count: distance_blocks,
            values: dp as u64,
            total: positions,
        },
        &mut open(Section::Distance)?,
        DTM_LEVEL,
        Section::Distance,
        &mut distance_index,
        |_, values, raw| {
            for &v in values {
                push_entry(
                    raw,
                    distance_width,
                    Value::unpack(v).distance().unwrap_or(0) as u16,
                );
            }
            Ok(Census::default())
        },
    )?;

    sink.finish_table(
        dir,
        n,
        &census,
        Sections {
            metric: Metric::Dtm,
            wdl_width,
            distance_width,
            wdl_block_boards: wb,
            distance_block_positions: dp,
            wdl_data_offset,
            distance_data_offset,
            wdl_index,
            distance_index,
        },
    )
}

/// What a writer knows of its two sections once their blocks are written.
pub(crate) struct Sections {
    pub(crate) metric: Metric,
    pub(crate) wdl_width: u8,
    pub(crate) distance_width: u8,
    pub(crate) wdl_block_boards: u32,
    pub(crate) distance_block_positions: u32,
    pub(crate) wdl_data_offset: u64,
    pub(crate) distance_data_offset: u64,
    pub(crate) wdl_index: Vec<BlockEntry>,
    pub(crate) distance_index: Vec<BlockEntry>,
}

impl Sink {
    /// Writes the block indexes and the header of the table for `n`
    /// stones whose sections are written, and renames it into place.
    pub(crate) fn finish_table(
        mut self,
        dir: &Path,
        n: u32,
        census: &Census,
        sections: Sections,
    ) -> Result<WriteSummary, WriteError> {
        let layout = Layout::new(n);
        let wdl_index_offset = self.pos;
        let (index_checksum, distance_index_offset) =
            self.write_indexes(&sections.wdl_index, &sections.distance_index)?;
        let file_length = self.pos;
        let header = Header {
            format_version: format_version(sections.metric),
            rules_variant: RULES_VARIANT,
            stones: n,
            config_count: CONFIG_COUNT as u32,
            positions: layout.positions(),
            boards: layout.boards(),
            metric: sections.metric,
            wdl_width: sections.wdl_width,
            distance_width: sections.distance_width,
            wdl_block_boards: sections.wdl_block_boards,
            distance_block_positions: sections.distance_block_positions,
            wdl_blocks: sections.wdl_index.len() as u64,
            distance_blocks: sections.distance_index.len() as u64,
            wdl_data_offset: sections.wdl_data_offset,
            distance_data_offset: sections.distance_data_offset,
            wdl_index_offset,
            distance_index_offset,
            file_length,
            wins: census.wins,
            draws: census.draws,
            losses: census.losses,
            longest_win: census.longest_win,
            longest_loss: census.longest_loss,
            index_checksum,
            body_checksum: self.body_checksum(),
        };
        Ok(WriteSummary {
            path: self.finish(&header, dir)?,
            bytes: file_length,
            positions: layout.positions(),
            wins: census.wins,
            draws: census.draws,
            losses: census.losses,
            longest_win: census.longest_win,
            longest_loss: census.longest_loss,
        })
    }
}

/// The blocks of a section: how many, the values of a full block, and the
/// values of the whole section (the last block takes the rest).
pub(crate) struct Blocks {
    pub(crate) count: u64,
    pub(crate) values: u64,
    pub(crate) total: u64,
}

/// Compresses the section's blocks made by `fill` (which gets a block's
/// values, appends its raw bytes and returns its census) in parallel
/// batches read from `stream`, writes them in order, and records their
/// index entries. Returns the census of every block.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_section<F, S: ValueStream + Send>(
    sink: &mut Sink,
    blocks: Blocks,
    stream: &mut S,
    level: i32,
    section: Section,
    index: &mut Vec<BlockEntry>,
    fill: F,
) -> Result<Vec<Census>, WriteError>
where
    F: Fn(u64, &[u16], &mut Vec<u8>) -> Result<Census, WriteError> + Sync,
{
    let mut censuses = Vec::with_capacity(blocks.count as usize);
    let per_batch = (BATCH_VALUES / blocks.values).clamp(1, BATCH_BLOCKS);
    // The values of the batch starting at block `start`.
    let read = |stream: &mut S, start: u64, out: &mut Vec<u16>| {
        let end = (start + per_batch).min(blocks.count);
        out.clear();
        let count = (end * blocks.values).min(blocks.total) - start * blocks.values;
        stream.read(count as usize, out)
    };
    let compress = |start: u64, values: &[u16]| -> Vec<Result<(Vec<u8>, Census), WriteError>> {
        let end = (start + per_batch).min(blocks.count);
        let first = start * blocks.values;
        (start..end)
            .into_par_iter()
            .map_init(
                || (zstd::bulk::Compressor::new(level), Vec::new()),
                |(compressor, raw), block| {
                    raw.clear();
                    let lo = (block * blocks.values - first) as usize;
                    let hi = (lo + blocks.values as usize).min(values.len());
                    let census = fill(block, &values[lo..hi], raw)?;
                    let compress_err = |detail: String| WriteError::Compress {
                        section,
                        block,
                        detail,
                    };
                    let compressor = compressor
                        .as_mut()
                        .map_err(|e| compress_err(e.to_string()))?;
                    let packed = compressor
                        .compress(raw)
                        .map_err(|e| compress_err(e.to_string()))?;
                    Ok((packed, census))
                },
            )
            .collect()
    };
    let mut values = Vec::new();
    let mut next = Vec::new();
    read(stream, 0, &mut values)?;
    let mut start = 0;
    while start < blocks.count {
        let end = (start + per_batch).min(blocks.count);
        // The next batch is read while this one is compressed.
        let (batch, ahead) = rayon::join(
            || compress(start, &values),
            || {
                if end < blocks.count {
                    read(&mut *stream, end, &mut next)
                } else {
                    Ok(())
                }
            },
        );
        // The first error in block order, so the report is deterministic.
        for r in batch {
            let (packed, census) = r?;
            index.push(BlockEntry {
                offset: sink.pos,
                length: packed.len() as u32,
                checksum: xxh3_64(&packed),
            });
            sink.write(&packed)?;
            censuses.push(census);
        }
        ahead?;
        std::mem::swap(&mut values, &mut next);
        start = end;
    }
    Ok(censuses)
}

/// The thresholds `(draw_from, win_from)` of one board's `n + 1` values,
/// counting them into `census`; an error unless they run losses, draws,
/// wins.
fn thresholds(
    n: u32,
    gb: u64,
    board: &[u16],
    census: &mut Census,
) -> Result<(u32, u32), WriteError> {
    let mut draw_from = None;
    let mut win_from = None;
    let mut previous = Wdl::Loss;
    for (j, &v) in board.iter().enumerate() {
        let value = Value::unpack(v);
        let wdl = value.wdl();
        if wdl < previous {
            return Err(WriteError::NotMonotone {
                n,
                index: gb * board.len() as u64 + j as u64,
                board: gb,
                kazan: j as u32,
                previous,
                found: wdl,
            });
        }
        census.add(value);
        match value {
            Value::Loss(_) => {}
            Value::Draw => {
                draw_from.get_or_insert(j as u32);
            }
            Value::Win(_) => {
                draw_from.get_or_insert(j as u32);
                win_from.get_or_insert(j as u32);
            }
        }
        previous = wdl;
    }
    let end = board.len() as u32;
    Ok((draw_from.unwrap_or(end), win_from.unwrap_or(end)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_of_runs() {
        let pack = |v: Value| v.pack().unwrap();
        let mut c = Census::default();
        let b = [
            pack(Value::Loss(3)),
            pack(Value::Draw),
            pack(Value::Win(5)),
            pack(Value::Win(1)),
        ];
        assert_eq!(thresholds(3, 0, &b, &mut c).unwrap(), (1, 2));
        assert_eq!(
            (c.wins, c.draws, c.losses, c.longest_win, c.longest_loss),
            (2, 1, 1, 5, 3)
        );
        let all_loss = [pack(Value::Loss(0)); 3];
        assert_eq!(thresholds(2, 0, &all_loss, &mut c).unwrap(), (3, 3));
        let all_win = [pack(Value::Win(2)); 3];
        assert_eq!(thresholds(2, 0, &all_win, &mut c).unwrap(), (0, 0));
        let bad = [pack(Value::Draw), pack(Value::Loss(4)), pack(Value::Win(1))];
        match thresholds(2, 7, &bad, &mut c) {
            Err(WriteError::NotMonotone {
                index,
                board,
                kazan,
                previous,
                found,
                ..
            }) => {
                assert_eq!((index, board, kazan), (22, 7, 1));
                assert_eq!((previous, found), (Wdl::Draw, Wdl::Loss));
            }
            other => panic!("{other:?}"),
        }
    }
}
