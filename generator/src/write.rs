//! Writing table files (`docs/format.md`): compression in parallel,
//! deterministic bytes, atomic appearance on disk.
//!
//! A table is written to a temporary file in the output folder, synced, and
//! only then renamed to `togyz-NN.tkb`, so an interrupted run never leaves a
//! file that passes as complete. Blocks are compressed independently with a
//! fixed zstd level, so the bytes do not depend on the number of threads.
//! An existing file with the table's name is never overwritten: the
//! `generate` driver asks [`table_status`] first and skips or refuses.

use crate::decode::DecodeAll;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use togyz_probe::raw::format::{
    self, dtm_width_for, pack_thresholds, wdl_width_for, BlockEntry, Header, Section, TableFile,
    DTM_BLOCK_POSITIONS, FORMAT_VERSION, HEADER_LEN, INDEX_ENTRY_LEN, MAX_BLOCK_BYTES,
    RULES_VARIANT, WDL_BLOCK_BOARDS,
};
use togyz_probe::raw::index::{Layout, CONFIG_COUNT, MAX_STONES};
use togyz_probe::{Value, Wdl};
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

/// Block geometry of a written table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// Boards per WDL block.
    pub wdl_block_boards: u32,
    /// Positions per DTM block.
    pub dtm_block_positions: u32,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            wdl_block_boards: WDL_BLOCK_BOARDS,
            dtm_block_positions: DTM_BLOCK_POSITIONS,
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

/// The name of the temporary file that process `pid` writes the `n`-stone
/// table into: `.togyz-NN.tkb.PID.tmp`.
fn temporary_name(n: u32, pid: u32) -> String {
    format!(".{}.{pid}.tmp", format::file_name(n))
}

/// Removes the temporary files that killed runs left in `dir` (named by
/// `temporary_name`; never complete, they only take space) and returns
/// their paths. A file whose process still runs is left alone, and so is
/// every file of another name.
pub fn remove_stale_temporaries(dir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return removed;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let stale = name.to_str().and_then(|name| {
            let rest = name.strip_prefix('.')?.strip_suffix(".tmp")?;
            let (table, pid) = rest.rsplit_once('.')?;
            let n = format::parse_file_name(table)?;
            let pid = pid.parse::<u32>().ok()?;
            let alive = pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists();
            Some(name == temporary_name(n, pid) && !alive)
        });
        if stale == Some(true) && std::fs::remove_file(entry.path()).is_ok() {
            removed.push(entry.path());
        }
    }
    removed
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

/// Statistics of a run of positions.
#[derive(Clone, Copy, Debug, Default)]
struct Census {
    wins: u64,
    draws: u64,
    losses: u64,
    longest_win: u32,
    longest_loss: u32,
}

impl Census {
    fn merge(&mut self, o: &Census) {
        self.wins += o.wins;
        self.draws += o.draws;
        self.losses += o.losses;
        self.longest_win = self.longest_win.max(o.longest_win);
        self.longest_loss = self.longest_loss.max(o.longest_loss);
    }
}

/// Removes the temporary file unless the write completed.
struct TempFile {
    path: PathBuf,
    done: bool,
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The output file, hashing what goes into it.
struct Sink {
    out: BufWriter<File>,
    path: PathBuf,
    pos: u64,
    body: Xxh3,
}

impl Sink {
    fn write(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        self.out
            .write_all(bytes)
            .map_err(|e| io_err(&self.path, e))?;
        self.body.update(bytes);
        self.pos += bytes.len() as u64;
        Ok(())
    }
}

fn io_err(path: &Path, source: io::Error) -> WriteError {
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
    let wdl_width = wdl_width_for(n);
    let (wb, dp) = (options.wdl_block_boards, options.dtm_block_positions);
    // 2 bytes is the widest DTM entry.
    if wb == 0
        || dp == 0
        || wb as u64 * wdl_width as u64 > MAX_BLOCK_BYTES
        || dp as u64 * 2 > MAX_BLOCK_BYTES
    {
        return Err(WriteError::BadOptions);
    }
    let final_path = dir.join(format::file_name(n));
    if final_path.exists() {
        return Err(WriteError::Exists { path: final_path });
    }
    let tmp_path = dir.join(temporary_name(n, std::process::id()));
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp_path)
        .map_err(|e| io_err(&tmp_path, e))?;
    let mut tmp = TempFile {
        path: tmp_path.clone(),
        done: false,
    };
    let mut sink = Sink {
        out: BufWriter::with_capacity(1 << 20, file),
        path: tmp_path.clone(),
        pos: 0,
        body: Xxh3::new(),
    };
    // The header goes in last, once every offset and checksum is known.
    sink.out
        .write_all(&[0u8; HEADER_LEN])
        .map_err(|e| io_err(&tmp_path, e))?;
    sink.pos = HEADER_LEN as u64;

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
        wdl_blocks,
        WDL_LEVEL,
        Section::Wdl,
        &mut wdl_index,
        |block, raw| {
            let first = block * wb as u64;
            let last = (first + wb as u64).min(boards);
            let mut c = Census::default();
            for gb in first..last {
                let start = gb as usize * kazans;
                let (d, w) = thresholds(n, gb, &values[start..start + kazans], &mut c)?;
                let p = pack_thresholds(n, d, w);
                match wdl_width {
                    1 => raw.push(p as u8),
                    _ => raw.extend_from_slice(&p.to_le_bytes()),
                }
            }
            Ok(c)
        },
    )?
    .iter()
    .for_each(|c| census.merge(c));

    // DTM section: distances per position, in the width the longest needs.
    let dtm_width = dtm_width_for(census.longest_win.max(census.longest_loss));
    let dtm_data_offset = sink.pos;
    let dtm_blocks = positions.div_ceil(dp as u64);
    let mut dtm_index = Vec::with_capacity(dtm_blocks as usize);
    write_section(
        &mut sink,
        dtm_blocks,
        DTM_LEVEL,
        Section::Dtm,
        &mut dtm_index,
        |block, raw| {
            let first = (block * dp as u64) as usize;
            let last = (first + dp as usize).min(values.len());
            for &v in &values[first..last] {
                let d = Value::unpack(v.into()).dtm().unwrap_or(0);
                match dtm_width {
                    1 => raw.push(d as u8),
                    _ => raw.extend_from_slice(&(d as u16).to_le_bytes()),
                }
            }
            Ok(Census::default())
        },
    )?;

    // Both indexes, hashed together.
    let wdl_index_offset = sink.pos;
    let mut index_bytes = Vec::with_capacity((wdl_index.len() + dtm_index.len()) * INDEX_ENTRY_LEN);
    for e in wdl_index.iter().chain(&dtm_index) {
        index_bytes.extend_from_slice(&e.to_bytes());
    }
    sink.write(&index_bytes)?;
    let dtm_index_offset = wdl_index_offset + (wdl_index.len() * INDEX_ENTRY_LEN) as u64;
    let file_length = sink.pos;

    let header = Header {
        format_version: FORMAT_VERSION,
        rules_variant: RULES_VARIANT,
        stones: n,
        config_count: CONFIG_COUNT as u32,
        positions,
        boards,
        wdl_width,
        dtm_width,
        wdl_block_boards: wb,
        dtm_block_positions: dp,
        wdl_blocks,
        dtm_blocks,
        wdl_data_offset,
        dtm_data_offset,
        wdl_index_offset,
        dtm_index_offset,
        file_length,
        wins: census.wins,
        draws: census.draws,
        losses: census.losses,
        longest_win: census.longest_win,
        longest_loss: census.longest_loss,
        index_checksum: xxh3_64(&index_bytes),
        body_checksum: sink.body.digest(),
    };
    let mut file = sink
        .out
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
    tmp.done = true;
    // Make the rename itself durable.
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io_err(dir, e))?;
    Ok(WriteSummary {
        path: final_path,
        bytes: file_length,
        positions,
        wins: census.wins,
        draws: census.draws,
        losses: census.losses,
        longest_win: census.longest_win,
        longest_loss: census.longest_loss,
    })
}

/// Compresses `blocks` blocks made by `fill` (which appends a block's raw
/// bytes and returns its census) in parallel batches, writes them in order,
/// and records their index entries. Returns the census of every block.
fn write_section<F>(
    sink: &mut Sink,
    blocks: u64,
    level: i32,
    section: Section,
    index: &mut Vec<BlockEntry>,
    fill: F,
) -> Result<Vec<Census>, WriteError>
where
    F: Fn(u64, &mut Vec<u8>) -> Result<Census, WriteError> + Sync,
{
    let mut censuses = Vec::with_capacity(blocks as usize);
    let mut start = 0;
    while start < blocks {
        let end = (start + BATCH_BLOCKS).min(blocks);
        let batch: Vec<Result<(Vec<u8>, Census), WriteError>> = (start..end)
            .into_par_iter()
            .map_init(
                || (zstd::bulk::Compressor::new(level), Vec::new()),
                |(compressor, raw), block| {
                    raw.clear();
                    let census = fill(block, raw)?;
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
            .collect();
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
        start = end;
    }
    Ok(censuses)
}

/// The thresholds `(draw_from, win_from)` of one board's `n + 1` values,
/// counting them into `census`; an error unless they run losses, draws,
/// wins.
fn thresholds<T: Copy + Into<u16>>(
    n: u32,
    gb: u64,
    board: &[T],
    census: &mut Census,
) -> Result<(u32, u32), WriteError> {
    let mut draw_from = None;
    let mut win_from = None;
    let mut previous = Wdl::Loss;
    for (j, &v) in board.iter().enumerate() {
        let value = Value::unpack(v.into());
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
        match value {
            Value::Loss(d) => {
                census.losses += 1;
                census.longest_loss = census.longest_loss.max(d);
            }
            Value::Draw => {
                census.draws += 1;
                draw_from.get_or_insert(j as u32);
            }
            Value::Win(d) => {
                census.wins += 1;
                census.longest_win = census.longest_win.max(d);
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
