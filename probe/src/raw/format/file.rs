//! [`TableFile`]: one table file, validated, read block by block.

use std::cell::RefCell;
use std::fmt;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use byteorder::{ByteOrder, LittleEndian as LE};
use memmap2::Mmap;
use xxhash_rust::xxh3::xxh3_64;

use super::header::check_file_length;
use super::*;
use crate::raw::index::{Layout, Slot};
use crate::value::{Metric, Value, Wdl};

/// What a table stores of a position's distance
/// ([`TableFile::distance_location`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    /// Its entry: (distance block, byte offset in the decompressed block).
    At(u64, usize),
    /// A draw of a DTC table: no distance.
    Draw,
    /// A loss of a DTC table: its DTC is one ply of search over the
    /// table's wins ([`loss_dtc`](super::loss_dtc)).
    Loss,
}

/// Boards between two of [`TableFile::split_sums`]' running sums.
pub const SPLIT_SUM_STEP: usize = 64;

thread_local! {
    /// One zstd decompression context per thread, made on first use.
    static DCTX: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
    /// One buffer per thread for the compressed bytes of a positioned read.
    static READ_BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// How a table file's bytes are read.
///
/// `docs/performance.md` ("mmap or pread") measures both on cold and warm
/// probes: the map was faster on both (cold by the kernel's readahead
/// around page faults, warm by saving a system call and a copy per block),
/// so it is the default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// A read-only memory map. Changing or truncating the file while it is
    /// mapped is **undefined behaviour** (in practice a `SIGBUS` crash or
    /// changed bytes); togyz-tb never rewrites a table in place.
    #[default]
    Mmap,
    /// Positioned reads (`pread`) of each compressed block into a
    /// per-thread buffer. A file changed on disk while it is open gives
    /// errors (checksum mismatches), never undefined behaviour.
    Pread,
}

/// Where the bytes come from.
enum Source {
    Map(Mmap),
    File(File),
}

impl Source {
    /// Runs `f` on bytes `start..end` of the file: a slice of the map, or
    /// a positioned read into this thread's buffer (so `f` must not read
    /// the file again).
    fn with_bytes<R>(
        &self,
        path: &Path,
        start: u64,
        end: u64,
        f: impl FnOnce(&[u8]) -> Result<R, TableError>,
    ) -> Result<R, TableError> {
        let truncated = |len: u64| TableError::Truncated {
            path: path.to_path_buf(),
            len,
            expected: end,
        };
        match self {
            Source::Map(map) => {
                let bytes = usize::try_from(start)
                    .ok()
                    .zip(usize::try_from(end).ok())
                    .and_then(|(s, e)| map.get(s..e))
                    .ok_or_else(|| truncated(map.len() as u64))?;
                f(bytes)
            }
            Source::File(file) => {
                use std::os::unix::fs::FileExt;
                let len = end
                    .checked_sub(start)
                    .and_then(|l| usize::try_from(l).ok())
                    .ok_or_else(|| truncated(start))?;
                READ_BUF.with(|cell| {
                    let mut buf = cell.borrow_mut();
                    buf.clear();
                    buf.try_reserve(len).map_err(|e| {
                        TableError::io(
                            path,
                            io::Error::new(io::ErrorKind::OutOfMemory, e.to_string()),
                        )
                    })?;
                    buf.resize(len, 0);
                    file.read_exact_at(&mut buf, start).map_err(|e| {
                        if e.kind() == io::ErrorKind::UnexpectedEof {
                            truncated(file.metadata().map(|m| m.len()).unwrap_or(0))
                        } else {
                            TableError::io(path, e)
                        }
                    })?;
                    f(&buf)
                })
            }
        }
    }
}

/// One table file, validated, read block by block.
pub struct TableFile {
    path: PathBuf,
    source: Source,
    /// The block index (both sections), read and checked at open: a block
    /// read then needs one positioned read, not two.
    index: Vec<u8>,
    header: Header,
    layout: Layout,
}

impl fmt::Debug for TableFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TableFile")
            .field("path", &self.path)
            .field("backend", &self.backend())
            .field("header", &self.header)
            .finish_non_exhaustive()
    }
}

impl TableFile {
    /// [`TableFile::open_with`] the default [`Backend`].
    ///
    /// # Errors
    ///
    /// As [`TableFile::open_with`].
    pub fn open(path: impl AsRef<Path>) -> Result<TableFile, TableError> {
        TableFile::open_with(path, Backend::default())
    }

    /// Opens the file at `path` and validates it: the header (magic,
    /// version, rules variant, checksum, every field against
    /// [`Layout::new`]), the file length, the block index checksum, and
    /// that the index entries tile each data section exactly. Blocks
    /// themselves are checked as they are read.
    ///
    /// With [`Backend::Mmap`] the file is memory-mapped: if another program
    /// changes or truncates it while this `TableFile` lives, the behaviour
    /// is undefined (truncation typically kills the process with `SIGBUS`).
    /// Table files are never modified in place by togyz-tb (the writer
    /// renames a new file over the name, which leaves a live map intact).
    ///
    /// # Errors
    ///
    /// [`TableError`] naming the file: it cannot be opened or read, or any
    /// of the checks above fails.
    pub fn open_with(path: impl AsRef<Path>, backend: Backend) -> Result<TableFile, TableError> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|e| TableError::io(path, e))?;
        let len = file.metadata().map_err(|e| TableError::io(path, e))?.len();
        if len < HEADER_LEN as u64 {
            return Err(TableError::Truncated {
                path: path.to_path_buf(),
                len,
                expected: HEADER_LEN as u64,
            });
        }
        let source = match backend {
            Backend::Pread => Source::File(file),
            Backend::Mmap => {
                // SAFETY: the map is read-only and private to this process.
                // Table files are never modified in place: the writer
                // produces a new file and renames it over the name, which
                // leaves an existing mapping of the old file intact. If
                // another program nevertheless truncates or rewrites the
                // file while it is mapped, that breaks the contract stated
                // on `open_with`, on `Tablebase::open` and in docs/library.md
                // (undefined behaviour, in practice SIGBUS or changed
                // bytes). Apart from that, every read below goes through
                // bounds-checked slice accesses on the map, and every block
                // is checked against its xxh3 checksum before it is
                // decompressed, so damaged content is reported as an error.
                let map = unsafe { Mmap::map(&file) }.map_err(|e| TableError::io(path, e))?;
                Source::Map(map)
            }
        };
        let header = source.with_bytes(path, 0, HEADER_LEN as u64, |b| Header::parse(b, path))?;
        check_file_length(&header, len, path)?;
        let index = source.with_bytes(path, header.wdl_index_offset, header.file_length, |b| {
            Ok(b.to_vec())
        })?;
        let t = TableFile {
            path: path.to_path_buf(),
            source,
            index,
            layout: Layout::new(header.stones),
            header,
        };
        t.check_index()?;
        Ok(t)
    }

    /// How this file is read.
    pub fn backend(&self) -> Backend {
        match self.source {
            Source::Map(_) => Backend::Mmap,
            Source::File(_) => Backend::Pread,
        }
    }

    /// Verifies the index checksum and that the entries of each section are
    /// consecutive, non-empty and fill the section's data exactly.
    fn check_index(&self) -> Result<(), TableError> {
        let h = &self.header;
        if xxh3_64(&self.index) != h.index_checksum {
            return Err(TableError::IndexChecksum {
                path: self.path.clone(),
            });
        }
        for (section, start, end) in [
            (Section::Wdl, h.wdl_data_offset, h.distance_data_offset),
            (
                Section::Distance,
                h.distance_data_offset,
                h.wdl_index_offset,
            ),
        ] {
            let mut next = start;
            for block in 0..h.blocks(section) {
                let e = self.entry(section, block)?;
                let bad = |detail: String| TableError::BadIndex {
                    path: self.path.clone(),
                    section,
                    block,
                    detail,
                };
                if e.offset != next {
                    return Err(bad(format!("offset {}, expected {next}", e.offset)));
                }
                if e.length == 0 {
                    return Err(bad("empty block".into()));
                }
                next = e.offset + e.length as u64;
                if next > end {
                    return Err(bad(format!("ends at {next}, past the section end {end}")));
                }
            }
            if next != end {
                return Err(TableError::BadIndex {
                    path: self.path.clone(),
                    section,
                    block: h.blocks(section),
                    detail: format!("blocks end at {next}, the section at {end}"),
                });
            }
        }
        Ok(())
    }

    /// Runs `f` on bytes `start..end` of the file (see [`Source::with_bytes`]).
    fn with_bytes<R>(
        &self,
        start: u64,
        end: u64,
        f: impl FnOnce(&[u8]) -> Result<R, TableError>,
    ) -> Result<R, TableError> {
        self.source.with_bytes(&self.path, start, end, f)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The validated header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The index layout for this file's stone count.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The index entry of block `block` of `section`.
    ///
    /// # Errors
    ///
    /// [`TableError::BadIndex`] for a block past the section's end.
    pub fn entry(&self, section: Section, block: u64) -> Result<BlockEntry, TableError> {
        let h = &self.header;
        let base = match section {
            Section::Wdl => h.wdl_index_offset,
            Section::Distance => h.distance_index_offset,
        };
        if block >= h.blocks(section) {
            return Err(TableError::BadIndex {
                path: self.path.clone(),
                section,
                block,
                detail: format!("only {} blocks", h.blocks(section)),
            });
        }
        // Inside `index` by the header checks (the index fills the file
        // from `wdl_index_offset` to its end).
        let at = (base - h.wdl_index_offset + block * INDEX_ENTRY_LEN as u64) as usize;
        let bytes =
            self.index
                .get(at..at + INDEX_ENTRY_LEN)
                .ok_or_else(|| TableError::BadIndex {
                    path: self.path.clone(),
                    section,
                    block,
                    detail: "entry outside the block index".into(),
                })?;
        Ok(BlockEntry::from_bytes(bytes))
    }

    /// Runs `f` on the compressed bytes of a block after checking them
    /// against their checksum.
    fn with_compressed_block<R>(
        &self,
        section: Section,
        block: u64,
        f: impl FnOnce(&[u8]) -> Result<R, TableError>,
    ) -> Result<R, TableError> {
        let e = self.entry(section, block)?;
        self.with_bytes(e.offset, e.offset + e.length as u64, |data| {
            if xxh3_64(data) != e.checksum {
                return Err(TableError::BlockChecksum {
                    path: self.path.clone(),
                    section,
                    block,
                });
            }
            f(data)
        })
    }

    /// Checks the compressed bytes of one block against their checksum,
    /// without decompressing them.
    ///
    /// # Errors
    ///
    /// [`TableError::BlockChecksum`], or a read error.
    pub fn check_block(&self, section: Section, block: u64) -> Result<(), TableError> {
        self.with_compressed_block(section, block, |_| Ok(()))
    }

    /// Whether the checksum over everything after the header matches,
    /// reading the file in 1 MiB pieces.
    ///
    /// # Errors
    ///
    /// [`TableError::FileChecksum`] on a mismatch, or a read error.
    pub fn check_body(&self) -> Result<(), TableError> {
        const PIECE: u64 = 1 << 20;
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        let mut at = HEADER_LEN as u64;
        while at < self.header.file_length {
            let end = (at + PIECE).min(self.header.file_length);
            self.with_bytes(at, end, |b| {
                hasher.update(b);
                Ok(())
            })?;
            at = end;
        }
        if hasher.digest() != self.header.body_checksum {
            return Err(TableError::FileChecksum {
                path: self.path.clone(),
            });
        }
        Ok(())
    }

    /// Reads block `block` of `section`: checks its checksum, decompresses
    /// it and checks the decompressed length.
    ///
    /// # Errors
    ///
    /// [`TableError`]: a read error, a checksum mismatch, a block that does
    /// not decompress or decompresses to the wrong length.
    pub fn read_block(&self, section: Section, block: u64) -> Result<Vec<u8>, TableError> {
        let mut out = Vec::new();
        self.read_block_into(section, block, &mut out)?;
        Ok(out)
    }

    /// [`TableFile::read_block`] into a reused buffer (cleared first).
    ///
    /// # Errors
    ///
    /// As [`TableFile::read_block`].
    pub fn read_block_into(
        &self,
        section: Section,
        block: u64,
        out: &mut Vec<u8>,
    ) -> Result<(), TableError> {
        let expected = self.header.block_bytes(section, block);
        out.clear();
        // Bounded by MAX_BLOCK_BYTES through the header checks.
        out.reserve_exact(expected as usize);
        self.decompress(section, block, out)?;
        self.check_length(section, block, expected, out.len())
    }

    /// [`TableFile::read_block`] into a block of its own that threads can
    /// share: the block cache keeps it as it is, without a copy.
    ///
    /// # Errors
    ///
    /// As [`TableFile::read_block`].
    pub fn read_block_shared(&self, section: Section, block: u64) -> Result<Arc<[u8]>, TableError> {
        let expected = self.header.block_bytes(section, block);
        // Bounded by MAX_BLOCK_BYTES through the header checks.
        let mut data = Arc::<[u8]>::new_uninit_slice(expected as usize);
        let mut out = Uninit {
            bytes: Arc::get_mut(&mut data).expect("a new Arc has no other owner"),
            filled: 0,
        };
        self.decompress(section, block, &mut out)?;
        let filled = out.filled;
        self.check_length(section, block, expected, filled)?;
        // SAFETY: zstd wrote `filled` bytes from the start, and the length
        // check above says that is all of them.
        Ok(unsafe { data.assume_init() })
    }

    /// Decompresses block `block` of `section` (checked against its
    /// checksum) into `out`, which takes no more than its capacity and
    /// records how much was written.
    fn decompress<C: zstd::zstd_safe::WriteBuf + ?Sized>(
        &self,
        section: Section,
        block: u64,
        out: &mut C,
    ) -> Result<(), TableError> {
        let decompress_err = |detail: String| TableError::Decompress {
            path: self.path.clone(),
            section,
            block,
            detail,
        };
        self.with_compressed_block(section, block, |data| {
            DCTX.with(|cell| {
                let mut slot = cell.borrow_mut();
                if slot.is_none() {
                    *slot = Some(zstd::bulk::Decompressor::new()?);
                }
                let dctx = slot.as_mut().expect("initialised just above");
                // Decompress into exactly the expected capacity: a block that
                // would grow past it fails instead of allocating.
                dctx.decompress_to_buffer(data, out)
            })
            .map(|_| ())
            .map_err(|e| decompress_err(e.to_string()))
        })
    }

    /// An error unless a block decompressed to the `expected` bytes.
    fn check_length(
        &self,
        section: Section,
        block: u64,
        expected: u64,
        found: usize,
    ) -> Result<(), TableError> {
        if found as u64 != expected {
            return Err(TableError::BlockLength {
                path: self.path.clone(),
                section,
                block,
                expected,
                found: found as u64,
            });
        }
        Ok(())
    }

    /// Checks that `(gb, j)` is inside the table.
    #[inline]
    fn check_range(&self, gb: u64, j: u32) -> Result<(), TableError> {
        if gb >= self.header.boards || j > self.header.stones {
            return Err(TableError::OutOfRange {
                path: self.path.clone(),
                board: gb,
                kazan: j,
            });
        }
        Ok(())
    }

    /// An error unless the table holds board `gb` (and, with `distance`,
    /// its distances): [`TableError::NotHeld`].
    #[inline]
    pub fn check_held(&self, gb: u64, distance: bool) -> Result<(), TableError> {
        let contents = self.header.contents;
        // Past the last board is no configuration's: `check_range` says so.
        let config = self.layout.config_of(gb.min(self.header.boards - 1));
        if (distance && !contents.has_distances()) || !contents.holds_config(config) {
            return Err(TableError::NotHeld {
                path: self.path.clone(),
                contents,
            });
        }
        Ok(())
    }

    /// Where board `gb`'s thresholds live: (WDL block, byte offset).
    #[inline]
    pub fn wdl_location(&self, gb: u64) -> (u64, usize) {
        let per = self.header.wdl_block_boards as u64;
        (
            gb / per,
            (gb % per) as usize * self.header.wdl_width as usize,
        )
    }

    /// Where position `index`'s distance lives in a DTM table: (distance
    /// block, byte offset). See [`TableFile::distance_location`] for both
    /// metrics.
    #[inline]
    pub fn dtm_location(&self, index: u64) -> (u64, usize) {
        let per = self.header.distance_block_positions as u64;
        (
            index / per,
            (index % per) as usize * self.header.distance_width as usize,
        )
    }

    /// Where the distance of the position at global board `gb`, kazan
    /// offset `j` lives, given the board's thresholds `t` and the
    /// decompressed WDL block `wdl` holding it ([`TableFile::wdl_location`],
    /// [`TableFile::thresholds_in`]): a place in the distance section, or
    /// for a DTC table nothing stored (a draw, or a loss, whose DTC
    /// [`loss_dtc`](super::loss_dtc) recovers).
    ///
    /// A DTC block holds the wins of its boards, board by board: an
    /// entry's place is counted from the draw splits of the block's boards
    /// before it (`docs/format.md`, DTC tables).
    ///
    /// # Errors
    ///
    /// [`TableError::BadEntry`] if `wdl` does not hold the block's boards or
    /// their splits do not add up (a damaged block).
    #[inline]
    pub fn distance_location(
        &self,
        wdl: &[u8],
        gb: u64,
        j: u32,
        t: (u32, u32),
    ) -> Result<Stored, TableError> {
        self.distance_location_with(wdl, None, gb, j, t)
    }

    /// The running sums of the draw splits of DTC distance block `block`,
    /// every `SPLIT_SUM_STEP` boards from its first, and their total last
    /// (from the decompressed WDL block `wdl` holding its boards): with
    /// them [`TableFile::distance_location_with`] adds at most
    /// `SPLIT_SUM_STEP - 1` splits instead of a block's worth. Empty for a
    /// DTM table.
    pub fn split_sums(&self, wdl: &[u8], block: u64) -> Vec<u32> {
        let h = &self.header;
        if h.metric != Metric::Dtc {
            return Vec::new();
        }
        let per = h.distance_block_positions as u64;
        let first = block * per;
        let wdl_first = first / h.wdl_block_boards as u64 * h.wdl_block_boards as u64;
        let end = (first + per).min(h.boards);
        let splits = wdl
            .get((first - wdl_first) as usize..(end - wdl_first) as usize)
            .unwrap_or(&[]);
        let mut sums = vec![0u32];
        let mut acc = 0u32;
        for run in splits.chunks(SPLIT_SUM_STEP) {
            acc += run.iter().map(|&x| x as u32).sum::<u32>();
            sums.push(acc);
        }
        sums
    }

    /// [`TableFile::distance_location`], with the block's
    /// [`TableFile::split_sums`] if at hand.
    ///
    /// # Errors
    ///
    /// As [`TableFile::distance_location`].
    #[inline]
    pub fn distance_location_with(
        &self,
        wdl: &[u8],
        sums: Option<&[u32]>,
        gb: u64,
        j: u32,
        t: (u32, u32),
    ) -> Result<Stored, TableError> {
        let h = &self.header;
        if h.metric == Metric::Dtm {
            let (block, at) = self.dtm_location(gb * self.layout.kazans() + j as u64);
            return Ok(Stored::At(block, at));
        }
        match wdl_at(t, j) {
            Wdl::Draw => return Ok(Stored::Draw),
            Wdl::Loss => return Ok(Stored::Loss),
            Wdl::Win => {}
        }
        let n = h.stones as u64;
        let per = h.distance_block_positions as u64;
        let block = gb / per;
        // The block's boards lie in gb's WDL block (the header checks that
        // its boards a block are a multiple of ours).
        let first = block * per;
        let wdl_first = gb / h.wdl_block_boards as u64 * h.wdl_block_boards as u64;
        let end = (first + per).min(h.boards);
        let bad = || self.bad_entry(Section::Distance, block, "the draw splits do not add up");
        let splits = wdl
            .get((first - wdl_first) as usize..(end - wdl_first) as usize)
            .ok_or_else(bad)?;
        let sum = |s: &[u8]| s.iter().map(|&x| x as u64).sum::<u64>();
        let here = (gb - first) as usize;
        let step = here / SPLIT_SUM_STEP;
        let losses_before = match sums {
            Some(sums) => {
                let at = sums.get(step).map(|&x| x as u64).ok_or_else(bad)?;
                at + sum(&splits[step * SPLIT_SUM_STEP..here])
            }
            None => sum(&splits[..here]),
        };
        // A board of split s has n - s wins (its n + 1 kazan offsets less
        // s losses and one draw).
        let wins_before = (here as u64 * n)
            .checked_sub(losses_before)
            .ok_or_else(bad)?;
        let entry = wins_before + (j - t.1) as u64;
        Ok(Stored::At(
            block,
            entry as usize * h.distance_width as usize,
        ))
    }

    /// Decodes the thresholds at byte `at` of decompressed WDL block `block`
    /// (a DTC table's draw split `s` is the thresholds `(s, s + 1)`).
    ///
    /// # Errors
    ///
    /// [`TableError::BadEntry`] for an entry outside the block or thresholds
    /// out of range.
    #[inline]
    pub fn thresholds_in(
        &self,
        data: &[u8],
        block: u64,
        at: usize,
    ) -> Result<(u32, u32), TableError> {
        if self.header.metric == Metric::Dtc {
            let n = self.header.stones;
            return match data.get(at) {
                Some(&s) if s as u32 <= n => Ok((s as u32, s as u32 + 1)),
                Some(&s) => {
                    Err(self.bad_entry(Section::Wdl, block, &format!("draw split {s} above {n}")))
                }
                None => Err(self.bad_entry(Section::Wdl, block, "entry outside the block")),
            };
        }
        let width = self.header.wdl_width as usize;
        let packed = match data.get(at..at + width) {
            Some([b]) => *b as u16,
            Some(b2) if width == 2 => LE::read_u16(b2),
            _ => return Err(self.bad_entry(Section::Wdl, block, "entry outside the block")),
        };
        unpack_thresholds(self.header.stones, packed).ok_or_else(|| {
            self.bad_entry(
                Section::Wdl,
                block,
                &format!("thresholds {packed} out of range"),
            )
        })
    }

    /// Decodes the distance at byte `at` of decompressed DTM block `block`.
    ///
    /// # Errors
    ///
    /// [`TableError::BadEntry`] for an entry outside the block.
    #[inline]
    pub fn distance_in(&self, data: &[u8], block: u64, at: usize) -> Result<u32, TableError> {
        let width = self.header.distance_width as usize;
        match data.get(at..at + width) {
            Some([b]) => Ok(*b as u32),
            Some(b2) if width == 2 => Ok(LE::read_u16(b2) as u32),
            _ => Err(self.bad_entry(Section::Distance, block, "entry outside the block")),
        }
    }

    /// Combines a result and a stored distance into a value, rejecting a
    /// distance on a draw or one longer than the header's longest.
    ///
    /// # Errors
    ///
    /// [`TableError::BadEntry`] for a distance on a draw, or longer than the
    /// header's longest.
    #[inline]
    pub fn combine(&self, wdl: Wdl, distance: u32, block: u64) -> Result<Value, TableError> {
        let h = &self.header;
        match wdl {
            Wdl::Draw if distance == 0 => Ok(Value::Draw),
            Wdl::Win if distance <= h.longest_win => Ok(Value::Win(distance)),
            Wdl::Loss if distance <= h.longest_loss => Ok(Value::Loss(distance)),
            _ => Err(self.bad_entry(
                Section::Distance,
                block,
                &format!("distance {distance} for a {wdl}"),
            )),
        }
    }

    fn bad_entry(&self, section: Section, block: u64, detail: &str) -> TableError {
        TableError::BadEntry {
            path: self.path.clone(),
            section,
            block,
            detail: detail.to_string(),
        }
    }

    /// The result at global board `gb`, kazan offset `j` (uncached: reads
    /// and decompresses one WDL block).
    ///
    /// # Errors
    ///
    /// [`TableError::OutOfRange`] for `(gb, j)` outside the table; as
    /// [`TableFile::read_block`] and [`TableFile::thresholds_in`].
    pub fn wdl(&self, gb: u64, j: u32) -> Result<Wdl, TableError> {
        self.check_range(gb, j)?;
        self.check_held(gb, false)?;
        let (block, at) = self.wdl_location(gb);
        let data = self.read_block(Section::Wdl, block)?;
        Ok(wdl_at(self.thresholds_in(&data, block, at)?, j))
    }

    /// The value at global board `gb`, kazan offset `j` (uncached: reads one
    /// WDL and one DTM block).
    ///
    /// # Errors
    ///
    /// As [`TableFile::wdl`] and [`TableFile::combine`].
    pub fn value(&self, gb: u64, j: u32) -> Result<Value, TableError> {
        if let Some(v) = self.stored(gb, j)? {
            return Ok(v);
        }
        let pos = self
            .layout
            .slot(gb * self.layout.kazans() + j as u64)
            .position();
        // One ply over the stored wins only: a successor that is not a
        // stored win ends the search as a contradiction, and nothing
        // recovers again (a damaged table's losses may form a cycle).
        let d = super::loss_dtc(&pos, |child| {
            let slot = Slot::of(child).ok_or_else(|| self.not_a_win(gb, j))?;
            let gb = self.layout.global_board(slot.config.id(), slot.board);
            Ok(match self.stored(gb, slot.kazan)? {
                Some(Value::Win(d)) => Some(d),
                _ => None,
            })
        })?;
        self.recovered_loss(d, gb, j)
    }

    /// The stored value at global board `gb`, kazan offset `j`; `None` for
    /// a loss of a DTC table, which stores no distance for it.
    fn stored(&self, gb: u64, j: u32) -> Result<Option<Value>, TableError> {
        self.check_range(gb, j)?;
        self.check_held(gb, true)?;
        let (wb, at) = self.wdl_location(gb);
        let wdl = self.read_block(Section::Wdl, wb)?;
        let t = self.thresholds_in(&wdl, wb, at)?;
        let (block, at) = match self.distance_location(&wdl, gb, j, t)? {
            Stored::At(block, at) => (block, at),
            Stored::Draw => return Ok(Some(Value::Draw)),
            Stored::Loss => return Ok(None),
        };
        let data = self.read_block(Section::Distance, block)?;
        Ok(Some(self.combine(
            wdl_at(t, j),
            self.distance_in(&data, block, at)?,
            block,
        )?))
    }

    /// The loss [`loss_dtc`](super::loss_dtc) found for the DTC table's
    /// position at global board `gb`, kazan offset `j`, checked against
    /// the header's longest loss.
    ///
    /// # Errors
    ///
    /// [`TableError::BadEntry`] when the search found a move that does not
    /// lose (`None`) or a loss longer than the header's longest.
    pub fn recovered_loss(&self, dtc: Option<u32>, gb: u64, j: u32) -> Result<Value, TableError> {
        match dtc {
            Some(d) if d <= self.header.longest_loss => Ok(Value::Loss(d)),
            Some(d) => Err(self.bad_entry(
                Section::Distance,
                gb / self.header.distance_block_positions as u64,
                &format!(
                    "a loss at board {gb}, kazan offset {j} recovers as {d} plies, over the longest {}",
                    self.header.longest_loss
                ),
            )),
            None => Err(self.not_a_win(gb, j)),
        }
    }

    /// A loss of a DTC table with a quiet move to a position the table
    /// does not hold as a win.
    fn not_a_win(&self, gb: u64, j: u32) -> TableError {
        self.bad_entry(
            Section::Wdl,
            gb / self.header.wdl_block_boards as u64,
            &format!("the loss at board {gb}, kazan offset {j} has a move that does not lose"),
        )
    }

    /// The metric of the stored distances.
    pub fn metric(&self) -> Metric {
        self.header.metric
    }

    /// An error unless the table holds `metric` (a DTM solve or check
    /// needs DTM tables below it).
    ///
    /// # Errors
    ///
    /// [`TableError::WrongMetric`] naming both metrics.
    pub fn require_metric(&self, metric: Metric) -> Result<(), TableError> {
        if self.header.metric != metric {
            return Err(TableError::WrongMetric {
                path: self.path.clone(),
                found: self.header.metric,
                wanted: metric,
            });
        }
        Ok(())
    }
}

/// Memory not yet written that zstd decompresses into, counting what it
/// has written from the start.
struct Uninit<'a> {
    bytes: &'a mut [std::mem::MaybeUninit<u8>],
    filled: usize,
}

// SAFETY: `as_slice` gives only the `filled` bytes zstd has written;
// `capacity` and `as_mut_ptr` describe `bytes`, which zstd writes no more
// than `capacity` of; `filled_until` records what zstd says it wrote.
unsafe impl zstd::zstd_safe::WriteBuf for Uninit<'_> {
    fn as_slice(&self) -> &[u8] {
        // SAFETY: the first `filled` bytes were written (`filled_until`).
        unsafe { std::slice::from_raw_parts(self.bytes.as_ptr().cast(), self.filled) }
    }

    fn capacity(&self) -> usize {
        self.bytes.len()
    }

    fn as_mut_ptr(&mut self) -> *mut u8 {
        self.bytes.as_mut_ptr().cast()
    }

    unsafe fn filled_until(&mut self, n: usize) {
        self.filled = n;
    }
}
