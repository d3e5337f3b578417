//! Units with a tuzdyk solved forward, board by board: the draw split of
//! every board without a retrograde pass and without the kazan axis.
//!
//! Once a tuzdyk stands no position repeats and every game ends
//! (docs/rules.md, "The end of the game"): every quiet move lowers a
//! measure of the board. So the quiet moves of a unit with a tuzdyk form
//! an acyclic graph, and a board's draw split `j*` ([`crate::solve::score`])
//! follows from its successors' in one step. If the side to move secures
//! `v` of the `n` stones on the board whatever the kazans, `j* = n - v`,
//! and over its moves
//!
//! * a quiet move to a board whose draw split is `c*` secures `c*` (the
//!   opponent secures `n - c*` of the same `n` stones);
//! * a move that gains `g` stones for the mover and leaves a board whose
//!   draw split is `c*` secures `g + c*`, read from the level below (the
//!   formula [`crate::solve::dtc`] scores its exits with);
//! * with no stones in the mover's row the opponent takes them all: `v = 0`.
//!
//! The kazans passing 81 end a game early but never change who wins it
//! (kazans only grow), so the whole level's win/draw/loss is this one byte
//! a board. A board is solved depth first from its quiet successors; a
//! quiet cycle, which the rules exclude, would stop the solve with
//! [`SolveError::QuietCycle`] rather than loop. The retrograde solvers
//! ([`crate::solve::dtm`], [`crate::solve::dtc`]) check it in the tests.

use crate::solve::cells::UnitValues;
use crate::solve::cells::{Cell, LevelValues};
use crate::solve::dtc::{DtcError, DtcUnit};
use crate::solve::dtm::BestExits;
use crate::solve::error::{check_unit, SolveError, MAX_DIST};
use crate::solve::held::{DtmExits, WdlBelow};
use crate::solve::moves::{each_move, Played};
use crate::solve::prefetch::prefetch_byte;
use crate::solve::unit::{config_infos, exit_configs, rotate, ConfigInfo, UnitId};
use std::sync::atomic::{AtomicU64, Ordering};
use togyz_tb::raw::format::wdl_at;
use togyz_tb::raw::index::{board_count, rank_board, BoardWalker, TuzdykConfig};
use togyz_tb::{Value, CYCLE, ROW};

/// A board not reached yet.
const UNSOLVED: u8 = u8::MAX;
/// A board on the solve's stack, waiting for its quiet successors.
const OPEN: u8 = u8::MAX - 1;

/// One move of a board as the forward solve scores it.
#[derive(Clone, Copy)]
enum Step {
    /// A move that leaves the level, by the draw split it gives the board:
    /// `n - g - c*` for a gain of `g` and a successor whose split is `c*`.
    Exit(u32),
    /// A quiet move to the board of this rank on the unit's other side.
    Quiet(u64),
}

/// One move of a board being expanded, its successor ranked: a quiet
/// move by the successor's rank and board (before the rotation), an exit
/// to a smaller level by the level, configuration and rank it reaches and
/// the stones left to share there (`n - g`), an exit to the empty board
/// by its step.
#[derive(Clone, Copy)]
enum Ranked {
    Quiet(u64, [u8; CYCLE]),
    Below {
        m: u32,
        left: u32,
        config: usize,
        rank: u64,
    },
    Done(Step),
}

/// What a forward solve keeps of each board besides its draw split
/// (nothing, by default).
trait Keep {
    /// Scores board `rank` of side `side` (`board`, configuration
    /// `info`) from its moves `steps` (every quiet successor solved, on
    /// side `to`), given its draw split `split`.
    #[inline]
    fn board(&mut self, _at: At<'_>, _split: u32, _steps: &[Step]) -> Result<(), SolveError> {
        Ok(())
    }
}

/// Where a board is: its level, its side of the unit and the side its
/// quiet moves lead to, its rank, and the board itself.
#[derive(Clone, Copy)]
struct At<'a> {
    n: u32,
    side: usize,
    to: usize,
    rank: u64,
    board: &'a [u8; CYCLE],
    info: &'a ConfigInfo,
}

/// The draw splits alone.
struct Splits;

impl Keep for Splits {}

/// Solves unit `unit` of level `n` forward on the draw splits of the
/// levels below (`lower`): the draw split of every board of each of its
/// configurations, one byte a board in rank order, by configuration id.
/// `progress` counts the positions of the boards solved (every kazan
/// split of each).
///
/// # Errors
///
/// [`SolveError::TooManyStones`] or [`SolveError::BadUnit`] for a level or
/// unit the solver does not take; [`SolveError::NoTuzdyk`] for the unit
/// without a tuzdyk, whose positions can repeat (the retrograde solvers
/// take it); [`SolveError::MissingLevel`] unless `lower` holds every level
/// below `n`; [`SolveError::QuietCycle`] if quiet moves led back to a
/// board (the rules exclude it).
pub fn solve_unit<L: WdlBelow>(
    n: u32,
    lower: &L,
    unit: UnitId,
    progress: &AtomicU64,
) -> Result<Vec<(usize, Vec<u8>)>, SolveError> {
    solve_with(n, lower, unit, &mut Splits, |boards| {
        progress.fetch_add(boards * (n as u64 + 1), Ordering::Relaxed);
    })
}

/// Solves unit `unit` of level `n` forward with its distances to
/// conversion: the same values as the retrograde DTC solve
/// ([`crate::solve::dtc::solve_unit`]), in one-byte cells, or two-byte
/// cells if a distance does not fit one.
///
/// On a graph without cycles the retrograde solve's fixed point is the
/// plain minimax: a won position's DTC is the least over its winning
/// moves of 1 for an exit and `1 + DTC` of a lost quiet successor, a lost
/// position's the greatest over all its moves.
///
/// # Errors
///
/// As [`solve_unit`], as a [`DtcError::Solve`]; [`SolveError::DistanceOverflow`]
/// beyond the packed values' range.
pub fn solve_dtc_unit<L: WdlBelow>(
    n: u32,
    lower: &L,
    unit: UnitId,
    progress: &AtomicU64,
) -> Result<DtcUnit, DtcError> {
    // Progress counts the unit once solved, as the retrograde solve's
    // does: a solve in one-byte cells may start again in two-byte cells.
    let solved = narrow_else_wide(
        || solve_dtc_into::<u8, L>(n, lower, unit),
        || solve_dtc_into::<u16, L>(n, lower, unit),
    )
    .map_err(DtcError::Solve)?;
    progress.fetch_add(unit.positions(n), Ordering::Relaxed);
    Ok(solved)
}

fn solve_dtc_into<T: Cell, L: WdlBelow>(
    n: u32,
    lower: &L,
    unit: UnitId,
) -> Result<DtcUnit, SolveError>
where
    LevelValues: From<Vec<T>>,
{
    let mut keep = Dtc::<T> {
        values: unit_cells(n, unit),
    };
    let splits = solve_with(n, lower, unit, &mut keep, |_| {})?;
    let values = splits
        .iter()
        .map(|(id, _)| *id)
        .zip(keep.values)
        .map(|(id, v)| (id, LevelValues::from(v)))
        .collect();
    Ok(DtcUnit {
        values,
        splits: splits.into_iter().map(|(_, s)| s).collect(),
    })
}

/// The distances to conversion of each side's positions, board-major.
struct Dtc<T> {
    values: Vec<Vec<T>>,
}

impl<T: Cell> Keep for Dtc<T> {
    #[inline]
    fn board(&mut self, at: At<'_>, split: u32, steps: &[Step]) -> Result<(), SolveError> {
        let At {
            n, side, to, rank, ..
        } = at;
        let k = n as usize + 1;
        // Per kazan offset: the fastest win and the slowest loss over the
        // moves, in plies (which of the two counts follows from `split`).
        let mut fastest = [u32::MAX; MAX_SPLITS];
        let mut slowest = [0u32; MAX_SPLITS];
        for step in steps {
            match *step {
                Step::Exit(t) => {
                    for j in 0..k {
                        if j as u32 > t {
                            fastest[j] = 1;
                        }
                        slowest[j] = slowest[j].max(1);
                    }
                }
                Step::Quiet(c) => {
                    // The successor's offset is `n - j`: its cells reversed.
                    let child = &self.values[to][c as usize * k..][..k];
                    for j in 0..k {
                        let p: u16 = child[k - 1 - j].into();
                        let d = u32::from(p).saturating_sub(1) / 2 + 1;
                        if p % 2 == 1 {
                            slowest[j] = slowest[j].max(d);
                        } else if p != 0 {
                            fastest[j] = fastest[j].min(d);
                        }
                    }
                }
            }
        }
        let out = &mut self.values[side][rank as usize * k..][..k];
        for (j, cell) in out.iter_mut().enumerate() {
            let value = match (j as u32).cmp(&split) {
                std::cmp::Ordering::Equal => Value::Draw,
                std::cmp::Ordering::Greater => Value::Win(fastest[j]),
                // No moves at all: over at once.
                std::cmp::Ordering::Less => Value::Loss(slowest[j]),
            };
            *cell = cell_of(value)?;
        }
        Ok(())
    }
}

/// Solves unit `unit` of level `n` forward with its distances to the end
/// of the game (DTM): the same values as the retrograde DTM solve
/// ([`crate::solve::dtm::solve_unit`]), in one-byte cells, or two-byte
/// cells if a distance does not fit one. `exits` holds the values of every
/// configuration the unit's exits reach, at every level below. A
/// position's value is the best over its moves of its best exit (scored
/// as the DTM solver seeds it) and its quiet successors' values one ply
/// back.
///
/// # Errors
///
/// As [`solve_unit`]; [`SolveError::MissingExits`] when `exits` lacks a
/// configuration the unit reads.
pub fn solve_dtm_unit(
    n: u32,
    exits: &DtmExits<'_>,
    unit: UnitId,
    progress: &AtomicU64,
) -> Result<UnitValues, SolveError> {
    for m in 1..n {
        for config in exit_configs(unit) {
            if exits.get(m, config).is_none() {
                return Err(SolveError::MissingExits { stones: m, config });
            }
        }
    }
    let values = narrow_else_wide(
        || solve_dtm_into::<u8>(n, exits, unit),
        || solve_dtm_into::<u16>(n, exits, unit),
    )?;
    progress.fetch_add(unit.positions(n), Ordering::Relaxed);
    Ok(values)
}

fn solve_dtm_into<T: Cell>(
    n: u32,
    exits: &DtmExits<'_>,
    unit: UnitId,
) -> Result<UnitValues, SolveError>
where
    LevelValues: From<Vec<T>>,
{
    let infos = config_infos();
    let mut keep = Dtm::<T> {
        values: unit_cells(n, unit),
        best: BestExits::new(exits, &infos),
    };
    let splits = solve_with(n, exits, unit, &mut keep, |_| {})?;
    Ok(splits
        .into_iter()
        .zip(keep.values)
        .map(|((id, _), v)| (id, LevelValues::from(v)))
        .collect())
}

/// A solve in one-byte cells, or again in two-byte cells if a value does
/// not fit one.
fn narrow_else_wide<R>(
    narrow: impl FnOnce() -> Result<R, SolveError>,
    wide: impl FnOnce() -> Result<R, SolveError>,
) -> Result<R, SolveError> {
    match narrow() {
        Err(SolveError::CellTooNarrow) => wide(),
        r => r,
    }
}

/// Default cells for every position of each configuration of `unit`.
fn unit_cells<T: Cell>(n: u32, unit: UnitId) -> Vec<Vec<T>> {
    unit.configs()
        .iter()
        .map(|&id| {
            let boards = board_count(n, TuzdykConfig::from_id(id).free_holes());
            vec![T::default(); boards as usize * (n as usize + 1)]
        })
        .collect()
}

/// The distances to the end of the game of each side's positions,
/// board-major.
struct Dtm<'a, T> {
    values: Vec<Vec<T>>,
    best: BestExits<'a>,
}

impl<T: Cell> Keep for Dtm<'_, T> {
    #[inline]
    fn board(&mut self, at: At<'_>, split: u32, steps: &[Step]) -> Result<(), SolveError> {
        let At {
            n, side, to, rank, ..
        } = at;
        let k = n as usize + 1;
        // The board's moves are played again here to score its exits over
        // every split (the stack keeps only their draw-split thresholds):
        // the one piece of work the DTM forward solve does twice.
        let exits = self.best.of(n, at.board, at.info);
        for j in 0..k {
            let value = if steps.is_empty() {
                // No stones to move: the opponent collects the board.
                if j == k - 1 {
                    Value::Draw
                } else {
                    Value::Loss(0)
                }
            } else {
                let mut best = exits.map(|e| e[j]);
                for step in steps {
                    if let Step::Quiet(c) = *step {
                        let child = self.values[to][c as usize * k + (k - 1 - j)];
                        let v = Value::unpack(child.into()).back();
                        if best.is_none_or(|b| v > b) {
                            best = Some(v);
                        }
                    }
                }
                best.expect("a board with moves has an exit or a quiet move")
            };
            debug_assert_eq!(value.wdl(), wdl_at((split, split + 1), j as u32));
            self.values[side][rank as usize * k + j] = cell_of(value)?;
        }
        Ok(())
    }
}

/// `value` packed into a cell of type `T`: [`SolveError::CellTooNarrow`]
/// sends the unit to two-byte cells.
#[inline]
fn cell_of<T: Cell>(value: Value) -> Result<T, SolveError> {
    let d = value.distance().unwrap_or(0);
    let packed = value
        .pack()
        .filter(|_| d <= MAX_DIST)
        .ok_or(SolveError::DistanceOverflow(d))?;
    T::from_packed(packed).ok_or(SolveError::CellTooNarrow)
}

/// Kazan offsets a board has at most: `n + 1` for the solver's largest `n`.
const MAX_SPLITS: usize = 64;

/// Whether the forward solve takes unit `unit`: it has a tuzdyk.
pub fn solves(unit: UnitId) -> bool {
    TuzdykConfig::from_id(unit.first).hole_numbers() != [None, None]
}

fn solve_with<L: WdlBelow, K: Keep>(
    n: u32,
    lower: &L,
    unit: UnitId,
    keep: &mut K,
    solved: impl Fn(u64),
) -> Result<Vec<(usize, Vec<u8>)>, SolveError> {
    check_unit(n, unit)?;
    if !solves(unit) {
        return Err(SolveError::NoTuzdyk);
    }
    if lower.max_stones() + 1 < n {
        return Err(SolveError::MissingLevel {
            wanted: n,
            have: lower.max_stones(),
        });
    }
    let infos = config_infos();
    let configs = unit.configs();
    let mut splits: Vec<Vec<u8>> = configs
        .iter()
        .map(|&id| vec![UNSOLVED; board_count(n, infos[id].m) as usize])
        .collect();
    let mut solver = Forward {
        n,
        lower,
        infos: &infos,
        configs: &configs,
        stack: Vec::new(),
    };
    for side in 0..configs.len() {
        let info = &infos[configs[side]];
        // Boards in rank order without unranking each one.
        let mut walker = BoardWalker::new(n, info.config, 0, u64::MAX);
        while let Some((rank, board)) = walker.current() {
            if splits[side][rank as usize] == UNSOLVED {
                solver.solve_from(&mut splits, side, rank, board, keep)?;
            }
            walker.advance();
        }
        solved(splits[side].len() as u64);
    }
    Ok(configs.into_iter().zip(splits).collect())
}

/// A board on the solve's stack: where it is, the board (seen by its
/// mover), and once expanded its moves, kept until its quiet successors
/// are solved.
struct Frame {
    side: usize,
    rank: u64,
    board: [u8; CYCLE],
    steps: Option<([Step; ROW], usize)>,
}

struct Forward<'a, L> {
    n: u32,
    lower: &'a L,
    infos: &'a [ConfigInfo],
    /// The unit's configurations; a board is `(side, rank)`, `side` an
    /// index into them.
    configs: &'a [usize],
    stack: Vec<Frame>,
}

impl<L: WdlBelow> Forward<'_, L> {
    /// Solves board `rank` of side `side` and every quiet successor it
    /// needs, depth first.
    fn solve_from<K: Keep>(
        &mut self,
        splits: &mut [Vec<u8>],
        side: usize,
        rank: u64,
        board: &[u8; CYCLE],
        keep: &mut K,
    ) -> Result<(), SolveError> {
        let n = self.n;
        // The other side of the unit, where a quiet move leads (the same
        // side when the configuration is its own swap).
        let pair = self.configs.len() == 2;
        let infos = self.infos;
        self.stack.push(Frame {
            side,
            rank,
            board: *board,
            steps: None,
        });
        let mut waiting: Vec<Frame> = Vec::with_capacity(ROW);
        while let Some(top) = self.stack.last_mut() {
            let (s, r) = (top.side, top.rank);
            if splits[s][r as usize] != UNSOLVED && splits[s][r as usize] != OPEN {
                // Pushed twice (the successor of two boards on the stack):
                // solved by its first visit.
                self.stack.pop();
                continue;
            }
            let info = &infos[self.configs[s]];
            let to = if pair { 1 - s } else { s };
            let to_info = &infos[self.configs[to]];
            let (steps, count) = match top.steps {
                Some(steps) => steps,
                None => {
                    // Every move ranked first, its successor's byte asked
                    // for at once: the unit's boards and the levels below
                    // far exceed the caches, so the misses then overlap
                    // instead of coming one after the other.
                    let mut ranked = [Ranked::Done(Step::Exit(0)); ROW];
                    let mut count = 0;
                    let lower = self.lower;
                    let target = &splits[to];
                    each_move(&top.board, info, |played| {
                        ranked[count] = match played {
                            Played::Quiet(child) => {
                                let c = rank_board(child, &to_info.free_rotated, to_info.m);
                                prefetch_byte(target, c as usize);
                                Ranked::Quiet(c, *child)
                            }
                            // A gain of `g` and a successor whose split is
                            // `c*`: `n - g - c*` (the empty board's is 0).
                            Played::Exit(e) => {
                                let m = n - e.gain - e.lost;
                                if m == 0 {
                                    Ranked::Done(Step::Exit(n - e.gain))
                                } else {
                                    let ci = &infos[e.config.id()];
                                    let rank = rank_board(&e.board, &ci.free_rotated, ci.m);
                                    lower.prefetch(m, e.config.id(), rank);
                                    Ranked::Below {
                                        m,
                                        left: n - e.gain,
                                        config: e.config.id(),
                                        rank,
                                    }
                                }
                            }
                        };
                        count += 1;
                    });
                    let mut steps = [Step::Exit(0); ROW];
                    let mut cycle = false;
                    for (step, &r) in steps.iter_mut().zip(&ranked[..count]) {
                        *step = match r {
                            Ranked::Quiet(c, child) => {
                                match target[c as usize] {
                                    UNSOLVED => waiting.push(Frame {
                                        side: to,
                                        rank: c,
                                        board: rotate(&child),
                                        steps: None,
                                    }),
                                    OPEN => cycle = true,
                                    _ => {}
                                }
                                Step::Quiet(c)
                            }
                            Ranked::Below {
                                m,
                                left,
                                config,
                                rank,
                            } => Step::Exit(left - lower.split_in(m, config, rank)),
                            Ranked::Done(step) => step,
                        };
                    }
                    if cycle {
                        return Err(SolveError::QuietCycle {
                            stones: n,
                            config: self.configs[s],
                            board: r,
                        });
                    }
                    if !waiting.is_empty() {
                        // Solved when the stack comes back to it.
                        top.steps = Some((steps, count));
                        splits[s][r as usize] = OPEN;
                        self.stack.append(&mut waiting);
                        continue;
                    }
                    (steps, count)
                }
            };
            let steps = &steps[..count];
            // The mover secures the most over its moves; no moves, nothing.
            let split = steps
                .iter()
                .map(|step| match *step {
                    Step::Exit(t) => t,
                    Step::Quiet(c) => n - splits[to][c as usize] as u32,
                })
                .fold(n, u32::min);
            let frame = self.stack.pop().expect("the frame just read");
            let at = At {
                n,
                side: s,
                to,
                rank: r,
                board: &frame.board,
                info,
            };
            keep.board(at, split, steps)?;
            splits[s][r as usize] = split as u8;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::dtc;
    use crate::solve::held::DtcLevels;
    use crate::solve::score::WdlLevel;
    use crate::solve::unit::level_units;
    use togyz_tb::raw::index::Layout;

    /// Every board with a tuzdyk up to 6 stones: the forward solve, on its
    /// own levels below, gives the retrograde DTC solve's draw splits, and
    /// its values with distances are the retrograde solve's, position by
    /// position.
    #[test]
    fn forward_solves_are_the_retrograde_solves() {
        let max = 6;
        let (values, reference) = dtc::solve_all(max).unwrap();
        let progress = AtomicU64::new(0);
        let mut own = DtcLevels::new();
        for n in 1..=max {
            let layout = Layout::new(n);
            let k = layout.kazans() as usize;
            let want = reference.level(n);
            // The unit without a tuzdyk is no exit of the others: its
            // boards are taken from the reference to complete the level.
            let mut splits = want.splits().to_vec();
            let mut checked = 0u64;
            for unit in level_units(n) {
                if unit.first == 0 {
                    assert!(matches!(
                        solve_unit(n, &own, unit, &progress),
                        Err(SolveError::NoTuzdyk)
                    ));
                    continue;
                }
                let with_values = solve_dtc_unit(n, &own, unit, &progress).unwrap();
                let solved = solve_unit(n, &own, unit, &progress).unwrap();
                for (((id, got), (id2, v)), s2) in solved
                    .into_iter()
                    .zip(with_values.values)
                    .zip(with_values.splits)
                {
                    assert_eq!(id, id2);
                    let start = layout.global_board(id, 0) as usize;
                    let want = &want.splits()[start..start + got.len()];
                    assert_eq!(got, want, "level {n}, configuration {id}");
                    assert_eq!(s2, got, "level {n}, configuration {id}");
                    for i in 0..v.len() {
                        assert_eq!(
                            v.get(i),
                            values[n as usize].get(start * k + i),
                            "level {n}, configuration {id}, entry {i}"
                        );
                    }
                    splits[start..start + got.len()].copy_from_slice(&got);
                    checked += got.len() as u64;
                }
            }
            assert_eq!(checked, layout.boards() - layout.config_boards(0));
            own.push(WdlLevel::from_splits(n, splits).unwrap()).unwrap();
        }
    }

    /// Every position with a tuzdyk up to 6 stones: the forward DTM solve,
    /// on the retrograde solve's levels below, gives its values.
    #[test]
    fn forward_dtm_is_the_retrograde_dtm() {
        let max = 6;
        let reference = crate::solve::dtm::solve_all(max).unwrap();
        let exits = DtmExits::whole(&reference);
        let progress = AtomicU64::new(0);
        for n in 1..=max {
            let layout = Layout::new(n);
            let k = layout.kazans() as usize;
            let want = reference.level(n);
            let mut checked = 0;
            for unit in level_units(n).into_iter().filter(|&u| solves(u)) {
                for (id, got) in solve_dtm_unit(n, &exits, unit, &progress).unwrap() {
                    let start = layout.global_board(id, 0) as usize * k;
                    for i in 0..got.len() {
                        assert_eq!(
                            got.get(i),
                            want.get(start + i),
                            "level {n}, configuration {id}, entry {i}"
                        );
                    }
                    checked += got.len() as u64;
                }
            }
            assert_eq!(
                checked,
                layout.positions() - layout.config_boards(0) * k as u64
            );
        }
    }

    #[test]
    fn missing_levels_are_refused() {
        let progress = AtomicU64::new(0);
        let lower = DtcLevels::new();
        assert!(matches!(
            solve_unit(3, &lower, UnitId::of(20), &progress),
            Err(SolveError::MissingLevel { wanted: 3, have: 0 })
        ));
    }
}
