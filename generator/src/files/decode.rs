//! Whole-table tools over the reader's [`TableFile`]: decoding every value
//! into memory (resume, verify, stats) and checking every checksum, in
//! parallel. They live here, not in `togyz-tb`, because only the
//! generator needs them and they need rayon.
//!
//! A range is cut at the distance blocks, each piece decoded by its
//! table's metric (`piece.rs`); a DTC table's losses, which it does not
//! store, are then recovered a unit at a time
//! ([`crate::files::recover`]).

mod piece;

use std::io;
use std::ops::Range;
use std::sync::Arc;

use crate::files::recover::recover_losses;
use crate::files::splits::{config_splits, SplitsError};
use crate::solve::cells::{Cell, ConfigValues, LevelValues};
use crate::solve::unit::{level_units, UnitId};
use piece::{block_positions, decode_piece, Scratch};
use rayon::prelude::*;
use togyz_tb::raw::format::{wdl_at, Section, TableFile};
use togyz_tb::raw::index::CONFIG_COUNT;
use togyz_tb::TableError;
use togyz_tb::{Metric, Value, Wdl};

/// The generator's whole-table operations on a [`TableFile`] (import the
/// trait to call them as methods).
pub trait DecodeAll {
    /// The packed values ([`Value::pack`](togyz_tb::Value::pack)) of the
    /// whole table in index order, decoded in parallel over DTM blocks.
    ///
    /// # Errors
    ///
    /// [`TableError`] for a damaged block or an allocation that fails.
    fn decode_all(&self) -> Result<Vec<u16>, TableError>;

    /// Whether every packed value of the table fits one byte (its longest
    /// distance is at most 126 plies), so [`DecodeAll::decode_all_narrow`]
    /// can hold it in half the memory.
    fn fits_in_bytes(&self) -> bool;

    /// [`DecodeAll::decode_all`] into one byte a position.
    ///
    /// # Errors
    ///
    /// As [`DecodeAll::decode_all`], and an error unless
    /// [`DecodeAll::fits_in_bytes`].
    fn decode_all_narrow(&self) -> Result<Vec<u8>, TableError>;

    /// The packed values of the entries in `range` (index order), in
    /// one-byte cells when [`DecodeAll::fits_in_bytes`]: what the solver
    /// reads of a configuration it needs without holding the whole level.
    ///
    /// # Errors
    ///
    /// As [`DecodeAll::decode_all`]; a range past the table's end is
    /// [`TableError::OutOfRange`].
    fn decode_range(&self, range: Range<u64>) -> Result<LevelValues, TableError>;

    /// [`DecodeAll::decode_range`] over the entries of one tuzdyk
    /// configuration (its boards in rank order, every kazan split): what a
    /// unit reads of a level at a time.
    ///
    /// # Errors
    ///
    /// As [`DecodeAll::decode_range`].
    fn decode_config(&self, config: usize) -> Result<LevelValues, TableError>;

    /// The entries of each configuration of `unit` (a configuration and
    /// its swap), decoded once: what verify and stats read of a level at
    /// a time. A DTC table's losses are recovered from its wins
    /// ([`crate::files::recover::recover_losses`]) within the unit; a
    /// table without distances (a WDL table) is held a draw split a board
    /// ([`UnitValues::Splits`]), a byte a board and not a position.
    ///
    /// # Errors
    ///
    /// As [`DecodeAll::decode_range`]; [`TableError::BadEntry`] naming a
    /// loss of a DTC table that one ply does not recover.
    fn decode_unit(&self, unit: UnitId) -> Result<Vec<(usize, UnitValues)>, TableError>;

    /// Checks the checksum of everything after the header, then every
    /// block's checksum (in parallel). Does not decompress.
    ///
    /// # Errors
    ///
    /// The first mismatch or read error found.
    fn verify_checksums(&self) -> Result<(), TableError>;
}

impl DecodeAll for TableFile {
    fn decode_all(&self) -> Result<Vec<u16>, TableError> {
        let mut all = decode_cells(self, 0..self.header().positions, Some)?;
        recover_level(self, &mut all)?;
        Ok(all)
    }

    fn fits_in_bytes(&self) -> bool {
        self.header().longest() <= 126
    }

    fn decode_all_narrow(&self) -> Result<Vec<u8>, TableError> {
        let mut all = decode_cells(self, 0..self.header().positions, |v| u8::try_from(v).ok())?;
        recover_level(self, &mut all)?;
        Ok(all)
    }

    fn decode_config(&self, config: usize) -> Result<LevelValues, TableError> {
        let mut parts = self.decode_unit(UnitId::of(config))?;
        let at = parts
            .iter()
            .position(|(id, _)| *id == config)
            .expect("a unit holds the configurations it was made of");
        Ok(parts.swap_remove(at).1.into_values())
    }

    fn decode_unit(&self, unit: UnitId) -> Result<Vec<(usize, UnitValues)>, TableError> {
        if !self.header().contents.has_distances() {
            let stones = self.header().stones;
            return unit
                .configs()
                .into_iter()
                .map(|id| {
                    let splits = config_splits_of(self, id)?;
                    Ok((id, UnitValues::Splits { stones, splits }))
                })
                .collect();
        }
        let layout = self.layout();
        let range = |id: usize| {
            let first = layout.index_at(layout.global_board(id, 0), 0);
            first..first + layout.config_boards(id) * layout.kazans()
        };
        let mut parts = Vec::new();
        for id in unit.configs() {
            parts.push((id, decode_stored(self, range(id))?));
        }
        if self.metric() == Metric::Dtc {
            let n = self.header().stones;
            let recovered = match &mut parts[..] {
                [(a, LevelValues::Narrow(x))] => recover_losses(n, &mut [(*a, &mut x[..])]),
                [(a, LevelValues::Wide(x))] => recover_losses(n, &mut [(*a, &mut x[..])]),
                [(a, LevelValues::Narrow(x)), (b, LevelValues::Narrow(y))] => {
                    recover_losses(n, &mut [(*a, &mut x[..]), (*b, &mut y[..])])
                }
                [(a, LevelValues::Wide(x)), (b, LevelValues::Wide(y))] => {
                    recover_losses(n, &mut [(*a, &mut x[..]), (*b, &mut y[..])])
                }
                _ => unreachable!("one or two configurations, decoded in the same cells"),
            };
            recovered.map_err(|e| e.into_table_error(self))?;
        }
        Ok(parts
            .into_iter()
            .map(|(id, v)| (id, UnitValues::Values(v)))
            .collect())
    }

    fn decode_range(&self, range: Range<u64>) -> Result<LevelValues, TableError> {
        if self.metric() == Metric::Dtm || range.is_empty() {
            return decode_stored(self, range);
        }
        check_range(self, &range)?;
        // The units the range touches, decoded whole for their losses.
        let layout = self.layout();
        let kazans = layout.kazans();
        let mut units: Vec<UnitId> = (layout.config_of(range.start / kazans)
            ..=layout.config_of((range.end - 1) / kazans))
            .map(UnitId::of)
            .collect();
        units.sort_by_key(|u| u.first);
        units.dedup();
        let mut out: Vec<u16> = vec![0; (range.end - range.start) as usize];
        for unit in units {
            for (id, values) in self.decode_unit(unit)? {
                let first = layout.index_at(layout.global_board(id, 0), 0);
                let from = first.max(range.start);
                let to = (first + values.len() as u64).min(range.end);
                for i in from..to {
                    out[(i - range.start) as usize] = values.get((i - first) as usize);
                }
            }
        }
        Ok(if self.fits_in_bytes() {
            LevelValues::Narrow(out.into_iter().map(|v| v as u8).collect())
        } else {
            LevelValues::Wide(out)
        })
    }

    fn verify_checksums(&self) -> Result<(), TableError> {
        self.check_body()?;
        for section in [Section::Wdl, Section::Distance] {
            (0..self.header().blocks(section))
                .into_par_iter()
                .try_for_each(|b| self.check_block(section, b))?;
        }
        Ok(())
    }
}

/// A result as a value without a distance (`Win(0)`, `Draw`, `Loss(0)`):
/// how a WDL table's entries are decoded, and what `verify` holds them to.
pub(crate) fn result_only(w: Wdl) -> Value {
    match w {
        Wdl::Win => Value::Win(0),
        Wdl::Draw => Value::Draw,
        Wdl::Loss => Value::Loss(0),
    }
}

/// The draw splits of configuration `config` of a WDL table, a byte a
/// board.
fn config_splits_of(file: &TableFile, config: usize) -> Result<Vec<u8>, TableError> {
    config_splits(file, config).map_err(|e| match e {
        SplitsError::Table(e) => e,
        // A DTC table's entry is one split by its format.
        SplitsError::Score(e) => unreachable!("a WDL table's entries are splits: {e}"),
    })
}

/// One configuration's entries as [`DecodeAll::decode_unit`] gives them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnitValues {
    /// Packed values, a cell a position.
    Values(LevelValues),
    /// A table without distances: a draw split a board, each position's
    /// entry its result alone (a win, draw or loss without a distance)
    /// at its kazan offset.
    Splits {
        /// Stones on the board (`stones + 1` positions a board).
        stones: u32,
        /// A draw split a board, in rank order.
        splits: Vec<u8>,
    },
}

impl UnitValues {
    /// Positions held.
    pub fn len(&self) -> usize {
        match self {
            UnitValues::Values(v) => v.len(),
            UnitValues::Splits { stones, splits } => splits.len() * (*stones as usize + 1),
        }
    }

    /// Whether no position is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The packed value at `index` (board `index / (stones + 1)`, kazan
    /// offset the rest).
    #[inline]
    pub fn get(&self, index: usize) -> u16 {
        match self {
            UnitValues::Values(v) => v.get(index),
            UnitValues::Splits { stones, splits } => {
                let k = *stones as usize + 1;
                split_result(splits[index / k], (index % k) as u32)
            }
        }
    }

    /// The entries of the board of rank `rank` at level `n`, every kazan
    /// offset: what a check reads of a board in its inner loop, with no
    /// division there.
    #[inline]
    pub fn board(&self, n: u32, rank: u64) -> BoardValues<'_> {
        match self {
            UnitValues::Values(v) => {
                let k = n as usize + 1;
                let first = rank as usize * k;
                match v.part(first..first + k) {
                    ConfigValues::Narrow(b) => BoardValues::Narrow(b),
                    ConfigValues::Wide(b) => BoardValues::Wide(b),
                }
            }
            UnitValues::Splits { stones, splits } => {
                debug_assert_eq!(*stones, n);
                BoardValues::Split(splits[rank as usize])
            }
        }
    }

    /// The packed values, a cell a position (a WDL table's expanded: a
    /// byte a position).
    pub fn into_values(self) -> LevelValues {
        match self {
            UnitValues::Values(v) => v,
            UnitValues::Splits { stones, splits } => {
                let mut out = Vec::with_capacity(splits.len() * (stones as usize + 1));
                for s in splits {
                    out.extend((0..=stones).map(|j| split_result(s, j) as u8));
                }
                LevelValues::Narrow(out)
            }
        }
    }
}

/// One board's entries, every kazan offset ([`UnitValues::board`]).
#[derive(Clone, Copy, Debug)]
pub enum BoardValues<'a> {
    /// One byte a position.
    Narrow(&'a [u8]),
    /// Two bytes a position.
    Wide(&'a [u16]),
    /// The board's draw split.
    Split(u8),
}

impl BoardValues<'_> {
    /// The packed value at kazan offset `j`.
    #[inline]
    pub fn get(self, j: u32) -> u16 {
        match self {
            BoardValues::Narrow(b) => b[j as usize] as u16,
            BoardValues::Wide(b) => b[j as usize],
            BoardValues::Split(s) => split_result(s, j),
        }
    }
}

/// The packed [`result_only`] value at kazan offset `j` of a board whose
/// draw split is `split`.
#[inline]
fn split_result(split: u8, j: u32) -> u16 {
    let t = (split as u32, split as u32 + 1);
    result_only(wdl_at(t, j)).pack().expect("no distance")
}

/// Reads a whole DTM table back, in one-byte cells when it fits.
///
/// # Errors
///
/// [`TableError::WrongMetric`] for a DTC table; a damaged block.
pub fn load_level(table: &TableFile) -> Result<LevelValues, TableError> {
    // A DTM solve or check needs the distances to the end below.
    table.require_metric(Metric::Dtm)?;
    table.decode_range(0..table.header().positions)
}

/// The stored entries of `range`, a DTC table's losses left
/// [`UNRECOVERED`](crate::files::recover::UNRECOVERED), in one-byte cells when
/// [`DecodeAll::fits_in_bytes`].
fn decode_stored(file: &TableFile, range: Range<u64>) -> Result<LevelValues, TableError> {
    if file.fits_in_bytes() {
        decode_cells(file, range, |v| u8::try_from(v).ok()).map(LevelValues::Narrow)
    } else {
        decode_cells(file, range, Some).map(LevelValues::Wide)
    }
}

/// Recovers the losses of a whole decoded DTC level (nothing for DTM),
/// unit by unit.
fn recover_level<T: Cell>(file: &TableFile, all: &mut [T]) -> Result<(), TableError> {
    if file.metric() != Metric::Dtc {
        return Ok(());
    }
    let n = file.header().stones;
    let layout = file.layout();
    let mut configs: Vec<Option<&mut [T]>> = Vec::with_capacity(CONFIG_COUNT);
    let mut rest = all;
    for id in 0..CONFIG_COUNT {
        let len = (layout.config_boards(id) * layout.kazans()) as usize;
        let (part, tail) = std::mem::take(&mut rest).split_at_mut(len);
        configs.push(Some(part));
        rest = tail;
    }
    for unit in level_units(n) {
        let mut parts: Vec<(usize, &mut [T])> = unit
            .configs()
            .into_iter()
            .map(|id| {
                (
                    id,
                    configs[id].take().expect("each configuration in one unit"),
                )
            })
            .collect();
        recover_losses(n, &mut parts).map_err(|e| e.into_table_error(file))?;
    }
    Ok(())
}

/// Decodes the entries in `range` (either metric) and stores `cell(packed)`
/// for each, in parallel over the distance blocks the range covers; a
/// `None` is an error (a value the cells cannot hold).
fn decode_cells<T: Copy + Default + Send + Sync>(
    file: &TableFile,
    range: Range<u64>,
    cell: impl Fn(u16) -> Option<T> + Sync,
) -> Result<Vec<T>, TableError> {
    check_range(file, &range)?;
    let out_of_memory = |detail: String| TableError::Io {
        path: file.path().to_path_buf(),
        source: Arc::new(io::Error::new(io::ErrorKind::OutOfMemory, detail)),
    };
    let len = usize::try_from(range.end - range.start)
        .map_err(|_| out_of_memory("table too large for this machine's address space".into()))?;
    // A fallible reservation: a damaged header that passed its checks
    // must not abort the process by asking for too much memory.
    let mut out = Vec::new();
    out.try_reserve_exact(len)
        .map_err(|e| out_of_memory(e.to_string()))?;
    out.resize(len, T::default());
    let per = block_positions(file);
    // The output cut at distance block boundaries: (first entry, cells).
    let mut pieces: Vec<(u64, &mut [T])> = Vec::new();
    let mut rest = out.as_mut_slice();
    let mut first = range.start;
    while !rest.is_empty() {
        let take = ((first / per + 1) * per - first).min(rest.len() as u64) as usize;
        let (piece, tail) = rest.split_at_mut(take);
        pieces.push((first, piece));
        first += take as u64;
        rest = tail;
    }
    pieces
        .into_par_iter()
        .try_for_each_init(Scratch::default, |s, (first, chunk)| {
            decode_piece(file, s, first, chunk, &cell)
        })?;
    Ok(out)
}

/// An error unless `range` lies within the table.
fn check_range(file: &TableFile, range: &Range<u64>) -> Result<(), TableError> {
    if range.start > range.end || range.end > file.header().positions {
        let kazans = file.layout().kazans();
        return Err(TableError::OutOfRange {
            path: file.path().to_path_buf(),
            board: range.end / kazans,
            kazan: (range.end % kazans) as u32,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit held a draw split a board reads, position by position, the
    /// results its expansion to a byte a position holds: losses below the
    /// split, a draw at it, wins above (a split past the stones: no draw,
    /// every offset a loss).
    #[test]
    fn draw_splits_read_as_the_results_they_expand_to() {
        let stones = 3;
        let splits = vec![0, 2, 4, 3];
        let held = UnitValues::Splits {
            stones,
            splits: splits.clone(),
        };
        assert_eq!(held.len(), 16);
        let expanded = held.clone().into_values();
        assert_eq!(expanded.len(), 16);
        let [win, draw, loss] =
            [Value::Win(0), Value::Draw, Value::Loss(0)].map(|v| v.pack().unwrap());
        let want = [
            [draw, win, win, win],
            [loss, loss, draw, win],
            [loss, loss, loss, loss],
            [loss, loss, loss, draw],
        ];
        for (board, row) in want.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                let i = board * 4 + j;
                assert_eq!(held.get(i), v, "board {board} offset {j}");
                assert_eq!(expanded.get(i), v, "board {board} offset {j}");
            }
        }
        let values = UnitValues::Values(LevelValues::Narrow(vec![1, 2]));
        assert_eq!((values.len(), values.get(1)), (2, 2));
        assert_eq!(values.into_values(), LevelValues::Narrow(vec![1, 2]));
    }
}
