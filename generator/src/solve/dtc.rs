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
//! solved exactly like distance to mate, by the same unit core
//! ([`crate::solve::core`]) with another policy, with every exit scored as a
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

use crate::solve::cells::{Cell, LevelBuilder, LevelValues, UnitValues};
use crate::solve::core::{Frontier, Policy, Reseed, Unit};
use crate::solve::error::{check_below, check_level, check_unit, SolveError, MAX_DIST};
use crate::solve::held::{DtcLevels, WdlBelow};
use crate::solve::moves::split_moves;
use crate::solve::parts::{put_side, PartSink, SeedBatches, SeedKey, SeedStore, SEED_BATCH};
use crate::solve::score::{draw_split, ScoreError, WdlLevel};
use crate::solve::unit::{bits, config_infos, solve_by_config, ConfigInfo, KazanCut, UnitId};
use std::sync::atomic::{AtomicU64, Ordering};
use togyz_tb::raw::index::{rank_board, BoardWalker, Layout};
use togyz_tb::Value;
use togyz_tb::{CYCLE, ROW};

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
    let d = v.distance().unwrap_or(0);
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
/// below it (`lower`: every level held whole, [`DtcLevels`], or what the
/// unit's exits reach of them, [`WdlBelow`]), in one-byte cells, or
/// two-byte cells if a state does not fit one. `progress` is advanced by
/// the unit's positions when it is solved.
///
/// # Errors
///
/// [`DtcError::Solve`] for a level beyond the solver's limits, without
/// the levels below, or a unit that is not one; [`DtcError::Score`]
/// naming a board of the unit that is not one draw split.
pub fn solve_unit<L: WdlBelow>(
    n: u32,
    lower: &L,
    unit: UnitId,
    cut: KazanCut,
    progress: &AtomicU64,
) -> Result<DtcUnit, DtcError> {
    let infos = config_infos();
    let (values, splits) =
        match solve_unit_into::<u8, _>(n, lower, &infos, unit, cut, progress, None) {
            Err(DtcError::Solve(SolveError::CellTooNarrow)) => {
                let sides = solve_unit_into::<u16, _>(n, lower, &infos, unit, cut, progress, None)?;
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

/// Solves one unit of level `n` as [`solve_unit`] does, but hands each
/// kazan part's values to `sink` as soon as the part is solved instead of
/// gathering the unit's values (for a unit cut into parts: the values
/// are then never held whole). Returns each configuration of the unit
/// with the width of its cells (1 or 2 bytes, as [`solve_unit`] gives
/// them); the draw splits are not checked here (the sink's reader does:
/// [`crate::files::work::write_unit_parts`]).
///
/// # Errors
///
/// As [`solve_unit`], and what the sink returns.
pub fn solve_unit_parts<L: WdlBelow>(
    n: u32,
    lower: &L,
    unit: UnitId,
    cut: KazanCut,
    progress: &AtomicU64,
    sink: &mut dyn PartSink,
) -> Result<Vec<(usize, u32)>, DtcError> {
    let infos = config_infos();
    let width =
        match solve_unit_into::<u8, _>(n, lower, &infos, unit, cut, progress, Some(&mut *sink)) {
            Err(DtcError::Solve(SolveError::CellTooNarrow)) => {
                // The parts handed over so far are replaced, part by part.
                solve_unit_into::<u16, _>(n, lower, &infos, unit, cut, progress, Some(sink))?;
                2
            }
            r => {
                r?;
                1
            }
        };
    Ok(unit.configs().into_iter().map(|id| (id, width)).collect())
}

/// Seeds every kazan part of unit `unit` of level `n` cut as `cut` into
/// `store` ([`SeedKey::Part`]), apart from its solve ([`solve_seeded`]):
/// its exits read `lower` (the unit's share of the levels below) once a
/// board, and the caller frees it before the unit's quiet-move graph is
/// built, so that a cut unit never holds both. The seeds are the states
/// [`solve_unit_parts`] seeds each part with, so the values are its own.
///
/// # Errors
///
/// [`DtcError::Solve`] for a level beyond the solver's limits, without
/// the levels below, or a unit that is not one; what the store returns.
pub fn seed_parts<L: WdlBelow>(
    n: u32,
    lower: &L,
    unit: UnitId,
    cut: KazanCut,
    store: &mut dyn SeedStore,
) -> Result<(), DtcError> {
    check_below(n, lower.max_stones())?;
    check_unit(n, unit)?;
    let infos = config_infos();
    // A seed fits a byte whatever the cells the solve takes.
    let policy = Dtc::<u8, L> {
        lower,
        infos: &infos,
        cell: std::marker::PhantomData,
    };
    let k = n as usize + 1;
    let parts = cut.parts(n);
    let keys = parts.iter().map(|&p| SeedKey::Part(p)).collect();
    let mut out = SeedBatches::create(store, keys, k)?;
    let mut states = vec![0u8; k];
    for config in unit.configs() {
        let info = infos[config];
        let mut walker = BoardWalker::new(n, info.config, 0, u64::MAX);
        while let Some((_, board)) = walker.current() {
            let board = *board;
            walker.advance();
            // What the core's states start as (the seed leaves some).
            states.fill(u8::default());
            policy.seed_states(n, &board, &info, &mut states)?;
            for (i, &part) in parts.iter().enumerate() {
                out.extend(store, i, bits(part).map(|j| states[j] as u32))?;
            }
        }
    }
    Ok(out.finish(store)?)
}

/// Solves unit `unit` of level `n` in the kazan parts of `cut` from the
/// seeds that [`seed_parts`] kept in `store`, reading no exit, and hands
/// each part's values to `sink` as [`solve_unit_parts`] does (the same
/// values, the same widths returned): in one-byte cells, or in two-byte
/// ones with `wide`, after a solve in one-byte cells failed with
/// [`SolveError::CellTooNarrow`] (it has read the seeds of the parts it
/// solved: they must be made again first). `progress` is advanced by the
/// unit's positions when it is solved.
///
/// # Errors
///
/// The solver's limits; what the store or the sink returns.
pub fn solve_seeded(
    n: u32,
    unit: UnitId,
    cut: KazanCut,
    wide: bool,
    progress: &AtomicU64,
    store: &mut dyn SeedStore,
    sink: &mut dyn PartSink,
) -> Result<Vec<(usize, u32)>, DtcError> {
    let width = if wide {
        solve_seeded_into::<u16>(n, unit, cut, store, sink)?;
        2
    } else {
        solve_seeded_into::<u8>(n, unit, cut, store, sink)?;
        1
    };
    progress.fetch_add(unit.positions(n), Ordering::Relaxed);
    Ok(unit.configs().into_iter().map(|id| (id, width)).collect())
}

/// [`solve_seeded`] into cells of type `T`.
fn solve_seeded_into<T: Cell>(
    n: u32,
    unit: UnitId,
    cut: KazanCut,
    store: &mut dyn SeedStore,
    sink: &mut dyn PartSink,
) -> Result<(), DtcError> {
    check_unit(n, unit)?;
    let infos = config_infos();
    // Never read: the seeds are made.
    let none = DtcLevels::new();
    let policy = Dtc::<T, DtcLevels> {
        lower: &none,
        infos: &infos,
        cell: std::marker::PhantomData,
    };
    // Progress counts a unit once solved, as solve_unit_into does.
    let expanding = AtomicU64::new(0);
    let mut u = Unit::new(n, &infos, unit.first, unit.second, policy, &expanding);
    let sides = unit.configs().len();
    let mut words: Vec<u32> = Vec::new();
    u.solve_seeded(
        cut,
        |part, states| {
            for chunk in states.chunks_mut(SEED_BATCH) {
                words.resize(chunk.len(), 0);
                store.read(SeedKey::Part(part), &mut words, false)?;
                for (s, &w) in chunk.iter_mut().zip(&words) {
                    *s = cell(w as u16)?;
                }
            }
            Ok(store.read(SeedKey::Part(part), &mut [], true)?)
        },
        |u, part| {
            for side in 0..sides {
                // Unresolved at the fixed point: a draw (packed 0).
                put_side(sink, side, part, u.part_states(side), |s: T| {
                    s.into().saturating_sub(RESOLVED)
                })?;
            }
            Ok::<_, DtcError>(())
        },
    )
}

/// Solves level `n` whole in memory given the win/draw/loss of every level
/// below it (for tests and small runs: the `generate` driver solves unit by
/// unit, [`solve_unit`]). `progress` is advanced by positions as units
/// finish.
///
/// # Errors
///
/// As [`solve_unit`].
pub fn solve_level(n: u32, lower: &DtcLevels, progress: &AtomicU64) -> Result<DtcLevel, DtcError> {
    check_level(n, lower.max_stones())?;
    let parts: Vec<(LevelValues, Vec<u8>)> = solve_by_config(n, |u| {
        let unit = solve_unit(n, lower, u, KazanCut::WHOLE, progress)?;
        let sides = unit.values.into_iter().zip(unit.splits);
        Ok::<_, DtcError>(sides.map(|((id, v), s)| (id, (v, s))).collect())
    })?;
    let mut values = LevelBuilder::with_capacity(Layout::new(n).positions() as usize);
    let mut splits = Vec::with_capacity(Layout::new(n).boards() as usize);
    for (v, s) in parts {
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
pub fn solve_all(max_stones: u32) -> Result<(Vec<LevelValues>, DtcLevels), DtcError> {
    let mut wdl = DtcLevels::new();
    let mut values = vec![LevelValues::Narrow(Vec::new())];
    let progress = AtomicU64::new(0);
    for n in 1..=max_stones {
        let level = solve_level(n, &wdl, &progress)?;
        wdl.push(level.wdl)?;
        values.push(level.values);
    }
    Ok((values, wdl))
}

/// One configuration of a solved unit: its id, values and draw splits.
type SolvedSide<T> = (usize, Vec<T>, Vec<u8>);

/// [`solve_unit`] into cells of type `T` (state and output alike), in the
/// kazan parts of `cut`; fails with [`SolveError::CellTooNarrow`] if a
/// state does not fit.
fn solve_unit_into<T: Cell, L: WdlBelow>(
    n: u32,
    lower: &L,
    infos: &[ConfigInfo],
    unit: UnitId,
    cut: KazanCut,
    progress: &AtomicU64,
    mut sink: Option<&mut dyn PartSink>,
) -> Result<Vec<SolvedSide<T>>, DtcError> {
    check_below(n, lower.max_stones())?;
    check_unit(n, unit)?;
    let policy = Dtc::<T, L> {
        lower,
        infos,
        cell: std::marker::PhantomData,
    };
    // Progress counts a unit once solved: a solve in one-byte cells may
    // stop and start again in two-byte cells.
    let expanding = AtomicU64::new(0);
    let mut u = Unit::new(n, infos, unit.first, unit.second, policy, &expanding);
    let layout = Layout::new(n);
    let k = layout.kazans() as usize;
    let configs = unit.configs();
    // Made when the first part is solved: for a whole unit, once its
    // graph is freed.
    let mut values: Vec<Vec<T>> = Vec::new();
    u.solve_parts(cut, |u, part| {
        if let Some(sink) = sink.as_deref_mut() {
            for side in 0..configs.len() {
                // Unresolved at the fixed point: a draw (packed 0).
                put_side(sink, side, part, u.part_states(side), |s: T| {
                    s.into().saturating_sub(RESOLVED)
                })?;
            }
            return Ok(());
        }
        if values.is_empty() {
            values = configs
                .iter()
                .map(|&id| vec![T::default(); layout.config_boards(id) as usize * k])
                .collect();
        }
        for (side, out) in values.iter_mut().enumerate() {
            write_part(u.part_states(side), part, k, out)?;
        }
        Ok::<_, DtcError>(())
    })?;
    let mut sides = Vec::new();
    if sink.is_some() {
        progress.fetch_add(u.positions(), Ordering::Relaxed);
        return Ok(sides);
    }
    for (id, values) in configs.into_iter().zip(values) {
        let first_board = layout.global_board(id, 0);
        let splits = side_splits(n, &values, first_board)?;
        sides.push((id, values, splits));
    }
    progress.fetch_add(u.positions(), Ordering::Relaxed);
    Ok(sides)
}

/// The DTC policy over the unit core, in cells of type `T`: a state is
/// [`OPEN`], a count of quiet moves not yet refuted, or `RESOLVED + packed
/// value`; the exits read the draw splits of the levels below.
struct Dtc<'a, T, L> {
    lower: &'a L,
    infos: &'a [ConfigInfo],
    cell: std::marker::PhantomData<T>,
}

/// `s` in a cell of type `T`, if it fits.
#[inline]
fn cell<T: Cell>(s: u16) -> Result<T, SolveError> {
    T::from_packed(s).ok_or(SolveError::CellTooNarrow)
}

impl<T: Cell, L: WdlBelow> Policy for Dtc<'_, T, L> {
    type State = T;
    /// The resolved state.
    type Step = u16;

    /// Seeds one board: its quiet moves and the best exit threshold.
    #[inline]
    fn seed(
        &mut self,
        n: u32,
        node: u32,
        board: &[u8; CYCLE],
        info: &ConfigInfo,
        states: &mut [T],
        frontier: &mut Frontier,
    ) -> Result<(), SolveError> {
        let seeded = self.seed_states(n, board, info, states)?;
        if seeded.over != 0 {
            frontier.loss(0, node, seeded.over);
        }
        if seeded.won != 0 {
            frontier.win(1, node, seeded.won);
        }
        if seeded.lost != 0 {
            frontier.loss(1, node, seeded.lost);
        }
        Ok(())
    }

    #[inline]
    fn win_after(d: u32) -> Result<u16, SolveError> {
        resolved(Value::Win(d + 1))
    }

    #[inline]
    fn take_win(s: &mut T, win: u16) -> Result<bool, SolveError> {
        if (*s).into() < RESOLVED {
            *s = cell(win)?;
            return Ok(true);
        }
        Ok(false)
    }

    #[inline]
    fn live_wins(_states: &mut [T], mask: u64, _d: u32) -> u64 {
        // Every win is final when found: an exit wins in exactly 1.
        mask
    }

    #[inline]
    fn loss_after(d: u32) -> Result<u16, SolveError> {
        resolved(Value::Loss(d + 1))
    }

    #[inline]
    fn refute(s: &mut T, loss: u16, d: u32) -> Result<Option<u32>, SolveError> {
        let v: u16 = (*s).into();
        if v == OPEN || v >= RESOLVED {
            return Ok(None);
        }
        if v == 1 {
            *s = cell(loss)?;
            return Ok(Some(d + 1));
        }
        *s = cell(v - 1)?;
        Ok(None)
    }
}

/// The splits of a board its seed resolves (masks of kazan offsets): lost
/// in 0 (the game is over), won in 1 and lost in 1 (by its exits).
struct Seeded {
    over: u64,
    won: u64,
    lost: u64,
}

impl<T: Cell, L: WdlBelow> Dtc<'_, T, L> {
    /// The seeded states of one board (`states[j]` for kazan offset `j`,
    /// mover seated South, configuration `info`), left as they are where
    /// the seed says nothing (81:81 once the game is over), and what it
    /// resolves.
    #[inline]
    fn seed_states(
        &self,
        n: u32,
        board: &[u8; CYCLE],
        info: &ConfigInfo,
        states: &mut [T],
    ) -> Result<Seeded, SolveError> {
        let k = states.len();
        if board[..ROW].iter().all(|&h| h == 0) {
            // The game is over: the opponent collects the board, and
            // only 81:81 (j = n) is a draw.
            for s in &mut states[..k - 1] {
                *s = cell(resolved(Value::Loss(0))?)?;
            }
            return Ok(Seeded {
                over: (1u64 << (k - 1)) - 1,
                won: 0,
                lost: 0,
            });
        }
        let (quiet, exit) = self.moves(n, board, info);
        let (mut won, mut lost) = (0u64, 0u64);
        for (j, state) in states.iter_mut().enumerate() {
            let j = j as u32;
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
            *state = cell(s)?;
        }
        Ok(Seeded { over: 0, won, lost })
    }
}

impl<T: Cell, L: WdlBelow> Reseed for Dtc<'_, T, L> {
    #[inline]
    fn seeded(s: T) -> Option<(bool, u32)> {
        let s: u16 = s.into();
        if s < RESOLVED {
            return None;
        }
        match Value::unpack(s - RESOLVED) {
            Value::Win(d) => Some((true, d)),
            Value::Loss(d) => Some((false, d)),
            Value::Draw => None,
        }
    }
}

impl<T, L: WdlBelow> Dtc<'_, T, L> {
    /// The quiet moves of `board` (mover seated South, configuration
    /// `info`) and the best exit: the least kazan offset `t` such that an
    /// exit wins for `j > t` and draws at `j = t` (`None` without exits).
    fn moves(&self, n: u32, board: &[u8; CYCLE], info: &ConfigInfo) -> (u16, Option<u32>) {
        let mut best: Option<u32> = None;
        let quiet = split_moves(board, info, |e| {
            // The child, seen by the opponent: n - gain - lost stones, its
            // mover's offset n - gain - j. The opponent loses for offsets
            // below its draw split c*, so the mover wins for j > n - gain - c*
            // (and c* <= n - gain - lost keeps the threshold in 0..=n).
            let child_n = n - e.gain - e.lost;
            let ci = &self.infos[e.config.id()];
            let rank = rank_board(&e.board, &ci.free_rotated, ci.m);
            let t = n - e.gain - self.lower.split_in(child_n, e.config.id(), rank);
            best = Some(best.map_or(t, |x| x.min(t)));
        });
        (quiet.into(), best)
    }
}

/// Writes the packed values of one side of a unit for the kazan part
/// `part` just solved (`states`, board-major, the part's splits of a
/// board in ascending offset) into `out` (board-major, `k` a board).
fn write_part<T: Cell>(states: &[T], part: u64, k: usize, out: &mut [T]) -> Result<(), DtcError> {
    let kp = part.count_ones() as usize;
    if kp == k {
        for (o, &s) in out.iter_mut().zip(states) {
            // Unresolved at the fixed point: a draw (packed 0).
            *o = cell(s.into().saturating_sub(RESOLVED))?;
        }
        return Ok(());
    }
    for (cells, s) in out.chunks_mut(k).zip(states.chunks(kp)) {
        for (j, &s) in bits(part).zip(s) {
            // Unresolved at the fixed point: a draw (packed 0).
            cells[j] = cell(s.into().saturating_sub(RESOLVED))?;
        }
    }
    Ok(())
}

/// The draw splits of one side of a solved unit (`values`, board-major,
/// its first board `first_board` of the level), checking that every
/// board has exactly one.
fn side_splits<T: Cell>(n: u32, values: &[T], first_board: u64) -> Result<Vec<u8>, DtcError> {
    let k = n as usize + 1;
    values
        .chunks(k)
        .enumerate()
        .map(|(b, cells)| {
            let wdl = cells.iter().map(|&c| Value::unpack(c.into()).wdl());
            Ok(draw_split(n, first_board + b as u64, wdl)? as u8)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::unit::level_units;

    /// One- and two-byte cells give the same level, and so do units cut
    /// into kazan parts or solved without their quiet-move graph.
    #[test]
    fn narrow_and_wide_cells_agree() {
        let progress = AtomicU64::new(0);
        let mut lower = DtcLevels::new();
        let infos = config_infos();
        for n in 1..=5 {
            for u in level_units(n) {
                let whole = KazanCut::WHOLE;
                let narrow =
                    solve_unit_into::<u8, _>(n, &lower, &infos, u, whole, &progress, None).unwrap();
                let wide = solve_unit_into::<u16, _>(n, &lower, &infos, u, whole, &progress, None)
                    .unwrap();
                // Cut into kazan parts of one pair, the quiet-move graph
                // stored or not, and whole without it: the same values.
                let one = KazanCut::pairs(1).unwrap();
                for c in [one, one.without_graph(), whole.without_graph()] {
                    let cut =
                        solve_unit_into::<u8, _>(n, &lower, &infos, u, c, &progress, None).unwrap();
                    assert_eq!(narrow, cut, "n={n} {u:?} {c}");
                }
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
