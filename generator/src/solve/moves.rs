//! A board's moves played forward: the position of a board at a kazan
//! offset, and its successors, each move played once (sowing, captures
//! and tuzdyks do not depend on the kazans).

use crate::solve::unit::ConfigInfo;
use togyz_tb::raw::index::{Slot, TuzdykConfig};
use togyz_tb::raw::{landing, sow, Landing};
use togyz_tb::{Move, Position, Side, CYCLE, HALF, ROW};

/// The live position of a board (mover seated South) at kazan offset `j`.
pub fn position_at(n: u32, config: TuzdykConfig, board: &[u8; 18], j: u32) -> Position {
    let mover = HALF as u32 - n + j;
    let opponent = HALF as u32 - j;
    Position::new(
        *board,
        [mover as u8, opponent as u8],
        config.hole_numbers(),
        Side::South,
        1,
    )
    .expect("every board of the index is a valid position")
}

/// Plays each legal move of `board` at level `n` (mover South, kazan
/// offset 0) once, giving `each` its hole and the successor; returns the
/// position at offset 0 and the mask of the legal holes.
pub fn play_each(
    n: u32,
    config: TuzdykConfig,
    board: &[u8; 18],
    mut each: impl FnMut(usize, Position),
) -> (Position, u16) {
    let pos = position_at(n, config, board, 0);
    let legal = pos.row_mask();
    let mut mask = legal;
    while mask != 0 {
        let hole = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        each(
            hole,
            pos.after_unchecked(Move::from_index(hole).expect("a bit of the row mask")),
        );
    }
    (pos, legal)
}

/// The quiet moves of `board` at level `n` (the mover's holes, at
/// configuration `config`), each played once, at kazan offset 0: sowing,
/// captures and tuzdyks do not depend on the kazans. A quiet move (no
/// capture, tuzdyk or feed, so the stone count stays) whose game goes on
/// keeps both kazans and swaps the sides, so at every kazan offset `j`
/// its successor is the same board at offset `n - j`: entry
/// `(config id, first cell of that board)` for its hole, `None` for an
/// empty hole or any other move. Also the mask of the legal holes.
pub fn quiet_successors(
    n: u32,
    config: TuzdykConfig,
    board: &[u8; 18],
) -> ([Option<(usize, u64)>; 9], u16) {
    let mut quiet = [None; 9];
    let (_, legal) = play_each(n, config, board, |hole, child| {
        quiet[hole] = quiet_slot(n, &child)
    });
    (quiet, legal)
}

/// `(config id, first cell of its board)` of `child`, a successor of a
/// level-`n` position, if the move was quiet and the game goes on (then
/// at every kazan offset: the kazans only decide the game when a kazan
/// grows).
#[inline]
pub fn quiet_slot(n: u32, child: &Position) -> Option<(usize, u64)> {
    quiet_board(n, child).map(|(id, rank)| (id, rank * (n as u64 + 1)))
}

/// [`quiet_slot`] by board: `(config id, rank of its board)`.
#[inline]
pub fn quiet_board(n: u32, child: &Position) -> Option<(usize, u64)> {
    if child.outcome().is_some() || child.stones_on_board() != n {
        return None;
    }
    let slot = Slot::of(child).expect("a live successor has an index slot");
    Some((slot.config.id(), slot.board))
}

/// A move of a unit's board that leaves the level: it feeds a kazan
/// (a capture, a tuzdyk, or stones sown into a tuzdyk), so the child has
/// fewer stones and is read from a smaller level.
pub(crate) struct Exit {
    /// The board after the move, still seen by the mover (South).
    pub(crate) board: [u8; CYCLE],
    /// The tuzdyks as the opponent, who moves next, sees them.
    pub(crate) config: TuzdykConfig,
    /// Stones that went to the mover's kazan.
    pub(crate) gain: u32,
    /// Stones that went to the opponent's kazan.
    pub(crate) lost: u32,
}

/// Plays each move of `board` (mover seated South, configuration `info`)
/// once, at every kazan split alike: returns how many are quiet (the
/// stones, kazans and tuzdyks stay; the unit core links them) and gives
/// each other move to `exit`. How the two metrics seed a board.
#[inline]
pub(crate) fn split_moves(
    board: &[u8; CYCLE],
    info: &ConfigInfo,
    mut exit: impl FnMut(&Exit),
) -> u8 {
    let mut quiet = 0u8;
    each_move(board, info, |e| match e {
        Played::Quiet(_) => quiet += 1,
        Played::Exit(e) => exit(e),
    });
    quiet
}

/// One move of a board played at every kazan split alike
/// ([`each_move`]).
pub(crate) enum Played<'a> {
    /// A quiet move: the board after it, still seen by the mover (the
    /// tuzdyks are the same, seen by the opponent as `info.config.swapped()`).
    Quiet(&'a [u8; CYCLE]),
    /// A move that leaves the level.
    Exit(&'a Exit),
}

/// Plays each move of `board` (mover seated South, configuration `info`)
/// once, quiet or not, giving each to `each` in hole order: the one place
/// a board's sowing, captures and tuzdyks are turned into successors for
/// the solvers.
#[inline(always)]
pub(crate) fn each_move(board: &[u8; CYCLE], info: &ConfigInfo, mut each: impl FnMut(Played)) {
    for h in 0..ROW {
        if board[h] == 0 {
            continue;
        }
        let mut b = *board;
        let sown = sow(&mut b, h, info.tz);
        let mut gain = sown.fed[0] as u32;
        let lost = sown.fed[1] as u32;
        let mut config = info.config;
        match landing(&b, sown.last, Side::South, info.tz) {
            Landing::Quiet => {
                if gain == 0 && lost == 0 {
                    each(Played::Quiet(&b));
                    continue;
                }
            }
            Landing::Capture(c) => {
                gain += c as u32;
                b[sown.last] = 0;
            }
            Landing::Tuzdyk => {
                gain += 3;
                b[sown.last] = 0;
                config.mover = Some((sown.last - ROW) as u8);
            }
        }
        each(Played::Exit(&Exit {
            board: b,
            config: config.swapped(),
            gain,
            lost,
        }));
    }
}
