//! Decoding any range of a DTC table's positions, a distance block at a
//! time ([`crate::files::decode`] cuts the range at the blocks, runs them in
//! parallel and calls `dtc_piece` for DTC tables), the DTC of the losses,
//! which the tables leave out, recovered a unit at a time
//! ([`recover_losses`]), and the draw splits
//! of any table as a [`WdlLevel`], which is all a DTC solve needs of the
//! levels below.

use std::ops::Range;

use rayon::prelude::*;
use togyz_probe::raw::format::{wdl_at, Section, TableFile};
use togyz_probe::raw::index::{BoardWalker, Slot, TuzdykConfig};
use togyz_probe::terminal_value;
use togyz_probe::Position;
use togyz_probe::TableError;
use togyz_probe::{Metric, Value, Wdl};

use crate::files::blocks::{to_cell, Scratch};
use crate::solve::cells::Cell;
use crate::solve::moves::{position_at, quiet_successors};

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
/// `None` is an error. The losses, which the table does not store, are
/// decoded as [`UNRECOVERED`]: [`recover_losses`] fills them in. A part
/// of a block is decoded as well as a whole one: the splits before its
/// first board say where its wins start (the entry formula of
/// `docs/format.md`, "DTC tables").
///
/// # Errors
///
/// [`TableError`] for a damaged block or a value the cells cannot hold.
pub(crate) fn dtc_piece<T: Copy>(
    file: &TableFile,
    s: &mut Scratch,
    first: u64,
    out: &mut [T],
    cell: &impl Fn(u16) -> Option<T>,
) -> Result<(), TableError> {
    let h = file.header();
    debug_assert_eq!(h.metric, Metric::Dtc);
    if out.is_empty() {
        return Ok(());
    }
    let n = h.stones as u64;
    let k = n + 1;
    let per = h.distance_block_positions as u64;
    let width = h.distance_width as usize;
    let mut gb = first / k;
    let block = gb / per;
    // The block's boards, all in one WDL block (P divides B).
    let f = block * per;
    let (wb, at) = file.wdl_location(f);
    let wdl = s.wdl(file, wb)?;
    let splits = (0..=(first + out.len() as u64 - 1) / k - f)
        .map(|i| Ok(file.thresholds_in(wdl, wb, at + i as usize)?.0 as u64))
        .collect::<Result<Vec<u64>, TableError>>()?;
    file.read_block_into(Section::Distance, block, &mut s.dtm)?;
    // Wins of the block's boards before `gb`: a board of split s has n - s.
    let mut wins = splits[..(gb - f) as usize]
        .iter()
        .map(|&x| n - x)
        .sum::<u64>();
    let unrecovered = to_cell(file, UNRECOVERED, block, cell)?;
    let mut j = first % k;
    let mut i = 0;
    while i < out.len() {
        let split = splits[(gb - f) as usize];
        while j < k && i < out.len() {
            out[i] = if j < split {
                unrecovered
            } else if j == split {
                to_cell(file, Value::Draw, block, cell)?
            } else {
                let entry = wins + j - split - 1;
                let d = file.distance_in(&s.dtm, block, entry as usize * width)?;
                to_cell(file, file.combine(Wdl::Win, d, block)?, block, cell)?
            };
            i += 1;
            j += 1;
        }
        wins += n - split;
        gb += 1;
        j = 0;
    }
    Ok(())
}

/// What the decoder gives a DTC table's loss as, until [`recover_losses`] finds
/// its DTC.
pub const UNRECOVERED: Value = Value::Loss(0);

/// A lost position of a DTC table whose DTC one ply cannot recover: a
/// quiet move leads to a position the table does not hold as a win, so
/// the table contradicts itself.
#[derive(Debug)]
pub struct Unrecovered {
    /// The position stored as lost.
    pub pos: Position,
    /// What the table holds for the successor of its quiet move (or for
    /// the finished game).
    pub found: Value,
}

impl Unrecovered {
    /// The error a decoder reports for it.
    pub fn into_table_error(self, file: &TableFile) -> TableError {
        let block = Slot::of(&self.pos).map_or(0, |slot| {
            let gb = file.layout().global_board(slot.config.id(), slot.board);
            gb / file.header().wdl_block_boards as u64
        });
        TableError::BadEntry {
            path: file.path().to_path_buf(),
            section: Section::Wdl,
            block,
            detail: format!(
                "{} is stored as lost but a move leads to a {} for the opponent",
                self.pos.fen(),
                self.found
            ),
        }
    }
}

/// Boards whose recovered cells a worker computes at a time.
const RECOVER_CHUNK: u64 = 2048;
/// Boards recovered between two write-backs: bounds the copies held.
const RECOVER_WAVE: u64 = 1 << 18;

/// Fills in the DTC of every loss ([`UNRECOVERED`]) of a DTC level's unit
/// at `n` stones: `parts` holds each of the unit's configurations (id,
/// cells in rank order, every kazan offset of a board adjacent), so every
/// quiet move's successor is among them. The formula is
/// [`togyz_probe::raw::format::loss_dtc`]'s (the largest over the moves of
/// 1 for a conversion, one more than the successor's win for a quiet
/// move); here a quiet move's successor board is computed once a board,
/// its kazan offset being `n - j` at offset `j` (`verify`'s
/// `quiet_successors`, which its check shares).
///
/// # Errors
///
/// [`Unrecovered`] naming the first contradiction found.
pub fn recover_losses<T: Cell>(n: u32, parts: &mut [(usize, &mut [T])]) -> Result<(), Unrecovered> {
    let k = n as u64 + 1;
    for p in 0..parts.len() {
        let (id, _) = parts[p];
        let config = TuzdykConfig::from_id(id);
        let boards = parts[p].1.len() as u64 / k;
        let mut start = 0;
        while start < boards {
            let end = (start + RECOVER_WAVE).min(boards);
            let view: Vec<(usize, &[T])> = parts.iter().map(|(i, c)| (*i, &**c)).collect();
            let chunks: Vec<(u64, u64)> = (start..end)
                .step_by(RECOVER_CHUNK as usize)
                .map(|b| (b, (b + RECOVER_CHUNK).min(end)))
                .collect();
            let filled = chunks
                .par_iter()
                .map(|&(b, e)| recover_boards(n, config, &view, p, b, e))
                .collect::<Result<Vec<Vec<T>>, Unrecovered>>()?;
            let cells = &mut parts[p].1[(start * k) as usize..(end * k) as usize];
            for (chunk, new) in cells.chunks_mut((RECOVER_CHUNK * k) as usize).zip(filled) {
                chunk.copy_from_slice(&new);
            }
            start = end;
        }
    }
    Ok(())
}

/// The cells of boards `start..end` of part `p` with their losses
/// recovered.
fn recover_boards<T: Cell>(
    n: u32,
    config: TuzdykConfig,
    parts: &[(usize, &[T])],
    p: usize,
    start: u64,
    end: u64,
) -> Result<Vec<T>, Unrecovered> {
    let k = n as u64 + 1;
    let own = parts[p].1;
    let mut out = own[(start * k) as usize..(end * k) as usize].to_vec();
    let unrecovered = UNRECOVERED.pack().expect("a loss in 0 packs");
    let mut walker = BoardWalker::new(n, config, start, end);
    // Each legal hole's successor: `None` for a conversion, else its
    // part's cells and its board's first cell.
    let mut quiet: Vec<Option<(&[T], u64)>> = Vec::with_capacity(9);
    while let Some((rank, board)) = walker.current() {
        let base = ((rank - start) * k) as usize;
        let cells = &mut out[base..base + k as usize];
        if !cells.iter().any(|&c| c.into() == unrecovered) {
            walker.advance();
            continue;
        }
        quiet.clear();
        let (successors, legal) = quiet_successors(n, config, board);
        for (hole, q) in successors.into_iter().enumerate() {
            if legal & (1 << hole) == 0 {
                continue;
            }
            quiet.push(q.map(|(id, first)| {
                let (_, part) = parts
                    .iter()
                    .find(|(i, _)| *i == id)
                    .expect("a quiet move stays within its unit");
                (*part, first)
            }));
        }
        for (j, c) in cells.iter_mut().enumerate() {
            if (*c).into() != unrecovered {
                continue;
            }
            let pos = || position_at(n, config, board, j as u32);
            let value = if quiet.is_empty() {
                // No move: the game is over (the side to move has no
                // stones), and its result is stored.
                match terminal_value(&pos()) {
                    Some(v @ Value::Loss(_)) => v,
                    found => {
                        return Err(Unrecovered {
                            pos: pos(),
                            found: found.unwrap_or(Value::Draw),
                        })
                    }
                }
            } else {
                let mut longest = 0;
                for q in &quiet {
                    let d = match q {
                        None => 1,
                        Some((part, first)) => {
                            let at = (first + n as u64 - j as u64) as usize;
                            match Value::unpack(part[at].into()) {
                                Value::Win(d) => d + 1,
                                found => return Err(Unrecovered { pos: pos(), found }),
                            }
                        }
                    };
                    longest = longest.max(d);
                }
                Value::Loss(longest)
            };
            *c = value
                .pack()
                .and_then(T::from_packed)
                .ok_or_else(|| Unrecovered {
                    pos: pos(),
                    found: value,
                })?;
        }
        walker.advance();
    }
    Ok(out)
}
