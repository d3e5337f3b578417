//! Win/draw/loss with distance to conversion (DTC): solves the positions
//! with `n` stones given only the win/draw/loss of the levels below, one
//! number per board ([`WdlLevel`]).
//!
//! A *conversion* is a move that leaves the stone count (a capture, a
//! tuzdyk made, a sowing that feeds a tuzdyk) or that ends the game; such a
//! move is an *exit* in the terms of [`crate::solve::dtm`]. The DTC of a won or
//! lost position is the number of plies to the next conversion, by either
//! side, counting the converting move, when the winner heads for a
//! conversion that keeps the win as fast as possible and the loser puts
//! every conversion off as long as possible. Precisely, over the game
//! graph of level `n`:
//!
//! * a position where the side to move has no stones is over: a loss with
//!   DTC 0, or a draw at 81:81;
//! * a won position's DTC is the least, over its moves that keep the win, of
//!   1 for an exit (whose result, read from the level below or from a kazan
//!   passing 81, is a win) and `1 + DTC(q)` for a quiet move to a position
//!   `q` that is lost for the opponent;
//! * a lost position's DTC is the greatest, over all its moves (all lose),
//!   of 1 for an exit and `1 + DTC(q)` for a quiet move to `q`;
//! * draws have none.
//!
//! This is the distance to the end of the game of the modified game in
//! which every exit ends the game at once with its win/draw/loss; it is
//! solved exactly like distance to mate ([`crate::solve::dtm`], whose units,
//! un-moves and bucket queues it reuses), with every exit scored as a
//! win, draw or loss in 1. The win/draw/loss is the real game's: an exit's
//! result is exact, and quiet play is solved in full.
//!
//! Two facts keep the working state to one byte a position. Every winning
//! exit wins in exactly 1, so a win found at seeding is final (no
//! tentative wins); and a lost position with a quiet move always delays
//! past its exits (`1 + DTC(q) >= 2`), so the exits' distance need not be
//! kept. A position's state is either resolved (its packed value) or
//! unresolved: the number of quiet moves not yet refuted, or "cannot be
//! lost" (an exit or a game end draws). Distances beyond a byte switch the
//! level to two-byte cells, as [`crate::solve::dtm::solve_level`] does.
//!
//! The exits of a board summarize into one number as well: an exit that
//! gains `g` stones for the mover and leads to a board whose draw split is
//! `c*` wins for `j > n - g - c*`, draws at equality and loses below
//! (kazans passing 81 included), so the best exit over all kazan splits is
//! the smallest such threshold.
//!
//! Every solved board is checked to have exactly one draw split
//! ([`crate::solve::score`]); the solve stops with [`DtcError::Score`] naming a
//! board that has not (the first of its unit; units run in parallel).

use crate::solve::below::WdlLevels;
use crate::solve::cells::{Cell, LevelBuilder, LevelValues, UnitValues};
use crate::solve::error::{SolveError, MAX_DIST};
use crate::solve::score::{draw_split, ScoreError, WdlLevel};
use crate::solve::unit::{bits, config_infos, level_units, rotate, ConfigInfo, UnitId};
use crate::solve::unmove::unmoves;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use togyz_probe::raw::index::{board_count, rank_board, BoardWalker, Layout, CONFIG_COUNT};
use togyz_probe::raw::{landing, sow, Landing};
use togyz_probe::rules::{Side, ROW};
use togyz_probe::Value;

/// Why a DTC level could not be solved.
#[derive(Debug, thiserror::Error)]
pub enum DtcError {
    /// The solver's limits or the levels given (as for DTM).
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// A solved board is not one draw split.
    #[error(transparent)]
    Score(#[from] ScoreError),
}

/// One solved DTC level: the packed values (win/draw/loss with the DTC as
/// the distance, [`Value::pack`]) in index order, and its win/draw/loss as
/// one draw split per board.
#[derive(Clone, Debug)]
pub struct DtcLevel {
    /// Packed values, one per position; the distance is the DTC.
    pub values: LevelValues,
    /// The draw split of every board.
    pub wdl: WdlLevel,
}

// Unresolved states of a position; resolved ones are `RESOLVED + packed`.
/// Cannot be lost any more (an exit or the game's end draws): a draw
/// unless a win is found.
const OPEN: u16 = 0;
// `1..=9` (at most one quiet move a hole): no exit draws or wins, this
// many quiet moves not yet refuted.
/// The first resolved state: `RESOLVED + packed value`.
const RESOLVED: u16 = 10;

#[inline]
fn resolved(v: Value) -> Result<u16, SolveError> {
    let d = v.dtm().unwrap_or(0);
    match v.pack() {
        Some(p) if d <= MAX_DIST && p <= u16::MAX - RESOLVED => Ok(RESOLVED + p),
        _ => Err(SolveError::DistanceOverflow(d)),
    }
}

/// One solved DTC unit: each configuration with its packed values
/// (board-major; the distance is the DTC) and its boards' draw splits.
#[derive(Clone, Debug)]
pub struct DtcUnit {
    /// The unit's values, as the DTM solver gives them
    /// ([`crate::solve::dtm::solve_unit`]), so they go into the same unit files.
    pub values: UnitValues,
    /// The draw split of every board of each configuration, in the order
    /// of `values`.
    pub splits: Vec<Vec<u8>>,
}

/// Solves one unit of level `n` given the win/draw/loss of every level
/// below it, in one-byte cells, or two-byte cells if a state does not fit
/// one. `progress` is advanced by the unit's positions when it is solved.
///
/// # Errors
///
/// [`DtcError::Solve`] for a level beyond the solver's limits, without
/// the levels below, or a unit that is not one; [`DtcError::Score`]
/// naming a board of the unit that is not one draw split.
pub fn solve_unit(
    n: u32,
    lower: &WdlLevels,
    unit: UnitId,
    progress: &AtomicU64,
) -> Result<DtcUnit, DtcError> {
    let infos = config_infos();
    let (values, splits) = match solve_unit_into::<u8>(n, lower, &infos, unit, progress) {
        Err(DtcError::Solve(SolveError::CellTooNarrow)) => {
            let sides = solve_unit_into::<u16>(n, lower, &infos, unit, progress)?;
            sides
                .into_iter()
                .map(|(id, v, s)| ((id, LevelValues::Wide(v)), s))
                .unzip()
        }
        r => r?
            .into_iter()
            .map(|(id, v, s)| ((id, LevelValues::Narrow(v)), s))
            .unzip(),
    };
    Ok(DtcUnit { values, splits })
}

/// Solves level `n` whole in memory given the win/draw/loss of every level
/// below it (for tests and small runs: the `generate` driver solves unit by
/// unit, [`solve_unit`]). `progress` is advanced by positions as units
/// finish.
///
/// # Errors
///
/// As [`solve_unit`].
pub fn solve_level(n: u32, lower: &WdlLevels, progress: &AtomicU64) -> Result<DtcLevel, DtcError> {
    check_level(n, lower)?;
    let units = units_biggest_first(n);
    let solved: Vec<DtcUnit> = units
        .into_par_iter()
        .map(|u| solve_unit(n, lower, u, progress))
        .collect::<Result<_, _>>()?;
    let mut by_config: Vec<Option<(LevelValues, Vec<u8>)>> =
        (0..CONFIG_COUNT).map(|_| None).collect();
    for unit in solved {
        for ((id, v), s) in unit.values.into_iter().zip(unit.splits) {
            by_config[id] = Some((v, s));
        }
    }
    let mut values = LevelBuilder::with_capacity(Layout::new(n).positions() as usize);
    let mut splits = Vec::with_capacity(Layout::new(n).boards() as usize);
    for part in by_config {
        let (v, s) = part.expect("every configuration is in one unit");
        values.extend(&v.widened());
        splits.extend_from_slice(&s);
    }
    Ok(DtcLevel {
        values: values.finish(),
        wdl: WdlLevel::from_splits(n, splits)?,
    })
}

/// Solves every level from 1 to `max_stones` in memory, each from the
/// win/draw/loss of those below (for tests and small runs).
///
/// # Errors
///
/// As [`solve_level`].
pub fn solve_all(max_stones: u32) -> Result<(Vec<LevelValues>, WdlLevels), DtcError> {
    let mut wdl = WdlLevels::new();
    let mut values = vec![LevelValues::Narrow(Vec::new())];
    let progress = AtomicU64::new(0);
    for n in 1..=max_stones {
        let level = solve_level(n, &wdl, &progress)?;
        wdl.push(level.wdl)?;
        values.push(level.values);
    }
    Ok((values, wdl))
}

/// Whether level `n` can be solved on `lower`.
fn check_level(n: u32, lower: &WdlLevels) -> Result<(), SolveError> {
    if n == 0 || n > 63 || n > togyz_probe::raw::index::MAX_STONES {
        return Err(SolveError::TooManyStones(n));
    }
    if lower.max_stones() + 1 < n {
        return Err(SolveError::MissingLevel {
            wanted: n,
            have: lower.max_stones(),
        });
    }
    Ok(())
}

/// The units of level `n`, big ones first for better load balance.
fn units_biggest_first(n: u32) -> Vec<UnitId> {
    let mut units = level_units(n);
    units.sort_by_key(|u| std::cmp::Reverse(u.positions(n)));
    units
}

/// One configuration of a solved unit: its id, values and draw splits.
type SolvedSide<T> = (usize, Vec<T>, Vec<u8>);

/// [`solve_unit`] into cells of type `T` (state and output alike); fails
/// with [`SolveError::CellTooNarrow`] if a state does not fit.
fn solve_unit_into<T: Cell>(
    n: u32,
    lower: &WdlLevels,
    infos: &[ConfigInfo],
    unit: UnitId,
    progress: &AtomicU64,
) -> Result<Vec<SolvedSide<T>>, DtcError> {
    check_level(n, lower)?;
    if UnitId::of(unit.first) != unit {
        return Err(SolveError::BadUnit(unit.first, unit.second).into());
    }
    let mut u = Unit::<T>::new(n, lower, infos, unit.first, unit.second);
    u.solve()?;
    let layout = Layout::new(n);
    let k = layout.kazans() as usize;
    let mut sides = Vec::new();
    for (side, id) in unit.configs().into_iter().enumerate() {
        let boards = layout.config_boards(id) as usize;
        let mut values = vec![T::default(); boards * k];
        let mut splits = vec![0u8; boards];
        u.write(side, (&mut values, &mut splits))?;
        sides.push((id, values, splits));
    }
    progress.fetch_add(u.state.len() as u64, Ordering::Relaxed);
    Ok(sides)
}

/// One pair of configurations `{a, a.swapped()}` at one stone count.
struct Unit<'a, T> {
    n: u32,
    k: usize,
    lower: &'a WdlLevels,
    infos: &'a [ConfigInfo],
    /// The unit's configurations: side 0 and (if different) side 1.
    sides: Vec<ConfigInfo>,
    /// First node id of each side.
    base: [u32; 2],
    /// Global board of each side's rank 0 (for the error naming a board).
    first_board: [u64; 2],
    /// `state[node * k + j]`: see [`OPEN`] and [`RESOLVED`].
    state: Vec<T>,
    /// Quiet predecessors of every node, as in [`crate::solve::dtm`]: those of
    /// `node` are `preds[pred_off[node]..pred_off[node + 1]]`.
    preds: Vec<u32>,
    pred_off: Vec<u64>,
    /// Frontier buckets by distance: (node, kazan-split mask).
    wins: Vec<Vec<(u32, u64)>>,
    losses: Vec<Vec<(u32, u64)>>,
}

impl<'a, T: Cell> Unit<'a, T> {
    fn new(n: u32, lower: &'a WdlLevels, infos: &'a [ConfigInfo], a: usize, b: usize) -> Self {
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
        let layout = Layout::new(n);
        Unit {
            n,
            k,
            lower,
            infos,
            sides,
            base: [0, boards_a],
            first_board: [layout.global_board(a, 0), layout.global_board(b, 0)],
            state: vec![T::default(); nodes as usize * k],
            preds: Vec::new(),
            pred_off: vec![0],
            wins: Vec::new(),
            losses: Vec::new(),
        }
    }

    #[inline]
    fn get(&self, at: usize) -> u16 {
        self.state[at].into()
    }

    #[inline]
    fn set(&mut self, at: usize, s: u16) -> Result<(), SolveError> {
        self.state[at] = T::from_packed(s).ok_or(SolveError::CellTooNarrow)?;
        Ok(())
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

    /// Expands every board of one side once: its quiet predecessors, its
    /// quiet moves and the best exit threshold, and seeds the frontier.
    fn init_side(&mut self, side: usize) -> Result<(), SolveError> {
        let n = self.n;
        let k = self.k;
        let info = self.sides[side];
        let base = self.base[side];
        let pinfo = self.sides[self.other(side)];
        let pbase = self.base[self.other(side)];
        let mut walker = BoardWalker::new(n, info.config, 0, u64::MAX);
        while let Some((rank, board)) = walker.current() {
            let node = base + rank as u32;
            let at = node as usize * k;
            let board = *board;
            walker.advance();
            let preds = &mut self.preds;
            unmoves(&rotate(&board), n, &pinfo, |pre| {
                // Below the unit's node count, which fits 32 bits.
                preds.push(pbase + rank_board(pre, &pinfo.free, pinfo.m) as u32)
            });
            self.pred_off.push(self.preds.len() as u64);
            if board[..ROW].iter().all(|&h| h == 0) {
                // The game is over: the opponent collects the board, and
                // only 81:81 (j = n) is a draw.
                for j in 0..k - 1 {
                    self.set(at + j, resolved(Value::Loss(0))?)?;
                }
                if k > 1 {
                    Self::push(&mut self.losses, 0, node, (1u64 << (k - 1)) - 1);
                }
                continue;
            }
            let (quiet, exit) = self.moves(&board, &info);
            let (mut won, mut lost) = (0u64, 0u64);
            for j in 0..k as u32 {
                let s = match exit {
                    Some(t) if j > t => {
                        won |= 1 << j;
                        resolved(Value::Win(1))?
                    }
                    Some(t) if j == t => OPEN,
                    _ if quiet == 0 => {
                        lost |= 1 << j;
                        resolved(Value::Loss(1))?
                    }
                    _ => quiet,
                };
                self.set(at + j as usize, s)?;
            }
            if won != 0 {
                Self::push(&mut self.wins, 1, node, won);
            }
            if lost != 0 {
                Self::push(&mut self.losses, 1, node, lost);
            }
        }
        Ok(())
    }

    /// The quiet moves of `board` (mover seated South, configuration
    /// `info`) and the best exit: the least kazan offset `t` such that an
    /// exit wins for `j > t` and draws at `j = t` (`None` without exits).
    fn moves(&self, board: &[u8; 18], info: &ConfigInfo) -> (u16, Option<u32>) {
        let n = self.n;
        let mut quiet = 0u16;
        let mut best: Option<u32> = None;
        for h in 0..ROW {
            if board[h] == 0 {
                continue;
            }
            let mut b = *board;
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
            // The child, seen by the opponent: n - gain - lost stones, its
            // mover's offset n - gain - j. The opponent loses for offsets
            // below its draw split c*, so the mover wins for j > n - gain - c*
            // (and c* <= n - gain - lost keeps the threshold in 0..=n).
            let child_n = n - gain - lost;
            let child_cfg = child_cfg.swapped();
            let ci = &self.infos[child_cfg.id()];
            let layout = &self.lower.layouts[child_n as usize];
            let gb = layout.global_board(child_cfg.id(), rank_board(&b, &ci.free_rotated, ci.m));
            let t = n - gain - self.lower.level(child_n).split(gb);
            best = Some(best.map_or(t, |x| x.min(t)));
        }
        (quiet, best)
    }

    /// Node `node` is lost in `d` for the splits in `mask`: every quiet
    /// predecessor not yet resolved wins in `d + 1`.
    fn propagate_loss(&mut self, node: u32, mask: u64, d: u32) -> Result<(), SolveError> {
        let win = resolved(Value::Win(d + 1))?;
        let pmask = self.reverse(mask);
        let k = self.k;
        for i in self.pred_range(node) {
            let pred = self.preds[i];
            let at = pred as usize * k;
            let mut won = 0u64;
            for j in bits(pmask) {
                if self.get(at + j) < RESOLVED {
                    self.set(at + j, win)?;
                    won |= 1 << j;
                }
            }
            if won != 0 {
                Self::push(&mut self.wins, d + 1, pred, won);
            }
        }
        Ok(())
    }

    /// Node `node` is won in `d` for the splits in `mask`: refutes one
    /// quiet move of every predecessor; one left with none is lost in
    /// `d + 1` (its slowest refutation, as distances come in order).
    fn propagate_win(&mut self, node: u32, mask: u64, d: u32) -> Result<(), SolveError> {
        let loss = resolved(Value::Loss(d + 1))?;
        let pmask = self.reverse(mask);
        let k = self.k;
        for i in self.pred_range(node) {
            let pred = self.preds[i];
            let at = pred as usize * k;
            let mut lost = 0u64;
            for j in bits(pmask) {
                let s = self.get(at + j);
                if s == OPEN || s >= RESOLVED {
                    continue;
                }
                if s == 1 {
                    self.set(at + j, loss)?;
                    lost |= 1 << j;
                } else {
                    self.set(at + j, s - 1)?;
                }
            }
            if lost != 0 {
                Self::push(&mut self.losses, d + 1, pred, lost);
            }
        }
        Ok(())
    }

    /// Where the quiet predecessors of `node` are in `preds`.
    #[inline]
    fn pred_range(&self, node: u32) -> std::ops::Range<usize> {
        self.pred_off[node as usize] as usize..self.pred_off[node as usize + 1] as usize
    }

    /// Kazan offsets seen by the other player: `j -> n - j`.
    #[inline]
    fn reverse(&self, mask: u64) -> u64 {
        mask.reverse_bits() >> (64 - self.k)
    }

    /// Writes the packed values and draw splits of one side, checking that
    /// every board has exactly one draw split.
    fn write(&self, side: usize, (out, splits): (&mut [T], &mut [u8])) -> Result<(), DtcError> {
        let k = self.k;
        let first = self.base[side] as usize * k;
        for (b, (cells, split)) in out.chunks_mut(k).zip(splits.iter_mut()).enumerate() {
            let at = first + b * k;
            for (j, o) in cells.iter_mut().enumerate() {
                let s = self.get(at + j);
                // Unresolved at the fixed point: a draw (packed 0).
                let packed = s.saturating_sub(RESOLVED);
                *o = T::from_packed(packed).ok_or(SolveError::CellTooNarrow)?;
            }
            let wdl = cells.iter().map(|&c| Value::unpack(c.into()).wdl());
            *split = draw_split(self.n, self.first_board[side] + b as u64, wdl)? as u8;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One- and two-byte cells give the same level.
    #[test]
    fn narrow_and_wide_cells_agree() {
        let progress = AtomicU64::new(0);
        let mut lower = WdlLevels::new();
        let infos = config_infos();
        for n in 1..=5 {
            for u in level_units(n) {
                let narrow = solve_unit_into::<u8>(n, &lower, &infos, u, &progress).unwrap();
                let wide = solve_unit_into::<u16>(n, &lower, &infos, u, &progress).unwrap();
                for ((ia, a, sa), (ib, b, sb)) in narrow.iter().zip(&wide) {
                    assert_eq!((ia, sa), (ib, sb), "n={n}");
                    assert!(a.iter().zip(b).all(|(&a, &b)| a as u16 == b), "n={n}");
                }
            }
            let level = solve_level(n, &lower, &progress).unwrap();
            lower.push(level.wdl).unwrap();
        }
    }

    /// A resolved state that does not fit a byte asks for wide cells, and
    /// one past the packing is an overflow.
    #[test]
    fn state_limits() {
        assert_eq!(resolved(Value::Draw).unwrap(), RESOLVED);
        assert!(u8::from_packed(resolved(Value::Win(122)).unwrap()).is_some());
        assert!(u8::from_packed(resolved(Value::Loss(122)).unwrap()).is_none());
        assert!(matches!(
            resolved(Value::Loss(MAX_DIST)),
            Err(SolveError::DistanceOverflow(_))
        ));
    }
}
