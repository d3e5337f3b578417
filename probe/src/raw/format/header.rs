//! The fixed header and the block index entries: their byte layout, read
//! and written in one place.

use std::fs::File;
use std::io;
use std::path::Path;

use byteorder::{ByteOrder, LittleEndian as LE};
use xxhash_rust::xxh3::xxh3_64;

use super::*;
use crate::raw::index::{Layout, CONFIG_COUNT, MAX_STONES};

/// The fixed header at the start of a table file (see `docs/format.md` for
/// the byte offsets). All integers are little endian.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Format version ([`format_version`] of the metric).
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
    /// What the distance section holds: DTM, or DTC (whose WDL section
    /// holds one draw split a board and whose distance section leaves the
    /// draws out).
    pub metric: Metric,
    /// What the table holds (byte 43): every position's value, or the
    /// win/draw/loss alone, of every board or of those with a tuzdyk.
    pub contents: Contents,
    /// Bytes per WDL entry (1 or 2).
    pub wdl_width: u8,
    /// Bytes per DTM entry (1 or 2).
    pub distance_width: u8,
    /// Boards per WDL block (the last block may hold fewer).
    pub wdl_block_boards: u32,
    /// Positions per distance block for DTM; boards per distance block for
    /// DTC (whose blocks hold their boards' `n` decisive positions each).
    /// The last block may hold fewer.
    pub distance_block_positions: u32,
    /// WDL blocks.
    pub wdl_blocks: u64,
    /// DTM blocks.
    pub distance_blocks: u64,
    /// File offset of the WDL data (the first WDL block).
    pub wdl_data_offset: u64,
    /// File offset of the DTM data.
    pub distance_data_offset: u64,
    /// File offset of the WDL block index.
    pub wdl_index_offset: u64,
    /// File offset of the DTM block index.
    pub distance_index_offset: u64,
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
    pub const DISTANCE_WIDTH: usize = 41;
    pub const METRIC: usize = 42;
    pub const CONTENTS: usize = 43;
    pub const WDL_BLOCK_BOARDS: usize = 44;
    pub const DISTANCE_BLOCK_POSITIONS: usize = 48;
    /// u32: the tuzdyk pairs of a [`Contents::Pairs`] table, else zero.
    pub const PAIRS: usize = 52;
    pub const WDL_BLOCKS: usize = 56;
    pub const DISTANCE_BLOCKS: usize = 64;
    pub const WDL_DATA: usize = 72;
    pub const DISTANCE_DATA: usize = 80;
    pub const WDL_INDEX: usize = 88;
    pub const DISTANCE_INDEX: usize = 96;
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
        b[off::DISTANCE_WIDTH] = self.distance_width;
        b[off::METRIC] = metric_code(self.metric);
        b[off::CONTENTS] = self.contents.code();
        LE::write_u32(&mut b[off::PAIRS..], self.contents.pairs_mask());
        LE::write_u32(&mut b[off::WDL_BLOCK_BOARDS..], self.wdl_block_boards);
        LE::write_u32(
            &mut b[off::DISTANCE_BLOCK_POSITIONS..],
            self.distance_block_positions,
        );
        LE::write_u64(&mut b[off::WDL_BLOCKS..], self.wdl_blocks);
        LE::write_u64(&mut b[off::DISTANCE_BLOCKS..], self.distance_blocks);
        LE::write_u64(&mut b[off::WDL_DATA..], self.wdl_data_offset);
        LE::write_u64(&mut b[off::DISTANCE_DATA..], self.distance_data_offset);
        LE::write_u64(&mut b[off::WDL_INDEX..], self.wdl_index_offset);
        LE::write_u64(&mut b[off::DISTANCE_INDEX..], self.distance_index_offset);
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
    ///
    /// # Errors
    ///
    /// [`TableError`] naming `path`: too short, bad magic, unknown version or
    /// rules variant, header checksum mismatch, or fields that contradict each
    /// other or the index layout.
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
        let format_version = LE::read_u32(&b[off::VERSION..]);
        // The version first: a newer file may give byte 42 a code this
        // reader does not know.
        let known = [FORMAT_VERSION_DTM, FORMAT_VERSION_DTC];
        if !known.contains(&format_version) {
            return Err(TableError::UnsupportedVersion {
                path: path_buf(),
                found: format_version,
                metric: Metric::Dtm,
            });
        }
        let h = Header {
            format_version,
            rules_variant: LE::read_u32(&b[off::RULES..]),
            stones: LE::read_u32(&b[off::STONES..]),
            config_count: LE::read_u32(&b[off::CONFIGS..]),
            positions: LE::read_u64(&b[off::POSITIONS..]),
            boards: LE::read_u64(&b[off::BOARDS..]),
            metric: match b[off::METRIC] {
                METRIC_DTM => Metric::Dtm,
                METRIC_DTC => Metric::Dtc,
                code => {
                    return Err(TableError::InconsistentHeader {
                        path: path_buf(),
                        detail: format!("unknown metric code {code}"),
                    })
                }
            },
            contents: {
                // Bytes 52..56 name the pairs of a table of pairs; in any
                // other they are reserved, checked below.
                let (code, mask) = (b[off::CONTENTS], LE::read_u32(&b[off::PAIRS..]));
                let pairs = code == CONTENTS_PAIRS;
                Contents::from_code(code, if pairs { mask } else { 0 }).ok_or_else(|| {
                    TableError::InconsistentHeader {
                        path: path_buf(),
                        detail: if pairs {
                            format!("tuzdyk pairs {mask:#x} that name no pair or one past the 28")
                        } else {
                            format!("unknown contents code {code}")
                        },
                    }
                })?
            },
            wdl_width: b[off::WDL_WIDTH],
            distance_width: b[off::DISTANCE_WIDTH],
            wdl_block_boards: LE::read_u32(&b[off::WDL_BLOCK_BOARDS..]),
            distance_block_positions: LE::read_u32(&b[off::DISTANCE_BLOCK_POSITIONS..]),
            wdl_blocks: LE::read_u64(&b[off::WDL_BLOCKS..]),
            distance_blocks: LE::read_u64(&b[off::DISTANCE_BLOCKS..]),
            wdl_data_offset: LE::read_u64(&b[off::WDL_DATA..]),
            distance_data_offset: LE::read_u64(&b[off::DISTANCE_DATA..]),
            wdl_index_offset: LE::read_u64(&b[off::WDL_INDEX..]),
            distance_index_offset: LE::read_u64(&b[off::DISTANCE_INDEX..]),
            file_length: LE::read_u64(&b[off::FILE_LENGTH..]),
            wins: LE::read_u64(&b[off::WINS..]),
            draws: LE::read_u64(&b[off::DRAWS..]),
            losses: LE::read_u64(&b[off::LOSSES..]),
            longest_win: LE::read_u32(&b[off::LONGEST_WIN..]),
            longest_loss: LE::read_u32(&b[off::LONGEST_LOSS..]),
            index_checksum: LE::read_u64(&b[off::INDEX_CHECKSUM..]),
            body_checksum: LE::read_u64(&b[off::BODY_CHECKSUM..]),
        };
        if h.format_version != super::format_version(h.metric) {
            return Err(TableError::UnsupportedVersion {
                path: path_buf(),
                found: h.format_version,
                metric: h.metric,
            });
        }
        if h.rules_variant != RULES_VARIANT {
            return Err(TableError::RulesVariant {
                path: path_buf(),
                found: h.rules_variant,
            });
        }
        let reserved_b = match h.contents {
            Contents::Pairs(_) => 0,
            _ => LE::read_u32(&b[off::PAIRS..]),
        };
        h.check_consistency(reserved_b)
            .map_err(|detail| TableError::InconsistentHeader {
                path: path_buf(),
                detail,
            })?;
        Ok(h)
    }

    /// Checks the fields against each other. Checked arithmetic throughout:
    /// a header that passed its checksum may still have been crafted.
    fn check_consistency(&self, reserved_b: u32) -> Result<(), String> {
        if reserved_b != 0 {
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
        let wdl_width = wdl_entry_width(self.metric, n);
        if self.wdl_width != wdl_width {
            return Err(format!(
                "WDL entry width {}, expected {wdl_width} for {n} stones ({})",
                self.wdl_width, self.metric
            ));
        }
        if self.contents != Contents::Full && self.metric != Metric::Dtc {
            return Err(format!("a {} table with {}", self.metric, self.contents));
        }
        let longest = self.longest_win.max(self.longest_loss);
        if !self.contents.has_distances() && longest != 0 {
            return Err(format!(
                "a longest distance of {longest} in a table without distances"
            ));
        }
        if self.distance_width != distance_width_for(longest) {
            return Err(format!(
                "DTM entry width {}, expected {} for a longest distance of {longest}",
                self.distance_width,
                distance_width_for(longest)
            ));
        }
        let total = self
            .wins
            .checked_add(self.draws)
            .and_then(|s| s.checked_add(self.losses));
        let held = self.contents.held_boards(&layout);
        if total != Some(held * (n as u64 + 1)) {
            return Err("wins + draws + losses is not the count of positions held".into());
        }
        if self.metric == Metric::Dtc && self.draws != held {
            return Err(format!(
                "{} draws in a DTC table of {held} boards held (one draw a board)",
                self.draws
            ));
        }
        if self.wins == 0 && self.longest_win != 0 || self.losses == 0 && self.longest_loss != 0 {
            return Err("a longest distance without a position to carry it".into());
        }
        let check_blocks = |name: &str, per: u64, width: u8, items: u64, blocks: u64| {
            if per == 0 || per * width as u64 > MAX_BLOCK_BYTES {
                return Err(format!("{per} entries per {name} block"));
            }
            if blocks != items.div_ceil(per) {
                return Err(format!(
                    "{blocks} {name} blocks for {items} entries of {per} a block"
                ));
            }
            Ok(())
        };
        check_blocks(
            "WDL",
            self.wdl_block_boards as u64,
            self.wdl_width,
            self.boards,
            self.wdl_blocks,
        )?;
        if !blocks_nest(
            self.metric,
            self.wdl_block_boards,
            self.distance_block_positions,
        ) {
            return Err(format!(
                "{} boards a WDL block is not a multiple of {} boards a DTC block",
                self.wdl_block_boards, self.distance_block_positions
            ));
        }
        check_blocks(
            self.metric.name(),
            self.distance_block_entries(),
            self.distance_width,
            self.distance_entries(),
            self.distance_blocks,
        )?;
        // Sections in order, without gaps: header, WDL data, DTM data, WDL
        // index, DTM index. The data offsets themselves are checked against
        // the index when the file is opened.
        let index_len = |blocks: u64| blocks.checked_mul(INDEX_ENTRY_LEN as u64);
        let order_ok = self.wdl_data_offset == HEADER_LEN as u64
            && self.wdl_data_offset <= self.distance_data_offset
            && self.distance_data_offset <= self.wdl_index_offset
            && index_len(self.wdl_blocks).and_then(|l| l.checked_add(self.wdl_index_offset))
                == Some(self.distance_index_offset)
            && index_len(self.distance_blocks)
                .and_then(|l| l.checked_add(self.distance_index_offset))
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
            Section::Wdl => (self.wdl_block_boards as u64, self.wdl_width, self.boards),
            Section::Distance => (
                self.distance_block_entries(),
                self.distance_width,
                self.distance_entries(),
            ),
        };
        let start = block * per;
        (items - start).min(per) * width as u64
    }

    /// Blocks in `section`.
    pub fn blocks(&self, section: Section) -> u64 {
        match section {
            Section::Wdl => self.wdl_blocks,
            Section::Distance => self.distance_blocks,
        }
    }

    /// Entries of the distance section: one a position for DTM, one a won
    /// or lost position for DTC (`n` a board: every board has one draw),
    /// none in a table without distances.
    pub fn distance_entries(&self) -> u64 {
        if !self.contents.has_distances() {
            return 0;
        }
        let units = match self.metric {
            Metric::Dtm => self.positions,
            Metric::Dtc => self.boards,
        };
        distance_entries_of(self.metric, self.stones, units)
    }

    /// Entries of a full distance block: `distance_block_positions` for DTM,
    /// `distance_block_positions * n` for DTC.
    pub fn distance_block_entries(&self) -> u64 {
        distance_entries_of(
            self.metric,
            self.stones,
            self.distance_block_positions as u64,
        )
    }

    /// The longest distance of any position.
    pub fn longest(&self) -> u32 {
        self.longest_win.max(self.longest_loss)
    }
}

/// The header's code of a metric (byte 42).
fn metric_code(metric: Metric) -> u8 {
    match metric {
        Metric::Dtm => METRIC_DTM,
        Metric::Dtc => METRIC_DTC,
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
    pub(crate) fn from_bytes(b: &[u8]) -> BlockEntry {
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
///
/// # Errors
///
/// [`TableError::Io`] if the file cannot be read; as [`Header::parse`];
/// [`TableError::Truncated`] or [`TableError::TrailingBytes`] if the file
/// length differs from the header's.
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

pub(crate) fn check_file_length(header: &Header, len: u64, path: &Path) -> Result<(), TableError> {
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
