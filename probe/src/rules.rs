//! The rules of Togyz Kumalak: the board, sowing, captures, tuzdyks and the end
//! of the game, exactly as `docs/rules.md` states them.
//!
//! Holes are addressed by their place in the sowing cycle: index 0..9 is
//! South's hole 1..9, index 9..18 is North's hole 1..9. Sowing runs up the
//! indices and wraps from 17 (North 9) to 0 (South 1).
//!
//! Everything on the move path is allocation-free: the generator calls
//! [`sow`] billions of times.

use std::fmt;

/// Holes in one player's row.
pub const ROW: usize = 9;
/// Holes in the sowing cycle (both rows).
pub const CYCLE: usize = 18;
/// Stones in play: board plus both kazans, always.
pub const TOTAL_STONES: u32 = 162;
/// A kazan holding more than this many stones has won.
pub const HALF: u8 = 81;
/// Marker for "no tuzdyk" in the cycle-index form used by [`sow`].
pub const NO_TUZDYK: u8 = u8::MAX;

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

/// What one sowing did, before any capture is looked at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sown {
    /// Cycle index where the last stone landed (it may be a tuzdyk).
    pub last: usize,
    /// Stones that fell into each side's tuzdyk, by owner (`fed[side]`).
    pub fed: [u8; 2],
}

/// Sows the stones of cycle index `from` (which must be non-empty and not a
/// tuzdyk). `tuzdyks[side]` is the cycle index of the hole that is `side`'s
/// tuzdyk, or [`NO_TUZDYK`]. Stones that land in a tuzdyk are taken out of
/// the board and reported in [`Sown::fed`]; the caller adds them to kazans.
///
/// `c >= 2` stones: one goes back into `from`, the rest into the following
/// holes, lapping the whole cycle (origin included) for 19 or more.
/// `c == 1`: the stone moves to the next hole.
#[inline]
pub fn sow(holes: &mut [u8; CYCLE], from: usize, tuzdyks: [u8; 2]) -> Sown {
    debug_assert!(from < CYCLE && holes[from] > 0);
    let c = holes[from] as usize;
    holes[from] = 0;
    let last;
    if c == 1 {
        last = if from + 1 == CYCLE { 0 } else { from + 1 };
        holes[last] += 1;
    } else {
        let laps = (c / CYCLE) as u8;
        let rest = c % CYCLE;
        if laps > 0 {
            for h in holes.iter_mut() {
                *h += laps;
            }
        }
        // The `rest` holes starting at `from` get one more, wrapping once.
        let first_run = rest.min(CYCLE - from);
        for h in &mut holes[from..from + first_run] {
            *h += 1;
        }
        for h in &mut holes[..rest - first_run] {
            *h += 1;
        }
        last = (from + c - 1) % CYCLE;
    }
    let mut fed = [0u8; 2];
    for (side, &t) in tuzdyks.iter().enumerate() {
        if t != NO_TUZDYK {
            fed[side] = holes[t as usize];
            holes[t as usize] = 0;
        }
    }
    Sown { last, fed }
}

/// What happens at the hole where the last stone landed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Landing {
    /// No capture: own side, a tuzdyk, or an odd count that makes no tuzdyk.
    Quiet,
    /// An even count in an opponent's hole: the mover takes these stones.
    Capture(u8),
    /// Exactly 3 in an eligible opponent's hole: it becomes the mover's
    /// tuzdyk and the 3 stones go to the mover's kazan.
    Tuzdyk,
}

/// Decides the capture at `last` for `mover`, after [`sow`]. Does not change
/// the board. `tuzdyks` is in the same cycle-index form as for [`sow`].
#[inline]
pub fn landing(holes: &[u8; CYCLE], last: usize, mover: Side, tuzdyks: [u8; 2]) -> Landing {
    let opp = mover.opponent();
    if Side::of_hole(last) != opp || last as u8 == tuzdyks[0] || last as u8 == tuzdyks[1] {
        return Landing::Quiet;
    }
    let count = holes[last];
    if count % 2 == 0 {
        return Landing::Capture(count);
    }
    if count == 3 && tuzdyk_allowed(last, mover, tuzdyks) {
        return Landing::Tuzdyk;
    }
    Landing::Quiet
}

/// Whether `mover` may turn the opponent's hole at cycle index `idx` into a
/// tuzdyk: he has none yet, it is not the opponent's 9th hole, and the
/// opponent's tuzdyk (if any) does not carry the same number.
#[inline]
pub fn tuzdyk_allowed(idx: usize, mover: Side, tuzdyks: [u8; 2]) -> bool {
    let number = idx % ROW;
    let opp_tuz = tuzdyks[mover.opponent().index()];
    tuzdyks[mover.index()] == NO_TUZDYK
        && number != ROW - 1
        && (opp_tuz == NO_TUZDYK || opp_tuz as usize % ROW != number)
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

/// A move: the number (0-based, 0..9) of the hole played in the mover's row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(pub u8);

impl Move {
    /// The 0-based hole number in the mover's row.
    pub fn hole(self) -> usize {
        self.0 as usize
    }
}

/// Everything a move did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveReport {
    /// The hole played (0-based number in the mover's row).
    pub mv: Move,
    /// Who moved.
    pub mover: Side,
    /// Cycle index where the last stone landed.
    pub last: usize,
    /// Stones sown into each side's tuzdyk, by owner.
    pub fed: [u8; 2],
    /// Stones captured by an even count (0 if none).
    pub captured: u8,
    /// Cycle index of the tuzdyk this move made, if any.
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
    /// Both tuzdyks on the same hole number.
    #[error("both tuzdyks are on hole number {0}")]
    TuzdykSameNumber(usize),
    /// A tuzdyk hole holds stones.
    #[error("the tuzdyk in {row}'s hole {number} holds stones")]
    StonesInTuzdyk {
        /// Row holding it.
        row: Side,
        /// 1-based hole number.
        number: usize,
    },
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

    /// Builds a position from its parts, checking every invariant.
    ///
    /// `tuzdyks[side]` is the 0-based number, in the opponent's row, of
    /// `side`'s tuzdyk. Stones plus kazans must be 162.
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
            if let Some(num) = tuzdyks[owner.index()] {
                let row = owner.opponent();
                if num as usize >= ROW - 1 {
                    return Err(PositionError::TuzdykInNinth { row });
                }
                let idx = row.row_start() + num as usize;
                if holes[idx] != 0 {
                    return Err(PositionError::StonesInTuzdyk {
                        row,
                        number: num as usize + 1,
                    });
                }
                cyc[owner.index()] = idx as u8;
            }
        }
        if let [Some(a), Some(b)] = tuzdyks {
            if a == b {
                return Err(PositionError::TuzdykSameNumber(a as usize + 1));
            }
        }
        Ok(Position {
            holes,
            kazans,
            tuzdyks: cyc,
            side,
            move_number,
        })
    }

    /// Stones in every hole, by cycle index.
    #[inline]
    pub fn holes(&self) -> &[u8; CYCLE] {
        &self.holes
    }

    /// Stones in `side`'s hole `number` (0-based).
    #[inline]
    pub fn hole(&self, side: Side, number: usize) -> u8 {
        self.holes[side.row_start() + number]
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

    /// The 0-based number (in the opponent's row) of `side`'s tuzdyk.
    #[inline]
    pub fn tuzdyk(&self, side: Side) -> Option<u8> {
        let t = self.tuzdyks[side.index()];
        (t != NO_TUZDYK).then_some(t % ROW as u8)
    }

    /// Tuzdyks in the cycle-index form used by [`sow`] and [`landing`].
    #[inline]
    pub fn tuzdyk_indices(&self) -> [u8; 2] {
        self.tuzdyks
    }

    /// Whether cycle index `idx` is a tuzdyk (of either player).
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

    /// Legal moves as a bit set over hole numbers 0..9 of the mover's row
    /// (empty when the game is over).
    #[inline]
    pub fn legal_mask(&self) -> u16 {
        if self.outcome().is_some() {
            return 0;
        }
        self.row_mask()
    }

    /// Non-empty holes of the mover's row as a bit set, without checking
    /// whether the game is over.
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

    /// Legal moves, in hole order.
    pub fn legal_moves(&self) -> impl Iterator<Item = Move> {
        let mask = self.legal_mask();
        (0..ROW as u8)
            .filter(move |&i| mask & (1 << i) != 0)
            .map(Move)
    }

    /// Whether `mv` is legal here.
    pub fn is_legal(&self, mv: Move) -> bool {
        (mv.hole() < ROW) && self.legal_mask() & (1 << mv.hole()) != 0
    }

    /// The result if the game is over in this position, else `None`.
    ///
    /// A kazan over 81 ends the game; otherwise, if the side to move has no
    /// stones, the opponent collects the board.
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

    /// Plays a legal move and reports what happened. The caller must check
    /// legality ([`Position::is_legal`]); notation parsers do.
    #[inline]
    pub fn play(&mut self, mv: Move) -> MoveReport {
        debug_assert!(self.is_legal(mv));
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
        let from = mover.row_start() + mv.hole();
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
    #[inline]
    pub fn after(&self, mv: Move) -> Position {
        let mut p = *self;
        p.play(mv);
        p
    }

    /// The same physical position with the other side to move.
    pub fn with_side_to_move(&self, side: Side) -> Position {
        Position { side, ..*self }
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
}
