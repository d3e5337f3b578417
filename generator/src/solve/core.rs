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
//! one un-move generation serves them all.
//!
//! A quiet move keeps both kazans and hands the move over, so kazan offset
//! `j` leads only to `n - j`: the pairs `{j, n - j}` never meet within a
//! level. A unit can therefore be solved in *kazan parts* (sets of such
//! pairs, [`crate::solve::unit::KazanCut`]) one after the other, each
//! holding states for its own splits only; the quiet-move graph, the same
//! for every split, is built once and serves every part. One part of
//! every split is today's whole unit, state for state. Losses at a distance are
//! propagated before wins at that distance, so a position's first win
//! found is its fastest and a position lost once its last quiet move is
//! refuted takes the longest refutation.

use crate::solve::error::SolveError;
use crate::solve::unit::{bits, rotate, ConfigInfo, KazanCut};
use crate::solve::unmove::{unmoves, MAX_UNMOVES};
use std::sync::atomic::{AtomicU64, Ordering};
use togyz_tb::raw::index::{board_count, rank_board, unrank_board, BoardWalker};
use togyz_tb::CYCLE;

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

/// A policy whose seeds can be made apart from the solve: the seeded
/// states of a kazan part, kept while the exits are decoded and loaded
/// after they are freed ([`Unit::solve_seeded`]), tell by themselves what
/// the seed put on the frontier.
pub(crate) trait Reseed: Policy {
    /// What the seed of a state put on the frontier: `(true, d)` a win in
    /// `d`, `(false, d)` a loss in `d`, `None` nothing.
    fn seeded(s: Self::State) -> Option<(bool, u32)>;
}

/// Positions resolved and not yet propagated, by distance: (node,
/// kazan-split mask), eight bytes an entry (a unit has at most 18 splits,
/// [`togyz_tb::raw::index::max_solver_stones`]: the mask fits 32 bits), as
/// a unit's frontier may hold an entry for nearly every board at once.
/// Only the splits of the kazan part being solved are kept: a seed
/// states every split of its board, and those of other parts are dropped.
pub(crate) struct Frontier {
    wins: Vec<Vec<(u32, u32)>>,
    losses: Vec<Vec<(u32, u32)>>,
    /// The kazan offsets of the part being solved.
    keep: u64,
}

impl Frontier {
    fn new(keep: u64) -> Frontier {
        Frontier {
            wins: Vec::new(),
            losses: Vec::new(),
            keep,
        }
    }

    /// `node` is won in `dist` for the splits in `mask` (those of the
    /// part kept).
    #[inline]
    pub(crate) fn win(&mut self, dist: u32, node: u32, mask: u64) {
        let mask = mask & self.keep;
        if mask != 0 {
            Self::push(&mut self.wins, dist, node, mask)
        }
    }

    /// `node` is lost in `dist` for the splits in `mask` (those of the
    /// part kept).
    #[inline]
    pub(crate) fn loss(&mut self, dist: u32, node: u32, mask: u64) {
        let mask = mask & self.keep;
        if mask != 0 {
            Self::push(&mut self.losses, dist, node, mask)
        }
    }

    /// Pushes a non-empty `mask` of the part's splits (the core's own
    /// pushes, which stay within the part).
    #[inline]
    fn push(bucket: &mut Vec<Vec<(u32, u32)>>, dist: u32, node: u32, mask: u64) {
        let d = dist as usize;
        if bucket.len() <= d {
            bucket.resize_with(d + 1, Vec::new);
        }
        // Within the unit's splits, checked in `Unit::new`.
        bucket[d].push((node, mask as u32));
    }
}

/// One unit being solved with policy `P`.
pub(crate) struct Unit<'a, P: Policy> {
    pub(crate) n: u32,
    /// Kazan splits a board: `n + 1`.
    pub(crate) k: usize,
    /// Kazan splits a board held in `state`: those of the part being
    /// solved (`k` for a whole unit).
    kp: usize,
    /// The kazan offsets of the part being solved.
    part: u64,
    /// Where offset `j` of the part sits among a board's `kp` states
    /// (`j` itself for a whole unit): ascending with `j`.
    slot: [u8; 64],
    /// Boards of the unit.
    nodes: usize,
    /// A board's states for every split, for the policy's calls on a
    /// board when the part is not the whole unit.
    scratch: Vec<P::State>,
    /// The unit's configurations: side 0 and (if different) side 1.
    pub(crate) sides: Vec<ConfigInfo>,
    /// First node id of each side.
    pub(crate) base: [u32; 2],
    /// `state[node * kp + slot[j]]`.
    state: Vec<P::State>,
    /// The quiet-move graph.
    graph: Graph,
    /// A board's predecessors, when the graph is not stored.
    made: Box<[u32; MAX_UNMOVES]>,
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
        // A frontier entry's mask is 32 bits wide.
        assert!(k <= 32, "{k} kazan splits a board");
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
        let mut slot = [0u8; 64];
        for (j, s) in slot.iter_mut().enumerate().take(k) {
            *s = j as u8;
        }
        Unit {
            n,
            k,
            kp: k,
            part: all_splits(k),
            slot,
            nodes: nodes as usize,
            scratch: vec![P::State::default(); k],
            sides,
            base: [0, boards_a],
            state: Vec::new(),
            graph: Graph::new(true),
            made: Box::new([0; MAX_UNMOVES]),
            frontier: Frontier::new(all_splits(k)),
            policy,
            progress,
            reported: 0,
        }
    }

    /// Positions of the unit.
    pub(crate) fn positions(&self) -> u64 {
        (self.nodes * self.k) as u64
    }

    /// Solves the unit in the kazan parts of `cut` (masks of kazan
    /// offsets, each closed under `j -> n - j`, together every offset
    /// once), one after the other: after each, `done` is given the unit
    /// and the part's mask, and reads the part's states
    /// ([`Unit::part_states`]). The quiet-move graph, when `cut` stores it,
    /// is built with the first part and freed before `done` is given the
    /// last.
    pub(crate) fn solve_parts<E: From<SolveError>>(
        &mut self,
        cut: KazanCut,
        mut done: impl FnMut(&Self, u64) -> Result<(), E>,
    ) -> Result<(), E> {
        self.graph = Graph::new(cut.stores_graph());
        let parts = cut.parts(self.n);
        for (i, &part) in parts.iter().enumerate() {
            self.set_part(part);
            for side in 0..self.sides.len() {
                if i == 0 {
                    self.init_side(side)?;
                } else {
                    self.seed_side(side)?;
                }
            }
            self.propagate_part(i + 1 == parts.len())?;
            done(self, part)?;
        }
        Ok(())
    }

    /// Propagates the seeded part to its fixed point; after the `last`
    /// part the graph is done with and freed, before the part's values are
    /// copied out (for a whole unit, before any values are made).
    fn propagate_part(&mut self, last: bool) -> Result<(), SolveError> {
        if self.kp == self.k {
            self.propagate_all::<true>()?;
        } else {
            self.propagate_all::<false>()?;
        }
        if last {
            self.graph = Graph::new(false);
        }
        Ok(())
    }

    /// Solves the unit in the kazan parts of `cut` (as
    /// [`Unit::solve_parts`]) from seeds made before ([`Reseed`]): the
    /// quiet-move graph, when `cut` stores it, is built without seeding,
    /// then each part's states are filled by `load` (every node's states
    /// for the part's splits, node-major, as [`Unit::part_states`] lays
    /// them out) and its frontier found again from them. The policy's seed
    /// is never called: what it reads (the exits) need not be held.
    pub(crate) fn solve_seeded<E: From<SolveError>>(
        &mut self,
        cut: KazanCut,
        mut load: impl FnMut(u64, &mut [P::State]) -> Result<(), E>,
        mut done: impl FnMut(&Self, u64) -> Result<(), E>,
    ) -> Result<(), E>
    where
        P: Reseed,
    {
        self.graph = Graph::new(cut.stores_graph());
        let parts = cut.parts(self.n);
        if self.graph.stored {
            for side in 0..self.sides.len() {
                self.build_side(side);
            }
        }
        for (i, &part) in parts.iter().enumerate() {
            self.set_part(part);
            load(part, &mut self.state)?;
            self.frontier_from_states();
            self.propagate_part(i + 1 == parts.len())?;
            done(self, part)?;
        }
        Ok(())
    }

    /// Puts on the frontier what the seeds in `state` say, node by node,
    /// a node's splits of one distance and kind in one entry.
    fn frontier_from_states(&mut self)
    where
        P: Reseed,
    {
        let kp = self.kp;
        let offsets: Vec<usize> = bits(self.part).collect();
        let mut found: Vec<(bool, u32, u64)> = Vec::with_capacity(kp);
        for node in 0..self.nodes {
            found.clear();
            for (s, &j) in self.state[node * kp..(node + 1) * kp].iter().zip(&offsets) {
                if let Some((win, d)) = P::seeded(*s) {
                    match found.iter_mut().find(|f| (f.0, f.1) == (win, d)) {
                        Some(f) => f.2 |= 1 << j,
                        None => found.push((win, d, 1 << j)),
                    }
                }
            }
            for &(win, d, mask) in &found {
                if win {
                    self.frontier.win(d, node as u32, mask);
                } else {
                    self.frontier.loss(d, node as u32, mask);
                }
            }
        }
    }

    /// The quiet predecessors of every board of one side, without seeding
    /// ([`Unit::solve_seeded`]).
    fn build_side(&mut self, side: usize) {
        let n = self.n;
        let info = self.sides[side];
        let pside = self.other(side);
        let pinfo = self.sides[pside];
        let pbase = self.base[pside];
        let mut walker = BoardWalker::new(n, info.config, 0, u64::MAX);
        while let Some((rank, board)) = walker.current() {
            let board = *board;
            walker.advance();
            self.graph.add(&board, n, &pinfo, pbase);
            if rank % 4096 == 4095 {
                let step = 4096 * self.k as u64 / 2;
                self.progress.fetch_add(step, Ordering::Relaxed);
                self.reported += step;
            }
        }
    }

    /// Makes `part` the kazan part being solved: its states, all default,
    /// and an empty frontier keeping its splits.
    fn set_part(&mut self, part: u64) {
        assert!(
            part != 0 && part & !all_splits(self.k) == 0 && self.reverse(part) == part,
            "kazan part {part:#x} of {} splits",
            self.k
        );
        self.part = part;
        self.kp = part.count_ones() as usize;
        for (s, j) in bits(part).enumerate() {
            self.slot[j] = s as u8;
        }
        // The previous part's states go before the next ones are made.
        self.state = Vec::new();
        self.state = vec![P::State::default(); self.nodes * self.kp];
        self.frontier = Frontier::new(part);
    }

    /// Propagates the frontier in order of distance to the fixed point;
    /// `WHOLE` when the part is the whole unit (a state's slot is its
    /// kazan offset: no lookup).
    fn propagate_all<const WHOLE: bool>(&mut self) -> Result<(), SolveError> {
        let mut d = 0usize;
        while d < self.frontier.wins.len().max(self.frontier.losses.len()) {
            if let Some(batch) = self.frontier.losses.get_mut(d).map(std::mem::take) {
                for (node, mask) in batch {
                    self.propagate_loss::<WHOLE>(node, mask as u64, d as u32)?;
                }
            }
            if let Some(batch) = self.frontier.wins.get_mut(d).map(std::mem::take) {
                for (node, mask) in batch {
                    self.propagate_win::<WHOLE>(node, mask as u64, d as u32)?;
                }
            }
            d += 1;
        }
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
        let k = self.kp;
        let info = self.sides[side];
        let base = self.base[side];
        let pside = self.other(side);
        let pinfo = self.sides[pside];
        let pbase = self.base[pside];
        let mut walker = BoardWalker::new(n, info.config, 0, u64::MAX);
        while let Some((rank, board)) = walker.current() {
            let node = base + rank as u32;
            let board = *board;
            walker.advance();
            if self.graph.stored {
                self.graph.add(&board, n, &pinfo, pbase);
            }
            if rank % 4096 == 4095 {
                // Expansion is about half the work of a unit.
                let step = 4096 * k as u64 / 2;
                self.progress.fetch_add(step, Ordering::Relaxed);
                self.reported += step;
            }
            self.seed_board(node, &board, &info)?;
        }
        Ok(())
    }

    /// Seeds every board of one side again, for a kazan part after the
    /// first (the graph is built).
    fn seed_side(&mut self, side: usize) -> Result<(), SolveError> {
        let info = self.sides[side];
        let base = self.base[side];
        let mut walker = BoardWalker::new(self.n, info.config, 0, u64::MAX);
        while let Some((rank, board)) = walker.current() {
            let board = *board;
            walker.advance();
            self.seed_board(base + rank as u32, &board, &info)?;
        }
        Ok(())
    }

    /// What the policy seeds of one board, for the part's splits.
    #[inline]
    fn seed_board(
        &mut self,
        node: u32,
        board: &[u8; CYCLE],
        info: &ConfigInfo,
    ) -> Result<(), SolveError> {
        let (n, k, kp) = (self.n, self.k, self.kp);
        if kp == k {
            let at = node as usize * k;
            return self.policy.seed(
                n,
                node,
                board,
                info,
                &mut self.state[at..at + k],
                &mut self.frontier,
            );
        }
        // A seed may leave a state as it finds it (the default).
        self.scratch.fill(P::State::default());
        self.policy
            .seed(n, node, board, info, &mut self.scratch, &mut self.frontier)?;
        let at = node as usize * kp;
        for j in bits(self.part) {
            self.state[at + self.slot[j & 63] as usize] = self.scratch[j];
        }
        Ok(())
    }

    /// Node `node` is lost in `d` for the splits in `mask`: every quiet
    /// predecessor not resolved as well wins in `d + 1`.
    fn propagate_loss<const WHOLE: bool>(
        &mut self,
        node: u32,
        mask: u64,
        d: u32,
    ) -> Result<(), SolveError> {
        let step = P::win_after(d)?;
        let pmask = self.reverse(mask);
        let kp = self.kp;
        let (slot, state, frontier) = (&self.slot, &mut self.state, &mut self.frontier);
        let made = &mut self.made;
        for &pred in self.graph.of(node, self.n, &self.sides, self.base, made) {
            let at = pred as usize * kp;
            let mut won = 0u64;
            for j in bits(pmask) {
                let at_j = at + slot_of::<WHOLE>(slot, j);
                if P::take_win(&mut state[at_j], step)? {
                    won |= 1 << j;
                }
            }
            if won != 0 {
                Frontier::push(&mut frontier.wins, d + 1, pred, won);
            }
        }
        Ok(())
    }

    /// Node `node` was put on the frontier as won in `d` for the splits in
    /// `mask`: for those still won in `d`, refutes one quiet move of every
    /// predecessor; one left with none is lost (its slowest refutation, as
    /// distances come in order).
    fn propagate_win<const WHOLE: bool>(
        &mut self,
        node: u32,
        mask: u64,
        d: u32,
    ) -> Result<(), SolveError> {
        let (k, kp) = (self.k, self.kp);
        let at = node as usize * kp;
        let live = if WHOLE {
            P::live_wins(&mut self.state[at..at + k], mask, d)
        } else {
            for j in bits(mask) {
                self.scratch[j] = self.state[at + self.slot[j & 63] as usize];
            }
            let live = P::live_wins(&mut self.scratch, mask, d);
            for j in bits(mask) {
                self.state[at + self.slot[j & 63] as usize] = self.scratch[j];
            }
            live
        };
        if live == 0 {
            return Ok(());
        }
        let step = P::loss_after(d)?;
        let pmask = self.reverse(live);
        let (slot, state, frontier) = (&self.slot, &mut self.state, &mut self.frontier);
        let made = &mut self.made;
        for &pred in self.graph.of(node, self.n, &self.sides, self.base, made) {
            let at = pred as usize * kp;
            let mut lost = 0u64;
            for j in bits(pmask) {
                let at_j = at + slot_of::<WHOLE>(slot, j);
                match P::refute(&mut state[at_j], step, d)? {
                    Some(dist) if dist == d + 1 => lost |= 1 << j,
                    Some(dist) => Frontier::push(&mut frontier.losses, dist, pred, 1 << j),
                    None => {}
                }
            }
            if lost != 0 {
                Frontier::push(&mut frontier.losses, d + 1, pred, lost);
            }
        }
        Ok(())
    }

    /// Kazan offsets seen by the other player: `j -> n - j`.
    #[inline]
    fn reverse(&self, mask: u64) -> u64 {
        mask.reverse_bits() >> (64 - self.k)
    }

    /// The states of one side for the part just solved, board-major, a
    /// board's splits in ascending kazan offset (those of the part's mask):
    /// `kp` a board, `k` for a whole unit.
    pub(crate) fn part_states(&self, side: usize) -> &[P::State] {
        let first = self.base[side] as usize * self.kp;
        let len = board_count(self.n, self.sides[side].m) as usize * self.kp;
        &self.state[first..first + len]
    }
}

/// Where kazan offset `j` of the part sits among a board's states (`slot`,
/// [`Unit`]'s): `j` itself when the part is the whole unit.
#[inline]
fn slot_of<const WHOLE: bool>(slot: &[u8; 64], j: usize) -> usize {
    if WHOLE {
        j
    } else {
        slot[j & 63] as usize
    }
}

/// A unit's quiet-move graph: every board's quiet predecessors. Stored,
/// they are generated once per board (a board is resolved at several
/// distances for different kazan splits, and each would otherwise repeat
/// the un-move generation), 4 bytes an edge and 8 a board; else they are
/// generated again from the board each time it is propagated, which
/// takes no memory and more time (docs/performance.md), for a unit whose
/// graph would not fit.
struct Graph {
    stored: bool,
    /// Those of `node` are `preds[off[node]..off[node + 1]]`, when stored.
    preds: Vec<u32>,
    off: Vec<u64>,
}

impl Graph {
    fn new(stored: bool) -> Graph {
        Graph {
            stored,
            preds: Vec::new(),
            off: vec![0],
        }
    }

    /// Stores the predecessors of the next node, `board` (mover seated
    /// South), whose previous mover played configuration `pinfo`, its
    /// nodes from `pbase`: the board as he saw it after his move,
    /// un-played.
    #[inline]
    fn add(&mut self, board: &[u8; CYCLE], n: u32, pinfo: &ConfigInfo, pbase: u32) {
        let preds = &mut self.preds;
        unmoves(&rotate(board), n, pinfo, |pre| {
            // Below the unit's node count, which fits 32 bits.
            preds.push(pbase + rank_board(pre, &pinfo.free, pinfo.m) as u32)
        });
        self.off.push(self.preds.len() as u64);
    }

    /// The predecessors of `node` in a unit of `n` stones with
    /// configurations `sides`, their first nodes `base`: the stored ones,
    /// or those made into `made`.
    #[inline(always)]
    fn of<'a>(
        &'a self,
        node: u32,
        n: u32,
        sides: &[ConfigInfo],
        base: [u32; 2],
        made: &'a mut [u32; MAX_UNMOVES],
    ) -> &'a [u32] {
        if self.stored {
            let (lo, hi) = (self.off[node as usize], self.off[node as usize + 1]);
            return &self.preds[lo as usize..hi as usize];
        }
        let count = make_preds(node, n, sides, base, made);
        &made[..count]
    }
}

/// Makes the quiet predecessors of `node` (see [`Graph::of`]) into
/// `made` from its board; how many. Kept out of line: the stored graph's
/// path stays small.
#[inline(never)]
fn make_preds(
    node: u32,
    n: u32,
    sides: &[ConfigInfo],
    base: [u32; 2],
    made: &mut [u32; MAX_UNMOVES],
) -> usize {
    let side = usize::from(sides.len() == 2 && node >= base[1]);
    let info = &sides[side];
    let board = unrank_board((node - base[side]) as u64, n, &info.free, info.m);
    let pside = if sides.len() == 1 { 0 } else { 1 - side };
    let (pinfo, pbase) = (&sides[pside], base[pside]);
    let mut count = 0;
    unmoves(&rotate(&board), n, pinfo, |pre| {
        made[count] = pbase + rank_board(pre, &pinfo.free, pinfo.m) as u32;
        count += 1;
    });
    count
}

/// The mask of every kazan offset of `k` splits.
#[inline]
fn all_splits(k: usize) -> u64 {
    u64::MAX >> (64 - k)
}
