//! The DTC of a DTC table's losses, which the table leaves out
//! (`docs/format.md`, DTC tables), recovered a unit at a time by one ply
//! over the wins ([`recover_losses`]): the decoder fills them in after
//! decoding a unit's stored entries.

use rayon::prelude::*;
use togyz_tb::raw::format::{Section, TableFile};
use togyz_tb::raw::index::{BoardWalker, Slot, TuzdykConfig};
use togyz_tb::terminal_value;
use togyz_tb::Position;
use togyz_tb::TableError;
use togyz_tb::Value;

use crate::solve::cells::Cell;
use crate::solve::moves::{position_at, quiet_successors};

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
/// [`togyz_tb::raw::format::loss_dtc`]'s (the largest over the moves of
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
