//! What every table file is written through, whatever its metric: the
//! values read in ([`ValueStream`]), a section's blocks compressed in
//! parallel and written in order ([`write_section`]), the census the header
//! carries, and the temporary file that becomes the table only once it is
//! complete and synced ([`Sink`]).

use crate::files::folder::{temporary_path, TempFile};
use crate::files::work::{LevelStream, UnitFileError};
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use togyz_tb::raw::format::{
    self, format_version, BlockEntry, Contents, Header, Section, HEADER_LEN, INDEX_ENTRY_LEN,
    MAX_BLOCK_BYTES, RULES_VARIANT,
};
use togyz_tb::raw::index::{Layout, CONFIG_COUNT, MAX_STONES};
use togyz_tb::{Metric, Value, Wdl};
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

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
    /// Appends the next `count` values to `out`.
    ///
    /// # Errors
    ///
    /// [`WriteError::ShortInput`] if there are fewer; the source's own
    /// errors (a damaged unit file).
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

impl WriteSummary {
    /// The positions the table holds: all of them, but in a WDL table.
    pub fn held(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
}

/// Why a table could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The stone count is outside the index.
    #[error("cannot write a table for {0} stones: the index goes up to {MAX_STONES}")]
    TooManyStones(u32),
    /// Contents the format cannot hold: distances in a WDL table, or a
    /// table of distances without them.
    #[error("a {format} table cannot hold the {contents}")]
    Contents {
        /// The metric the format writes.
        format: Metric,
        /// The contents asked for.
        contents: Contents,
    },
    /// The values do not cover the table exactly.
    #[error("the {n}-stone table takes {expected} values (a position or a board each), but {found} were given")]
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
    /// DTC block sizes where a distance block's boards would not lie in
    /// one WDL block, which the format requires (`docs/format.md`).
    #[error("{wdl} boards a WDL block is not a multiple of {distance} boards a DTC block")]
    BlocksNotNested {
        /// Boards per WDL block.
        wdl: u32,
        /// Boards per distance block.
        distance: u32,
    },
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
    /// A table read as the source of another is damaged or unreadable.
    #[error(transparent)]
    Table(#[from] togyz_tb::TableError),
    /// A draw split past the board's last kazan offset, given to a WDL
    /// table.
    #[error("the {n}-stone table's board {board} has the draw split {split}, past its last kazan offset")]
    SplitAbove {
        /// Stones on the board.
        n: u32,
        /// The global board.
        board: u64,
        /// The split given.
        split: u16,
    },
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

/// Appends one entry of a section, `width` bytes (1 or 2) little-endian.
#[inline]
pub(crate) fn push_entry(raw: &mut Vec<u8>, width: u8, value: u16) {
    match width {
        1 => raw.push(value as u8),
        _ => raw.extend_from_slice(&value.to_le_bytes()),
    }
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
    /// with room for the header, which [`Sink::finish_table`] writes last.
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
            contents: sections.contents,
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
            body_checksum: self.body.digest(),
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

    /// Writes both block indexes (hashed together); returns their bytes'
    /// checksum and the offset of the second index.
    fn write_indexes(
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

    /// Writes `header` in its place, syncs, renames the file into place
    /// (never over an existing table) and syncs the folder.
    fn finish(self, header: &Header, dir: &Path) -> Result<PathBuf, WriteError> {
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

/// What a writer knows of its two sections once their blocks are written.
pub(crate) struct Sections {
    pub(crate) metric: Metric,
    pub(crate) contents: Contents,
    pub(crate) wdl_width: u8,
    pub(crate) distance_width: u8,
    pub(crate) wdl_block_boards: u32,
    pub(crate) distance_block_positions: u32,
    pub(crate) wdl_data_offset: u64,
    pub(crate) distance_data_offset: u64,
    pub(crate) wdl_index: Vec<BlockEntry>,
    pub(crate) distance_index: Vec<BlockEntry>,
}

/// One section of a table as [`write_section`] cuts it: `total` values
/// read from the stream, `per_block` a block (the last takes the rest),
/// compressed at zstd `level`.
pub(crate) struct SectionPlan {
    pub(crate) section: Section,
    pub(crate) total: u64,
    pub(crate) per_block: u64,
    pub(crate) level: i32,
}

/// A written section: where its blocks are, and the census of its values
/// as its blocks' encoder counted them.
pub(crate) struct Written {
    pub(crate) index: Vec<BlockEntry>,
    pub(crate) census: Census,
}

/// Writes one section: reads its values from `stream` in batches of
/// blocks, has `encode` make each block's raw bytes (it gets the block's
/// number and values, appends the bytes and returns the block's census),
/// compresses the blocks of a batch in parallel and writes them in order.
/// With `keep`, the raw bytes of every block are appended to it too.
///
/// The first error in block order is returned, so the report does not
/// depend on the threads.
pub(crate) fn write_section<S: ValueStream + Send>(
    sink: &mut Sink,
    plan: SectionPlan,
    stream: &mut S,
    mut keep: Option<&mut Vec<u8>>,
    encode: impl Fn(u64, &[u16], &mut Vec<u8>) -> Result<Census, WriteError> + Sync,
) -> Result<Written, WriteError> {
    let SectionPlan {
        section,
        total,
        per_block,
        level,
    } = plan;
    let blocks = total.div_ceil(per_block);
    let mut index = Vec::with_capacity(blocks as usize);
    let mut census = Census::default();
    let keeps = keep.is_some();
    let per_batch = (BATCH_VALUES / per_block).clamp(1, BATCH_BLOCKS);
    // The values of the batch starting at block `start`.
    let read = |stream: &mut S, start: u64, out: &mut Vec<u16>| {
        let end = (start + per_batch).min(blocks);
        out.clear();
        let count = (end * per_block).min(total) - start * per_block;
        stream.read(count as usize, out)
    };
    type Block = (Vec<u8>, Census, Vec<u8>);
    // Blocks of one byte repeated (a WDL table of some tuzdyk pairs is
    // mostly blocks of boards it does not hold) are compressed once for
    // each byte and length: zstd gives the same bytes for the same input.
    let uniform: std::sync::Mutex<std::collections::HashMap<(u8, usize), Vec<u8>>> =
        Default::default();
    let compress = |start: u64, values: &[u16]| -> Vec<Result<Block, WriteError>> {
        let end = (start + per_batch).min(blocks);
        let first = start * per_block;
        (start..end)
            .into_par_iter()
            .map_init(
                || (zstd::bulk::Compressor::new(level), Vec::new()),
                |(compressor, raw), block| {
                    raw.clear();
                    let lo = (block * per_block - first) as usize;
                    let hi = (lo + per_block as usize).min(values.len());
                    let census = encode(block, &values[lo..hi], raw)?;
                    let compress_err = |detail: String| WriteError::Compress {
                        section,
                        block,
                        detail,
                    };
                    let key = match raw.first() {
                        Some(&b) if raw.iter().all(|&x| x == b) => Some((b, raw.len())),
                        _ => None,
                    };
                    let known = key.and_then(|k| {
                        let seen = uniform.lock().unwrap_or_else(|e| e.into_inner());
                        seen.get(&k).cloned()
                    });
                    let packed = match known {
                        Some(packed) => packed,
                        None => {
                            let compressor = compressor
                                .as_mut()
                                .map_err(|e| compress_err(e.to_string()))?;
                            let packed = compressor
                                .compress(raw)
                                .map_err(|e| compress_err(e.to_string()))?;
                            if let Some(k) = key {
                                let mut seen = uniform.lock().unwrap_or_else(|e| e.into_inner());
                                seen.insert(k, packed.clone());
                            }
                            packed
                        }
                    };
                    let kept = if keeps { raw.clone() } else { Vec::new() };
                    Ok((packed, census, kept))
                },
            )
            .collect()
    };
    let mut values = Vec::new();
    let mut next = Vec::new();
    read(stream, 0, &mut values)?;
    let mut start = 0;
    while start < blocks {
        let end = (start + per_batch).min(blocks);
        // The next batch is read while this one is compressed.
        let (batch, ahead) = rayon::join(
            || compress(start, &values),
            || {
                if end < blocks {
                    read(&mut *stream, end, &mut next)
                } else {
                    Ok(())
                }
            },
        );
        for r in batch {
            let (packed, block_census, raw) = r?;
            index.push(BlockEntry {
                offset: sink.pos,
                length: packed.len() as u32,
                checksum: xxh3_64(&packed),
            });
            sink.write(&packed)?;
            census.merge(&block_census);
            if let Some(keep) = keep.as_deref_mut() {
                keep.extend_from_slice(&raw);
            }
        }
        ahead?;
        std::mem::swap(&mut values, &mut next);
        start = end;
    }
    Ok(Written { index, census })
}
