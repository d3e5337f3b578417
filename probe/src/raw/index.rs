//! The dense, bijective index of endgame positions.
//!
//! A live position (both kazans at most 81) is seen from the side to move,
//! who is put in South's seat, so a position and its colour mirror share one
//! entry. It is then numbered by
//!
//! 1. `n`, the stones on the board (one table per `n`);
//! 2. the tuzdyk configuration ([`TuzdykConfig`], 73 of them);
//! 3. the distribution of the `n` stones over the holes that are not
//!    tuzdyks, ranked in the combinatorial number system ([`rank_board`]);
//! 4. the mover's kazan, as the offset `j = kazan - (81 - n)` in `0..=n`.
//!
//! The index of a position within its table is
//! `(config_board_offset[config] + board_rank) * (n + 1) + j`: all kazan
//! splits of one board are adjacent. `docs/position-index.md` gives the counts.

use crate::raw::NO_TUZDYK;
use crate::rules::{Position, Side, CYCLE, HALF, ROW};

/// The largest stone count the index supports (binomials stay in `u64`).
pub const MAX_STONES: u32 = 40;
/// Number of tuzdyk configurations: none, 8 + 8 with one, 56 with both.
pub const CONFIG_COUNT: usize = 73;

const BINOM_N: usize = MAX_STONES as usize + CYCLE;

/// `BINOM[n][k] = C(n, k)` for `k < 18`.
static BINOM: [[u64; CYCLE]; BINOM_N] = build_binomials();

const fn build_binomials() -> [[u64; CYCLE]; BINOM_N] {
    let mut t = [[0u64; CYCLE]; BINOM_N];
    let mut n = 0;
    while n < BINOM_N {
        t[n][0] = 1;
        let mut k = 1;
        while k < CYCLE {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
}

/// `C(n, k)` for `n <= MAX_STONES + 17`, `k <= 17`.
#[inline]
pub fn binomial(n: usize, k: usize) -> u64 {
    BINOM[n][k]
}

/// Which tuzdyks exist, from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TuzdykClass {
    /// Neither player has a tuzdyk.
    None,
    /// Only the side to move has one.
    MoverOnly,
    /// Only the opponent has one.
    OpponentOnly,
    /// Both have one.
    Both,
}

impl TuzdykClass {
    /// All four classes, in index order.
    pub const ALL: [TuzdykClass; 4] = [
        TuzdykClass::None,
        TuzdykClass::MoverOnly,
        TuzdykClass::OpponentOnly,
        TuzdykClass::Both,
    ];

    /// A short machine-friendly name.
    pub fn name(self) -> &'static str {
        match self {
            TuzdykClass::None => "none",
            TuzdykClass::MoverOnly => "mover_only",
            TuzdykClass::OpponentOnly => "opponent_only",
            TuzdykClass::Both => "both",
        }
    }
}

/// The tuzdyks seen from the side to move: `mover` is the offset (hole
/// number − 1, so 0..8), in the opponent's row, of the mover's tuzdyk;
/// `opponent` the offset, in the mover's row, of the opponent's. Neither is
/// 8 (a 9th hole), and they differ. Offsets, not hole numbers, because they
/// feed the arithmetic of [`TuzdykConfig::id`] and the cycle indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TuzdykConfig {
    /// The mover's tuzdyk (a hole of the opponent's row).
    pub mover: Option<u8>,
    /// The opponent's tuzdyk (a hole of the mover's row).
    pub opponent: Option<u8>,
}

impl TuzdykConfig {
    /// No tuzdyks.
    pub const NONE: TuzdykConfig = TuzdykConfig {
        mover: None,
        opponent: None,
    };

    /// The configuration's number in `0..73`: 0 is none, 1..=8 the mover's
    /// alone, 9..=16 the opponent's alone, 17.. both (mover-major).
    pub const fn id(self) -> usize {
        match (self.mover, self.opponent) {
            (None, None) => 0,
            (Some(a), None) => 1 + a as usize,
            (None, Some(b)) => 9 + b as usize,
            (Some(a), Some(b)) => {
                let b = b as usize - (b > a) as usize;
                17 + a as usize * 7 + b
            }
        }
    }

    /// The configuration with number `id` (`id < 73`).
    pub const fn from_id(id: usize) -> TuzdykConfig {
        assert!(id < CONFIG_COUNT);
        if id == 0 {
            TuzdykConfig::NONE
        } else if id <= 8 {
            TuzdykConfig {
                mover: Some(id as u8 - 1),
                opponent: None,
            }
        } else if id <= 16 {
            TuzdykConfig {
                mover: None,
                opponent: Some(id as u8 - 9),
            }
        } else {
            let a = (id - 17) / 7;
            let mut b = (id - 17) % 7;
            if b >= a {
                b += 1;
            }
            TuzdykConfig {
                mover: Some(a as u8),
                opponent: Some(b as u8),
            }
        }
    }

    /// All 73 configurations in id order.
    pub fn all() -> impl Iterator<Item = TuzdykConfig> {
        (0..CONFIG_COUNT).map(TuzdykConfig::from_id)
    }

    /// The configuration after the move passes to the other player.
    pub const fn swapped(self) -> TuzdykConfig {
        TuzdykConfig {
            mover: self.opponent,
            opponent: self.mover,
        }
    }

    /// The tuzdyks as hole numbers (1..=8), `[mover's, opponent's]`: the
    /// form [`Position::new`] takes with the mover seated South.
    pub fn hole_numbers(self) -> [Option<u8>; 2] {
        [self.mover.map(|a| a + 1), self.opponent.map(|b| b + 1)]
    }

    /// Holes that can hold stones.
    pub const fn free_holes(self) -> usize {
        CYCLE - self.mover.is_some() as usize - self.opponent.is_some() as usize
    }

    /// Which tuzdyks exist.
    pub const fn class(self) -> TuzdykClass {
        match (self.mover, self.opponent) {
            (None, None) => TuzdykClass::None,
            (Some(_), None) => TuzdykClass::MoverOnly,
            (None, Some(_)) => TuzdykClass::OpponentOnly,
            (Some(_), Some(_)) => TuzdykClass::Both,
        }
    }

    /// Cycle indices for [`crate::raw::sow`] with the mover seated South:
    /// `[mover's tuzdyk, opponent's tuzdyk]`, or [`NO_TUZDYK`].
    pub const fn cycle_indices(self) -> [u8; 2] {
        [
            match self.mover {
                Some(a) => ROW as u8 + a,
                None => NO_TUZDYK,
            },
            match self.opponent {
                Some(b) => b,
                None => NO_TUZDYK,
            },
        ]
    }

    /// The cycle indices (mover seated South) that can hold stones, in
    /// cycle order; only the first [`TuzdykConfig::free_holes`] are used.
    #[inline]
    pub fn free_indices(self) -> [u8; CYCLE] {
        // Every index computation needs them: looked up, not rebuilt.
        FREE_INDICES[self.id()]
    }

    const fn build_free_indices(self) -> [u8; CYCLE] {
        let tz = self.cycle_indices();
        let mut out = [0u8; CYCLE];
        let mut m = 0;
        let mut i = 0;
        while i < CYCLE as u8 {
            if i != tz[0] && i != tz[1] {
                out[m] = i;
                m += 1;
            }
            i += 1;
        }
        out
    }
}

/// [`TuzdykConfig::free_indices`] of every configuration, by id.
static FREE_INDICES: [[u8; CYCLE]; CONFIG_COUNT] = {
    let mut table = [[0u8; CYCLE]; CONFIG_COUNT];
    let mut id = 0;
    while id < CONFIG_COUNT {
        table[id] = TuzdykConfig::from_id(id).build_free_indices();
        id += 1;
    }
    table
};

/// Number of ways to put `n` stones into `m` holes: `C(n + m - 1, m - 1)`.
#[inline]
pub fn board_count(n: u32, m: usize) -> u64 {
    binomial(n as usize + m - 1, m - 1)
}

/// Ranks a distribution of `n` stones over the free holes of `config`
/// (`board` is indexed by cycle position with the mover seated South; tuzdyk
/// holes must be empty). The rank is in `0..board_count(n, free)`.
///
/// Bars-and-stars in the combinatorial number system: the prefix sums
/// `s_i` of the free holes give the increasing bar positions `s_i + i`, and
/// the rank is the sum of `C(s_i + i, i + 1)`.
#[inline]
pub fn rank_board(board: &[u8; CYCLE], free: &[u8; CYCLE], m: usize) -> u64 {
    let mut rank = 0u64;
    let mut s = 0usize;
    for i in 0..m - 1 {
        s += board[free[i] as usize] as usize;
        rank += BINOM[s + i][i + 1];
    }
    rank
}

/// Inverse of [`rank_board`]: the board with rank `rank` for `n` stones.
pub fn unrank_board(mut rank: u64, n: u32, free: &[u8; CYCLE], m: usize) -> [u8; CYCLE] {
    let mut board = [0u8; CYCLE];
    let mut bars = [0usize; CYCLE];
    let mut hi = n as usize + m - 2; // largest possible bar position
    for i in (0..m - 1).rev() {
        // Largest b <= hi with C(b, i + 1) <= rank.
        let mut b = hi;
        while BINOM[b][i + 1] > rank {
            b -= 1;
        }
        rank -= BINOM[b][i + 1];
        bars[i] = b;
        hi = b.saturating_sub(1);
    }
    bars_to_board(&bars, n, free, m, &mut board);
    board
}

fn bars_to_board(
    bars: &[usize; CYCLE],
    n: u32,
    free: &[u8; CYCLE],
    m: usize,
    board: &mut [u8; CYCLE],
) {
    let mut prev: isize = -1;
    for i in 0..m - 1 {
        board[free[i] as usize] = (bars[i] as isize - prev - 1) as u8;
        prev = bars[i] as isize;
    }
    board[free[m - 1] as usize] = (n as isize + m as isize - 2 - prev) as u8;
}

/// Walks the boards of one `(n, config)` in rank order without unranking
/// each one.
#[derive(Clone, Debug)]
pub struct BoardWalker {
    bars: [usize; CYCLE],
    free: [u8; CYCLE],
    m: usize,
    n: u32,
    board: [u8; CYCLE],
    rank: u64,
    end: u64,
}

impl BoardWalker {
    /// Walks ranks `start..end` of `(n, config)`.
    pub fn new(n: u32, config: TuzdykConfig, start: u64, end: u64) -> BoardWalker {
        let free = config.free_indices();
        let m = config.free_holes();
        let end = end.min(board_count(n, m));
        let mut w = BoardWalker {
            bars: [0; CYCLE],
            free,
            m,
            n,
            board: [0; CYCLE],
            rank: start,
            end,
        };
        if start < end {
            w.board = unrank_board(start, n, &free, m);
            let mut s = 0;
            for (i, &f) in free[..m - 1].iter().enumerate() {
                s += w.board[f as usize] as usize;
                w.bars[i] = s + i;
            }
        }
        w
    }

    /// The current board and its rank, or `None` past the end.
    #[inline]
    pub fn current(&self) -> Option<(u64, &[u8; CYCLE])> {
        (self.rank < self.end).then_some((self.rank, &self.board))
    }

    /// Moves to the next rank (colex successor of the bar set).
    #[inline]
    pub fn advance(&mut self) {
        self.rank += 1;
        if self.rank >= self.end {
            return;
        }
        let k = self.m - 1;
        let top = self.n as usize + self.m - 2;
        let mut i = 0;
        while i + 1 < k && self.bars[i] + 1 == self.bars[i + 1] {
            i += 1;
        }
        debug_assert!(i + 1 < k || self.bars[i] < top);
        self.bars[i] += 1;
        for (t, bar) in self.bars[..i].iter_mut().enumerate() {
            *bar = t;
        }
        bars_to_board(&self.bars, self.n, &self.free, self.m, &mut self.board);
    }
}

/// Where each configuration's boards start in the table for `n` stones.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Stones on the board.
    pub n: u32,
    /// `offsets[id]` is the first global board of configuration `id`;
    /// `offsets[73]` is the number of boards.
    offsets: [u64; CONFIG_COUNT + 1],
}

impl Layout {
    /// The layout of the table for `n` stones (`n <= MAX_STONES`).
    pub fn new(n: u32) -> Layout {
        assert!(n <= MAX_STONES, "at most {MAX_STONES} stones are indexed");
        let mut offsets = [0u64; CONFIG_COUNT + 1];
        for id in 0..CONFIG_COUNT {
            let m = TuzdykConfig::from_id(id).free_holes();
            offsets[id + 1] = offsets[id] + board_count(n, m);
        }
        Layout { n, offsets }
    }

    /// Kazan splits per board: `n + 1`.
    #[inline]
    pub fn kazans(&self) -> u64 {
        self.n as u64 + 1
    }

    /// Boards in the table.
    #[inline]
    pub fn boards(&self) -> u64 {
        self.offsets[CONFIG_COUNT]
    }

    /// Positions in the table.
    #[inline]
    pub fn positions(&self) -> u64 {
        self.boards() * self.kazans()
    }

    /// Boards of one configuration.
    #[inline]
    pub fn config_boards(&self, id: usize) -> u64 {
        self.offsets[id + 1] - self.offsets[id]
    }

    /// Splits every configuration's boards into runs of at most `size`:
    /// `(config id, first rank, end rank)`, for parallel passes over a table.
    pub fn board_chunks(&self, size: u64) -> Vec<(usize, u64, u64)> {
        let mut work = Vec::new();
        for id in 0..CONFIG_COUNT {
            let boards = self.config_boards(id);
            let mut start = 0;
            while start < boards {
                work.push((id, start, (start + size).min(boards)));
                start += size;
            }
        }
        work
    }

    /// The configuration holding global board `gb`.
    pub fn config_of(&self, gb: u64) -> usize {
        self.offsets[1..].partition_point(|&o| o <= gb)
    }

    /// The global board number of rank `board` in configuration
    /// `config_id`: boards are numbered configuration after configuration.
    #[inline]
    pub fn global_board(&self, config_id: usize, board: u64) -> u64 {
        self.offsets[config_id] + board
    }

    /// The index of kazan offset `j` on global board `gb`. This is the one
    /// place the index formula `(offsets[config] + board) * (n + 1) + j`
    /// is written (docs/position-index.md).
    #[inline]
    pub fn index_at(&self, gb: u64, j: u32) -> u64 {
        gb * self.kazans() + j as u64
    }

    /// The index of a slot in this table.
    #[inline]
    pub fn index(&self, slot: &Slot) -> u64 {
        self.index_at(self.global_board(slot.config.id(), slot.board), slot.kazan)
    }

    /// The slot at `index` (which must be below [`Layout::positions`]).
    pub fn slot(&self, index: u64) -> Slot {
        let gb = index / self.kazans();
        let id = self.config_of(gb);
        Slot {
            stones: self.n,
            config: TuzdykConfig::from_id(id),
            board: gb - self.offsets[id],
            kazan: (index % self.kazans()) as u32,
        }
    }
}

/// Positions in the table for `n` stones:
/// `(n+1) * (C(n+17,17) + 16*C(n+16,16) + 56*C(n+15,15))`.
pub fn positions_for(n: u32) -> u64 {
    Layout::new(n).positions()
}

/// The most stones the solver handles: the largest `n` for which every
/// unit's boards fit 32-bit node ids (and a kazan-split mask fits 64 bits,
/// and the index covers `n`). 17 with the 73 configurations of the rules.
///
/// A unit is a tuzdyk configuration and its swap (the configuration
/// itself when it is its own swap), solved together by `togyz-gen`; the
/// front ends use this limit to say whether a missing table can be made.
pub fn max_solver_stones() -> u32 {
    let unit_boards = |n: u32, id: usize| {
        let config = TuzdykConfig::from_id(id);
        let twin = config.swapped();
        let own = board_count(n, config.free_holes());
        if twin.id() == id {
            own
        } else {
            own + board_count(n, twin.free_holes())
        }
    };
    (1..=MAX_STONES.min(63))
        .take_while(|&n| (0..CONFIG_COUNT).all(|id| unit_boards(n, id) < u32::MAX as u64))
        .last()
        .unwrap_or(0)
}

/// A position's coordinates in the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slot {
    /// Stones on the board.
    pub stones: u32,
    /// Tuzdyks seen from the side to move.
    pub config: TuzdykConfig,
    /// Rank of the board (mover seated South) within `(stones, config)`.
    pub board: u64,
    /// The mover's kazan offset `j`: the mover's kazan is `81 - stones + j`.
    pub kazan: u32,
}

/// The board seen by the side to move: their row at cycle index 0..9.
#[inline]
pub fn relative_board(pos: &Position) -> [u8; CYCLE] {
    let h = pos.holes();
    match pos.side_to_move() {
        Side::South => *h,
        Side::North => {
            let mut b = [0u8; CYCLE];
            b[..ROW].copy_from_slice(&h[ROW..]);
            b[ROW..].copy_from_slice(&h[..ROW]);
            b
        }
    }
}

impl Slot {
    /// The slot of a live position (both kazans at most 81), or `None` if a
    /// kazan is over 81 or there are more than [`MAX_STONES`] stones.
    #[inline]
    pub fn of(pos: &Position) -> Option<Slot> {
        let n = pos.stones_on_board();
        let side = pos.side_to_move();
        let k = pos.kazan(side);
        if n > MAX_STONES || k > HALF || pos.kazan(side.opponent()) > HALF {
            return None;
        }
        let config = TuzdykConfig {
            mover: pos.tuzdyk(side).map(|hole| hole - 1),
            opponent: pos.tuzdyk(side.opponent()).map(|hole| hole - 1),
        };
        let board = relative_board(pos);
        Some(Slot {
            stones: n,
            config,
            board: rank_board(&board, &config.free_indices(), config.free_holes()),
            kazan: k as u32 + n - HALF as u32,
        })
    }

    /// The position of this slot, with South to move.
    pub fn position(&self) -> Position {
        let n = self.stones;
        let board = unrank_board(
            self.board,
            n,
            &self.config.free_indices(),
            self.config.free_holes(),
        );
        let mover = (HALF as u32 + self.kazan - n) as u8;
        let opp = (162 - n - mover as u32) as u8;
        Position::new(
            board,
            [mover, opp],
            self.config.hole_numbers(),
            Side::South,
            1,
        )
        .expect("a slot always describes a valid position")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_solver_handles_17_stones() {
        // The 18-stone unit of the empty configuration alone has
        // C(35, 17) = 4.5e9 boards, over 32-bit node ids.
        assert_eq!(max_solver_stones(), 17);
        assert!(board_count(17, 18) < u32::MAX as u64);
        assert!(board_count(18, 18) > u32::MAX as u64);
    }

    #[test]
    fn config_ids_round_trip() {
        for id in 0..CONFIG_COUNT {
            let c = TuzdykConfig::from_id(id);
            assert_eq!(c.id(), id);
            assert_ne!(c.mover.map(|a| Some(a) == c.opponent), Some(true));
            assert_eq!(c.swapped().swapped(), c);
        }
    }

    #[test]
    fn counts_match_the_formula() {
        let c = |n: usize, k: usize| binomial(n, k);
        let mut total = 0;
        for n in 1..=10u32 {
            let nn = n as usize;
            let f = (nn as u64 + 1) * (c(nn + 17, 17) + 16 * c(nn + 16, 16) + 56 * c(nn + 15, 15));
            assert_eq!(positions_for(n), f);
            total += f;
            if n == 8 {
                assert_eq!(total, 512_753_762);
            }
        }
        assert_eq!(total, 4_644_298_157);
    }

    #[test]
    fn walker_matches_unrank() {
        for id in [0usize, 3, 12, 40] {
            let cfg = TuzdykConfig::from_id(id);
            let (free, m) = (cfg.free_indices(), cfg.free_holes());
            for n in [0u32, 1, 2, 5] {
                let count = board_count(n, m);
                let mut w = BoardWalker::new(n, cfg, 0, count);
                let mut r = 0;
                while let Some((rank, b)) = w.current() {
                    assert_eq!(rank, r);
                    assert_eq!(*b, unrank_board(r, n, &free, m));
                    assert_eq!(rank_board(b, &free, m), r);
                    w.advance();
                    r += 1;
                }
                assert_eq!(r, count);
            }
        }
    }
}
