//! A deliberately straightforward second implementation of the rules, written
//! from docs/rules.md without looking at `rules.rs`: a board copy per move, a
//! `Vec` of moves per node, stone-by-stone sowing. The rules tests compare
//! the real engine against it on random positions; the perft benchmark
//! measures against it.

#![allow(dead_code)]

use togyz_tb::{Position, Side};

/// A board: holes in sowing order (South 1..9, North 1..9), kazans, the
/// tuzdyk hole of each owner, side to move (0 South, 1 North).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    pub holes: [u32; 18],
    pub kazans: [u32; 2],
    pub tuzdyk: [Option<usize>; 2],
    pub side: usize,
}

impl Board {
    pub fn start() -> Board {
        Board {
            holes: [9; 18],
            kazans: [0; 2],
            tuzdyk: [None; 2],
            side: 0,
        }
    }

    /// The same position, read through the engine's public accessors.
    pub fn from_position(p: &Position) -> Board {
        let mut holes = [0; 18];
        for (i, h) in holes.iter_mut().enumerate() {
            *h = p.holes()[i] as u32;
        }
        let tuzdyk = |owner: Side| {
            let row = match owner {
                Side::South => 9,
                Side::North => 0,
            };
            p.tuzdyk(owner).map(|hole| row + hole as usize - 1)
        };
        Board {
            holes,
            kazans: [p.kazan(Side::South) as u32, p.kazan(Side::North) as u32],
            tuzdyk: [tuzdyk(Side::South), tuzdyk(Side::North)],
            side: match p.side_to_move() {
                Side::South => 0,
                Side::North => 1,
            },
        }
    }

    pub fn is_over(&self) -> bool {
        self.result().is_some()
    }

    /// `(winner, final kazans)` once the game is over; winner `None` is a
    /// draw.
    pub fn result(&self) -> Option<(Option<usize>, [u32; 2])> {
        for p in 0..2 {
            if self.kazans[p] > 81 {
                return Some((Some(p), self.kazans));
            }
        }
        let row = self.side * 9;
        if self.holes[row..row + 9].iter().all(|&h| h == 0) {
            let mut score = self.kazans;
            score[1 - self.side] += self.holes.iter().sum::<u32>();
            let winner = (0..2).find(|&p| score[p] > 81);
            return Some((winner, score));
        }
        None
    }

    /// Non-empty holes of the mover as cycle indices; the legal moves
    /// unless the game is over.
    pub fn moves(&self) -> Vec<usize> {
        let row = self.side * 9;
        (row..row + 9).filter(|&i| self.holes[i] > 0).collect()
    }

    fn owner_of_tuzdyk(&self, idx: usize) -> Option<usize> {
        (0..2).find(|&p| self.tuzdyk[p] == Some(idx))
    }

    fn drop_stone(&mut self, idx: usize) {
        match self.owner_of_tuzdyk(idx) {
            Some(owner) => self.kazans[owner] += 1,
            None => self.holes[idx] += 1,
        }
    }

    /// The board after playing the hole at cycle index `from`.
    pub fn play(&self, from: usize) -> Board {
        let mut b = self.clone();
        let mut stones = b.holes[from];
        b.holes[from] = 0;
        let mut at = from;
        if stones == 1 {
            at = (from + 1) % 18;
            b.drop_stone(at);
        } else {
            b.drop_stone(at);
            stones -= 1;
            while stones > 0 {
                at = (at + 1) % 18;
                b.drop_stone(at);
                stones -= 1;
            }
        }
        let me = b.side;
        let opp_row = (1 - me) * 9;
        if at >= opp_row && at < opp_row + 9 && b.owner_of_tuzdyk(at).is_none() {
            let n = b.holes[at];
            if n.is_multiple_of(2) {
                b.kazans[me] += n;
                b.holes[at] = 0;
            } else if n == 3
                && b.tuzdyk[me].is_none()
                && at % 9 != 8
                && b.tuzdyk[1 - me].is_none_or(|t| t % 9 != at % 9)
            {
                b.kazans[me] += 3;
                b.holes[at] = 0;
                b.tuzdyk[me] = Some(at);
            }
        }
        b.side = 1 - me;
        b
    }

    /// Leaves `depth` plies below, finished games counting as leaves.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 || self.is_over() {
            return 1;
        }
        self.moves()
            .iter()
            .map(|&m| self.play(m).perft(depth - 1))
            .sum()
    }
}
