//! A table's win/draw/loss read as draw splits (`docs/dtc.md`), from its
//! WDL section alone, for either metric: all a DTC solve needs of the
//! levels below.

use std::ops::Range;

use rayon::prelude::*;
use togyz_tb::raw::format::{wdl_at, Section, TableFile, ABSENT_SPLIT};
use togyz_tb::raw::index::CONFIG_COUNT;
use togyz_tb::{Metric, TableError};

use crate::solve::score::{draw_split, ScoreError, WdlLevel};

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
    // The boards a WDL table does not hold are kept as their entries
    // ([`ABSENT_SPLIT`]) and never read.
    let layout = file.layout();
    let mut all = Vec::with_capacity(h.boards as usize);
    // Runs of configurations held are read in one pass each (a table of
    // every position is one run).
    let mut config = 0;
    while config < CONFIG_COUNT {
        let held = h.contents.holds_config(config);
        let first = layout.global_board(config, 0);
        while config < CONFIG_COUNT && h.contents.holds_config(config) == held {
            config += 1;
        }
        let end = layout.global_board(config, 0);
        if held {
            all.extend(splits(file, first..end)?);
        } else {
            all.resize(end as usize, ABSENT_SPLIT);
        }
    }
    Ok(WdlLevel::from_held_splits(h.stones, all, h.contents)?)
}

/// The draw splits of the boards of tuzdyk configuration `config` of
/// `file` (either metric), in rank order: what a unit's conversions read
/// of a smaller level.
///
/// # Errors
///
/// As [`wdl_level`]; [`TableError::NotHeld`] for the configuration
/// without a tuzdyk of a WDL table.
pub fn config_splits(file: &TableFile, config: usize) -> Result<Vec<u8>, SplitsError> {
    let layout = file.layout();
    let contents = file.header().contents;
    if !contents.holds_config(config) {
        return Err(TableError::NotHeld {
            path: file.path().to_path_buf(),
            contents,
        }
        .into());
    }
    let first = layout.global_board(config, 0);
    splits(file, first..first + layout.config_boards(config))
}

/// The draw splits of global boards `boards` of `file`, in parallel over
/// the WDL blocks they lie in, each board checked to be one draw split: a
/// DTC table's entry is one by its format (its reader checks that it is
/// at most the stone count), a DTM table's thresholds are checked here.
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
            let at = |gb: u64| (gb - block * per) as usize * h.wdl_width as usize;
            if h.metric == Metric::Dtc {
                // The entries are the splits, a byte each: taken as they
                // are when the reader would take each (else it names the
                // first it does not, below).
                let entries = data.get(at(first)..at(end));
                if let Some(e) = entries.filter(|e| e.iter().all(|&s| s as u32 <= n)) {
                    return Ok(e.to_vec());
                }
            }
            (first..end)
                .map(|gb| {
                    let t = file.thresholds_in(&data, block, at(gb))?;
                    if h.metric == Metric::Dtc {
                        return Ok(t.0 as u8);
                    }
                    let results = (0..=n).map(|j| wdl_at(t, j));
                    Ok(draw_split(n, gb, results)? as u8)
                })
                .collect()
        })
        .collect::<Result<_, _>>()?;
    Ok(blocks.concat())
}
