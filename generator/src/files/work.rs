//! The work folder of a level being solved: one file per solved unit, so
//! the level is never held whole, a killed run keeps every finished unit,
//! and shards on several machines can share one output folder.
//!
//! `OUT/togyz-NN.work/unit-AA-BB.tkv` holds the packed values of unit
//! `{AA, BB}` (a tuzdyk configuration and its swap, see
//! [`UnitId`]) of the `NN`-stone level. It appears by an
//! atomic rename once complete, so a unit is finished exactly when its file
//! is there. When every unit's file is there, [`LevelStream`] reads them in
//! index order (configuration after configuration) for the table writer,
//! and the folder is removed once the table is written.
//!
//! Unit files hold packed values whatever their distance counts, a cell
//! a position; the units of a WDL table's level (whose table keeps no
//! distance) hold instead each board's draw split, a byte a board
//! ([`write_unit_splits`]). A work folder of DTC units also holds an empty file `metric-dtc`, made before
//! its first unit ([`claim_metric`]), so that a run of the other metric
//! never takes its units for its own.
//!
//! A unit file (little endian), an internal format that never leaves the
//! output folder:
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 8 | magic `TOGYZUNT` |
//! | 8 | 4 | version (1) |
//! | 12 | 4 | stones `n` |
//! | 16 | 4 | configurations in the file (1 or 2) |
//! | 20 | 4 | cells: 0 packed values, a position each; 1 draw splits, a board each (before the draw splits, always 0) |
//! | 24 | 64 | two slots: configuration id (4), cell width 1 or 2 (4), cells (8), offset of its first chunk (8), chunks (8) |
//! | 88 | 8 | file length |
//! | 96 | 8 | xxh3-64 of bytes 0..96 |
//!
//! then each configuration's chunks in turn, a chunk being its value count
//! (4), compressed length (4), xxh3-64 of the compressed bytes (8) and the
//! zstd frame of `count` cells.

use crate::files::folder::{
    is_part_file_name, is_unit_file_name, part_file_path, temporary_path, unit_file_name,
    unit_lock_name, TempFile,
};
use crate::solve::cells::{LevelValues, UnitValues};
use crate::solve::error::SolveError;
use crate::solve::parts::PartSink;
use crate::solve::score::{draw_split, ScoreError};
use crate::solve::unit::{bits, UnitId};
use byteorder::{ByteOrder, LittleEndian as LE};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use togyz_tb::raw::index::{board_count, Layout, TuzdykConfig, CONFIG_COUNT};
use togyz_tb::{Contents, Metric, Value};
use xxhash_rust::xxh3::xxh3_64;

const MAGIC: [u8; 8] = *b"TOGYZUNT";
const VERSION: u32 = 1;
const HEADER_LEN: usize = 104;
const CHUNK_HEADER_LEN: usize = 16;
/// Cells per chunk: bounds the memory of writing and reading a unit file.
const CHUNK_VALUES: usize = 1 << 20;
/// zstd level of unit files: they are read once, so speed over size.
const UNIT_LEVEL: i32 = 1;
/// Unit files from this size on are synced to disk before they count as
/// finished.
const SYNC_FROM_BYTES: u64 = 4 << 20;

/// What a unit file's cells are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cells {
    /// A packed value a position, the kazan splits of a board together.
    Values,
    /// A draw split a board ([`crate::solve::score`]): what a WDL table
    /// keeps.
    Splits,
}

impl Cells {
    fn code(self) -> u32 {
        match self {
            Cells::Values => 0,
            Cells::Splits => 1,
        }
    }

    /// Cells of a configuration of `boards` boards at level `n`.
    fn count(self, n: u32, boards: u64) -> u64 {
        match self {
            Cells::Values => boards * (n as u64 + 1),
            Cells::Splits => boards,
        }
    }
}

/// Why a unit file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum UnitFileError {
    /// Reading or writing failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// The file is not a complete unit file of the expected level.
    #[error("{}: damaged unit file ({reason}); run `togyz-gen generate` again: it solves the unit anew and replaces the file", .path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The folder holds units of the other metric.
    #[error("{} holds units of {found} tables, not {wanted}: finish that level with `togyz-gen generate --metric {found}`, or delete the folder", .dir.display())]
    OtherMetric {
        /// The work folder.
        dir: PathBuf,
        /// The metric of its units.
        found: Metric,
        /// The metric of this run.
        wanted: Metric,
    },
    /// A board of a unit merged from its kazan parts is not one draw
    /// split ([`write_unit_parts`]).
    #[error(transparent)]
    Score(#[from] ScoreError),
    /// zstd failed.
    #[error("{}: zstd: {detail}", .path.display())]
    Zstd {
        /// The file.
        path: PathBuf,
        /// zstd's message.
        detail: String,
    },
}

fn io_error(path: &Path) -> impl Fn(io::Error) -> UnitFileError + '_ {
    move |source| UnitFileError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The marker of a work folder of DTC units.
const DTC_MARKER: &str = "metric-dtc";

/// The metric of the units in work folder `dir` (DTM without a marker).
pub fn metric_of(dir: &Path) -> Metric {
    if dir.join(DTC_MARKER).exists() {
        Metric::Dtc
    } else {
        Metric::Dtm
    }
}

/// The marker of a work folder whose level is written as a WDL table
/// (`docs/format.md`, "WDL tables"): its units never include the one
/// without a tuzdyk, so `togyz-gen assemble` writes a WDL table from it.
/// Empty for the positions with a tuzdyk, else the tuzdyk pairs held
/// (`3-6,4-7`).
const WDL_MARKER: &str = "contents-wdl";

/// Marks work folder `dir` as that of a WDL table of `contents`
/// ([`marked_wdl`]).
///
/// # Errors
///
/// I/O errors.
pub fn mark_wdl(dir: &Path, contents: Contents) -> Result<(), UnitFileError> {
    // A unit's file is the same whatever the table holds: the run that
    // resumes a folder names the table it will write.
    let marker = dir.join(WDL_MARKER);
    let text = match contents {
        Contents::Pairs(p) => p.to_string(),
        _ => String::new(),
    };
    std::fs::write(&marker, text).map_err(io_error(&marker))
}

/// What the WDL table of a WDL run ([`mark_wdl`]) that solved units in
/// work folder `dir` holds, `None` if none did (or its marker cannot be
/// read: the folder is then taken for a full table's, whose units the
/// assembly finds missing).
pub fn marked_wdl(dir: &Path) -> Option<Contents> {
    let text = std::fs::read_to_string(dir.join(WDL_MARKER)).ok()?;
    if text.trim().is_empty() {
        Some(Contents::Wdl)
    } else {
        text.trim().parse().ok().map(Contents::Pairs)
    }
}

/// Claims work folder `dir` for units of `metric` before any is solved:
/// marks a folder without units as DTC for a DTC run.
///
/// # Errors
///
/// [`UnitFileError::OtherMetric`] if the folder holds (or is marked for)
/// units of the other metric; I/O errors.
pub fn claim_metric(dir: &Path, metric: Metric) -> Result<(), UnitFileError> {
    let found = metric_of(dir);
    if found == metric {
        return Ok(());
    }
    let has_units = std::fs::read_dir(dir)
        .map_err(io_error(dir))?
        .flatten()
        .any(|e| is_unit_file_name(&e.file_name().to_string_lossy()));
    if found == Metric::Dtc || has_units {
        return Err(UnitFileError::OtherMetric {
            dir: dir.to_path_buf(),
            found,
            wanted: metric,
        });
    }
    let marker = dir.join(DTC_MARKER);
    File::create(&marker).map_err(io_error(&marker))?;
    Ok(())
}

/// One configuration's slot in the header.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    config: u32,
    width: u32,
    positions: u64,
    offset: u64,
    chunks: u64,
}

struct Header {
    n: u32,
    cells: Cells,
    count: u32,
    slots: [Slot; 2],
    file_length: u64,
}

impl Header {
    fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[..8].copy_from_slice(&MAGIC);
        LE::write_u32(&mut b[8..], VERSION);
        LE::write_u32(&mut b[12..], self.n);
        LE::write_u32(&mut b[16..], self.count);
        LE::write_u32(&mut b[20..], self.cells.code());
        for (i, s) in self.slots.iter().enumerate() {
            let o = 24 + 32 * i;
            LE::write_u32(&mut b[o..], s.config);
            LE::write_u32(&mut b[o + 4..], s.width);
            LE::write_u64(&mut b[o + 8..], s.positions);
            LE::write_u64(&mut b[o + 16..], s.offset);
            LE::write_u64(&mut b[o + 24..], s.chunks);
        }
        LE::write_u64(&mut b[88..], self.file_length);
        let sum = xxh3_64(&b[..96]);
        LE::write_u64(&mut b[96..], sum);
        b
    }

    /// Parses and checks a header for unit `unit` of level `n`.
    fn parse(b: &[u8; HEADER_LEN], n: u32, unit: UnitId, len: u64) -> Result<Header, String> {
        if b[..8] != MAGIC {
            return Err("not a unit file".into());
        }
        if LE::read_u64(&b[96..]) != xxh3_64(&b[..96]) {
            return Err("header checksum".into());
        }
        if LE::read_u32(&b[8..]) != VERSION {
            return Err("unknown version".into());
        }
        let cells = match LE::read_u32(&b[20..]) {
            0 => Cells::Values,
            1 => Cells::Splits,
            c => return Err(format!("unknown cells {c}")),
        };
        let mut h = Header {
            n: LE::read_u32(&b[12..]),
            cells,
            count: LE::read_u32(&b[16..]),
            slots: [Slot::default(); 2],
            file_length: LE::read_u64(&b[88..]),
        };
        for (i, s) in h.slots.iter_mut().enumerate() {
            let o = 24 + 32 * i;
            *s = Slot {
                config: LE::read_u32(&b[o..]),
                width: LE::read_u32(&b[o + 4..]),
                positions: LE::read_u64(&b[o + 8..]),
                offset: LE::read_u64(&b[o + 16..]),
                chunks: LE::read_u64(&b[o + 24..]),
            };
        }
        if h.n != n {
            return Err(format!("holds {} stones, not {n}", h.n));
        }
        let configs = unit.configs();
        if h.count as usize != configs.len() {
            return Err("wrong configuration count".into());
        }
        for (s, &id) in h.slots.iter().zip(&configs) {
            let m = TuzdykConfig::from_id(id).free_holes();
            let widths = match cells {
                Cells::Values => 1..=2,
                Cells::Splits => 1..=1,
            };
            if s.config as usize != id
                || !widths.contains(&s.width)
                || s.positions != cells.count(n, board_count(n, m))
                || s.chunks != s.positions.div_ceil(CHUNK_VALUES as u64)
                || s.offset < HEADER_LEN as u64
                || s.offset > len
            {
                return Err(format!("bad slot for configuration {id}"));
            }
        }
        if h.file_length != len {
            return Err(format!(
                "{len} bytes, the header says {}: incomplete",
                h.file_length
            ));
        }
        Ok(h)
    }
}

/// Writes a solved unit into `dir` (the level's work folder): a temporary
/// file, synced, then renamed to its name. If a complete file is already
/// there (another shard solved the same unit), the new one is dropped: the
/// values are the same; a damaged one is replaced. Returns the file's path
/// and, when a damaged file was replaced, its path and what was wrong
/// with it (for the caller to warn).
///
/// # Errors
///
/// I/O and zstd errors, naming the file.
pub fn write_unit(
    dir: &Path,
    n: u32,
    unit: UnitId,
    values: &UnitValues,
) -> Result<(PathBuf, Option<(PathBuf, String)>), UnitFileError> {
    let sides: Vec<(usize, u32, usize)> = values
        .iter()
        .map(|(id, cells)| match cells {
            LevelValues::Narrow(v) => (*id, 1, v.len()),
            LevelValues::Wide(v) => (*id, 2, v.len()),
        })
        .collect();
    write_unit_with(dir, n, unit, Cells::Values, &sides, |side, range, raw| {
        match &values[side].1 {
            LevelValues::Narrow(v) => raw.extend_from_slice(&v[range]),
            LevelValues::Wide(v) => v[range]
                .iter()
                .for_each(|x| raw.extend_from_slice(&x.to_le_bytes())),
        }
        Ok(())
    })
}

/// Writes the draw splits of a unit of a WDL table's level (each
/// configuration's, a byte a board in rank order, as
/// [`crate::solve::forward::solve_unit`] gives them) into `dir`, as
/// [`write_unit`] writes values.
///
/// # Errors
///
/// As [`write_unit`].
pub fn write_unit_splits(
    dir: &Path,
    n: u32,
    unit: UnitId,
    splits: &[(usize, Vec<u8>)],
) -> Result<(PathBuf, Option<(PathBuf, String)>), UnitFileError> {
    let sides: Vec<(usize, u32, usize)> = splits.iter().map(|(id, s)| (*id, 1, s.len())).collect();
    write_unit_with(dir, n, unit, Cells::Splits, &sides, |side, range, raw| {
        raw.extend_from_slice(&splits[side].1[range]);
        Ok(())
    })
}

/// [`write_unit`] of the `sides` (configuration, cell width, cell count)
/// of a unit, its cells `cells`, `fill(side, range, raw)` appending the
/// cells `range` of a side to `raw` (called in order, a chunk at a time).
fn write_unit_with(
    dir: &Path,
    n: u32,
    unit: UnitId,
    cells: Cells,
    sides: &[(usize, u32, usize)],
    mut fill: impl FnMut(usize, std::ops::Range<usize>, &mut Vec<u8>) -> Result<(), UnitFileError>,
) -> Result<(PathBuf, Option<(PathBuf, String)>), UnitFileError> {
    let path = dir.join(unit_file_name(unit));
    let tmp_path = temporary_path(dir, &unit_file_name(unit));
    let err = io_error(&tmp_path);
    let file = File::create(&tmp_path).map_err(&err)?;
    let mut tmp = TempFile::new(tmp_path.clone());
    let mut out = BufWriter::with_capacity(1 << 20, file);
    out.write_all(&[0u8; HEADER_LEN]).map_err(&err)?;
    let mut pos = HEADER_LEN as u64;
    let mut header = Header {
        n,
        cells,
        count: sides.len() as u32,
        slots: [Slot::default(); 2],
        file_length: 0,
    };
    let mut compressor =
        zstd::bulk::Compressor::new(UNIT_LEVEL).map_err(|e| UnitFileError::Zstd {
            path: tmp_path.clone(),
            detail: e.to_string(),
        })?;
    let mut raw = Vec::new();
    for (side, (slot, &(id, width, len))) in header.slots.iter_mut().zip(sides).enumerate() {
        *slot = Slot {
            config: id as u32,
            width,
            positions: len as u64,
            offset: pos,
            chunks: 0,
        };
        let mut start = 0;
        while start < len {
            let end = (start + CHUNK_VALUES).min(len);
            raw.clear();
            fill(side, start..end, &mut raw)?;
            let packed = compressor.compress(&raw).map_err(|e| UnitFileError::Zstd {
                path: tmp_path.clone(),
                detail: e.to_string(),
            })?;
            let mut head = [0u8; CHUNK_HEADER_LEN];
            LE::write_u32(&mut head, (end - start) as u32);
            LE::write_u32(&mut head[4..], packed.len() as u32);
            LE::write_u64(&mut head[8..], xxh3_64(&packed));
            out.write_all(&head).map_err(&err)?;
            out.write_all(&packed).map_err(&err)?;
            pos += (CHUNK_HEADER_LEN + packed.len()) as u64;
            slot.chunks += 1;
            start = end;
        }
    }
    header.file_length = pos;
    let mut file = out.into_inner().map_err(|e| err(e.into_error()))?;
    file.seek(SeekFrom::Start(0)).map_err(&err)?;
    file.write_all(&header.to_bytes()).map_err(&err)?;
    // A killed process loses nothing in the page cache; syncing is for a
    // machine that goes down, and is not worth its wait for small units
    // (solved again in moments; a damaged file is caught by its checksums).
    let durable = pos >= SYNC_FROM_BYTES;
    if durable {
        file.sync_all().map_err(&err)?;
    }
    drop(file);
    let replaced = match check_unit(dir, n, unit) {
        // Another shard solved the unit too: the values are the same.
        UnitState::Done => return Ok((path, None)),
        // Kept, it would leave the unit unfinished for ever.
        UnitState::Damaged { path, reason } => Some((path, reason)),
        UnitState::Missing => None,
    };
    std::fs::rename(&tmp_path, &path).map_err(io_error(&path))?;
    tmp.keep();
    if durable {
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(io_error(dir))?;
    }
    Ok((path, replaced))
}

/// zstd level of part files: written and read once, by the same process.
const PART_LEVEL: i32 = 1;
/// Values a part file is read in (per part, while the unit is merged).
const PART_READ_VALUES: usize = 1 << 16;

/// The solved kazan parts of one unit being solved, each side of each
/// part in its own file in the work folder
/// (`.unit-AA-BB.tkv.part-MASK-SIDE.HOST.PID.tmp`: a temporary's name,
/// never taken for a unit file), as little-endian
/// packed values in one zstd frame with its checksum. The files go when
/// the spool does; a killed run's are removed as stale temporaries when
/// the level is next taken up
/// ([`crate::files::folder::remove_stale_temporaries`]) or with the work
/// folder.
pub struct PartSpool {
    dir: PathBuf,
    unit: UnitId,
    /// Side, part mask and file, in the order handed over.
    parts: Vec<(usize, u64, PathBuf)>,
    /// Why a part could not be kept ([`SolveError::Part`] says only that).
    failed: Option<UnitFileError>,
}

impl PartSpool {
    /// An empty spool for `unit` in work folder `dir`.
    pub fn new(dir: &Path, unit: UnitId) -> PartSpool {
        PartSpool {
            dir: dir.to_path_buf(),
            unit,
            parts: Vec::new(),
            failed: None,
        }
    }

    /// Why a part handed over could not be kept, once
    /// ([`SolveError::Part`]).
    pub fn failure(&mut self) -> Option<UnitFileError> {
        self.failed.take()
    }

    /// The files of the spool, in the order handed over.
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.parts.iter().map(|(_, _, p)| p.as_path())
    }
}

impl Drop for PartSpool {
    fn drop(&mut self) {
        for (_, _, path) in &self.parts {
            let _ = std::fs::remove_file(path);
        }
    }
}

impl PartSink for PartSpool {
    fn put(
        &mut self,
        side: usize,
        part: u64,
        fill: &mut dyn FnMut(&mut Vec<u16>) -> Result<bool, SolveError>,
    ) -> Result<(), SolveError> {
        let path = part_file_path(&self.dir, self.unit, side, part);
        if !self.parts.iter().any(|(s, p, _)| (*s, *p) == (side, part)) {
            self.parts.push((side, part, path.clone()));
        }
        let mut io = None;
        let r = write_part(&path, fill, &mut io);
        if let Some(source) = io {
            self.failed = Some(UnitFileError::Io { path, source });
        }
        r
    }
}

/// Writes the values `fill` gives into part file `path`; an I/O error is
/// put into `io` and returned as [`SolveError::Part`].
fn write_part(
    path: &Path,
    fill: &mut dyn FnMut(&mut Vec<u16>) -> Result<bool, SolveError>,
    io: &mut Option<io::Error>,
) -> Result<(), SolveError> {
    let mut failed = |e: io::Error| {
        *io = Some(e);
        SolveError::Part
    };
    let file = File::create(path).map_err(&mut failed)?;
    let out = BufWriter::with_capacity(1 << 20, file);
    let mut encoder = zstd::stream::write::Encoder::new(out, PART_LEVEL).map_err(&mut failed)?;
    encoder.include_checksum(true).map_err(&mut failed)?;
    let mut values = Vec::new();
    let mut bytes = Vec::new();
    while fill(&mut values)? {
        bytes.clear();
        values
            .iter()
            .for_each(|v| bytes.extend_from_slice(&v.to_le_bytes()));
        encoder.write_all(&bytes).map_err(&mut failed)?;
    }
    let mut out = encoder.finish().map_err(&mut failed)?;
    out.flush().map_err(&mut failed)?;
    Ok(())
}

/// One part file being read back, a board's splits of the part at a
/// time.
struct PartReader {
    decoder: zstd::stream::read::Decoder<'static, BufReader<File>>,
    path: PathBuf,
    /// The part's kazan offsets.
    mask: u64,
    bytes: Vec<u8>,
    values: Vec<u16>,
    at: usize,
}

impl PartReader {
    fn open(path: &Path, mask: u64) -> Result<PartReader, UnitFileError> {
        let file = File::open(path).map_err(io_error(path))?;
        let decoder = zstd::stream::read::Decoder::new(file).map_err(io_error(path))?;
        Ok(PartReader {
            decoder,
            path: path.to_path_buf(),
            mask,
            bytes: Vec::new(),
            values: Vec::new(),
            at: 0,
        })
    }

    fn damaged(&self, reason: &str) -> UnitFileError {
        UnitFileError::Damaged {
            path: self.path.clone(),
            reason: reason.into(),
        }
    }

    /// Fills up to `want` bytes of `bytes`; how many the file had.
    fn read_up_to(&mut self, want: usize) -> Result<usize, UnitFileError> {
        self.bytes.resize(want, 0);
        let mut got = 0;
        while got < want {
            match self.decoder.read(&mut self.bytes[got..]) {
                Ok(0) => break,
                Ok(r) => got += r,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io_error(&self.path)(e)),
            }
        }
        Ok(got)
    }

    /// Puts the next board's values of the part into `cells` (a board's
    /// `k` cells, at the part's offsets).
    fn next_board(&mut self, cells: &mut [u16]) -> Result<(), UnitFileError> {
        let kp = self.mask.count_ones() as usize;
        if self.at + kp > self.values.len() {
            let keep = self.values.len() - self.at;
            self.values.copy_within(self.at.., 0);
            self.values.truncate(keep);
            let want = (PART_READ_VALUES / kp).max(1) * kp - keep;
            let got = self.read_up_to(2 * want)?;
            if got % 2 != 0 {
                return Err(self.damaged("it ends inside a value"));
            }
            let bytes = std::mem::take(&mut self.bytes);
            self.values
                .extend(bytes[..got].chunks_exact(2).map(LE::read_u16));
            self.bytes = bytes;
            self.at = 0;
            if self.values.len() < kp {
                return Err(self.damaged("fewer values than its unit"));
            }
        }
        for (j, &v) in bits(self.mask).zip(&self.values[self.at..self.at + kp]) {
            cells[j] = v;
        }
        self.at += kp;
        Ok(())
    }

    /// Checks that every value of the part was read.
    fn finish(&mut self) -> Result<(), UnitFileError> {
        if self.at != self.values.len() || self.read_up_to(1)? != 0 {
            return Err(self.damaged("more values than its unit"));
        }
        Ok(())
    }
}

/// Writes unit `unit` of level `n` into `dir` (as [`write_unit`], the
/// same bytes) from the kazan parts in `spool`, merged board by board:
/// `widths` gives each configuration of the unit with its cell width (1
/// or 2 bytes, as the solver's `solve_unit_parts` says). With `dtc`, each
/// board is checked to have exactly one draw split, as the DTC solver
/// checks a unit solved whole. The spool's files are removed.
///
/// # Errors
///
/// I/O and zstd errors, naming the file; [`UnitFileError::Damaged`] for a
/// part file that does not hold its part;
/// [`UnitFileError::Score`] naming a board that is not one draw split.
pub fn write_unit_parts(
    dir: &Path,
    n: u32,
    unit: UnitId,
    spool: PartSpool,
    widths: &[(usize, u32)],
    dtc: bool,
) -> Result<(PathBuf, Option<(PathBuf, String)>), UnitFileError> {
    let k = n as usize + 1;
    let layout = Layout::new(n);
    let sides: Vec<(usize, u32, usize)> = widths
        .iter()
        .map(|&(id, width)| (id, width, layout.config_boards(id) as usize * k))
        .collect();
    let all = u64::MAX >> (64 - k);
    let mut readers: Vec<Vec<PartReader>> = Vec::new();
    for side in 0..sides.len() {
        let mut side_readers = Vec::new();
        let mut covered = 0u64;
        for (s, mask, path) in &spool.parts {
            if *s == side {
                covered |= mask;
                side_readers.push(PartReader::open(path, *mask)?);
            }
        }
        if covered != all {
            return Err(UnitFileError::Damaged {
                path: dir.join(unit_file_name(unit)),
                reason: format!("its kazan parts hold offsets {covered:#x}, not {all:#x}"),
            });
        }
        readers.push(side_readers);
    }
    // The board being merged and where the next cell is in it.
    let mut cells = vec![0u16; k];
    let (mut at, mut board, mut side_now) = (k, 0u64, usize::MAX);
    let written = write_unit_with(dir, n, unit, Cells::Values, &sides, |side, range, raw| {
        if side != side_now {
            (at, board, side_now) = (k, 0, side);
        }
        let width = sides[side].1;
        for _ in range {
            if at == k {
                for r in &mut readers[side] {
                    r.next_board(&mut cells)?;
                }
                if dtc {
                    let gb = layout.global_board(sides[side].0, board);
                    let wdl = cells.iter().map(|&c| Value::unpack(c).wdl());
                    draw_split(n, gb, wdl)?;
                }
                board += 1;
                at = 0;
            }
            let v = cells[at];
            if width == 1 {
                raw.push(v as u8);
            } else {
                raw.extend_from_slice(&v.to_le_bytes());
            }
            at += 1;
        }
        Ok(())
    })?;
    for r in readers.iter_mut().flatten() {
        r.finish()?;
    }
    drop(spool);
    Ok(written)
}

/// Opens a unit file and checks its header and length.
fn open_unit(dir: &Path, n: u32, unit: UnitId) -> Result<(File, Header, PathBuf), UnitFileError> {
    let path = dir.join(unit_file_name(unit));
    let mut file = File::open(&path).map_err(io_error(&path))?;
    let len = file.metadata().map_err(io_error(&path))?.len();
    let mut b = [0u8; HEADER_LEN];
    if len < HEADER_LEN as u64 {
        return Err(UnitFileError::Damaged {
            path,
            reason: "shorter than its header".into(),
        });
    }
    file.read_exact(&mut b).map_err(io_error(&path))?;
    match Header::parse(&b, n, unit, len) {
        Ok(h) => Ok((file, h, path)),
        Err(reason) => Err(UnitFileError::Damaged { path, reason }),
    }
}

/// Whether unit `unit` of level `n` is finished: its file is in `dir` with
/// a valid header and the length it gives (each chunk's checksum is checked
/// when the level is assembled).
pub fn unit_done(dir: &Path, n: u32, unit: UnitId) -> bool {
    open_unit(dir, n, unit).is_ok()
}

/// Reads the next chunk's header and compressed bytes (into `packed`) from
/// unit file `path`, checking its lengths against the `positions_left` of
/// its configuration (cells of `width` bytes) and its checksum; returns
/// its value count.
fn read_chunk(
    file: &mut impl Read,
    path: &Path,
    packed: &mut Vec<u8>,
    positions_left: u64,
    width: usize,
) -> Result<usize, UnitFileError> {
    let damaged = |reason: &str| UnitFileError::Damaged {
        path: path.to_path_buf(),
        reason: reason.into(),
    };
    let read = |file: &mut dyn Read, buf: &mut [u8]| {
        file.read_exact(buf).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => damaged("it ends inside a chunk"),
            _ => io_error(path)(e),
        })
    };
    let mut head = [0u8; CHUNK_HEADER_LEN];
    read(file, &mut head)?;
    let count = LE::read_u32(&head) as usize;
    let len = LE::read_u32(&head[4..]) as usize;
    if count == 0 || count > CHUNK_VALUES || count as u64 > positions_left {
        return Err(damaged("bad chunk length"));
    }
    if len > zstd::zstd_safe::compress_bound(count * width) {
        return Err(damaged("bad compressed length"));
    }
    packed.resize(len, 0);
    read(file, packed)?;
    if xxh3_64(packed) != LE::read_u64(&head[8..]) {
        return Err(damaged("chunk checksum"));
    }
    Ok(count)
}

/// What is in a unit's file, every checksum read.
#[derive(Debug)]
pub enum UnitState {
    /// No file: the unit is to be solved.
    Missing,
    /// A complete unit file: its header, length, chunk lengths and
    /// checksums all agree.
    Done,
    /// A file that is not a complete unit file of the level, or cannot be
    /// read.
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// Reads unit `unit`'s file in `dir` (level `n`) whole and checks every
/// checksum (without decompressing): the resume check, which finds a
/// damaged file before the unit is taken as finished.
pub fn check_unit(dir: &Path, n: u32, unit: UnitId) -> UnitState {
    let (file, header, path) = match open_unit(dir, n, unit) {
        Ok(opened) => opened,
        Err(UnitFileError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
            return UnitState::Missing
        }
        Err(e) => return damaged_state(dir, unit, e),
    };
    match check_chunks(file, &header, &path) {
        Ok(()) => UnitState::Done,
        Err(e) => damaged_state(dir, unit, e),
    }
}

fn damaged_state(dir: &Path, unit: UnitId, e: UnitFileError) -> UnitState {
    let reason = match e {
        UnitFileError::Damaged { reason, .. } => reason,
        UnitFileError::Io { source, .. } => source.to_string(),
        e => e.to_string(),
    };
    UnitState::Damaged {
        path: dir.join(unit_file_name(unit)),
        reason,
    }
}

/// Walks the chunks of an opened unit file (read past its header) in
/// order, checking that they follow each other, hold the header's counts
/// and checksums, and end where the file does.
fn check_chunks(file: File, h: &Header, path: &Path) -> Result<(), UnitFileError> {
    let damaged = |reason: String| UnitFileError::Damaged {
        path: path.to_path_buf(),
        reason,
    };
    let mut file = BufReader::with_capacity(1 << 20, file);
    let mut packed = Vec::new();
    let mut pos = HEADER_LEN as u64;
    for s in &h.slots[..h.count as usize] {
        if s.offset != pos {
            return Err(damaged(format!(
                "configuration {}'s chunks are not where the header says",
                s.config
            )));
        }
        let mut left = s.positions;
        for _ in 0..s.chunks {
            let count = read_chunk(&mut file, path, &mut packed, left, s.width as usize)?;
            left -= count as u64;
            pos += (CHUNK_HEADER_LEN + packed.len()) as u64;
        }
        if left != 0 {
            return Err(damaged("fewer values than the header says".into()));
        }
    }
    if pos != h.file_length {
        return Err(damaged("bytes after its last chunk".into()));
    }
    Ok(())
}

/// Reads one configuration's cells from a unit file, chunk by chunk.
struct ConfigReader {
    file: BufReader<File>,
    path: PathBuf,
    cells: Cells,
    width: usize,
    chunks_left: u64,
    positions_left: u64,
    decompressor: zstd::bulk::Decompressor<'static>,
    packed: Vec<u8>,
    raw: Vec<u8>,
    /// Decoded values of the current chunk not yet handed out.
    buffer: Vec<u16>,
    at: usize,
}

impl ConfigReader {
    fn open(dir: &Path, n: u32, config: usize) -> Result<ConfigReader, UnitFileError> {
        let unit = UnitId::of(config);
        let (mut file, header, path) = open_unit(dir, n, unit)?;
        let slot = header.slots[usize::from(config != unit.first)];
        file.seek(SeekFrom::Start(slot.offset))
            .map_err(io_error(&path))?;
        let decompressor = zstd::bulk::Decompressor::new().map_err(|e| UnitFileError::Zstd {
            path: path.clone(),
            detail: e.to_string(),
        })?;
        Ok(ConfigReader {
            file: BufReader::with_capacity(1 << 20, file),
            path,
            cells: header.cells,
            width: slot.width as usize,
            chunks_left: slot.chunks,
            positions_left: slot.positions,
            decompressor,
            packed: Vec::new(),
            raw: Vec::new(),
            buffer: Vec::new(),
            at: 0,
        })
    }

    fn damaged(&self, reason: &str) -> UnitFileError {
        UnitFileError::Damaged {
            path: self.path.clone(),
            reason: reason.into(),
        }
    }

    /// Decodes the next chunk into the buffer; false at the end.
    fn next_chunk(&mut self) -> Result<bool, UnitFileError> {
        if self.chunks_left == 0 {
            return if self.positions_left == 0 {
                Ok(false)
            } else {
                Err(self.damaged("fewer values than the header says"))
            };
        }
        let count = read_chunk(
            &mut self.file,
            &self.path,
            &mut self.packed,
            self.positions_left,
            self.width,
        )?;
        self.raw.clear();
        self.raw.reserve(count * self.width);
        let got = self
            .decompressor
            .decompress_to_buffer(&self.packed, &mut self.raw)
            .map_err(|e| self.damaged(&format!("zstd: {e}")))?;
        if got != count * self.width {
            return Err(self.damaged("chunk decompresses to the wrong length"));
        }
        self.buffer.clear();
        match self.width {
            1 => self.buffer.extend(self.raw.iter().map(|&b| b as u16)),
            _ => self
                .buffer
                .extend(self.raw.chunks_exact(2).map(LE::read_u16)),
        }
        self.at = 0;
        self.chunks_left -= 1;
        self.positions_left -= count as u64;
        Ok(true)
    }
}

/// A level's packed values in index order, read from its unit files
/// configuration after configuration; or, for a WDL table's level, each
/// configuration's cells as its unit file holds them ([`Cells`]).
pub struct LevelStream {
    dir: PathBuf,
    n: u32,
    next_config: usize,
    /// The configurations streamed (bit `id`).
    configs: u128,
    /// Whether unit files of draw splits are taken.
    splits: bool,
    reader: Option<ConfigReader>,
}

impl LevelStream {
    /// Streams level `n`'s values from the unit files in `dir` (all must
    /// be there, and hold values).
    pub fn new(dir: &Path, n: u32) -> LevelStream {
        LevelStream {
            dir: dir.to_path_buf(),
            n,
            next_config: 0,
            configs: u128::MAX,
            splits: false,
            reader: None,
        }
    }

    /// Streams the cells of the configurations `configs` (bit `id`) of
    /// level `n`, one after the other, values or draw splits as each unit
    /// file holds them ([`LevelStream::cells`]; the unit files holding
    /// them must be there).
    pub fn of_configs(dir: &Path, n: u32, configs: u128) -> LevelStream {
        LevelStream {
            configs,
            splits: true,
            ..LevelStream::new(dir, n)
        }
    }

    /// The reader of the configuration whose cells come next, opened if
    /// need be (a finished one dropped).
    fn reader(&mut self) -> Result<&mut ConfigReader, UnitFileError> {
        if self
            .reader
            .as_ref()
            .is_some_and(|r| r.at == r.buffer.len() && r.chunks_left == 0)
        {
            let r = self.reader.take().expect("checked above");
            if r.positions_left != 0 {
                return Err(r.damaged("fewer values than the header says"));
            }
        }
        if self.reader.is_none() {
            while self.next_config < CONFIG_COUNT && self.configs >> self.next_config & 1 == 0 {
                self.next_config += 1;
            }
            if self.next_config == CONFIG_COUNT {
                return Err(UnitFileError::Damaged {
                    path: self.dir.clone(),
                    reason: "the units hold fewer values than the level".into(),
                });
            }
            let r = ConfigReader::open(&self.dir, self.n, self.next_config)?;
            if r.cells == Cells::Splits && !self.splits {
                return Err(
                    r.damaged("it holds draw splits, not the values of a table with distances")
                );
            }
            self.next_config += 1;
            self.reader = Some(r);
        }
        Ok(self.reader.as_mut().expect("opened above"))
    }

    /// What the cells that come next are: those of the next
    /// configuration, once the last one's are read.
    ///
    /// # Errors
    ///
    /// As [`LevelStream::read_into`].
    pub fn cells(&mut self) -> Result<Cells, UnitFileError> {
        Ok(self.reader()?.cells)
    }

    /// Appends the next `count` cells to `out` (packed values, or draw
    /// splits where [`LevelStream::cells`] says so).
    ///
    /// # Errors
    ///
    /// A unit file that is missing or damaged, or units that hold fewer
    /// values than the level; a unit file of draw splits where values
    /// are wanted.
    pub fn read_into(&mut self, mut count: usize, out: &mut Vec<u16>) -> Result<(), UnitFileError> {
        while count > 0 {
            let reader = self.reader()?;
            if reader.at == reader.buffer.len() {
                reader.next_chunk()?;
                continue;
            }
            let take = count.min(reader.buffer.len() - reader.at);
            out.extend_from_slice(&reader.buffer[reader.at..reader.at + take]);
            reader.at += take;
            count -= take;
        }
        Ok(())
    }
}

/// Removes a level's work folder after its table is written: the unit
/// files and anything the writers left (only names this program makes;
/// the folder stays if something else is in it).
pub fn remove_work_dir(dir: &Path) -> io::Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let lock = (0..CONFIG_COUNT).any(|id| name == unit_lock_name(UnitId::of(id)));
        // A kazan part left by a run killed mid-unit is no use any more.
        let marker = name == DTC_MARKER || name == WDL_MARKER;
        if is_unit_file_name(&name) || lock || marker || is_part_file_name(&name) {
            match std::fs::remove_file(entry.path()) {
                // Another shard removing the same folder got there first.
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
    }
    // Fails if something not ours is still in there (a user's file): the
    // folder then stays.
    let _ = std::fs::remove_dir(dir);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::unit::KazanCut;

    /// Hands `values` (board-major, `k` a board) to `spool` as the kazan
    /// parts of `cut` would be, side `side`.
    fn spool_side(spool: &mut PartSpool, side: usize, values: &[u16], k: usize, cut: KazanCut) {
        for part in cut.parts(k as u32 - 1) {
            let kept: Vec<u16> = values
                .chunks(k)
                .flat_map(|b| bits(part).map(|j| b[j]).collect::<Vec<_>>())
                .collect();
            let mut done = false;
            spool
                .put(side, part, &mut |buf| {
                    buf.clear();
                    buf.extend_from_slice(&kept);
                    let more = !done;
                    done = true;
                    Ok(more)
                })
                .unwrap();
        }
    }

    /// A unit merged from its kazan parts is the same bytes as the unit
    /// written whole, in one- and two-byte cells; the parts' files go, and
    /// a part file cut short is named as damaged.
    #[test]
    fn a_unit_merged_from_its_parts_is_the_bytes_of_the_unit_written_whole() {
        let n = 6;
        let k = n as usize + 1;
        let unit = UnitId::of(1);
        for wide in [false, true] {
            let whole = tempfile::tempdir().unwrap();
            let cut_dir = tempfile::tempdir().unwrap();
            let sides: Vec<(usize, Vec<u16>)> = unit
                .configs()
                .into_iter()
                .map(|c| {
                    let len = board_count(n, TuzdykConfig::from_id(c).free_holes()) * k as u64;
                    let top = if wide { 400 } else { 250 };
                    (
                        c,
                        (0..len as usize)
                            .map(|i| ((i * 13 + c) % top) as u16)
                            .collect(),
                    )
                })
                .collect();
            let values: UnitValues = sides
                .iter()
                .map(|(c, v)| (*c, LevelValues::from_packed(v.clone())))
                .collect();
            write_unit(whole.path(), n, unit, &values).unwrap();
            let expected = std::fs::read(whole.path().join(unit_file_name(unit))).unwrap();
            for pairs in [1, 2, 3] {
                let cut = KazanCut::pairs(pairs).unwrap();
                let mut spool = PartSpool::new(cut_dir.path(), unit);
                for (side, (_, v)) in sides.iter().enumerate() {
                    spool_side(&mut spool, side, v, k, cut);
                }
                let files: Vec<PathBuf> = spool.files().map(Path::to_path_buf).collect();
                assert_eq!(files.len(), 2 * cut.parts(n).len());
                assert!(files.iter().all(|f| f.exists()));
                let widths: Vec<(usize, u32)> =
                    sides.iter().map(|(c, _)| (*c, 1 + wide as u32)).collect();
                write_unit_parts(cut_dir.path(), n, unit, spool, &widths, false).unwrap();
                let path = cut_dir.path().join(unit_file_name(unit));
                assert_eq!(
                    std::fs::read(&path).unwrap(),
                    expected,
                    "wide {wide} {pairs}"
                );
                assert!(files.iter().all(|f| !f.exists()), "parts removed");
                std::fs::remove_file(path).unwrap();
            }
        }
        // A part file that lost its end.
        let dir = tempfile::tempdir().unwrap();
        let mut spool = PartSpool::new(dir.path(), unit);
        let cut = KazanCut::pairs(2).unwrap();
        let widths: Vec<(usize, u32)> = unit.configs().into_iter().map(|c| (c, 1)).collect();
        for (side, &(c, _)) in widths.iter().enumerate() {
            let len = board_count(n, TuzdykConfig::from_id(c).free_holes()) as usize * k;
            spool_side(&mut spool, side, &vec![3; len], k, cut);
        }
        let victim = spool.files().nth(1).unwrap().to_path_buf();
        let bytes = std::fs::read(&victim).unwrap();
        std::fs::write(&victim, &bytes[..bytes.len() / 2]).unwrap();
        let e = write_unit_parts(dir.path(), n, unit, spool, &widths, false).unwrap_err();
        assert!(e.to_string().contains(".part-"), "{e}");
        assert!(!unit_done(dir.path(), n, unit));
        assert!(!victim.exists(), "parts removed on failure too");
    }

    #[test]
    fn unit_files_round_trip_and_damage_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let n = 2;
        let mut all = Vec::new();
        for id in 0..CONFIG_COUNT {
            let unit = UnitId::of(id);
            if unit.first != id {
                continue;
            }
            let values: UnitValues = unit
                .configs()
                .into_iter()
                .map(|c| {
                    let len = (board_count(n, TuzdykConfig::from_id(c).free_holes()) * 3) as usize;
                    let v: Vec<u16> = (0..len).map(|i| ((i * 7 + c) % 300) as u16).collect();
                    (c, LevelValues::from_packed(v))
                })
                .collect();
            write_unit(dir.path(), n, unit, &values).unwrap();
            assert!(unit_done(dir.path(), n, unit));
            assert!(!unit_done(dir.path(), n + 1, unit));
            all.push(values);
        }
        let mut expected = vec![Vec::new(); CONFIG_COUNT];
        for (c, v) in all.into_iter().flatten() {
            expected[c] = v.widened().into_owned();
        }
        let expected: Vec<u16> = expected.concat();
        let mut s = LevelStream::new(dir.path(), n);
        let mut got = Vec::new();
        s.read_into(5, &mut got).unwrap();
        s.read_into(expected.len() - 5, &mut got).unwrap();
        assert_eq!(got, expected);
        assert!(s.read_into(1, &mut got).is_err(), "no more values");

        // A flipped byte in a chunk is reported, naming the file.
        let path = dir.path().join(unit_file_name(UnitId::of(0)));
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 3;
        bytes[last] ^= 0x40;
        std::fs::write(&path, &bytes).unwrap();
        let mut s = LevelStream::new(dir.path(), n);
        let e = s.read_into(expected.len(), &mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("unit-00-00.tkv"), "{e}");
        // The resume check reads every chunk: it finds what the header
        // alone does not.
        assert!(unit_done(dir.path(), n, UnitId::of(0)));
        match check_unit(dir.path(), n, UnitId::of(0)) {
            UnitState::Damaged { path: p, reason } => {
                assert_eq!(p, path);
                assert_eq!(reason, "chunk checksum");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            check_unit(dir.path(), n, UnitId::of(1)),
            UnitState::Done
        ));
        assert!(matches!(
            check_unit(dir.path(), n + 1, UnitId::of(1)),
            UnitState::Damaged { .. }
        ));
        assert!(matches!(
            check_unit(&dir.path().join("none"), n, UnitId::of(1)),
            UnitState::Missing
        ));
        // A truncated one is not finished.
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(!unit_done(dir.path(), n, UnitId::of(0)));
    }

    /// A unit file of draw splits is finished like one of values; its
    /// header's cells are checked: an unknown kind, or values in place
    /// of draw splits, make it damaged.
    #[test]
    fn unit_files_of_draw_splits_say_so_in_their_header() {
        let dir = tempfile::tempdir().unwrap();
        let (n, unit) = (4, UnitId::of(5));
        let splits: Vec<(usize, Vec<u8>)> = unit
            .configs()
            .into_iter()
            .map(|c| {
                let boards = board_count(n, TuzdykConfig::from_id(c).free_holes()) as usize;
                (c, (0..boards).map(|b| (b % 5) as u8).collect())
            })
            .collect();
        let (path, _) = write_unit_splits(dir.path(), n, unit, &splits).unwrap();
        assert!(matches!(check_unit(dir.path(), n, unit), UnitState::Done));
        let bytes = std::fs::read(&path).unwrap();
        for (code, reason) in [(2u32, "unknown cells 2"), (0, "bad slot")] {
            let mut b = bytes.clone();
            LE::write_u32(&mut b[20..], code);
            let sum = xxh3_64(&b[..96]);
            LE::write_u64(&mut b[96..], sum);
            std::fs::write(&path, &b).unwrap();
            match check_unit(dir.path(), n, unit) {
                UnitState::Damaged { reason: r, .. } => assert!(r.contains(reason), "{r}"),
                other => panic!("{other:?}"),
            }
        }
    }
}
