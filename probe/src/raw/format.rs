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
/// Header byte 43 of a WDL table of some games' tuzdyk pairs (bit 2: only
/// the boards of the pairs that header bytes 52..56 name).
pub const CONTENTS_PAIRS: u8 = 7;
/// The WDL entry of a board a table does not hold (a board without a
/// tuzdyk in a WDL table).
pub const ABSENT_SPLIT: u8 = u8::MAX;

/// The tuzdyk pairs of a game with both tuzdyks (`docs/format.md`, "WDL
/// tables of some tuzdyk pairs"): bit `k` of the mask is the pair of
/// holes `{a, b}` (`a < b`, `0..8`, one tuzdyk in each row) that
/// [`TuzdykPairs::bit`] numbers `k`. Once both tuzdyks stand, a game stays
/// in its pair, whoever moves: a pair's positions are those of two
/// configurations, one the other's swap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TuzdykPairs(u32);

impl TuzdykPairs {
    /// The number of pairs: two of the eight holes a tuzdyk may take.
    pub const COUNT: u32 = 28;

    /// Every pair.
    pub const ALL: TuzdykPairs = TuzdykPairs((1 << Self::COUNT) - 1);

    /// The pairs of mask `mask`, `None` if it names a pair that does not
    /// exist or none.
    pub fn from_mask(mask: u32) -> Option<TuzdykPairs> {
        (mask != 0 && mask >> Self::COUNT == 0).then_some(TuzdykPairs(mask))
    }

    /// The mask (header bytes 52..56).
    pub fn mask(self) -> u32 {
        self.0
    }

    /// The bit of the pair of holes `{a, b}` (0-based, `a != b`, both below
    /// 8), `None` otherwise.
    pub fn bit(a: u8, b: u8) -> Option<u32> {
        let (lo, hi) = (a.min(b) as u32, a.max(b) as u32);
        // Pairs (0, 1..8), (1, 2..8), ...: 7 + 6 + ... before `lo`.
        (lo != hi && hi < 8).then(|| lo * (15 - lo) / 2 + hi - lo - 1)
    }

    /// The bit of tuzdyk configuration `config`'s pair, `None` unless
    /// both tuzdyks stand.
    #[inline]
    pub fn config_bit(config: usize) -> Option<u32> {
        let c = crate::raw::index::TuzdykConfig::from_id(config);
        Self::bit(c.mover?, c.opponent?)
    }

    /// Whether configuration `config` is one of these pairs'.
    #[inline]
    pub fn holds_config(self, config: usize) -> bool {
        Self::config_bit(config).is_some_and(|k| self.0 >> k & 1 == 1)
    }

    /// The pairs as holes `(a, b)`, 1-based as in notation, `a < b`.
    fn holes(self) -> impl Iterator<Item = (u8, u8)> {
        (0..8u8)
            .flat_map(|a| (a + 1..8).map(move |b| (a, b)))
            .filter(move |&(a, b)| Self::bit(a, b).is_some_and(|k| self.0 >> k & 1 == 1))
            .map(|(a, b)| (a + 1, b + 1))
    }
}

impl fmt::Display for TuzdykPairs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (a, b)) in self.holes().enumerate() {
            write!(f, "{}{a}-{b}", if i > 0 { "," } else { "" })?;
        }
        Ok(())
    }
}

impl std::str::FromStr for TuzdykPairs {
    type Err = String;

    /// Pairs of holes as [`TuzdykPairs`] shows them: `3-6,4-7`, each two
    /// different holes of 1 to 8 in either order; `all` for the 28.
    fn from_str(s: &str) -> Result<TuzdykPairs, String> {
        if s.trim() == "all" {
            return Ok(TuzdykPairs::ALL);
        }
        let mut mask = 0u32;
        for part in s.split(',').map(str::trim) {
            let hole = |h: Option<&str>| {
                h.and_then(|h| h.trim().parse::<u8>().ok())
                    .filter(|h| (1..=8).contains(h))
            };
            let mut holes = part.split('-');
            let bit = match (hole(holes.next()), hole(holes.next()), holes.next()) {
                (Some(a), Some(b), None) => TuzdykPairs::bit(a - 1, b - 1),
                _ => None,
            };
            match bit {
                Some(k) => mask |= 1 << k,
                None => {
                    return Err(format!(
                        "{part:?} is not a pair of tuzdyk holes: two different holes of 1 to 8 \
                         joined by '-', such as 3-6 (a tuzdyk is never in hole 9)"
                    ))
                }
            }
        }
        TuzdykPairs::from_mask(mask).ok_or_else(|| "no pair of tuzdyk holes given".to_string())
    }
}

/// What a table holds (header byte 43, `docs/format.md`, "WDL tables"):
/// every position's value, or the win/draw/loss alone of the positions
/// with a tuzdyk, or of those of some pairs of tuzdyks. Only DTC tables,
/// whose WDL section is one draw split a board, come without distances.
/// The two go together: where no position repeats (a tuzdyk stands) a
/// position's result is the best of its moves' and nothing else, so
/// `verify` checks such a table without distances; where positions
/// repeat it could not.
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
    /// A WDL table of the positions with both tuzdyks in one of these
    /// pairs of holes: a search from such a position needs no other.
    Pairs(TuzdykPairs),
}

impl Contents {
    /// Header byte 43.
    pub fn code(self) -> u8 {
        match self {
            Contents::Full => 0,
            Contents::Wdl => CONTENTS_WDL,
            Contents::Pairs(_) => CONTENTS_PAIRS,
        }
    }

    /// Header bytes 52..56: the mask of the pairs held, else 0.
    pub fn pairs_mask(self) -> u32 {
        match self {
            Contents::Pairs(p) => p.mask(),
            _ => 0,
        }
    }

    /// The contents of header byte 43 and bytes 52..56, `None` for a code
    /// this reader does not know, or a mask where none belongs or that is
    /// not one of pairs.
    pub fn from_code(code: u8, mask: u32) -> Option<Contents> {
        match (code, mask) {
            (0, 0) => Some(Contents::Full),
            (CONTENTS_WDL, 0) => Some(Contents::Wdl),
            (CONTENTS_PAIRS, m) => TuzdykPairs::from_mask(m).map(Contents::Pairs),
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
        match self {
            Contents::Full => true,
            Contents::Wdl => config != 0,
            Contents::Pairs(p) => p.holds_config(config),
        }
    }

    /// Whether every configuration these contents hold, `other` holds:
    /// what a table's positions reach in the smaller levels is of their
    /// own configurations or, for a WDL table, others with a tuzdyk.
    pub fn within(self, other: Contents) -> bool {
        (0..crate::raw::index::CONFIG_COUNT).all(|c| !self.holds_config(c) || other.holds_config(c))
    }

    /// The boards of an `n`-stone table of these contents that it holds.
    pub fn held_boards(self, layout: &crate::raw::index::Layout) -> u64 {
        (0..crate::raw::index::CONFIG_COUNT)
            .filter(|&c| self.holds_config(c))
            .map(|c| layout.config_boards(c))
            .sum()
    }
}

impl fmt::Display for Contents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Contents::Full => f.write_str("every position's value"),
            Contents::Wdl => f.write_str("win/draw/loss of the positions with a tuzdyk"),
            Contents::Pairs(p) => write!(
                f,
                "win/draw/loss of the positions with tuzdyks in holes {p}"
            ),
        }
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
        assert_eq!(Contents::from_code(0, 0), Some(Contents::Full));
        assert_eq!(Contents::from_code(3, 0), Some(Contents::Wdl));
        let pairs: TuzdykPairs = "3-6".parse().unwrap();
        for c in [Contents::Full, Contents::Wdl, Contents::Pairs(pairs)] {
            assert_eq!(Contents::from_code(c.code(), c.pairs_mask()), Some(c));
        }
        // One flag without the other, a bit this reader does not know, a
        // mask where none belongs, none or one past the pairs.
        for (code, mask) in [
            (1, 0),
            (2, 0),
            (4, 0),
            (0x80, 0),
            (0, 1),
            (3, 1),
            (7, 0),
            (7, 1 << 28),
        ] {
            assert_eq!(Contents::from_code(code, mask), None, "{code} {mask}");
        }
        let layout = crate::raw::index::Layout::new(5);
        assert_eq!(Contents::Full.held_boards(&layout), layout.boards());
        assert_eq!(
            Contents::Wdl.held_boards(&layout),
            layout.boards() - layout.config_boards(0)
        );
        assert!(Contents::Full.holds_config(0) && !Contents::Wdl.holds_config(0));
        assert!(Contents::Wdl.holds_config(1) && Contents::Wdl.holds_config(72));
        assert!(Contents::Full.has_distances() && !Contents::Wdl.has_distances());
        assert!(!Contents::Pairs(pairs).has_distances());
    }

    #[test]
    fn tuzdyk_pairs_number_the_28_pairs_and_hold_a_configuration_with_its_swap() {
        use crate::raw::index::{TuzdykConfig, CONFIG_COUNT};
        let mut seen = 0u32;
        for a in 0..8 {
            for b in 0..8 {
                let bit = TuzdykPairs::bit(a, b);
                assert_eq!(bit.is_some(), a != b);
                assert_eq!(bit, TuzdykPairs::bit(b, a));
                if let Some(k) = bit {
                    assert!(k < TuzdykPairs::COUNT);
                    seen |= 1 << k;
                }
            }
        }
        assert_eq!(seen, (1 << TuzdykPairs::COUNT) - 1);
        assert_eq!(TuzdykPairs::bit(0, 8), None);
        let pairs: TuzdykPairs = "6-3".parse().unwrap();
        assert_eq!(pairs.mask(), 1 << TuzdykPairs::bit(2, 5).unwrap());
        assert_eq!(pairs.to_string(), "3-6");
        let held: Vec<usize> = (0..CONFIG_COUNT)
            .filter(|&c| pairs.holds_config(c))
            .collect();
        assert_eq!(held.len(), 2);
        let c = TuzdykConfig::from_id(held[0]);
        assert_eq!(c.swapped().id(), held[1]);
        let two =
            TuzdykPairs::from_mask(pairs.mask() | 1 << TuzdykPairs::bit(0, 7).unwrap()).unwrap();
        assert_eq!(two.to_string(), "1-8,3-6");
        assert_eq!("6-3, 8-1".parse::<TuzdykPairs>(), Ok(two));
        let all: TuzdykPairs = " all".parse().unwrap();
        assert_eq!(all, TuzdykPairs::ALL);
        assert_eq!(
            all.to_string().split(',').count(),
            TuzdykPairs::COUNT as usize
        );
        assert_eq!(all.to_string().parse::<TuzdykPairs>(), Ok(all));
        for bad in [
            "", "3", "3-3", "3-9", "0-2", "3-6-7", "a-b", "3-6,", "all,1-2", "All",
        ] {
            assert!(bad.parse::<TuzdykPairs>().is_err(), "{bad}");
        }
        let layout = crate::raw::index::Layout::new(4);
        assert_eq!(
            Contents::Pairs(two).held_boards(&layout),
            4 * layout.config_boards(held[0])
        );
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
