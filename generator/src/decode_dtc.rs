//! Decoding any range of a DTC table's positions, a distance block at a
//! time ([`crate::decode`] cuts the range at the blocks, runs them in
//! parallel and calls `dtc_piece` for DTC tables), and the draw splits
//! of any table as a [`WdlLevel`], which is all a DTC solve needs of the
//! levels below.

use std::ops::Range;

use rayon::prelude::*;
use togyz_probe::raw::format::{wdl_at, Section, TableError, TableFile};
use togyz_probe::{Metric, Value};

use crate::decode::{to_cell, Scratch};

use crate::score::{draw_split, ScoreError, WdlLevel};

/// Why a level's win/draw/loss could not be read as draw splits.
#[derive(Debug, thiserror::Error)]
pub enum SplitsError {
    /// The table is damaged or unreadable.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A board of the table is not one draw split.
    #[error(transparent)]
    Score(#[from] ScoreError),
}

/// The draw splits of every board of `file`, a DTM or a DTC table, read
/// from its WDL section alone.
///
/// # Errors
///
/// [`SplitsError::Table`] for a damaged block; [`SplitsError::Score`]
/// naming a board of a DTM table that is not one draw split.
pub fn wdl_level(file: &TableFile) -> Result<WdlLevel, SplitsError> {
    let h = file.header();
    Ok(WdlLevel::from_splits(h.stones, splits(file, 0..h.boards)?)?)
}

/// The draw splits of the boards of tuzdyk configuration `config` of
/// `file` (either metric), in rank order: what a unit's conversions read
/// of a smaller level.
///
/// # Errors
///
/// As [`wdl_level`].
pub fn config_splits(file: &TableFile, config: usize) -> Result<Vec<u8>, SplitsError> {
    let layout = file.layout();
    let first = layout.global_board(config, 0);
    splits(file, first..first + layout.config_boards(config))
}

/// The draw splits of global boards `boards` of `file`, in parallel over
/// the WDL blocks they lie in, each board checked to be one draw split.
fn splits(file: &TableFile, boards: Range<u64>) -> Result<Vec<u8>, SplitsError> {
    let h = file.header();
    let n = h.stones;
    let per = h.wdl_block_boards as u64;
    if boards.end > h.boards || boards.start > boards.end {
        return Err(TableError::OutOfRange {
            path: file.path().to_path_buf(),
            board: boards.end,
            kazan: 0,
        }
        .into());
    }
    let blocks: Vec<Vec<u8>> = (boards.start / per..boards.end.div_ceil(per))
        .into_par_iter()
        .map(|block| -> Result<Vec<u8>, SplitsError> {
            let data = file.read_block(Section::Wdl, block)?;
            let first = (block * per).max(boards.start);
            let end = ((block + 1) * per).min(boards.end);
            (first..end)
                .map(|gb| {
                    let at = (gb - block * per) as usize * h.wdl_width as usize;
                    let t = file.thresholds_in(&data, block, at)?;
                    let results = (0..=n).map(|j| wdl_at(t, j));
                    Ok(draw_split(n, gb, results)? as u8)
                })
                .collect()
        })
        .collect::<Result<_, _>>()?;
    Ok(blocks.concat())
}

/// Decodes the entries of DTC table `file` from position `first` on into
/// `out` (all within one distance block), stored as `cell(packed)`; a
/// `None` is an error. A part of a block is decoded as well as a whole
/// one: the splits before its first board say where its losses and wins
/// start (the entry formula of `docs/format.md`, "DTC tables").
///
/// # Errors
///
/// [`TableError`] for a damaged block or a value the cells cannot hold.
pub(crate) fn dtc_piece<T>(
    file: &TableFile,
    s: &mut Scratch,
    first: u64,
    out: &mut [T],
    cell: &impl Fn(u16) -> Option<T>,
) -> Result<(), TableError> {
    let h = file.header();
    debug_assert_eq!(h.metric, Metric::Dtc);
    let n = h.stones as u64;
    let k = n + 1;
    let per = h.dtm_block_positions as u64;
    let width = h.dtm_width as usize;
    let mut gb = first / k;
    let block = gb / per;
    // The block's boards, all in one WDL block (P divides B).
    let f = block * per;
    let boards = (h.boards - f).min(per);
    let (wb, at) = file.wdl_location(f);
    let wdl = s.wdl(file, wb)?;
    let splits = (0..boards as usize)
        .map(|i| Ok(file.thresholds_in(wdl, wb, at + i)?.0 as u64))
        .collect::<Result<Vec<u64>, TableError>>()?;
    file.read_block_into(Section::Dtm, block, &mut s.dtm)?;
    let total: u64 = splits.iter().sum();
    // Losses of the block's boards before `gb`.
    let mut losses = splits[..(gb - f) as usize].iter().sum::<u64>();
    let mut j = first % k;
    let mut i = 0;
    while i < out.len() {
        let split = splits[(gb - f) as usize];
        let wins = total + (gb - f) * n - losses;
        while j < k && i < out.len() {
            let v = if j == split {
                Value::Draw
            } else {
                let entry = if j < split {
                    losses + j
                } else {
                    wins + j - split - 1
                };
                let d = file.distance_in(&s.dtm, block, entry as usize * width)?;
                file.combine(wdl_at((split as u32, split as u32 + 1), j as u32), d, block)?
            };
            out[i] = to_cell(file, v, block, cell)?;
            i += 1;
            j += 1;
        }
        losses += split;
        gb += 1;
        j = 0;
    }
    Ok(())
}
