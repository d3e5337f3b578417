//! The table file format: one file per stone count, read through a memory
//! map.
//!
//! `docs/format.md` is the byte-level specification; this module is its
//! reader (and holds the pieces the generator's writer shares with it: the
//! header codec, the threshold packing and the block geometry).
//!
//! A file is `header | WDL data | DTM data | WDL block index | DTM block
//! index`. The WDL section stores, per board, the two kazan thresholds where
//! the result turns from loss to draw and from draw to win (the result is
//! monotone along the kazan axis); the DTM section stores the distance in
//! plies of every position. Both are cut into fixed-size blocks, each
//! compressed with zstd and checksummed with xxh3-64, so a WDL probe never
//! touches distance data.
//!
//! Every malformed file is an error ([`TableError`], naming the file), never a
//! panic and never a wrong answer: the header, the block index, every block
//! and the whole file carry checksums, and every read is bounds-checked.

use std::cell::RefCell;
use std::fmt;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use byteorder::{ByteOrder, LittleEndian as LE};
use memmap2::Mmap;
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use crate::index::{Layout, CONFIG_COUNT, MAX_STONES};
use crate::value::{Value, Wdl};

/// The first eight bytes of every table file.
pub const MAGIC: [u8; 8] = *b"TOGYZKTB";
/// The format version this reader understands.
pub const FORMAT_VERSION: u32 = 1;
/// The rules variant of RULES.md: PlayStrategy's rules with automatic
/// tuzdyk creation, the game over as soon as a kazan passes 81 or the side to
/// move has no stones, and endless play counted as a draw.
pub const RULES_VARIANT: u32 = 1;
/// Size of the fixed header in bytes.
pub const HEADER_LEN: usize = 168;
/// Size of one block index entry: offset (u64), compressed length (u32),
/// xxh3-64 of the compressed bytes (u64).
pub const INDEX_ENTRY_LEN: usize = 20;
/// Boards per WDL block written by the generator (the reader takes the
/// figure from the header).
pub const WDL_BLOCK_BOARDS: u32 = 16384;
/// Positions per DTM block written by the generator (the reader takes the
/// figure from the header).
pub const DTM_BLOCK_POSITIONS: u32 = 65536;
/// The largest decompressed block the reader accepts, in bytes: a bound on
/// the memory a damaged or hostile header can make it allocate.
pub const MAX_BLOCK_BYTES: u64 = 16 << 20;

/// The file name of the table for `n` stones: `togyz-NN.tkb`.
pub fn file_name(n: u32) -> String {
    format!("togyz-{n:02}.tkb")
}

/// The stone count of a table file name (`togyz-NN.tkb`, two digits), or
/// `None` for any other name.
pub fn parse_file_name(name: &str) -> Option<u32> {
    let digits = name.strip_prefix("togyz-")?.strip_suffix(".tkb")?;
    if digits.len() != 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Bytes per WDL entry (one board's two thresholds) for `n` stones: one when
/// `(n + 2)^2 <= 256`, else two.
pub fn wdl_width_for(n: u32) -> u8 {
    if (n + 2) * (n + 2) <= 256 {
        1
    } else {
        2
    }
}

/// Bytes per DTM entry for a table whose longest distance is `max_distance`
/// plies: one up to 255, else two.
pub fn dtm_width_for(max_distance: u32) -> u8 {
    if max_distance <= u8::MAX as u32 {
        1
    } else {
        2
    }
}

/// Packs one board's thresholds: `draw_from * (n + 2) + win_from`.
/// Requires `draw_from <= win_from <= n + 1`.
#[inline]
pub fn pack_thresholds(n: u32, draw_from: u32, win_from: u32) -> u16 {
    debug_assert!(draw_from <= win_from && win_from <= n + 1);
    (draw_from * (n + 2) + win_from) as u16
}

/// Inverse of [`pack_thresholds`]; `None` unless
/// `draw_from <= win_from <= n + 1`.
#[inline]
pub fn unpack_thresholds(n: u32, packed: u16) -> Option<(u32, u32)> {
    let base = n + 2;
    let packed = packed as u32;
    let (d, w) = (packed / base, packed % base);
    (d <= w && packed < base * base).then_some((d, w))
}

/// The result at kazan offset `j` of a board with thresholds `(d, w)`:
/// losses below `d`, draws from `d`, wins from `w`.
#[inline]
pub fn wdl_at(thresholds: (u32, u32), j: u32) -> Wdl {
    if j < thresholds.0 {
        Wdl::Loss
    } else if j < thresholds.1 {
        Wdl::Draw
    } else {
        Wdl::Win
    }
}

/// The two compressed sections of a table file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Section {
    /// Win/draw/loss thresholds, one entry per board.
    Wdl,
    /// Distances in plies, one entry per position.
    Dtm,
}

impl Section {
    /// `0` for WDL, `1` for DTM (used in cache keys).
    pub fn id(self) -> u8 {
        match self {
            Section::Wdl => 0,
            Section::Dtm => 1,
        }
    }
}

impl fmt::Display for Section {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Section::Wdl => "WDL",
            Section::Dtm => "DTM",
        })
    }
}

/// Everything that can be wrong with a table file. Every variant names the
/// file.
#[derive(Clone, Debug, thiserror::Error)]
pub enum TableError {
    /// The file could not be opened, read or mapped (no permission, removed,
    /// an I/O failure): its contents were not judged. See
    /// [`TableError::io_error`].
    #[error("{}: cannot read the file: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: Arc<io::Error>,
    },
    /// The file is shorter than its header says (or than a header).
    #[error("{}: truncated: {len} bytes, expected {expected}", .path.display())]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Its length.
        len: u64,
        /// The length it should have.
        expected: u64,
    },
    /// The file is longer than its header says.
    #[error("{}: {len} bytes, longer than the {expected} its header gives", .path.display())]
    TrailingBytes {
        /// The file.
        path: PathBuf,
        /// Its length.
        len: u64,
        /// The length it should have.
        expected: u64,
    },
    /// Not a togyz-tb table.
    #[error("{}: not a togyz-tb table (bad magic)", .path.display())]
    BadMagic {
        /// The file.
        path: PathBuf,
    },
    /// A format version this reader does not know.
    #[error("{}: format version {found}, this reader reads version {FORMAT_VERSION}", .path.display())]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
    },
    /// Tables solved under other rules.
    #[error("{}: rules variant {found}, this reader expects {RULES_VARIANT}", .path.display())]
    RulesVariant {
        /// The file.
        path: PathBuf,
        /// The variant in the file.
        found: u32,
    },
    /// The header's own checksum does not match.
    #[error("{}: header checksum mismatch", .path.display())]
    HeaderChecksum {
        /// The file.
        path: PathBuf,
    },
    /// The header's fields contradict each other, the file name or the index
    /// layout.
    #[error("{}: inconsistent header: {detail}", .path.display())]
    InconsistentHeader {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// The block index checksum does not match.
    #[error("{}: block index checksum mismatch", .path.display())]
    IndexChecksum {
        /// The file.
        path: PathBuf,
    },
    /// A block index entry points outside its section or breaks the
    /// sequence of blocks.
    #[error("{}: bad index entry for block {block} of the {section} section: {detail}", .path.display())]
    BadIndex {
        /// The file.
        path: PathBuf,
        /// The section.
        section: Section,
        /// The block number.
        block: u64,
        /// What is wrong.
        detail: String,
    },
    /// A block's compressed bytes do not match their checksum.
    #[error("{}: checksum mismatch in block {block} of the {section} section", .path.display())]
    BlockChecksum {
        /// The file.
        path: PathBuf,
        /// The section.
        section: Section,
        /// The block number.
        block: u64,
    },
    /// zstd could not decompress a block.
    #[error("{}: cannot decompress block {block} of the {section} section: {detail}", .path.display())]
    Decompress {
        /// The file.
        path: PathBuf,
        /// The section.
        section: Section,
        /// The block number.
        block: u64,
        /// zstd's message.
        detail: String,
    },
    /// A block decompressed to the wrong number of bytes.
    #[error("{}: block {block} of the {section} section decompressed to {found} bytes, expected {expected}", .path.display())]
    BlockLength {
        /// The file.
        path: PathBuf,
        /// The section.
        section: Section,
        /// The block number.
        block: u64,
        /// Bytes expected.
        expected: u64,
        /// Bytes produced.
        found: u64,
    },
    /// A decompressed entry holds an impossible value.
    #[error("{}: bad entry in block {block} of the {section} section: {detail}", .path.display())]
    BadEntry {
        /// The file.
        path: PathBuf,
        /// The section.
        section: Section,
        /// The block number.
        block: u64,
        /// What is wrong.
        detail: String,
    },
    /// The checksum over everything after the header does not match.
    #[error("{}: file checksum mismatch", .path.display())]
    FileChecksum {
        /// The file.
        path: PathBuf,
    },
    /// A probe asked for a board or kazan offset outside the table (a
    /// caller's mistake, not a damaged file).
    #[error("{}: board {board}, kazan offset {kazan} is outside the table", .path.display())]
    OutOfRange {
        /// The file.
        path: PathBuf,
        /// The global board asked for.
        board: u64,
        /// The kazan offset asked for.
        kazan: u32,
    },
}

impl TableError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            TableError::Io { path, .. }
            | TableError::Truncated { path, .. }
            | TableError::TrailingBytes { path, .. }
            | TableError::BadMagic { path }
            | TableError::UnsupportedVersion { path, .. }
            | TableError::RulesVariant { path, .. }
            | TableError::HeaderChecksum { path }
            | TableError::InconsistentHeader { path, .. }
            | TableError::IndexChecksum { path }
            | TableError::BadIndex { path, .. }
            | TableError::BlockChecksum { path, .. }
            | TableError::Decompress { path, .. }
            | TableError::BlockLength { path, .. }
            | TableError::BadEntry { path, .. }
            | TableError::FileChecksum { path }
            | TableError::OutOfRange { path, .. } => path,
        }
    }

    /// The operating system's error if the file could not be read at all
    /// ([`TableError::Io`]: permissions, a removed file, an I/O failure);
    /// `None` if it was read and found damaged or foreign, which only
    /// generating it again mends.
    pub fn io_error(&self) -> Option<&io::Error> {
        match self {
            TableError::Io { source, .. } => Some(source),
            _ => None,
        }
    }

    fn io(path: &Path, e: io::Error) -> TableError {
        TableError::Io {
            path: path.to_path_buf(),
            source: Arc::new(e),
        }
    }
}

/// The fixed header at the start of a table file (see `docs/format.md` for
/// the byte offsets). All integers are little endian.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Format version ([`FORMAT_VERSION`]).
    pub format_version: u32,
    /// Rules variant ([`RULES_VARIANT`]).
    pub rules_variant: u32,
    /// Stones on the board.
    pub stones: u32,
    /// Tuzdyk configurations (73).
    pub config_count: u32,
    /// Positions in the table.
    pub positions: u64,
    /// Boards in the table (positions / (n + 1)).
    pub boards: u64,
    /// Bytes per WDL entry (1 or 2).
    pub wdl_width: u8,
    /// Bytes per DTM entry (1 or 2).
    pub dtm_width: u8,
    /// Boards per WDL block (the last block may hold fewer).
    pub wdl_block_boards: u32,
    /// Positions per DTM block (the last block may hold fewer).
    pub dtm_block_positions: u32,
    /// WDL blocks.
    pub wdl_blocks: u64,
    /// DTM blocks.
    pub dtm_blocks: u64,
    /// File offset of the WDL data (the first WDL block).
    pub wdl_data_offset: u64,
    /// File offset of the DTM data.
    pub dtm_data_offset: u64,
    /// File offset of the WDL block index.
    pub wdl_index_offset: u64,
    /// File offset of the DTM block index.
    pub dtm_index_offset: u64,
    /// Length of the whole file.
    pub file_length: u64,
    /// Positions won by the side to move.
    pub wins: u64,
    /// Drawn positions.
    pub draws: u64,
    /// Positions lost by the side to move.
    pub losses: u64,
    /// The longest distance of a won position, in plies (0 if none).
    pub longest_win: u32,
    /// The longest distance of a lost position, in plies (0 if none).
    pub longest_loss: u32,
    /// xxh3-64 of both block indexes (`wdl_index_offset..file_length`).
    pub index_checksum: u64,
    /// xxh3-64 of everything after the header (`HEADER_LEN..file_length`).
    pub body_checksum: u64,
}

/// Byte offsets of the header fields (`docs/format.md` lists them).
mod off {
    pub const MAGIC: usize = 0;
    pub const VERSION: usize = 8;
    pub const RULES: usize = 12;
    pub const STONES: usize = 16;
    pub const CONFIGS: usize = 20;
    pub const POSITIONS: usize = 24;
    pub const BOARDS: usize = 32;
    pub const WDL_WIDTH: usize = 40;
    pub const DTM_WIDTH: usize = 41;
    pub const RESERVED_A: usize = 42; // u16, zero
    pub const WDL_BLOCK_BOARDS: usize = 44;
    pub const DTM_BLOCK_POSITIONS: usize = 48;
    pub const RESERVED_B: usize = 52; // u32, zero
    pub const WDL_BLOCKS: usize = 56;
    pub const DTM_BLOCKS: usize = 64;
    pub const WDL_DATA: usize = 72;
    pub const DTM_DATA: usize = 80;
    pub const WDL_INDEX: usize = 88;
    pub const DTM_INDEX: usize = 96;
    pub const FILE_LENGTH: usize = 104;
    pub const WINS: usize = 112;
    pub const DRAWS: usize = 120;
    pub const LOSSES: usize = 128;
    pub const LONGEST_WIN: usize = 136;
    pub const LONGEST_LOSS: usize = 140;
    pub const INDEX_CHECKSUM: usize = 144;
    pub const BODY_CHECKSUM: usize = 152;
    pub const HEADER_CHECKSUM: usize = 160;
}

impl Header {
    /// Encodes the header, its own checksum included.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[off::MAGIC..off::MAGIC + 8].copy_from_slice(&MAGIC);
        LE::write_u32(&mut b[off::VERSION..], self.format_version);
        LE::write_u32(&mut b[off::RULES..], self.rules_variant);
        LE::write_u32(&mut b[off::STONES..], self.stones);
        LE::write_u32(&mut b[off::CONFIGS..], self.config_count);
        LE::write_u64(&mut b[off::POSITIONS..], self.positions);
        LE::write_u64(&mut b[off::BOARDS..], self.boards);
        b[off::WDL_WIDTH] = self.wdl_width;
        b[off::DTM_WIDTH] = self.dtm_width;
        LE::write_u32(&mut b[off::WDL_BLOCK_BOARDS..], self.wdl_block_boards);
        LE::write_u32(&mut b[off::DTM_BLOCK_POSITIONS..], self.dtm_block_positions);
        LE::write_u64(&mut b[off::WDL_BLOCKS..], self.wdl_blocks);
        LE::write_u64(&mut b[off::DTM_BLOCKS..], self.dtm_blocks);
        LE::write_u64(&mut b[off::WDL_DATA..], self.wdl_data_offset);
        LE::write_u64(&mut b[off::DTM_DATA..], self.dtm_data_offset);
        LE::write_u64(&mut b[off::WDL_INDEX..], self.wdl_index_offset);
        LE::write_u64(&mut b[off::DTM_INDEX..], self.dtm_index_offset);
        LE::write_u64(&mut b[off::FILE_LENGTH..], self.file_length);
        LE::write_u64(&mut b[off::WINS..], self.wins);
        LE::write_u64(&mut b[off::DRAWS..], self.draws);
        LE::write_u64(&mut b[off::LOSSES..], self.losses);
        LE::write_u32(&mut b[off::LONGEST_WIN..], self.longest_win);
        LE::write_u32(&mut b[off::LONGEST_LOSS..], self.longest_loss);
        LE::write_u64(&mut b[off::INDEX_CHECKSUM..], self.index_checksum);
        LE::write_u64(&mut b[off::BODY_CHECKSUM..], self.body_checksum);
        let sum = xxh3_64(&b[..off::HEADER_CHECKSUM]);
        LE::write_u64(&mut b[off::HEADER_CHECKSUM..], sum);
        b
    }

    /// Decodes and validates a header: magic, version, rules variant, its
    /// checksum, and every field against the others and against
    /// [`Layout::new`]. `path` is only used to name the file in errors.
    /// Whether the file really has `file_length` bytes and what its indexes
    /// hold is checked by [`TableFile::open`].
    pub fn parse(bytes: &[u8], path: &Path) -> Result<Header, TableError> {
        let path_buf = || path.to_path_buf();
        if bytes.len() < HEADER_LEN {
            return Err(TableError::Truncated {
                path: path_buf(),
                len: bytes.len() as u64,
                expected: HEADER_LEN as u64,
            });
        }
        let b = &bytes[..HEADER_LEN];
        if b[..8] != MAGIC {
            return Err(TableError::BadMagic { path: path_buf() });
        }
        if xxh3_64(&b[..off::HEADER_CHECKSUM]) != LE::read_u64(&b[off::HEADER_CHECKSUM..]) {
            return Err(TableError::HeaderChecksum { path: path_buf() });
        }
        let h = Header {
            format_version: LE::read_u32(&b[off::VERSION..]),
            rules_variant: LE::read_u32(&b[off::RULES..]),
            stones: LE::read_u32(&b[off::STONES..]),
            config_count: LE::read_u32(&b[off::CONFIGS..]),
            positions: LE::read_u64(&b[off::POSITIONS..]),
            boards: LE::read_u64(&b[off::BOARDS..]),
            wdl_width: b[off::WDL_WIDTH],
            dtm_width: b[off::DTM_WIDTH],
            wdl_block_boards: LE::read_u32(&b[off::WDL_BLOCK_BOARDS..]),
            dtm_block_positions: LE::read_u32(&b[off::DTM_BLOCK_POSITIONS..]),
            wdl_blocks: LE::read_u64(&b[off::WDL_BLOCKS..]),
            dtm_blocks: LE::read_u64(&b[off::DTM_BLOCKS..]),
            wdl_data_offset: LE::read_u64(&b[off::WDL_DATA..]),
            dtm_data_offset: LE::read_u64(&b[off::DTM_DATA..]),
            wdl_index_offset: LE::read_u64(&b[off::WDL_INDEX..]),
            dtm_index_offset: LE::read_u64(&b[off::DTM_INDEX..]),
            file_length: LE::read_u64(&b[off::FILE_LENGTH..]),
            wins: LE::read_u64(&b[off::WINS..]),
            draws: LE::read_u64(&b[off::DRAWS..]),
            losses: LE::read_u64(&b[off::LOSSES..]),
            longest_win: LE::read_u32(&b[off::LONGEST_WIN..]),
            longest_loss: LE::read_u32(&b[off::LONGEST_LOSS..]),
            index_checksum: LE::read_u64(&b[off::INDEX_CHECKSUM..]),
            body_checksum: LE::read_u64(&b[off::BODY_CHECKSUM..]),
        };
        if h.format_version != FORMAT_VERSION {
            return Err(TableError::UnsupportedVersion {
                path: path_buf(),
                found: h.format_version,
            });
        }
        if h.rules_variant != RULES_VARIANT {
            return Err(TableError::RulesVariant {
                path: path_buf(),
                found: h.rules_variant,
            });
        }
        let reserved_a = LE::read_u16(&b[off::RESERVED_A..]);
        let reserved_b = LE::read_u32(&b[off::RESERVED_B..]);
        h.check_consistency(reserved_a, reserved_b)
            .map_err(|detail| TableError::InconsistentHeader {
                path: path_buf(),
                detail,
            })?;
        Ok(h)
    }

    /// Checks the fields against each other. Checked arithmetic throughout:
    /// a header that passed its checksum may still have been crafted.
    fn check_consistency(&self, reserved_a: u16, reserved_b: u32) -> Result<(), String> {
        if reserved_a != 0 || reserved_b != 0 {
            return Err("reserved fields are not zero".into());
        }
        let n = self.stones;
        if n > MAX_STONES {
            return Err(format!("{n} stones, the index goes up to {MAX_STONES}"));
        }
        if self.config_count != CONFIG_COUNT as u32 {
            return Err(format!(
                "{} tuzdyk configurations, expected {CONFIG_COUNT}",
                self.config_count
            ));
        }
        let layout = Layout::new(n);
        if self.boards != layout.boards() || self.positions != layout.positions() {
            return Err(format!(
                "{} boards and {} positions, the index for {n} stones has {} and {}",
                self.boards,
                self.positions,
                layout.boards(),
                layout.positions()
            ));
        }
        if self.wdl_width != wdl_width_for(n) {
            return Err(format!(
                "WDL entry width {}, expected {} for {n} stones",
                self.wdl_width,
                wdl_width_for(n)
            ));
        }
        let longest = self.longest_win.max(self.longest_loss);
        if self.dtm_width != dtm_width_for(longest) {
            return Err(format!(
                "DTM entry width {}, expected {} for a longest distance of {longest}",
                self.dtm_width,
                dtm_width_for(longest)
            ));
        }
        let total = self
            .wins
            .checked_add(self.draws)
            .and_then(|s| s.checked_add(self.losses));
        if total != Some(self.positions) {
            return Err("wins + draws + losses is not the position count".into());
        }
        if self.wins == 0 && self.longest_win != 0 || self.losses == 0 && self.longest_loss != 0 {
            return Err("a longest distance without a position to carry it".into());
        }
        let check_blocks = |name: &str, per: u32, width: u8, items: u64, blocks: u64| {
            if per == 0 || per as u64 * width as u64 > MAX_BLOCK_BYTES {
                return Err(format!("{per} entries per {name} block"));
            }
            if blocks != items.div_ceil(per as u64) {
                return Err(format!(
                    "{blocks} {name} blocks for {items} entries of {per} a block"
                ));
            }
            Ok(())
        };
        check_blocks(
            "WDL",
            self.wdl_block_boards,
            self.wdl_width,
            self.boards,
            self.wdl_blocks,
        )?;
        check_blocks(
            "DTM",
            self.dtm_block_positions,
            self.dtm_width,
            self.positions,
            self.dtm_blocks,
        )?;
        // Sections in order, without gaps: header, WDL data, DTM data, WDL
        // index, DTM index. The data offsets themselves are checked against
        // the index when the file is opened.
        let index_len = |blocks: u64| blocks.checked_mul(INDEX_ENTRY_LEN as u64);
        let order_ok = self.wdl_data_offset == HEADER_LEN as u64
            && self.wdl_data_offset <= self.dtm_data_offset
            && self.dtm_data_offset <= self.wdl_index_offset
            && index_len(self.wdl_blocks).and_then(|l| l.checked_add(self.wdl_index_offset))
                == Some(self.dtm_index_offset)
            && index_len(self.dtm_blocks).and_then(|l| l.checked_add(self.dtm_index_offset))
                == Some(self.file_length);
        if !order_ok {
            return Err("section offsets out of order or overlapping".into());
        }
        Ok(())
    }

    /// Decompressed bytes of block `block` of `section` (the last block of
    /// a section may be short). `block` must be below the block count.
    pub fn block_bytes(&self, section: Section, block: u64) -> u64 {
        let (per, width, items) = match section {
            Section::Wdl => (self.wdl_block_boards, self.wdl_width, self.boards),
            Section::Dtm => (self.dtm_block_positions, self.dtm_width, self.positions),
        };
        let start = block * per as u64;
        (items - start).min(per as u64) * width as u64
    }

    /// Blocks in `section`.
    pub fn blocks(&self, section: Section) -> u64 {
        match section {
            Section::Wdl => self.wdl_blocks,
            Section::Dtm => self.dtm_blocks,
        }
    }

    /// The longest distance of any position.
    pub fn longest(&self) -> u32 {
        self.longest_win.max(self.longest_loss)
    }
}

/// One block index entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockEntry {
    /// File offset of the compressed block.
    pub offset: u64,
    /// Compressed length in bytes.
    pub length: u32,
    /// xxh3-64 of the compressed bytes.
    pub checksum: u64,
}

impl BlockEntry {
    /// Encodes the entry (20 bytes, little endian).
    pub fn to_bytes(&self) -> [u8; INDEX_ENTRY_LEN] {
        let mut b = [0u8; INDEX_ENTRY_LEN];
        LE::write_u64(&mut b[0..], self.offset);
        LE::write_u32(&mut b[8..], self.length);
        LE::write_u64(&mut b[12..], self.checksum);
        b
    }

    /// Decodes an entry from exactly [`INDEX_ENTRY_LEN`] bytes.
    fn from_bytes(b: &[u8]) -> BlockEntry {
        BlockEntry {
            offset: LE::read_u64(&b[0..]),
            length: LE::read_u32(&b[8..]),
            checksum: LE::read_u64(&b[12..]),
        }
    }
}

/// Reads the header of the file at `path` with ordinary file I/O (no
/// mapping) and validates it, the actual file length included. Cheap: used
/// to check every table when a tablebase is opened.
pub fn read_header(path: &Path) -> Result<Header, TableError> {
    use std::io::Read;
    let mut file = File::open(path).map_err(|e| TableError::io(path, e))?;
    let len = file.metadata().map_err(|e| TableError::io(path, e))?.len();
    let mut buf = [0u8; HEADER_LEN];
    let got = read_up_to(&mut file, &mut buf).map_err(|e| TableError::io(path, e))?;
    let header = Header::parse(&buf[..got], path)?;
    check_file_length(&header, len, path)?;
    return Ok(header);

    fn read_up_to(file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
        let mut got = 0;
        while got < buf.len() {
            match file.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(k) => got += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(got)
    }
}

fn check_file_length(header: &Header, len: u64, path: &Path) -> Result<(), TableError> {
    if len < header.file_length {
        return Err(TableError::Truncated {
            path: path.to_path_buf(),
            len,
            expected: header.file_length,
        });
    }
    if len > header.file_length {
        return Err(TableError::TrailingBytes {
            path: path.to_path_buf(),
            len,
            expected: header.file_length,
        });
    }
    Ok(())
}

thread_local! {
    /// One zstd decompression context per thread, made on first use.
    static DCTX: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

/// One table file, memory-mapped and validated.
pub struct TableFile {
    path: PathBuf,
    map: Mmap,
    header: Header,
    layout: Layout,
}

impl fmt::Debug for TableFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TableFile")
            .field("path", &self.path)
            .field("header", &self.header)
            .finish_non_exhaustive()
    }
}

impl TableFile {
    /// Maps the file at `path` and validates it: the header (magic, version,
    /// rules variant, checksum, every field against [`Layout::new`]), the
    /// file length, the block index checksum, and that the index entries
    /// tile each data section exactly. Blocks themselves are checked as they
    /// are read; [`TableFile::verify_checksums`] checks everything at once.
    pub fn open(path: impl AsRef<Path>) -> Result<TableFile, TableError> {
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
        // SAFETY: the map is read-only and private to this process. Table
        // files are never modified in place: the writer produces a new file
        // and renames it over the name, which leaves an existing mapping of
        // the old file intact. If another program nevertheless truncates the
        // file while it is mapped, touching the lost pages raises SIGBUS, and
        // if it rewrites bytes, reads may observe them; both break the
        // contract that table files are immutable, documented in
        // docs/format.md. Apart from that, every read below goes through
        // bounds-checked slice accesses on `map`, and every block is checked
        // against its xxh3 checksum before it is decompressed, so damaged
        // content is reported as an error.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| TableError::io(path, e))?;
        let header = Header::parse(&map, path)?;
        check_file_length(&header, map.len() as u64, path)?;
        let layout = Layout::new(header.stones);
        let t = TableFile {
            path: path.to_path_buf(),
            map,
            header,
            layout,
        };
        t.check_index()?;
        Ok(t)
    }

    /// Verifies the index checksum and that the entries of each section are
    /// consecutive, non-empty and fill the section's data exactly.
    fn check_index(&self) -> Result<(), TableError> {
        let h = &self.header;
        let index = self.slice(h.wdl_index_offset, h.file_length)?;
        if xxh3_64(index) != h.index_checksum {
            return Err(TableError::IndexChecksum {
                path: self.path.clone(),
            });
        }
        for (section, start, end) in [
            (Section::Wdl, h.wdl_data_offset, h.dtm_data_offset),
            (Section::Dtm, h.dtm_data_offset, h.wdl_index_offset),
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

    /// `map[start..end]`, or a truncation error.
    fn slice(&self, start: u64, end: u64) -> Result<&[u8], TableError> {
        usize::try_from(start)
            .ok()
            .zip(usize::try_from(end).ok())
            .and_then(|(s, e)| self.map.get(s..e))
            .ok_or_else(|| TableError::Truncated {
                path: self.path.clone(),
                len: self.map.len() as u64,
                expected: end,
            })
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
    pub fn entry(&self, section: Section, block: u64) -> Result<BlockEntry, TableError> {
        let h = &self.header;
        let base = match section {
            Section::Wdl => h.wdl_index_offset,
            Section::Dtm => h.dtm_index_offset,
        };
        if block >= h.blocks(section) {
            return Err(TableError::BadIndex {
                path: self.path.clone(),
                section,
                block,
                detail: format!("only {} blocks", h.blocks(section)),
            });
        }
        let at = base + block * INDEX_ENTRY_LEN as u64;
        let bytes = self.slice(at, at + INDEX_ENTRY_LEN as u64)?;
        Ok(BlockEntry::from_bytes(bytes))
    }

    /// The compressed bytes of a block, checked against their checksum.
    fn compressed_block(&self, section: Section, block: u64) -> Result<&[u8], TableError> {
        let e = self.entry(section, block)?;
        let data = self.slice(e.offset, e.offset + e.length as u64)?;
        if xxh3_64(data) != e.checksum {
            return Err(TableError::BlockChecksum {
                path: self.path.clone(),
                section,
                block,
            });
        }
        Ok(data)
    }

    /// Reads block `block` of `section`: checks its checksum, decompresses
    /// it and checks the decompressed length.
    pub fn read_block(&self, section: Section, block: u64) -> Result<Vec<u8>, TableError> {
        let mut out = Vec::new();
        self.read_block_into(section, block, &mut out)?;
        Ok(out)
    }

    /// [`TableFile::read_block`] into a reused buffer (cleared first).
    pub fn read_block_into(
        &self,
        section: Section,
        block: u64,
        out: &mut Vec<u8>,
    ) -> Result<(), TableError> {
        let data = self.compressed_block(section, block)?;
        let expected = self.header.block_bytes(section, block);
        out.clear();
        // Bounded by MAX_BLOCK_BYTES through the header checks.
        out.reserve_exact(expected as usize);
        let decompress_err = |detail: String| TableError::Decompress {
            path: self.path.clone(),
            section,
            block,
            detail,
        };
        let got = DCTX.with(|cell| {
            let mut slot = cell.borrow_mut();
            if slot.is_none() {
                *slot = Some(zstd::bulk::Decompressor::new()?);
            }
            let dctx = slot.as_mut().expect("initialised just above");
            // Decompress into exactly the expected capacity: a block that
            // would grow past it fails instead of allocating.
            dctx.decompress_to_buffer(data, &mut *out)
        });
        let got = got.map_err(|e| decompress_err(e.to_string()))?;
        if got as u64 != expected || out.len() as u64 != expected {
            return Err(TableError::BlockLength {
                path: self.path.clone(),
                section,
                block,
                expected,
                found: got as u64,
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

    /// Where board `gb`'s thresholds live: (WDL block, byte offset).
    #[inline]
    pub fn wdl_location(&self, gb: u64) -> (u64, usize) {
        let per = self.header.wdl_block_boards as u64;
        (
            gb / per,
            (gb % per) as usize * self.header.wdl_width as usize,
        )
    }

    /// Where position `index`'s distance lives: (DTM block, byte offset).
    #[inline]
    pub fn dtm_location(&self, index: u64) -> (u64, usize) {
        let per = self.header.dtm_block_positions as u64;
        (
            index / per,
            (index % per) as usize * self.header.dtm_width as usize,
        )
    }

    /// Decodes the thresholds at byte `at` of decompressed WDL block `block`.
    #[inline]
    pub fn thresholds_in(
        &self,
        data: &[u8],
        block: u64,
        at: usize,
    ) -> Result<(u32, u32), TableError> {
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
    #[inline]
    pub fn distance_in(&self, data: &[u8], block: u64, at: usize) -> Result<u32, TableError> {
        let width = self.header.dtm_width as usize;
        match data.get(at..at + width) {
            Some([b]) => Ok(*b as u32),
            Some(b2) if width == 2 => Ok(LE::read_u16(b2) as u32),
            _ => Err(self.bad_entry(Section::Dtm, block, "entry outside the block")),
        }
    }

    /// Combines a result and a stored distance into a value, rejecting a
    /// distance on a draw or one longer than the header's longest.
    #[inline]
    pub fn combine(&self, wdl: Wdl, distance: u32, block: u64) -> Result<Value, TableError> {
        let h = &self.header;
        match wdl {
            Wdl::Draw if distance == 0 => Ok(Value::Draw),
            Wdl::Win if distance <= h.longest_win => Ok(Value::Win(distance)),
            Wdl::Loss if distance <= h.longest_loss => Ok(Value::Loss(distance)),
            _ => Err(self.bad_entry(
                Section::Dtm,
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
    pub fn wdl(&self, gb: u64, j: u32) -> Result<Wdl, TableError> {
        self.check_range(gb, j)?;
        let (block, at) = self.wdl_location(gb);
        let data = self.read_block(Section::Wdl, block)?;
        Ok(wdl_at(self.thresholds_in(&data, block, at)?, j))
    }

    /// The value at global board `gb`, kazan offset `j` (uncached: reads one
    /// WDL and one DTM block).
    pub fn value(&self, gb: u64, j: u32) -> Result<Value, TableError> {
        let wdl = self.wdl(gb, j)?;
        let index = gb * self.layout.kazans() + j as u64;
        let (block, at) = self.dtm_location(index);
        let data = self.read_block(Section::Dtm, block)?;
        self.combine(wdl, self.distance_in(&data, block, at)?, block)
    }

    /// The packed values ([`Value::pack`]) of the whole table in index
    /// order, decoded in parallel over DTM blocks.
    pub fn decode_all(&self) -> Result<Vec<u16>, TableError> {
        self.decode_cells(Some)
    }

    /// Whether every packed value of the table fits one byte (its longest
    /// distance is at most 126 plies), so [`TableFile::decode_all_narrow`]
    /// can hold it in half the memory.
    pub fn fits_in_bytes(&self) -> bool {
        self.header.longest() <= 126
    }

    /// [`TableFile::decode_all`] into one byte a position; an error unless
    /// [`TableFile::fits_in_bytes`].
    pub fn decode_all_narrow(&self) -> Result<Vec<u8>, TableError> {
        self.decode_cells(|v| u8::try_from(v).ok())
    }

    /// Decodes every position and stores `cell(packed)`; a `None` is an
    /// error (a value the cells cannot hold).
    fn decode_cells<T: Copy + Default + Send + Sync>(
        &self,
        cell: impl Fn(u16) -> Option<T> + Sync,
    ) -> Result<Vec<T>, TableError> {
        let h = &self.header;
        let positions = usize::try_from(h.positions).map_err(|_| TableError::Io {
            path: self.path.clone(),
            source: Arc::new(io::Error::new(
                io::ErrorKind::OutOfMemory,
                "table too large for this machine's address space",
            )),
        })?;
        // A fallible reservation: a damaged header that passed its checks
        // must not abort the process by asking for too much memory.
        let mut out = Vec::new();
        out.try_reserve_exact(positions)
            .map_err(|e| TableError::Io {
                path: self.path.clone(),
                source: Arc::new(io::Error::new(io::ErrorKind::OutOfMemory, e.to_string())),
            })?;
        out.resize(positions, T::default());
        let kazans = self.layout.kazans();
        let per = h.dtm_block_positions as usize;
        struct Scratch {
            dtm: Vec<u8>,
            wdl: Vec<u8>,
            wdl_block: u64,
        }
        out.par_chunks_mut(per).enumerate().try_for_each_init(
            || Scratch {
                dtm: Vec::new(),
                wdl: Vec::new(),
                wdl_block: u64::MAX,
            },
            |s, (bi, chunk)| -> Result<(), TableError> {
                let block = bi as u64;
                self.read_block_into(Section::Dtm, block, &mut s.dtm)?;
                let first = block * per as u64;
                let mut gb = first / kazans;
                let mut j = (first % kazans) as u32;
                let mut k = 0;
                while k < chunk.len() {
                    let (wb, at) = self.wdl_location(gb);
                    if wb != s.wdl_block {
                        s.wdl_block = u64::MAX;
                        self.read_block_into(Section::Wdl, wb, &mut s.wdl)?;
                        s.wdl_block = wb;
                    }
                    let t = self.thresholds_in(&s.wdl, wb, at)?;
                    while (j as u64) < kazans && k < chunk.len() {
                        let d = self.distance_in(&s.dtm, block, k * h.dtm_width as usize)?;
                        let v = self.combine(wdl_at(t, j), d, block)?;
                        // combine() bounds d by the header's longest, which
                        // the header checks keep within u16 entries.
                        chunk[k] = v.pack().and_then(&cell).ok_or_else(|| {
                            self.bad_entry(Section::Dtm, block, "distance too large for the cells")
                        })?;
                        k += 1;
                        j += 1;
                    }
                    gb += 1;
                    j = 0;
                }
                Ok(())
            },
        )?;
        Ok(out)
    }

    /// Checks the checksum of everything after the header, then every
    /// block's checksum (in parallel). Does not decompress.
    pub fn verify_checksums(&self) -> Result<(), TableError> {
        let h = &self.header;
        if xxh3_64(self.slice(HEADER_LEN as u64, h.file_length)?) != h.body_checksum {
            return Err(TableError::FileChecksum {
                path: self.path.clone(),
            });
        }
        for section in [Section::Wdl, Section::Dtm] {
            (0..h.blocks(section))
                .into_par_iter()
                .try_for_each(|b| self.compressed_block(section, b).map(|_| ()))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_round_trip() {
        assert_eq!(file_name(7), "togyz-07.tkb");
        assert_eq!(file_name(12), "togyz-12.tkb");
        for n in 0..=MAX_STONES {
            assert_eq!(parse_file_name(&file_name(n)), Some(n));
        }
        for bad in [
            "togyz-7.tkb",
            "togyz-007.tkb",
            "togyz-0a.tkb",
            "togyz-07.tkb.tmp",
            "x-07.tkb",
        ] {
            assert_eq!(parse_file_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn thresholds_round_trip_and_reject_bad_packings() {
        for n in [1u32, 5, 14, 15, 40] {
            let mut seen = 0;
            for d in 0..=n + 1 {
                for w in d..=n + 1 {
                    let p = pack_thresholds(n, d, w);
                    assert_eq!(unpack_thresholds(n, p), Some((d, w)));
                    seen += 1;
                }
            }
            let base = n + 2;
            let bad = (0..(base * base + 3) as u16)
                .filter(|&p| unpack_thresholds(n, p).is_none())
                .count() as u32;
            // Every packing that is not a valid pair is rejected.
            assert_eq!(seen + bad, base * base + 3);
        }
        assert_eq!(wdl_width_for(14), 1);
        assert_eq!(wdl_width_for(15), 2);
        assert_eq!(dtm_width_for(255), 1);
        assert_eq!(dtm_width_for(256), 2);
    }

    #[test]
    fn wdl_at_is_monotone() {
        let t = (2, 4);
        let got: Vec<Wdl> = (0..6).map(|j| wdl_at(t, j)).collect();
        assert_eq!(
            got,
            [
                Wdl::Loss,
                Wdl::Loss,
                Wdl::Draw,
                Wdl::Draw,
                Wdl::Win,
                Wdl::Win
            ]
        );
    }
}
