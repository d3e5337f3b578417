//! The table file format: one file per stone count, read through a memory
//! map.
//!
//! `docs/format.md` is the byte-level specification; this module is its
//! reader (and holds the pieces the generator's writer shares with it: the
//! header codec, the threshold packing and the block geometry).
//!
//! A file is `header | WDL data | distance data | WDL block index |
//! distance block index`. The header names the metric of the distances.
//! In a DTM table the WDL section stores, per board, the two kazan
//! thresholds where the result turns from loss to draw and from draw to win
//! (the result is monotone along the kazan axis), and the distance section
//! the distance to the end in plies of every position. In a DTC table the
//! WDL section stores one draw split a board (`docs/dtc.md`) and the
//! distance section the distance to conversion of every won position (a
//! loss's is one ply of search over them, [`loss_dtc`]). Both are cut into fixed-size blocks, each
//! compressed with zstd and checksummed with xxh3-64, so a WDL probe never
//! touches distance data.
//!
//! Every malformed file is an error ([`TableError`], naming the file), never a
//! panic and never a wrong answer: the header, the block index, every block
//! and the whole file carry checksums, and every read is bounds-checked.

use std::fmt;

use crate::value::{Metric, Wdl};

pub(crate) mod error;
pub(crate) mod file;
mod header;
mod loss;

// At the crate's root only (`togyz_tb::TableError`, `Backend`).
pub(crate) use error::TableError;
pub(crate) use file::Backend;
pub use file::{Stored, TableFile};
pub use header::{read_header, BlockEntry, Header};
pub use loss::loss_dtc;

/// The first eight bytes of every table file.
pub const MAGIC: [u8; 8] = *b"TOGYZKTB";
/// The format version of DTM tables (the only version before DTC tables
/// stored their wins alone).
pub const FORMAT_VERSION_DTM: u32 = 1;
/// The format version of DTC tables: their distance section holds the
/// wins alone, a loss's DTC being one ply of search over them
/// (`docs/format.md`, "DTC tables"). Version 1 DTC tables, which stored
/// the losses too, are refused: the same bytes read the new way would
/// give wrong answers.
pub const FORMAT_VERSION_DTC: u32 = 2;

/// The format version written and read for tables of `metric`.
pub const fn format_version(metric: Metric) -> u32 {
    match metric {
        Metric::Dtm => FORMAT_VERSION_DTM,
        Metric::Dtc => FORMAT_VERSION_DTC,
    }
}
/// The rules variant of docs/rules.md: PlayStrategy's rules with automatic
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
pub const DISTANCE_BLOCK_POSITIONS: u32 = 65536;
/// Header byte 42 of a DTM table (also every table written before the
/// byte was given a meaning, when it was reserved and zero).
pub const METRIC_DTM: u8 = 0;
/// Header byte 42 of a DTC table.
pub const METRIC_DTC: u8 = 1;
/// Header byte 43 of a WDL table (bit 0: no distance section; bit 1: only
/// the boards with a tuzdyk). 0 is a table of every position's value.
pub const CONTENTS_WDL: u8 = 3;
/// The WDL entry of a board a table does not hold (a board without a
/// tuzdyk in a WDL table).
pub const ABSENT_SPLIT: u8 = u8::MAX;

/// What a table holds (header byte 43, `docs/format.md`, "WDL tables"):
/// every position's value, or the win/draw/loss alone of the positions
/// with a tuzdyk. Only DTC tables, whose WDL section is one draw split a
/// board, come without distances. The two go together: where no position
/// repeats (a tuzdyk stands) a position's result is the best of its
/// moves' and nothing else, so `verify` checks such a table without
/// distances; where positions repeat it could not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Contents {
    /// Every position's value: the tables written before byte 43 had a
    /// meaning.
    #[default]
    Full,
    /// A WDL table: no distance section, and the boards without a tuzdyk
    /// left out (once a tuzdyk stands it stays, so a search from a
    /// position with one never needs them).
    Wdl,
}

impl Contents {
    /// Header byte 43.
    pub fn code(self) -> u8 {
        match self {
            Contents::Full => 0,
            Contents::Wdl => CONTENTS_WDL,
        }
    }

    /// The contents of header byte 43, `None` for a code this reader does
    /// not know.
    pub fn from_code(code: u8) -> Option<Contents> {
        match code {
            0 => Some(Contents::Full),
            CONTENTS_WDL => Some(Contents::Wdl),
            _ => None,
        }
    }

    /// Whether the table holds distances.
    #[inline]
    pub fn has_distances(self) -> bool {
        self == Contents::Full
    }

    /// Whether the table holds the boards of tuzdyk configuration `config`.
    #[inline]
    pub fn holds_config(self, config: usize) -> bool {
        self == Contents::Full || config != 0
    }

    /// The boards of an `n`-stone table of these contents that it does
    /// not hold (the first ones: the configuration without a tuzdyk has id
    /// 0).
    pub fn absent_boards(self, layout: &crate::raw::index::Layout) -> u64 {
        match self {
            Contents::Full => 0,
            Contents::Wdl => layout.config_boards(0),
        }
    }
}

impl fmt::Display for Contents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Contents::Full => "every position's value",
            Contents::Wdl => "win/draw/loss of the positions with a tuzdyk",
        })
    }
}

/// Boards per WDL block of a DTC table (one byte a board).
pub const DTC_WDL_BLOCK_BOARDS: u32 = 65536;
/// Boards per distance block of a DTC table (each holds its boards' wins,
/// padded to `n` entries a board; a divisor of [`DTC_WDL_BLOCK_BOARDS`]).
pub const DTC_BLOCK_BOARDS: u32 = 32768;
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

/// Bytes of a WDL entry of a `metric` table of `n` stones: a board's two
/// thresholds for DTM ([`wdl_width_for`]), its draw split (one byte) for
/// DTC. The reader checks and the writer writes this one width.
pub fn wdl_entry_width(metric: Metric, n: u32) -> u8 {
    match metric {
        Metric::Dtm => wdl_width_for(n),
        Metric::Dtc => 1,
    }
}

/// Distance entries that `units` units of a distance section hold at `n`
/// stones: a unit is a position for DTM; for DTC a board, which stores
/// its `n` decisive positions (every board has one draw).
pub fn distance_entries_of(metric: Metric, n: u32, units: u64) -> u64 {
    match metric {
        Metric::Dtm => units,
        Metric::Dtc => units * n as u64,
    }
}

/// Positions that `units` units of a distance section cover at `n`
/// stones (a DTC board holds `n + 1`).
pub fn distance_positions_of(metric: Metric, n: u32, units: u64) -> u64 {
    match metric {
        Metric::Dtm => units,
        Metric::Dtc => units * (n as u64 + 1),
    }
}

/// Whether distance blocks of `per` units nest in WDL blocks of
/// `wdl_boards` boards as the reader needs: a DTC distance block's boards
/// lie in one WDL block (a size of 0 is refused elsewhere). Written
/// without `is_multiple_of`, which is newer than this crate's MSRV.
pub fn blocks_nest(metric: Metric, wdl_boards: u32, per: u32) -> bool {
    metric != Metric::Dtc || per == 0 || wdl_boards / per * per == wdl_boards
}

/// Bytes per DTM entry for a table whose longest distance is `max_distance`
/// plies: one up to 255, else two.
pub fn distance_width_for(max_distance: u32) -> u8 {
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
    /// Distances in plies (DTM: one entry a position; DTC: one a won or
    /// lost position).
    Distance,
}

impl Section {
    /// `0` for WDL, `1` for distances (used in cache keys).
    pub fn id(self) -> u8 {
        match self {
            Section::Wdl => 0,
            Section::Distance => 1,
        }
    }
}

impl fmt::Display for Section {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Section::Wdl => "WDL",
            Section::Distance => "distance",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raw::index::MAX_STONES;

    #[test]
    fn contents_codes_round_trip_and_unknown_ones_are_refused() {
        assert_eq!(Contents::from_code(0), Some(Contents::Full));
        assert_eq!(Contents::from_code(3), Some(Contents::Wdl));
        for c in [Contents::Full, Contents::Wdl] {
            assert_eq!(Contents::from_code(c.code()), Some(c));
        }
        // One flag without the other, or a bit this reader does not know.
        for code in [1, 2, 4, 7, 0x80] {
            assert_eq!(Contents::from_code(code), None, "{code}");
        }
        let layout = crate::raw::index::Layout::new(5);
        assert_eq!(Contents::Full.absent_boards(&layout), 0);
        assert_eq!(
            Contents::Wdl.absent_boards(&layout),
            layout.config_boards(0)
        );
        assert!(Contents::Full.holds_config(0) && !Contents::Wdl.holds_config(0));
        assert!(Contents::Wdl.holds_config(1) && Contents::Wdl.holds_config(72));
        assert!(Contents::Full.has_distances() && !Contents::Wdl.has_distances());
    }

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
        assert_eq!(distance_width_for(255), 1);
        assert_eq!(distance_width_for(256), 2);
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
