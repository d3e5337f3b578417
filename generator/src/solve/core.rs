//! The unit core that both metrics share: one pair of configurations
//! `{a, a.swapped()}` at one stone count, its quiet-move graph (every
//! board's quiet predecessors, from un-moves generated once per board), the
//! frontier of positions resolved at each distance, and the retrograde loop
//! that resolves them in order of distance. A metric (`Policy`) says what
//! a position's working state is, how a board's exits and game end seed it,
//! and how a predecessor's state answers a loss or a win one ply later.
//!
//! Inside a unit, the quiet-move graph over boards is the same for every
//! kazan split; only exits and game ends depend on the kazans. So each
//! board is expanded once for all `n + 1` splits, and the frontier carries
//! a bit mask of the splits that a board was resolved for at one distance:
//! one un-move generation serves them all. Losses at a distance are
//! propagated before wins at that distance, so a position's first win
//! found is its fastest and a position lost once its last quiet move is
//! refuted takes the longest refutation.

use crate::solve::error::SolveError;
use crate::solve::unit::{bits, rotate, ConfigInfo};
use crate::solve::unmove::unmoves;
use std::sync::atomic::{AtomicU64, Ordering};
use togyz_probe::raw::index::{board_count, rank_board, BoardWalker};
use togyz_probe::CYCLE;

/// What a metric adds to the unit core. Monomorphised: the core's loops
/// call these per position, so they stay small and inlined. An
/// implementation marks `seed` `#[inline]`: it is defined in another module
/// than the loop that calls it, and without the hint it stayed a call
/// (with `unmoves`, 13.5% more instructions in the DTM solve than when
/// all sat in one file: docs/performance.md).
pub(crate) trait Policy {
    /// A position's working state while the unit is solved.
    type State: Copy + Default;
    /// What a predecessor of a position resolved at distance `d` becomes
    /// at `d + 1`, computed once per frontier entry.
    type Step: Copy;

    /// Seeds the states of one board (`states[j]` for kazan offset `j`,
    /// mover seated South, configuration `info`): its game end or its
    /// exits into smaller levels, and the count of its quiet moves. Puts
    /// what is resolved at once on `frontier`.
    fn seed(
        &mut self,
        n: u32,
        node: u32,
        board: &[u8; CYCLE],
        info: &ConfigInfo,
        states: &mut [Self::State],
        frontier: &mut Frontier,
    ) -> Result<(), SolveError>;

    /// The win in `d + 1` of a predecessor of a loss in `d`.
    ///
    /// # Errors
    ///
    /// [`SolveError::DistanceOverflow`] past the solver's limit.
    fn win_after(d: u32) -> Result<Self::Step, SolveError>;

    /// Makes `s` the win `step` unless it is resolved as well or better;
    /// whether it did.
    fn take_win(s: &mut Self::State, step: Self::Step) -> Result<bool, SolveError>;

    /// Of the splits `mask` of a board put on the frontier as won in `d`,
    /// those still won in `d` (the others were found faster since);
    /// marks them final.
    fn live_wins(states: &mut [Self::State], mask: u64, d: u32) -> u64;

    /// The loss in `d + 1` of a predecessor all of whose quiet moves are
    /// refuted by a win in `d`.
    ///
    /// # Errors
    ///
    /// [`SolveError::DistanceOverflow`] past the solver's limit.
    fn loss_after(d: u32) -> Result<Self::Step, SolveError>;

    /// Refutes one quiet move of `s` by a win in `d` (`step` is
    /// [`Policy::loss_after`]`(d)`); the distance of its loss if that was
    /// its last quiet move and it is lost.
    fn refute(s: &mut Self::State, step: Self::Step, d: u32) -> Result<Option<u32>, SolveError>;
}

/// Positions resolved and not yet propagated, by distance: (node,
/// kazan-split mask).
#[derive(Default)]
pub(crate) struct Frontier {
    wins: Vec<Vec<(u32, u64)>>,
    losses: Vec<Vec<(u32, u64)>>,
}

impl Frontier {
    /// `node` is won in `dist` for the splits in `mask`.
    #[inline]
    pub(crate) fn win(&mut self, dist: u32, node: u32, mask: u64) {
        Self::push(&mut self.wins, dist, node, mask)
    }

    /// `node` is lost in `dist` for the splits in `mask`.
    #[inline]
    pub(crate) fn loss(&mut self, dist: u32, node: u32, mask: u64) {
        Self::push(&mut self.losses, dist, node, mask)
    }

    #[inline]
    fn push(bucket: &mut Vec<Vec<(u32, u64)>>, dist: u32, node: u32, mask: u64) {
        let d = dist as usize;
        if bucket.len() <= d {
            bucket.resize_with(d + 1, Vec::new);
        }
        bucket[d].push((node, mask));
    }
}

/// One unit being solved with policy `P`.
pub(crate) struct Unit<'a, P: Policy> {
    pub(crate) n: u32,
    /// Kazan splits a board: `n + 1`.
    pub(crate) k: usize,
    /// The unit's configurations: side 0 and (if different) side 1.
    pub(crate) sides: Vec<ConfigInfo>,
    /// First node id of each side.
    pub(crate) base: [u32; 2],
    /// `state[node * k + j]`.
    pub(crate) state: Vec<P::State>,
    /// Quiet predecessors of every node (from un-moves, generated once per
    /// board: a board is resolved at several distances for different kazan
    /// splits, and each would otherwise repeat the un-move generation):
    /// those of `node` are `preds[pred_off[node]..pred_off[node + 1]]`.
    preds: Vec<u32>,
    pred_off: Vec<u64>,
    frontier: Frontier,
    pub(crate) policy: P,
    /// Shared progress counter (positions) and what this unit added to it.
    progress: &'a AtomicU64,
    reported: u64,
}

impl<'a, P: Policy> Unit<'a, P> {
    /// The unit `{a, b}` (`b == a` for a configuration that is its own
    /// swap) of level `n`.
    ///
    /// # Panics
    ///
    /// If the unit's boards do not fit 32-bit node ids (the solvers refuse
    /// such levels first).
    pub(crate) fn new(
        n: u32,
        infos: &[ConfigInfo],
        a: usize,
        b: usize,
        policy: P,
        progress: &'a AtomicU64,
    ) -> Self {
        let k = n as usize + 1;
        let mut sides = vec![infos[a]];
        if b != a {
            sides.push(infos[b]);
        }
        let boards_a = board_count(n, sides[0].m) as u32;
        let nodes: u64 = sides.iter().map(|s| board_count(n, s.m)).sum();
        assert!(
            nodes < u32::MAX as u64,
            "unit too large for 32-bit node ids"
        );
        Unit {
            n,
            k,
            sides,
            base: [0, boards_a],
            state: vec![P::State::default(); nodes as usize * k],
            preds: Vec::new(),
            pred_off: vec![0],
            frontier: Frontier::default(),
            policy,
            progress,
            reported: 0,
        }
    }

    /// Positions of the unit.
    pub(crate) fn positions(&self) -> u64 {
        self.state.len() as u64
    }

    /// Solves the unit, then frees its graph; the states hold the values.
    pub(crate) fn solve(&mut self) -> Result<(), SolveError> {
        for side in 0..self.sides.len() {
            self.init_side(side)?;
        }
        let mut d = 0usize;
        while d < self.frontier.wins.len().max(self.frontier.losses.len()) {
            if let Some(batch) = self.frontier.losses.get_mut(d).map(std::mem::take) {
                for (node, mask) in batch {
                    self.propagate_loss(node, mask, d as u32)?;
                }
            }
            if let Some(batch) = self.frontier.wins.get_mut(d).map(std::mem::take) {
                for (node, mask) in batch {
                    self.propagate_win(node, mask, d as u32)?;
                }
            }
            d += 1;
        }
        // The graph is done with: free it before the values are copied out.
        self.preds = Vec::new();
        self.pred_off = Vec::new();
        Ok(())
    }

    /// Counts the unit's positions as done in the shared progress.
    pub(crate) fn report_done(&mut self) {
        self.progress
            .fetch_add(self.positions() - self.reported, Ordering::Relaxed);
        self.reported = self.positions();
    }

    /// Side index of the configuration reached by a quiet move from `side`.
    #[inline]
    fn other(&self, side: usize) -> usize {
        if self.sides.len() == 1 {
            0
        } else {
            1 - side
        }
    }

    /// Expands every board of one side once: its quiet predecessors, then
    /// what the policy seeds.
    fn init_side(&mut self, side: usize) -> Result<(), SolveError> {
        let n = self.n;
        let k = self.k;
        let info = self.sides[side];
        let base = self.base[side];
        let pside = self.other(side);
        let pinfo = self.sides[pside];
        let pbase = self.base[pside];
        let mut walker = BoardWalker::new(n, info.config, 0, u64::MAX);
        while let Some((rank, board)) = walker.current() {
            let node = base + rank as u32;
            let at = node as usize * k;
            let board = *board;
            walker.advance();
            // Predecessors: the board as the previous mover saw it after
            // his move, un-played.
            let preds = &mut self.preds;
            unmoves(&rotate(&board), n, &pinfo, |pre| {
                // Below the unit's node count, which fits 32 bits.
                preds.push(pbase + rank_board(pre, &pinfo.free, pinfo.m) as u32)
            });
            self.pred_off.push(self.preds.len() as u64);
            if rank % 4096 == 4095 {
                // Expansion is about half the work of a unit.
                let step = 4096 * k as u64 / 2;
                self.progress.fetch_add(step, Ordering::Relaxed);
                self.reported += step;
            }
            self.policy.seed(
                n,
                node,
                &board,
                &info,
                &mut self.state[at..at + k],
                &mut self.frontier,
            )?;
        }
        Ok(())
    }

    /// Node `node` is lost in `d` for the splits in `mask`: every quiet
    /// predecessor not resolved as well wins in `d + 1`.
    fn propagate_loss(&mut self, node: u32, mask: u64, d: u32) -> Result<(), SolveError> {
        let step = P::win_after(d)?;
        let pmask = self.reverse(mask);
        let k = self.k;
        let (lo, hi) = self.pred_range(node);
        for i in lo..hi {
            let pred = self.preds[i];
            let at = pred as usize * k;
            let mut won = 0u64;
            for j in bits(pmask) {
                if P::take_win(&mut self.state[at + j], step)? {
                    won |= 1 << j;
                }
            }
            if won != 0 {
                self.frontier.win(d + 1, pred, won);
            }
        }
        Ok(())
    }

    /// Node `node` was put on the frontier as won in `d` for the splits in
    /// `mask`: for those still won in `d`, refutes one quiet move of every
    /// predecessor; one left with none is lost (its slowest refutation, as
    /// distances come in order).
    fn propagate_win(&mut self, node: u32, mask: u64, d: u32) -> Result<(), SolveError> {
        let k = self.k;
        let at = node as usize * k;
        let live = P::live_wins(&mut self.state[at..at + k], mask, d);
        if live == 0 {
            return Ok(());
        }
        let step = P::loss_after(d)?;
        let pmask = self.reverse(live);
        let (lo, hi) = self.pred_range(node);
        for i in lo..hi {
            let pred = self.preds[i];
            let at = pred as usize * k;
            let mut lost = 0u64;
            for j in bits(pmask) {
                match P::refute(&mut self.state[at + j], step, d)? {
                    Some(dist) if dist == d + 1 => lost |= 1 << j,
                    Some(dist) => self.frontier.loss(dist, pred, 1 << j),
                    None => {}
                }
            }
            if lost != 0 {
                self.frontier.loss(d + 1, pred, lost);
            }
        }
        Ok(())
    }

    /// Where the quiet predecessors of `node` are in `preds`.
    #[inline]
    fn pred_range(&self, node: u32) -> (usize, usize) {
        (
            self.pred_off[node as usize] as usize,
            self.pred_off[node as usize + 1] as usize,
        )
    }

    /// Kazan offsets seen by the other player: `j -> n - j`.
    #[inline]
    fn reverse(&self, mask: u64) -> u64 {
        mask.reverse_bits() >> (64 - self.k)
    }

    /// The states of one side, board-major.
    pub(crate) fn side_states(&self, side: usize) -> &[P::State] {
        let first = self.base[side] as usize * self.k;
        let len = board_count(self.n, self.sides[side].m) as usize * self.k;
        &self.state[first..first + len]
    }
}
