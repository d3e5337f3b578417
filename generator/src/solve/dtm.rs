//! Retrograde analysis: solves every position with `n` stones on the board,
//! given the solved tables for fewer stones.
//!
//! Within one stone count, a move that captures, makes a tuzdyk or sows into
//! a tuzdyk leaves for a smaller, already solved count (an *exit*); every
//! other move (a *quiet* move) keeps the board's stones, the kazans and the
//! tuzdyks, and only hands the move over. Seen from the side to move, a quiet
//! move therefore links configuration `c` to `c.swapped()` and kazan offset
//! `j` to `n - j`. The work splits into independent *units*, one per pair
//! `{c, c.swapped()}`, solved in parallel with memory bounded by the units in
//! flight.
//!
//! Inside a unit, the quiet-move graph over boards is the same for every
//! kazan split; only exits and game ends depend on the kazans. So each board
//! is expanded once for all `n + 1` splits, and the retrograde frontier
//! carries a bit mask of the splits that a board was resolved for at one
//! distance: one un-move generation serves them all.
//!
//! Values are exact distances to the end of the game in plies (the winner
//! hurries, the loser delays). Resolution runs in order of distance with
//! bucket queues, so a position's first win found is its fastest and a
//! position lost once its last quiet move is refuted takes the longest
//! refutation. Whatever is unresolved at the fixed point is a draw.

use crate::solve::below::{Exits, Levels};
use crate::solve::cells::{Cell, ConfigValues, LevelBuilder, LevelValues, UnitValues};
use crate::solve::error::{SolveError, MAX_DIST};
use crate::solve::unit::{
    bits, config_infos, exit_configs, level_units, max_solver_stones, rotate, ConfigInfo, UnitId,
};
use crate::solve::unmove::unmoves;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use togyz_probe::raw::index::{
    board_count, rank_board, BoardWalker, Layout, TuzdykConfig, CONFIG_COUNT,
};
use togyz_probe::raw::{landing, sow, Landing};
use togyz_probe::rules::{Side, CYCLE, ROW};
use togyz_probe::Value;

// State word of one (board, kazan split) during a unit's solve: 3 bits of
// kind, 4 bits counting the quiet moves not yet known to lose (at most 9),
// 25 bits of distance. One word, so a predecessor update touches one cache
// line.
const KIND_SHIFT: u32 = 29;
const CNT_SHIFT: u32 = 25;
const CNT_ONE: u32 = 1 << CNT_SHIFT;
const DIST_MASK: u32 = CNT_ONE - 1;
const _: () = assert!(MAX_DIST <= DIST_MASK);
/// All quiet moves not yet refuted; the best exit is a loss in `dist`
/// (0 when there is no exit).
const PENDING: u32 = 0;
/// An exit draws, so this cannot be lost.
const DRAW_FLOOR: u32 = 1;
/// An exit wins in `dist`; a quiet win may still be faster.
const WIN_TENTATIVE: u32 = 2;
const WIN: u32 = 3;
const LOSS: u32 = 4;

#[inline]
fn kind(s: u32) -> u32 {
    s >> KIND_SHIFT
}

#[inline]
fn word(kind: u32, dist: u32) -> u32 {
    (kind << KIND_SHIFT) | dist
}

#[inline]
fn quiet_left(s: u32) -> u32 {
    (s >> CNT_SHIFT) & 0xF
}

/// Solves one unit of level `n`; `exits` must hold, at every level below
/// `n`, the configurations of [`exit_configs`]`(unit)`. `progress` is
/// advanced by positions as the work goes.
///
/// # Errors
///
/// [`SolveError::MissingExits`] when `exits` lacks a configuration the
/// unit reads; the solver's limits otherwise.
pub fn solve_unit(
    n: u32,
    exits: &Exits<'_>,
    unit: UnitId,
    progress: &AtomicU64,
) -> Result<UnitValues, SolveError> {
    if n == 0 || n > max_solver_stones() {
        return Err(SolveError::TooManyStones(n));
    }
    if UnitId::of(unit.first) != unit {
        return Err(SolveError::BadUnit(unit.first, unit.second));
    }
    for m in 1..n {
        for config in exit_configs(unit) {
            if exits.get(m, config).is_none() {
                return Err(SolveError::MissingExits { stones: m, config });
            }
        }
    }
    let infos = config_infos();
    let mut u = Unit::new(n, exits, &infos, unit.first, unit.second, progress);
    u.solve()?;
    // The graph is done with: free it before the values are copied out.
    u.preds = Vec::new();
    u.pred_off = Vec::new();
    let mut out = Vec::new();
    for (side, id) in unit.configs().into_iter().enumerate() {
        let values = match u.side_values::<u8>(side) {
            Ok(v) => LevelValues::Narrow(v),
            Err(SolveError::CellTooNarrow) => LevelValues::Wide(u.side_values::<u16>(side)?),
            Err(e) => return Err(e),
        };
        out.push((id, values));
    }
    progress.fetch_add(u.positions() - u.reported, Ordering::Relaxed);
    Ok(out)
}

/// Solves level `n` whole in memory (all smaller levels must be in
/// `lower`) and returns its packed values in index order; for tests and
/// small runs (the `generate` driver writes unit by unit instead).
/// `progress` is advanced by positions as units finish.
pub fn solve_level(
    n: u32,
    lower: &Levels,
    progress: &AtomicU64,
) -> Result<LevelValues, SolveError> {
    if n == 0 || n > max_solver_stones() {
        return Err(SolveError::TooManyStones(n));
    }
    if lower.max_stones() + 1 < n {
        return Err(SolveError::MissingLevel {
            wanted: n,
            have: lower.max_stones(),
        });
    }
    let exits = Exits::whole(lower);
    let mut units = level_units(n);
    // Big units first, for better load balance.
    units.sort_by_key(|u| std::cmp::Reverse(u.positions(n)));
    let solved: Vec<UnitValues> = units
        .into_par_iter()
        .map(|u| solve_unit(n, &exits, u, progress))
        .collect::<Result<_, _>>()?;
    let mut by_config: Vec<Option<LevelValues>> = (0..CONFIG_COUNT).map(|_| None).collect();
    for (id, values) in solved.into_iter().flatten() {
        by_config[id] = Some(values);
    }
    let parts: Vec<LevelValues> = by_config
        .into_iter()
        .map(|v| v.expect("every configuration is in one unit"))
        .collect();
    let mut out = LevelBuilder::with_capacity(Layout::new(n).positions() as usize);
    for part in &parts {
        out.extend(&part.widened());
    }
    Ok(out.finish())
}

/// One pair of configurations `{a, a.swapped()}` at one stone count.
struct Unit<'a> {
    n: u32,
    k: usize,
    exits: &'a Exits<'a>,
    infos: &'a [ConfigInfo],
    /// The unit's configurations: side 0 and (if different) side 1.
    sides: Vec<ConfigInfo>,
    /// First node id of each side.
    base: [u32; 2],
    /// `state[node * k + j]`.
    state: Vec<u32>,
    /// Quiet predecessors of every node (from un-moves, generated once per
    /// board: a board is resolved at several distances for different kazan
    /// splits, and each would otherwise repeat the un-move generation):
    /// those of `node` are `preds[pred_off[node]..pred_off[node + 1]]`.
    preds: Vec<u32>,
    pred_off: Vec<u64>,
    /// Frontier buckets by distance: (node, kazan-split mask).
    wins: Vec<Vec<(u32, u64)>>,
    losses: Vec<Vec<(u32, u64)>>,
    /// Shared progress counter (positions) and what this unit added to it.
    progress: &'a AtomicU64,
    reported: u64,
}

impl<'a> Unit<'a> {
    fn new(
        n: u32,
        exits: &'a Exits<'a>,
        infos: &'a [ConfigInfo],
        a: usize,
        b: usize,
        progress: &'a AtomicU64,
    ) -> Unit<'a> {
        let k = n as usize + 1;
        let mut sides = vec![infos[a]];
        if b != a {
            sides.push(infos[b]);
        }
        let boards_a = board_count(n, sides[0].m) as u32;
        // Below u32::MAX: solve_unit refuses more than max_solver_stones().
        let nodes: u64 = sides.iter().map(|s| board_count(n, s.m)).sum();
        Unit {
            n,
            k,
            exits,
            infos,
            sides,
            base: [0, boards_a],
            state: vec![0; nodes as usize * k],
            preds: Vec::new(),
            pred_off: vec![0],
            wins: Vec::new(),
            losses: Vec::new(),
            progress,
            reported: 0,
        }
    }

    fn positions(&self) -> u64 {
        self.state.len() as u64
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

    fn push(bucket: &mut Vec<Vec<(u32, u64)>>, dist: u32, node: u32, mask: u64) {
        let d = dist as usize;
        if bucket.len() <= d {
            bucket.resize_with(d + 1, Vec::new);
        }
        bucket[d].push((node, mask));
    }

    fn solve(&mut self) -> Result<(), SolveError> {
        for side in 0..self.sides.len() {
            self.init_side(side)?;
        }
        let mut d = 0usize;
        while d < self.wins.len().max(self.losses.len()) {
            if let Some(batch) = self.losses.get_mut(d).map(std::mem::take) {
                for (node, mask) in batch {
                    self.propagate_loss(node, mask, d as u32)?;
                }
            }
            if let Some(batch) = self.wins.get_mut(d).map(std::mem::take) {
                for (node, mask) in batch {
                    self.propagate_win(node, mask, d as u32)?;
                }
            }
            d += 1;
        }
        Ok(())
    }

    /// Expands every board of one side once: counts quiet moves, scores exits
    /// for all kazan splits, and seeds the frontier.
    fn init_side(&mut self, side: usize) -> Result<(), SolveError> {
        let n = self.n;
        let k = self.k;
        let info = self.sides[side];
        let base = self.base[side];
        let mut walker = BoardWalker::new(n, info.config, 0, u64::MAX);
        let mut exit_best = vec![Value::Loss(0); k];
        let pside = self.other(side);
        let pinfo = self.sides[pside];
        let pbase = self.base[pside];
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
            if board[..ROW].iter().all(|&h| h == 0) {
                // No stones to move: the opponent collects the board. Only
                // 81:81 (j = n) is a draw.
                for j in 0..k {
                    self.state[at + j] = if j == k - 1 {
                        word(DRAW_FLOOR, 0)
                    } else {
                        word(LOSS, 0)
                    };
                }
                if k > 1 {
                    Self::push(&mut self.losses, 0, node, (1u64 << (k - 1)) - 1);
                }
                continue;
            }
            let mut quiet = 0u8;
            let mut has_exit = false;
            exit_best.fill(Value::Loss(0));
            for h in 0..ROW {
                if board[h] == 0 {
                    continue;
                }
                let mut b = board;
                let sown = sow(&mut b, h, info.tz);
                let mut gain = sown.fed[0] as u32;
                let lost = sown.fed[1] as u32;
                let mut child_cfg = info.config;
                match landing(&b, sown.last, Side::South, info.tz) {
                    Landing::Quiet => {
                        if gain == 0 && lost == 0 {
                            quiet += 1;
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
                        child_cfg.mover = Some((sown.last - ROW) as u8);
                    }
                }
                has_exit = true;
                self.score_exit(&b, child_cfg.swapped(), gain, lost, &mut exit_best);
            }
            // Seed: group kazan splits by (kind, distance).
            let mut j = 0;
            while j < k {
                let v = if has_exit {
                    exit_best[j]
                } else {
                    Value::Loss(0)
                };
                let mut mask = 1u64 << j;
                let mut j2 = j + 1;
                while j2 < k && has_exit && exit_best[j2] == v {
                    mask |= 1 << j2;
                    j2 += 1;
                }
                for jj in j..j2 {
                    self.state[at + jj] = match v {
                        Value::Win(d) => word(WIN_TENTATIVE, d),
                        Value::Draw => word(DRAW_FLOOR, 0),
                        Value::Loss(d) if quiet == 0 => word(LOSS, d),
                        Value::Loss(d) => word(PENDING, d),
                    } | (quiet as u32) << CNT_SHIFT;
                }
                match v {
                    Value::Win(d) => Self::push(&mut self.wins, d, node, mask),
                    Value::Loss(d) if quiet == 0 => Self::push(&mut self.losses, d, node, mask),
                    _ => {}
                }
                j = j2;
            }
        }
        Ok(())
    }

    /// Folds the value of one exit move into `best`, for every kazan split.
    /// `b` is the board after the move (mover seated South), `child_cfg` the
    /// tuzdyks seen by the opponent, `gain`/`lost` the stones that went to
    /// the mover's/opponent's kazan.
    #[inline]
    fn score_exit(
        &self,
        b: &[u8; CYCLE],
        child_cfg: TuzdykConfig,
        gain: u32,
        lost: u32,
        best: &mut [Value],
    ) {
        let n = self.n;
        let child_n = n - gain - lost;
        if child_n == 0 {
            let empty: &[u8] = &[];
            return Self::fold_exit(empty, n, child_n, 0, gain, lost, best);
        }
        let ci = &self.infos[child_cfg.id()];
        let first = rank_board(b, &ci.free_rotated, ci.m) * (child_n as u64 + 1);
        match self.exits.get(child_n, child_cfg.id()) {
            Some(ConfigValues::Narrow(t)) => {
                Self::fold_exit(t, n, child_n, first, gain, lost, best)
            }
            Some(ConfigValues::Wide(t)) => Self::fold_exit(t, n, child_n, first, gain, lost, best),
            None => unreachable!("solve_unit checks that exits holds every configuration reached"),
        }
    }

    /// The loop of [`Unit::score_exit`] over the kazan splits, for one cell
    /// type (`table` is unused when the child's board is empty).
    #[inline]
    fn fold_exit<T: Cell>(
        table: &[T],
        n: u32,
        child_n: u32,
        first: u64,
        gain: u32,
        lost: u32,
        best: &mut [Value],
    ) {
        for (j, slot) in best.iter_mut().enumerate() {
            let j = j as u32;
            let v = if j + gain > n {
                Value::Win(1)
            } else if j < lost {
                Value::Loss(1)
            } else {
                // The child's mover is our opponent: offset n - gain - j.
                let cj = n - gain - j;
                let packed = if child_n == 0 {
                    0 // an empty board: 81:81
                } else {
                    table[(first + cj as u64) as usize].into()
                };
                Value::unpack(packed).back()
            };
            if v > *slot {
                *slot = v;
            }
        }
    }

    /// Node `node` is lost at distance `d` for the splits in `mask`: every
    /// quiet predecessor wins in `d + 1`.
    fn propagate_loss(&mut self, node: u32, mask: u64, d: u32) -> Result<(), SolveError> {
        let nd = d + 1;
        if nd > MAX_DIST {
            return Err(SolveError::DistanceOverflow(nd));
        }
        let pmask = self.reverse(mask);
        let k = self.k;
        self.for_each_predecessor(node, |unit, pred| {
            let at = pred as usize * k;
            let mut won = 0u64;
            for j in bits(pmask) {
                let s = unit.state[at + j];
                if kind(s) < WIN_TENTATIVE || (kind(s) == WIN_TENTATIVE && (s & DIST_MASK) > nd) {
                    unit.state[at + j] = word(WIN, nd);
                    won |= 1 << j;
                }
            }
            if won != 0 {
                Self::push(&mut unit.wins, nd, pred, won);
            }
        });
        Ok(())
    }

    /// Node `node` is won at distance `d` for the splits in `mask` (entries
    /// may be stale tentative wins, which are dropped here).
    fn propagate_win(&mut self, node: u32, mask: u64, d: u32) -> Result<(), SolveError> {
        let k = self.k;
        let at = node as usize * k;
        let mut live = 0u64;
        for j in bits(mask) {
            let s = self.state[at + j];
            if kind(s) == WIN_TENTATIVE && s & DIST_MASK == d {
                self.state[at + j] = word(WIN, d);
                live |= 1 << j;
            } else if s == word(WIN, d) {
                live |= 1 << j;
            }
        }
        if live == 0 {
            return Ok(());
        }
        let nd = d + 1;
        if nd > MAX_DIST {
            return Err(SolveError::DistanceOverflow(nd));
        }
        let pmask = self.reverse(live);
        self.for_each_predecessor(node, |unit, pred| {
            let at = pred as usize * k;
            for j in bits(pmask) {
                let s = unit.state[at + j];
                let kd = kind(s);
                if kd == WIN || kd == LOSS {
                    continue;
                }
                let s = s - CNT_ONE;
                unit.state[at + j] = s;
                if quiet_left(s) == 0 && kd == PENDING {
                    let dist = nd.max(s & DIST_MASK);
                    unit.state[at + j] = word(LOSS, dist);
                    Self::push(&mut unit.losses, dist, pred, 1 << j);
                }
            }
        });
        Ok(())
    }

    /// Kazan offsets seen by the other player: `j -> n - j`.
    #[inline]
    fn reverse(&self, mask: u64) -> u64 {
        mask.reverse_bits() >> (64 - self.k)
    }

    /// Calls `f` with every node that reaches `node` by one quiet move
    /// (once per move, so a board reached by two moves comes twice).
    #[inline]
    fn for_each_predecessor(&mut self, node: u32, mut f: impl FnMut(&mut Self, u32)) {
        let lo = self.pred_off[node as usize] as usize;
        let hi = self.pred_off[node as usize + 1] as usize;
        for i in lo..hi {
            let pred = self.preds[i];
            f(self, pred);
        }
    }

    /// The final values of one side (board-major), in cells of type `T`.
    fn side_values<T: Cell>(&self, side: usize) -> Result<Vec<T>, SolveError> {
        let k = self.k;
        let first = self.base[side] as usize * k;
        let len = board_count(self.n, self.sides[side].m) as usize * k;
        let mut out = vec![T::default(); len];
        for (o, &s) in out.iter_mut().zip(&self.state[first..first + len]) {
            let v = match kind(s) {
                WIN => Value::Win(s & DIST_MASK),
                LOSS => Value::Loss(s & DIST_MASK),
                _ => Value::Draw,
            };
            let packed = v.pack().expect("distances are bounded by MAX_DIST");
            *o = T::from_packed(packed).ok_or(SolveError::CellTooNarrow)?;
        }
        Ok(out)
    }
}

/// Solves every level from 1 to `max_stones` in memory (for tests and small
/// runs; the `generate` driver writes each level as it goes).
pub fn solve_all(max_stones: u32) -> Result<Levels, SolveError> {
    let mut levels = Levels::new();
    let progress = AtomicU64::new(0);
    for n in 1..=max_stones {
        let values = solve_level(n, &levels, &progress)?;
        levels.push(values);
    }
    Ok(levels)
}

#[cfg(test)]
mod tests {
    use super::*;
    use togyz_probe::rules::Move;
    use togyz_probe::Position;

    /// The solver's limits are typed errors, and the stone limit follows
    /// from the 32-bit node ids.
    #[test]
    fn limits_are_errors() {
        assert_eq!(max_solver_stones(), 17);
        let progress = AtomicU64::new(0);
        let levels = Levels::new();
        let lower = Exits::whole(&levels);
        assert!(matches!(
            solve_unit(18, &lower, UnitId::of(0), &progress),
            Err(SolveError::TooManyStones(18))
        ));
        assert!(matches!(
            solve_unit(3, &lower, UnitId::of(0), &progress),
            Err(SolveError::MissingExits {
                stones: 1,
                config: 0
            })
        ));
        assert!(matches!(
            solve_level(3, &levels, &progress),
            Err(SolveError::MissingLevel { wanted: 3, have: 0 })
        ));
        assert!(matches!(
            solve_unit(
                1,
                &lower,
                UnitId {
                    first: 1,
                    second: 2
                },
                &progress
            ),
            Err(SolveError::BadUnit(1, 2))
        ));
        assert_eq!(level_units(5).len(), 37);
        let covered: usize = level_units(5).iter().map(|u| u.configs().len()).sum();
        assert_eq!(covered, CONFIG_COUNT);
    }

    /// One- and two-byte cells give the same values, whichever the lower
    /// levels are held in, and a value over a byte asks for wide cells.
    #[test]
    fn narrow_and_wide_cells_agree() {
        let progress = AtomicU64::new(0);
        let narrow = solve_all(4).unwrap();
        let mut wide = Levels::new();
        for n in 1..=4 {
            let w = solve_level(n, &wide, &progress)
                .unwrap()
                .widened()
                .into_owned();
            assert_eq!(w, narrow.table(n).into_owned(), "n={n}");
            wide.push(LevelValues::Wide(w));
        }
        let from_narrow = solve_level(5, &narrow, &progress).unwrap();
        let from_wide = solve_level(5, &wide, &progress).unwrap();
        assert!(matches!(from_narrow, LevelValues::Narrow(_)));
        assert_eq!(from_narrow, from_wide);
        assert_eq!(
            LevelValues::from_packed(vec![0, 255, 256]),
            LevelValues::Wide(vec![0, 255, 256])
        );
        assert_eq!(
            LevelValues::from_packed(vec![0, 255]),
            LevelValues::Narrow(vec![0, 255])
        );
        assert_eq!(u8::from_packed(Value::Win(127).pack().unwrap()), Some(255));
        assert_eq!(u8::from_packed(Value::Loss(127).pack().unwrap()), None);
        assert_eq!(u8::from_packed(Value::Loss(126).pack().unwrap()), Some(254));
    }

    /// docs/rules.md example 3: the side to move loses in 4 plies.
    #[test]
    fn one_extra_move_is_lost_in_four() {
        let levels = solve_all(4).unwrap();
        let holes = {
            let mut h = [0u8; CYCLE];
            h[8] = 2; // South hole 9
            h[ROW + 1] = 2; // North hole 2
            h
        };
        let pos = Position::new(holes, [79, 79], [None, None], Side::South, 1).unwrap();
        assert_eq!(levels.value(&pos), Some(Value::Loss(4)));
        let after = pos.after(Move::new(9).unwrap()).unwrap();
        assert_eq!(levels.value(&after), Some(Value::Win(3)));
    }
}
