//! The rules of Togyz Kumalak: the board, sowing, captures, tuzdyks and the end
//! of the game, exactly as `docs/rules.md` states them.
//!
//! **Hole numbers.** Everywhere in the public API a hole is named the way
//! players name it: its *number* 1..=9 in its owner's row ([`Move::new`],
//! [`Move::hole`], [`Position::hole`], [`Position::tuzdyk`],
//! [`Position::new`]'s tuzdyks, and the errors). Arrays over the whole
//! board use the *cycle index* 0..18 instead: index 0..9 is South's hole
//! 1..9, index 9..18 North's hole 1..9; sowing runs up the indices and wraps
//! from 17 (North 9) to 0 (South 1). Items that take or give a cycle index
//! say so in their name or docs ([`Position::holes`], [`MoveReport::last`]).
//!
//! A finished game needs no tables:
//!
//! ```
//! use togyz_tb::{notation, Move, Side};
//!
//! // North to move with an empty row: South collects the board and wins.
//! let pos = notation::parse_fen("9/5S,8 80 77 N 30").unwrap();
//! assert_eq!(pos.legal_moves().count(), 0);
//! assert_eq!(pos.outcome().unwrap().winner, Some(Side::South));
//!
//! // Moves are checked: the 9th hole is empty here, hole 10 does not exist.
//! let mut pos = notation::parse_fen("9/5S,8 78 79 S 30").unwrap();
//! assert!(Move::new(10).is_none());
//! assert!(pos.play(Move::new(9).unwrap()).is_err());
//! let report = pos.play(Move::new(1).unwrap()).unwrap();
//! assert_eq!(report.traditional(), "15");
//! ```
//!
//! Everything on the move path is allocation-free: the generator calls
//! [`Position::play_unchecked`] billions of times.

use std::fmt;

pub(crate) mod sowing;

use sowing::{landing, sow, Landing, Sown, NO_TUZDYK};

/// Holes in one player's row.
pub const ROW: usize = 9;
/// Holes in the sowing cycle (both rows).
pub const CYCLE: usize = 18;
/// Stones in play: board plus both kazans, always.
pub const TOTAL_STONES: u32 = 162;
/// A kazan holding more than this many stones has won.
pub const HALF: u8 = 81;

/// One of the two players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// South ("white", P1): moves first; row is cycle index 0..9.
    South = 0,
    /// North ("black", P2): row is cycle index 9..18.
    North = 1,
}

impl Side {
    /// The other player.
    #[inline]
    pub const fn opponent(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// 0 for South, 1 for North: the index into per-side arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Cycle index of this side's hole 1.
    #[inline]
    pub const fn row_start(self) -> usize {
        self as usize * ROW
    }

    /// The side whose row holds cycle index `idx`.
    #[inline]
    pub const fn of_hole(idx: usize) -> Side {
        if idx < ROW {
            Side::South
        } else {
            Side::North
        }
    }

    /// `'S'` or `'N'`, as in the FEN.
    pub const fn letter(self) -> char {
        match self {
            Side::South => 'S',
            Side::North => 'N',
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::South => "South",
            Side::North => "North",
        })
    }
}

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The winner, or `None` for an 81:81 draw.
    pub winner: Option<Side>,
    /// Final kazans, South then North (board stones already collected).
    pub score: [u8; 2],
    /// Why it ended.
    pub reason: EndReason,
}

/// The two ways a game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// A kazan holds more than 81 stones.
    KazanOver81,
    /// The side to move has no stones (atsyrau): the opponent collects the
    /// board.
    NoStones,
}

/// A position: the board, both kazans, the tuzdyks and the side to move.
///
/// The move number of the FEN is carried along for round trips; the rules
/// ignore it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    holes: [u8; CYCLE],
    kazans: [u8; 2],
    /// `tuzdyks[side]`: cycle index of `side`'s tuzdyk (in the opponent's row)
    /// or [`NO_TUZDYK`].
    tuzdyks: [u8; 2],
    side: Side,
    move_number: u32,
}

/// A move: the hole played, by its number 1..=9 in the mover's row.
///
/// Every `Move` names an existing hole ([`Move::new`] refuses anything
/// else); whether it can be played depends on the position
/// ([`Position::is_legal`], [`Position::play`]). Displayed as the hole
/// number (`6`); the notations with the landing hole are in
/// [`notation`](crate::notation), and a line of moves in them is
/// [`notation::line`](crate::notation::line) (`91 12 91 12`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(u8);

impl fmt::Debug for Move {
    /// `Move(9)` for hole 9: holes are numbered 1 to 9 everywhere, the
    /// 0-based index is only inside.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({})", self.hole())
    }
}

impl Move {
    /// The move from hole `hole` (1..=9) of the mover's row; `None` for
    /// any other number.
    #[inline]
    pub const fn new(hole: u8) -> Option<Move> {
        if hole >= 1 && hole <= ROW as u8 {
            Some(Move(hole - 1))
        } else {
            None
        }
    }

    /// The move whose hole has offset `index` (0..9, that is `hole - 1`)
    /// in the mover's row, the bit of [`Position::legal_mask`]; `None` for
    /// 9 and above.
    #[inline]
    pub const fn from_index(index: usize) -> Option<Move> {
        if index < ROW {
            Some(Move(index as u8))
        } else {
            None
        }
    }

    /// The hole number, 1..=9.
    #[inline]
    pub const fn hole(self) -> u8 {
        self.0 + 1
    }

    /// The hole's offset in the mover's row, `hole() - 1` (0..9).
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.hole())
    }
}

/// Why a move cannot be played in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    /// The game is already over.
    #[error("the game is over")]
    GameOver,
    /// The hole has no stones.
    #[error("{side}'s hole {hole} is empty")]
    EmptyHole {
        /// The side to move.
        side: Side,
        /// Hole number, 1..=9.
        hole: u8,
    },
    /// The hole is the opponent's tuzdyk.
    #[error("{side}'s hole {hole} is {owner}'s tuzdyk")]
    TuzdykHole {
        /// The side to move.
        side: Side,
        /// Hole number, 1..=9.
        hole: u8,
        /// The tuzdyk's owner.
        owner: Side,
    },
}

/// Everything a move did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveReport {
    /// The hole played.
    pub mv: Move,
    /// Who moved.
    pub mover: Side,
    /// Cycle index (0..18, not a hole number) where the last stone landed.
    pub last: usize,
    /// Stones sown into each side's tuzdyk, by owner.
    pub fed: [u8; 2],
    /// Stones captured by an even count (0 if none).
    pub captured: u8,
    /// Cycle index (0..18) of the tuzdyk this move made, if any.
    pub tuzdyk_made: Option<usize>,
    /// Set when the game is over after this move.
    pub outcome: Option<Outcome>,
}

/// Why a position cannot be built from its parts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// Board plus kazans must be 162.
    #[error("stones on the board ({board}) plus kazans ({south_kazan} + {north_kazan}) make {total}, not 162")]
    StoneCount {
        /// Stones on the board.
        board: u32,
        /// South's kazan.
        south_kazan: u32,
        /// North's kazan.
        north_kazan: u32,
        /// Their sum.
        total: u32,
    },
    /// A tuzdyk cannot be a 9th hole.
    #[error("a tuzdyk cannot be in hole 9 ({row} row)")]
    TuzdykInNinth {
        /// Row holding it.
        row: Side,
    },
    /// A tuzdyk number outside 1..=9.
    #[error("{owner}'s tuzdyk is given as hole {number}; holes are numbered 1 to 9")]
    TuzdykOutOfRange {
        /// The tuzdyk's owner.
        owner: Side,
        /// The number given.
        number: u8,
    },
    /// Both tuzdyks on the same hole number.
    #[error("both tuzdyks are on hole number {0}")]
    TuzdykSameNumber(u8),
    /// A tuzdyk hole holds stones.
    #[error("the tuzdyk in {row}'s hole {number} holds stones")]
    StonesInTuzdyk {
        /// Row holding it.
        row: Side,
        /// Hole number, 1..=9.
        number: u8,
    },
    /// The move number is 0 (a FEN counts moves from 1).
    #[error("the move number must be at least 1")]
    MoveNumberZero,
}

impl Position {
    /// The starting position: 9 stones in every hole, South to move.
    pub fn start() -> Position {
        Position {
            holes: [9; CYCLE],
            kazans: [0, 0],
            tuzdyks: [NO_TUZDYK; 2],
            side: Side::South,
            move_number: 1,
        }
    }

    /// Builds a position from its parts, checking every invariant, so that
    /// every position this returns prints as a FEN that
    /// [`parse_fen`](crate::notation::parse_fen) reads back unchanged.
    ///
    /// `holes` is by cycle index (South's holes 1..9, then North's 1..9);
    /// `tuzdyks[side]` is the hole number (1..=8) of `side`'s tuzdyk in the
    /// opponent's row; `move_number` counts from 1 as in a FEN.
    ///
    /// # Errors
    ///
    /// [`PositionError`] when stones plus kazans are not 162, a tuzdyk
    /// number is outside 1..=9, is a 9th hole, holds stones, or both
    /// tuzdyks carry the same number, or the move number is 0.
    pub fn new(
        holes: [u8; CYCLE],
        kazans: [u8; 2],
        tuzdyks: [Option<u8>; 2],
        side: Side,
        move_number: u32,
    ) -> Result<Position, PositionError> {
        let board: u32 = holes.iter().map(|&h| h as u32).sum();
        let total = board + kazans[0] as u32 + kazans[1] as u32;
        if total != TOTAL_STONES {
            return Err(PositionError::StoneCount {
                board,
                south_kazan: kazans[0] as u32,
                north_kazan: kazans[1] as u32,
                total,
            });
        }
        let mut cyc = [NO_TUZDYK; 2];
        for owner in [Side::South, Side::North] {
            if let Some(number) = tuzdyks[owner.index()] {
                let row = owner.opponent();
                if !(1..=ROW as u8).contains(&number) {
                    return Err(PositionError::TuzdykOutOfRange { owner, number });
                }
                if number == ROW as u8 {
                    return Err(PositionError::TuzdykInNinth { row });
                }
                let idx = row.row_start() + number as usize - 1;
                if holes[idx] != 0 {
                    return Err(PositionError::StonesInTuzdyk { row, number });
                }
                cyc[owner.index()] = idx as u8;
            }
        }
        if let [Some(a), Some(b)] = tuzdyks {
            if a == b {
                return Err(PositionError::TuzdykSameNumber(a));
            }
        }
        if move_number == 0 {
            return Err(PositionError::MoveNumberZero);
        }
        Ok(Position {
            holes,
            kazans,
            tuzdyks: cyc,
            side,
            move_number,
        })
    }

    /// Stones in every hole, by cycle index (0..18; see the module docs).
    #[inline]
    pub fn holes(&self) -> &[u8; CYCLE] {
        &self.holes
    }

    /// Stones in `side`'s hole `number` (1..=9); `None` for another number.
    #[inline]
    pub fn hole(&self, side: Side, number: u8) -> Option<u8> {
        let m = Move::new(number)?;
        Some(self.holes[side.row_start() + m.index()])
    }

    /// Kazans, South then North.
    #[inline]
    pub fn kazans(&self) -> [u8; 2] {
        self.kazans
    }

    /// `side`'s kazan.
    #[inline]
    pub fn kazan(&self, side: Side) -> u8 {
        self.kazans[side.index()]
    }

    /// The hole number (1..=8, in the opponent's row) of `side`'s tuzdyk.
    #[inline]
    pub fn tuzdyk(&self, side: Side) -> Option<u8> {
        let t = self.tuzdyks[side.index()];
        (t != NO_TUZDYK).then_some(t % ROW as u8 + 1)
    }

    /// Whether a tuzdyk stands (of either player). With one, no position
    /// repeats: every move lowers the stones on the board or their travel
    /// to the next tuzdyk (`docs/rules.md`, "The end of the game").
    #[inline]
    pub fn has_tuzdyk(&self) -> bool {
        self.tuzdyks != [NO_TUZDYK; 2]
    }

    /// Tuzdyks by owner (South, North) as cycle indices (0..18, South's
    /// holes first), `u8::MAX` for none: the form the generator's sowing
    /// primitives take.
    #[inline]
    pub fn tuzdyk_indices(&self) -> [u8; 2] {
        self.tuzdyks
    }

    /// Whether cycle index `idx` (0..18) is a tuzdyk (of either player).
    #[inline]
    pub fn is_tuzdyk(&self, idx: usize) -> bool {
        self.tuzdyks[0] as usize == idx || self.tuzdyks[1] as usize == idx
    }

    /// The side to move.
    #[inline]
    pub fn side_to_move(&self) -> Side {
        self.side
    }

    /// The FEN's move-number field (not used by the rules).
    #[inline]
    pub fn move_number(&self) -> u32 {
        self.move_number
    }

    /// Stones on the board.
    #[inline]
    pub fn stones_on_board(&self) -> u32 {
        self.holes.iter().map(|&h| h as u32).sum()
    }

    /// Stones in `side`'s row.
    #[inline]
    pub fn row_stones(&self, side: Side) -> u32 {
        let s = side.row_start();
        self.holes[s..s + ROW].iter().map(|&h| h as u32).sum()
    }

    /// Legal moves as a bit set: bit `i` is the move from hole `i + 1` of
    /// the mover's row ([`Move::index`]); empty when the game is over.
    #[inline]
    pub fn legal_mask(&self) -> u16 {
        if self.outcome().is_some() {
            return 0;
        }
        self.row_mask()
    }

    /// Non-empty holes of the mover's row as a bit set (as
    /// [`Position::legal_mask`]), without checking whether the game is over.
    #[inline]
    pub fn row_mask(&self) -> u16 {
        let s = self.side.row_start();
        let mut mask = 0u16;
        for i in 0..ROW {
            // A tuzdyk holds no stones, so non-empty implies playable.
            if self.holes[s + i] > 0 {
                mask |= 1 << i;
            }
        }
        mask
    }

    /// Legal moves, in hole order (`.rev()` gives them from hole 9 down).
    pub fn legal_moves(&self) -> impl DoubleEndedIterator<Item = Move> {
        let mask = self.legal_mask();
        (0..ROW as u8)
            .filter(move |&i| mask & (1 << i) != 0)
            .map(Move)
    }

    /// Whether `mv` is legal here.
    pub fn is_legal(&self, mv: Move) -> bool {
        self.legal_mask() & (1 << mv.index()) != 0
    }

    /// Why `mv` cannot be played here, if it cannot.
    ///
    /// # Errors
    ///
    /// [`IllegalMove`]: the game is over, the hole is empty, or it is the
    /// opponent's tuzdyk.
    pub fn check(&self, mv: Move) -> Result<(), IllegalMove> {
        if self.outcome().is_some() {
            return Err(IllegalMove::GameOver);
        }
        let side = self.side;
        if self.is_tuzdyk(side.row_start() + mv.index()) {
            return Err(IllegalMove::TuzdykHole {
                side,
                hole: mv.hole(),
                owner: side.opponent(),
            });
        }
        if !self.is_legal(mv) {
            return Err(IllegalMove::EmptyHole {
                side,
                hole: mv.hole(),
            });
        }
        Ok(())
    }

    /// The result if the game is over in this position, else `None`.
    ///
    /// A kazan over 81 ends the game; otherwise, if the side to move has no
    /// stones, the opponent collects the board.
    #[inline]
    pub fn outcome(&self) -> Option<Outcome> {
        for side in [Side::South, Side::North] {
            if self.kazans[side.index()] > HALF {
                return Some(Outcome {
                    winner: Some(side),
                    score: self.kazans,
                    reason: EndReason::KazanOver81,
                });
            }
        }
        if self.row_stones(self.side) == 0 {
            let mut score = self.kazans;
            score[self.side.opponent().index()] += self.stones_on_board() as u8;
            let winner = if score[0] > HALF {
                Some(Side::South)
            } else if score[1] > HALF {
                Some(Side::North)
            } else {
                None
            };
            return Some(Outcome {
                winner,
                score,
                reason: EndReason::NoStones,
            });
        }
        None
    }

    /// Plays `mv` and reports what happened.
    ///
    /// # Errors
    ///
    /// [`IllegalMove`] if `mv` cannot be played here; the position is then
    /// unchanged.
    #[inline]
    pub fn play(&mut self, mv: Move) -> Result<MoveReport, IllegalMove> {
        self.check(mv)?;
        Ok(self.play_unchecked(mv))
    }

    /// [`Position::play`] without the legality check, for hot loops over
    /// moves that come from [`Position::legal_moves`] or
    /// [`Position::legal_mask`] (the generator, perft).
    ///
    /// The caller must pass a legal move. An illegal one is caught by a
    /// debug assertion; in a release build it leaves a meaningless position
    /// (never undefined behaviour).
    #[inline]
    pub fn play_unchecked(&mut self, mv: Move) -> MoveReport {
        debug_assert!(self.is_legal(mv), "illegal move {mv} in {self:?}");
        let mover = self.side;
        let (sown, land) = self.apply(mv);
        MoveReport {
            mv,
            mover,
            last: sown.last,
            fed: sown.fed,
            captured: match land {
                Landing::Capture(c) => c,
                _ => 0,
            },
            tuzdyk_made: (land == Landing::Tuzdyk).then_some(sown.last),
            outcome: self.outcome(),
        }
    }

    /// The board change of [`Position::play`] without the report: sowing,
    /// kazans, capture or tuzdyk, side to move. [`perft`] uses it directly,
    /// so the end-of-game test is not done twice per node.
    #[inline]
    fn apply(&mut self, mv: Move) -> (Sown, Landing) {
        let mover = self.side;
        let from = mover.row_start() + mv.index();
        let sown = sow(&mut self.holes, from, self.tuzdyks);
        self.kazans[0] += sown.fed[0];
        self.kazans[1] += sown.fed[1];
        let land = landing(&self.holes, sown.last, mover, self.tuzdyks);
        match land {
            Landing::Quiet => {}
            Landing::Capture(c) => {
                self.holes[sown.last] = 0;
                self.kazans[mover.index()] += c;
            }
            Landing::Tuzdyk => {
                self.holes[sown.last] = 0;
                self.kazans[mover.index()] += 3;
                self.tuzdyks[mover.index()] = sown.last as u8;
            }
        }
        self.side = mover.opponent();
        if mover == Side::North {
            // Saturating: a FEN may carry any u32 move number.
            self.move_number = self.move_number.saturating_add(1);
        }
        (sown, land)
    }

    /// The position after `mv`, leaving `self` unchanged.
    ///
    /// # Errors
    ///
    /// [`IllegalMove`] if `mv` cannot be played here.
    #[inline]
    pub fn after(&self, mv: Move) -> Result<Position, IllegalMove> {
        let mut p = *self;
        p.play(mv)?;
        Ok(p)
    }

    /// [`Position::after`] without the legality check; the contract of
    /// [`Position::play_unchecked`] applies.
    #[inline]
    pub fn after_unchecked(&self, mv: Move) -> Position {
        let mut p = *self;
        p.play_unchecked(mv);
        p
    }

    /// The same board, kazans and tuzdyks with `side` to move (which may be
    /// the side already to move).
    pub fn with_side_to_move(&self, side: Side) -> Position {
        Position { side, ..*self }
    }

    /// The same board, tuzdyks and side to move with `kazans` (South then
    /// North) holding the same stones between them: stones moved from one
    /// kazan to the other, as when one board is looked at under each of its
    /// kazan splits.
    ///
    /// # Errors
    ///
    /// [`PositionError::StoneCount`] if `kazans` do not add up to the
    /// present kazans' total (the stone count would not be 162).
    #[inline]
    pub fn with_kazans(&self, kazans: [u8; 2]) -> Result<Position, PositionError> {
        let [s, n] = kazans.map(u32::from);
        if s + n != self.kazans[0] as u32 + self.kazans[1] as u32 {
            let board = self.stones_on_board();
            return Err(PositionError::StoneCount {
                board,
                south_kazan: s,
                north_kazan: n,
                total: board + s + n,
            });
        }
        Ok(Position { kazans, ..*self })
    }

    /// The colour mirror: rows and kazans swapped, the other side to move.
    /// A position and its mirror have the same value for the side to move.
    pub fn mirrored(&self) -> Position {
        let mut holes = [0u8; CYCLE];
        holes[..ROW].copy_from_slice(&self.holes[ROW..]);
        holes[ROW..].copy_from_slice(&self.holes[..ROW]);
        let flip = |t: u8| {
            if t == NO_TUZDYK {
                t
            } else {
                (t + ROW as u8) % CYCLE as u8
            }
        };
        Position {
            holes,
            kazans: [self.kazans[1], self.kazans[0]],
            tuzdyks: [flip(self.tuzdyks[1]), flip(self.tuzdyks[0])],
            side: self.side.opponent(),
            move_number: self.move_number,
        }
    }
}

/// Counts leaves `depth` plies below `pos`; a finished game is a leaf.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    perft_from(pos, depth)
}

/// [`perft`] for `depth >= 1`. The game is over exactly when a kazan holds
/// more than 81 or the mover's row is empty, which is what [`Position::outcome`]
/// decides; here that costs one comparison pair and the move mask we need
/// anyway.
fn perft_from(pos: &Position, depth: u32) -> u64 {
    let mask = pos.row_mask();
    if mask == 0 || pos.kazans[0] > HALF || pos.kazans[1] > HALF {
        return 1;
    }
    if depth == 1 {
        return mask.count_ones() as u64;
    }
    let mut total = 0;
    let mut m = mask;
    while m != 0 {
        let i = m.trailing_zeros() as u8;
        m &= m - 1;
        let mut child = *pos;
        child.apply(Move(i));
        total += perft_from(&child, depth - 1);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_has_nine_moves_and_162_stones() {
        let p = Position::start();
        assert_eq!(p.legal_moves().count(), 9);
        assert_eq!(p.stones_on_board(), 162);
    }

    #[test]
    fn perft_shallow() {
        let p = Position::start();
        assert_eq!(perft(&p, 1), 9);
        assert_eq!(perft(&p, 2), 73);
        assert_eq!(perft(&p, 3), 613);
        assert_eq!(perft(&p, 4), 5_199);
    }

    #[test]
    fn with_kazans_moves_stones_between_kazans_only() {
        let mut p = Position::start();
        p.play(Move::new(2).unwrap()).unwrap();
        let k = p.kazans();
        assert_eq!(k, [10, 0]);
        let q = p.with_kazans([4, 6]).unwrap();
        assert_eq!(q.kazans(), [4, 6]);
        assert_eq!(q.holes(), p.holes());
        assert_eq!(q.side_to_move(), p.side_to_move());
        assert!(matches!(
            p.with_kazans([4, 7]),
            Err(PositionError::StoneCount { total: 163, .. })
        ));
    }
}
