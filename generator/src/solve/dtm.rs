//! Distance to mate (DTM): solves every position with `n` stones on the
//! board, given the solved tables for fewer stones.
//!
//! Within one stone count, a move that captures, makes a tuzdyk or sows into
//! a tuzdyk leaves for a smaller, already solved count (an *exit*); every
//! other move (a *quiet* move) keeps the board's stones, the kazans and the
//! tuzdyks, and only hands the move over. The work splits into independent
//! units ([`UnitId`]), solved in parallel with memory bounded by the units
//! in flight, each by the unit core ([`crate::solve::core`]) with this
//! metric's policy.
//!
//! Values are exact distances to the end of the game in plies (the winner
//! hurries, the loser delays). An exit's value is read from the level
//! below for every kazan split; a board whose best exit wins is a
//! *tentative* win, as a quiet move may win faster. Whatever is unresolved
//! at the fixed point is a draw.

use crate::solve::cells::{Cell, ConfigValues, LevelBuilder, LevelValues, UnitValues};
use crate::solve::core::{Frontier, Policy, Reseed, Unit};
use crate::solve::error::{check_level, check_unit, SolveError, MAX_DIST};
use crate::solve::held::{DtmExits, DtmLevels};
use crate::solve::moves::{split_moves, Exit};
use crate::solve::parts::{put_side, PartSink, SeedBatches, SeedKey, SeedStore, SEED_BATCH};
use crate::solve::unit::{
    bits, config_infos, exit_configs, solve_by_config, ConfigInfo, KazanCut, Reach, UnitId,
};
use std::sync::atomic::AtomicU64;
use togyz_tb::raw::index::{board_count, BoardWalker};
use togyz_tb::raw::index::{rank_board, Layout};
use togyz_tb::Value;
use togyz_tb::{CYCLE, ROW};

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
    exits: &DtmExits<'_>,
    unit: UnitId,
    cut: KazanCut,
    progress: &AtomicU64,
) -> Result<UnitValues, SolveError> {
    solve_unit_into(n, exits, unit, cut, progress, None).map(|(values, _)| values)
}

/// Solves one unit of level `n` as [`solve_unit`] does, but hands each
/// kazan part's values to `sink` as soon as the part is solved instead of
/// gathering the unit's values (for a unit cut into parts: the values
/// are then never held whole). Returns each configuration of the unit
/// with the width of its cells: 1 byte, or 2 if a distance needs them,
/// as [`solve_unit`] gives them.
///
/// # Errors
///
/// As [`solve_unit`], and what the sink returns.
pub fn solve_unit_parts(
    n: u32,
    exits: &DtmExits<'_>,
    unit: UnitId,
    cut: KazanCut,
    progress: &AtomicU64,
    sink: &mut dyn PartSink,
) -> Result<Vec<(usize, u32)>, SolveError> {
    let (_, widest) = solve_unit_into(n, exits, unit, cut, progress, Some(sink))?;
    Ok(unit
        .configs()
        .into_iter()
        .zip(widest)
        .map(|(id, max)| (id, if u8::from_packed(max).is_some() { 1 } else { 2 }))
        .collect())
}

/// [`solve_unit`], the parts' values handed to `sink` when given (then
/// the values returned are empty), with the largest packed value of each
/// side handed over.
fn solve_unit_into(
    n: u32,
    exits: &DtmExits<'_>,
    unit: UnitId,
    cut: KazanCut,
    progress: &AtomicU64,
    mut sink: Option<&mut dyn PartSink>,
) -> Result<(UnitValues, [u16; 2]), SolveError> {
    check_unit(n, unit)?;
    for m in 1..n {
        for config in exit_configs(unit) {
            if exits.get(m, config).is_none() {
                return Err(SolveError::MissingExits { stones: m, config });
            }
        }
    }
    let infos = config_infos();
    let policy = Dtm {
        exits,
        infos: &infos,
        exit_best: Vec::new(),
    };
    let mut u = Unit::new(n, &infos, unit.first, unit.second, policy, progress);
    let layout = Layout::new(n);
    let k = layout.kazans() as usize;
    let configs = unit.configs();
    // One byte a position until a distance needs two; made when the first
    // part is solved: for a whole unit, once its graph is freed.
    let mut values: Vec<LevelValues> = Vec::new();
    let parts = cut.parts(n);
    let whole = parts.len() == 1;
    let mut widest = [0u16; 2];
    u.solve_parts(cut, |u, part| {
        if let Some(sink) = sink.as_deref_mut() {
            for (side, max) in widest.iter_mut().enumerate().take(configs.len()) {
                *max = (*max).max(put_side(sink, side, part, u.part_states(side), packed)?);
            }
            return Ok(());
        }
        if whole {
            // Every split at once, in the narrowest cells that hold them.
            for side in 0..configs.len() {
                let states = u.part_states(side);
                values.push(match side_values::<u8>(states) {
                    Ok(v) => LevelValues::Narrow(v),
                    Err(SolveError::CellTooNarrow) => LevelValues::Wide(side_values(states)?),
                    Err(e) => return Err(e),
                });
            }
            return Ok(());
        }
        if values.is_empty() {
            values = configs
                .iter()
                .map(|&id| LevelValues::Narrow(vec![0; layout.config_boards(id) as usize * k]))
                .collect();
        }
        for (side, out) in values.iter_mut().enumerate() {
            write_part(u.part_states(side), part, k, out);
        }
        Ok::<_, SolveError>(())
    })?;
    let out = configs.into_iter().zip(values).collect();
    u.report_done();
    Ok((out, widest))
}

/// One pass of the seeding of unit `unit` of level `n` cut into kazan
/// parts, apart from its solve ([`solve_seeded`]), so that the exits are
/// never held beside the quiet-move graph: every board's exits into what
/// `reach` reads of the levels below are scored for every kazan split, over the best exits that pass `pass - 1`
/// kept in `store` ([`SeedKey::Carry`], from the second pass on). A pass
/// with `parts` (the last) keeps the seeded states of each part
/// ([`SeedKey::Part`]), the others their best exits for the next pass.
/// The passes together must cover every level below `n` and every
/// configuration; `exits` must hold the configurations of
/// [`exit_configs`]`(unit)` that `reach` reads at each level from 1 up. A best exit is the same whichever pass scores it
/// (the best of a set), so the seeds are those of [`solve_unit`].
///
/// # Errors
///
/// [`SolveError::MissingExits`] when `exits` lacks a configuration the
/// pass reads; what the store returns.
pub fn seed_pass(
    n: u32,
    exits: &DtmExits<'_>,
    unit: UnitId,
    reach: Reach,
    pass: u32,
    parts: Option<&[u64]>,
    store: &mut dyn SeedStore,
) -> Result<(), SolveError> {
    check_unit(n, unit)?;
    for m in 1..n {
        for config in exit_configs(unit) {
            if reach.reads(m, config) && exits.get(m, config).is_none() {
                return Err(SolveError::MissingExits { stones: m, config });
            }
        }
    }
    let infos = config_infos();
    let mut policy = Dtm {
        exits,
        infos: &infos,
        exit_best: Vec::new(),
    };
    let k = n as usize + 1;
    let keys: Vec<SeedKey> = match parts {
        Some(parts) => parts.iter().map(|&p| SeedKey::Part(p)).collect(),
        None => vec![SeedKey::Carry(pass)],
    };
    let mut out = SeedBatches::create(store, keys, k)?;
    let mut carried_in: Vec<u32> = Vec::new();
    let mut at = 0;
    let mut left: u64 = unit
        .configs()
        .iter()
        .map(|&c| board_count(n, infos[c].m) * k as u64)
        .sum();
    let mut words = vec![0u32; k];
    for config in unit.configs() {
        let info = infos[config];
        let mut walker = BoardWalker::new(n, info.config, 0, u64::MAX);
        while let Some((_, board)) = walker.current() {
            let board = *board;
            walker.advance();
            policy.exit_best.clear();
            if pass > 0 {
                if at == carried_in.len() {
                    let batch = left.min((SEED_BATCH / k * k) as u64) as usize;
                    carried_in.resize(batch, 0);
                    store.read(SeedKey::Carry(pass - 1), &mut carried_in, false)?;
                    left -= batch as u64;
                    at = 0;
                }
                let from = carried_in.get(at..at + k).ok_or(SolveError::Part)?;
                policy.exit_best.extend(from.iter().map(|&w| carried(w)));
                at += k;
            } else {
                policy.exit_best.resize(k, Value::Loss(0));
            }
            let quiet = split_moves(&board, &info, |e| {
                if reach.reads(n - e.gain - e.lost, e.config.id()) {
                    policy.score_exit(n, e);
                }
            });
            match parts {
                None => out.extend(store, 0, policy.exit_best.iter().map(|&v| carry(v)))?,
                Some(parts) => {
                    seed_words(&board, &policy.exit_best, quiet, &mut words);
                    for (i, &part) in parts.iter().enumerate() {
                        out.extend(store, i, bits(part).map(|j| words[j]))?;
                    }
                }
            }
        }
    }
    if pass > 0 {
        store.read(SeedKey::Carry(pass - 1), &mut [], true)?;
    }
    out.finish(store)
}

/// Solves unit `unit` of level `n` in the kazan parts of `cut` from the
/// seeds that [`seed_pass`] kept in `store`, handing each part's values
/// to `sink` as [`solve_unit_parts`] does (the same values, the same
/// widths returned); reads no exit.
///
/// # Errors
///
/// The solver's limits; what the store or the sink returns.
pub fn solve_seeded(
    n: u32,
    unit: UnitId,
    cut: KazanCut,
    progress: &AtomicU64,
    store: &mut dyn SeedStore,
    sink: &mut dyn PartSink,
) -> Result<Vec<(usize, u32)>, SolveError> {
    check_unit(n, unit)?;
    let infos = config_infos();
    let none = DtmExits::below(n);
    let policy = Dtm {
        exits: &none,
        infos: &infos,
        exit_best: Vec::new(),
    };
    let mut u = Unit::new(n, &infos, unit.first, unit.second, policy, progress);
    let configs = unit.configs();
    let mut widest = [0u16; 2];
    u.solve_seeded(
        cut,
        |part, states| store.read(SeedKey::Part(part), states, true),
        |u, part| {
            for (side, max) in widest.iter_mut().enumerate().take(configs.len()) {
                *max = (*max).max(put_side(sink, side, part, u.part_states(side), packed)?);
            }
            Ok::<_, SolveError>(())
        },
    )?;
    u.report_done();
    Ok(configs
        .into_iter()
        .zip(widest)
        .map(|(id, max)| (id, if u8::from_packed(max).is_some() { 1 } else { 2 }))
        .collect())
}

/// A best exit as a pass of [`seed_pass`] carries it to the next: a
/// state word of its kind and distance.
fn carry(v: Value) -> u32 {
    match v {
        Value::Win(d) => word(WIN_TENTATIVE, d),
        Value::Draw => word(DRAW_FLOOR, 0),
        Value::Loss(d) => word(PENDING, d),
    }
}

/// The best exit that [`carry`] made `w`.
fn carried(w: u32) -> Value {
    match kind(w) {
        WIN_TENTATIVE => Value::Win(w & DIST_MASK),
        DRAW_FLOOR => Value::Draw,
        _ => Value::Loss(w & DIST_MASK),
    }
}

/// The seeded states of a board (`words[j]` for kazan offset `j`) from
/// its best exit of every split and its quiet moves: what
/// [`Dtm::seed`] makes of them.
fn seed_words(board: &[u8; CYCLE], exit_best: &[Value], quiet: u8, words: &mut [u32]) {
    let k = words.len();
    if board[..ROW].iter().all(|&h| h == 0) {
        for (j, s) in words.iter_mut().enumerate() {
            *s = if j == k - 1 {
                word(DRAW_FLOOR, 0)
            } else {
                word(LOSS, 0)
            };
        }
        return;
    }
    for (s, &v) in words.iter_mut().zip(exit_best) {
        *s = match v {
            Value::Win(d) => word(WIN_TENTATIVE, d),
            Value::Draw => word(DRAW_FLOOR, 0),
            Value::Loss(d) if quiet == 0 => word(LOSS, d),
            Value::Loss(d) => word(PENDING, d),
        } | (quiet as u32) << CNT_SHIFT;
    }
}

impl Reseed for Dtm<'_> {
    #[inline]
    fn seeded(s: u32) -> Option<(bool, u32)> {
        match kind(s) {
            WIN_TENTATIVE => Some((true, s & DIST_MASK)),
            LOSS => Some((false, s & DIST_MASK)),
            _ => None,
        }
    }
}

/// Solves level `n` whole in memory (all smaller levels must be in
/// `lower`) and returns its packed values in index order; for tests and
/// small runs (the `generate` driver writes unit by unit instead).
/// `progress` is advanced by positions as units finish.
pub fn solve_level(
    n: u32,
    lower: &DtmLevels,
    progress: &AtomicU64,
) -> Result<LevelValues, SolveError> {
    check_level(n, lower.max_stones())?;
    let exits = DtmExits::whole(lower);
    let parts = solve_by_config(n, |u| solve_unit(n, &exits, u, KazanCut::WHOLE, progress))?;
    let mut out = LevelBuilder::with_capacity(Layout::new(n).positions() as usize);
    for part in &parts {
        out.extend(&part.widened());
    }
    Ok(out.finish())
}

/// The DTM policy over the unit core: what a unit's exits read of the
/// smaller levels ([`DtmExits`]), scored for every kazan split.
struct Dtm<'a> {
    exits: &'a DtmExits<'a>,
    infos: &'a [ConfigInfo],
    /// The best exit of the board being seeded, per kazan split.
    exit_best: Vec<Value>,
}

impl Policy for Dtm<'_> {
    type State = u32;
    /// The distance `d + 1`.
    type Step = u32;

    #[inline]
    fn seed(
        &mut self,
        n: u32,
        node: u32,
        board: &[u8; CYCLE],
        info: &ConfigInfo,
        states: &mut [u32],
        frontier: &mut Frontier,
    ) -> Result<(), SolveError> {
        let k = states.len();
        if board[..ROW].iter().all(|&h| h == 0) {
            // No stones to move: the opponent collects the board. Only
            // 81:81 (j = n) is a draw.
            for (j, s) in states.iter_mut().enumerate() {
                *s = if j == k - 1 {
                    word(DRAW_FLOOR, 0)
                } else {
                    word(LOSS, 0)
                };
            }
            if k > 1 {
                frontier.loss(0, node, (1u64 << (k - 1)) - 1);
            }
            return Ok(());
        }
        let mut has_exit = false;
        self.exit_best.clear();
        self.exit_best.resize(k, Value::Loss(0));
        let quiet = split_moves(board, info, |e| {
            has_exit = true;
            self.score_exit(n, e);
        });
        // Seed: group kazan splits by (kind, distance).
        let mut j = 0;
        while j < k {
            let v = if has_exit {
                self.exit_best[j]
            } else {
                Value::Loss(0)
            };
            let mut mask = 1u64 << j;
            let mut j2 = j + 1;
            while j2 < k && has_exit && self.exit_best[j2] == v {
                mask |= 1 << j2;
                j2 += 1;
            }
            for s in &mut states[j..j2] {
                *s = match v {
                    Value::Win(d) => word(WIN_TENTATIVE, d),
                    Value::Draw => word(DRAW_FLOOR, 0),
                    Value::Loss(d) if quiet == 0 => word(LOSS, d),
                    Value::Loss(d) => word(PENDING, d),
                } | (quiet as u32) << CNT_SHIFT;
            }
            match v {
                Value::Win(d) => frontier.win(d, node, mask),
                Value::Loss(d) if quiet == 0 => frontier.loss(d, node, mask),
                _ => {}
            }
            j = j2;
        }
        Ok(())
    }

    #[inline]
    fn win_after(d: u32) -> Result<u32, SolveError> {
        let nd = d + 1;
        if nd > MAX_DIST {
            return Err(SolveError::DistanceOverflow(nd));
        }
        Ok(nd)
    }

    #[inline]
    fn take_win(s: &mut u32, nd: u32) -> Result<bool, SolveError> {
        let k = kind(*s);
        if k < WIN_TENTATIVE || (k == WIN_TENTATIVE && (*s & DIST_MASK) > nd) {
            *s = word(WIN, nd);
            return Ok(true);
        }
        Ok(false)
    }

    #[inline]
    fn live_wins(states: &mut [u32], mask: u64, d: u32) -> u64 {
        // Entries may be stale tentative wins, which are dropped here.
        let mut live = 0u64;
        for j in bits(mask) {
            let s = states[j];
            if kind(s) == WIN_TENTATIVE && s & DIST_MASK == d {
                states[j] = word(WIN, d);
                live |= 1 << j;
            } else if s == word(WIN, d) {
                live |= 1 << j;
            }
        }
        live
    }

    #[inline]
    fn loss_after(d: u32) -> Result<u32, SolveError> {
        Self::win_after(d)
    }

    #[inline]
    fn refute(s: &mut u32, nd: u32, _d: u32) -> Result<Option<u32>, SolveError> {
        let kd = kind(*s);
        if kd == WIN || kd == LOSS {
            return Ok(None);
        }
        *s -= CNT_ONE;
        if quiet_left(*s) == 0 && kd == PENDING {
            // The slowest of its refutations and its best exit.
            let dist = nd.max(*s & DIST_MASK);
            *s = word(LOSS, dist);
            return Ok(Some(dist));
        }
        Ok(None)
    }
}

/// The best exit of each board for every kazan split, as the DTM solver
/// seeds it: what [`crate::solve::forward`] reads of the levels below.
pub(crate) struct BestExits<'a>(Dtm<'a>);

impl<'a> BestExits<'a> {
    /// Over `exits` (every configuration the unit's exits reach).
    pub(crate) fn new(exits: &'a DtmExits<'a>, infos: &'a [ConfigInfo]) -> BestExits<'a> {
        BestExits(Dtm {
            exits,
            infos,
            exit_best: Vec::new(),
        })
    }

    /// The best exit of `board` (level `n`, configuration `info`) at each
    /// kazan offset, or `None` if it has no exit.
    pub(crate) fn of(
        &mut self,
        n: u32,
        board: &[u8; CYCLE],
        info: &ConfigInfo,
    ) -> Option<&[Value]> {
        let policy = &mut self.0;
        policy.exit_best.clear();
        policy.exit_best.resize(n as usize + 1, Value::Loss(0));
        let mut has_exit = false;
        split_moves(board, info, |e| {
            has_exit = true;
            policy.score_exit(n, e);
        });
        has_exit.then_some(&policy.exit_best[..])
    }
}

impl Dtm<'_> {
    /// Folds the value of one exit move into `exit_best`, for every kazan
    /// split.
    #[inline]
    fn score_exit(&mut self, n: u32, e: &Exit) {
        let (b, child_cfg, gain, lost) = (&e.board, e.config, e.gain, e.lost);
        let child_n = n - gain - lost;
        let best = &mut self.exit_best;
        if child_n == 0 {
            let empty: &[u8] = &[];
            return fold_exit(empty, n, child_n, 0, gain, lost, best);
        }
        let ci = &self.infos[child_cfg.id()];
        let first = rank_board(b, &ci.free_rotated, ci.m) * (child_n as u64 + 1);
        match self.exits.get(child_n, child_cfg.id()) {
            Some(ConfigValues::Narrow(t)) => fold_exit(t, n, child_n, first, gain, lost, best),
            Some(ConfigValues::Wide(t)) => fold_exit(t, n, child_n, first, gain, lost, best),
            None => unreachable!("solve_unit checks that exits holds every configuration reached"),
        }
    }
}

/// The loop of [`Dtm::score_exit`] over the kazan splits, for one cell
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

/// The final values of one side of a unit solved whole (board-major), in
/// cells of type `T`.
fn side_values<T: Cell>(states: &[u32]) -> Result<Vec<T>, SolveError> {
    // Allocated whole first: collecting `Result`s cannot size the vector
    // ahead and grows it by doubling (1.4 % of a 9-stone DTM level's
    // profile; docs/performance.md).
    let mut out = vec![T::default(); states.len()];
    for (o, &s) in out.iter_mut().zip(states) {
        *o = T::from_packed(packed(s)).ok_or(SolveError::CellTooNarrow)?;
    }
    Ok(out)
}

/// The packed value of a final state.
#[inline]
fn packed(s: u32) -> u16 {
    let v = match kind(s) {
        WIN => Value::Win(s & DIST_MASK),
        LOSS => Value::Loss(s & DIST_MASK),
        _ => Value::Draw,
    };
    v.pack().expect("distances are bounded by MAX_DIST")
}

/// Writes the final values of one side of a unit for the kazan part
/// `part` just solved (`states`, board-major, the part's splits of a
/// board in ascending offset) into `out` (board-major, `k` a board),
/// widening it to two-byte cells when a value does not fit one.
fn write_part(states: &[u32], part: u64, k: usize, out: &mut LevelValues) {
    let kp = part.count_ones() as usize;
    for (b, s) in states.chunks(kp).enumerate() {
        for (j, &s) in bits(part).zip(s) {
            out.set(b * k + j, packed(s));
        }
    }
}

/// Solves every level from 1 to `max_stones` in memory (for tests and small
/// runs; the `generate` driver writes each level as it goes).
pub fn solve_all(max_stones: u32) -> Result<DtmLevels, SolveError> {
    let mut levels = DtmLevels::new();
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
    use crate::solve::unit::{held_units, level_units};
    use togyz_tb::raw::format::{Contents, TuzdykPairs};
    use togyz_tb::raw::index::CONFIG_COUNT;
    use togyz_tb::{Move, Position, Side};

    /// The solver's limits are typed errors, and the stone limit follows
    /// from the 32-bit node ids.
    #[test]
    fn limits_are_errors() {
        assert_eq!(togyz_tb::max_solver_stones(), 17);
        // A unit of two tuzdyks has 16 free holes: it fits up to 19.
        let pair = held_units(19, Contents::Pairs(TuzdykPairs::ALL))[0];
        assert!(check_unit(19, pair).is_ok());
        assert!(matches!(
            check_unit(20, pair),
            Err(SolveError::TooManyStones(20))
        ));
        assert!(matches!(
            check_unit(18, UnitId::of(1)),
            Err(SolveError::TooManyStones(18))
        ));
        let progress = AtomicU64::new(0);
        let levels = DtmLevels::new();
        let lower = DtmExits::whole(&levels);
        assert!(matches!(
            solve_unit(18, &lower, UnitId::of(0), KazanCut::WHOLE, &progress),
            Err(SolveError::TooManyStones(18))
        ));
        assert!(matches!(
            solve_unit(3, &lower, UnitId::of(0), KazanCut::WHOLE, &progress),
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
                KazanCut::WHOLE,
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
        let mut wide = DtmLevels::new();
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

    /// Every unit cut into kazan parts of one or two pairs gives the
    /// values of the whole unit, in the same cells, with its quiet-move
    /// graph stored or generated again as it goes; so does the whole unit
    /// without its graph.
    #[test]
    fn kazan_parts_give_the_whole_units_values() {
        let progress = AtomicU64::new(0);
        let levels = solve_all(5).unwrap();
        let exits = DtmExits::whole(&levels);
        for n in 1..=6 {
            // Every unit of the largest level, a few of the others.
            for u in level_units(n)
                .into_iter()
                .filter(|u| n == 6 || u.first % 5 == 0)
            {
                let whole = solve_unit(n, &exits, u, KazanCut::WHOLE, &progress).unwrap();
                let lean = KazanCut::WHOLE.without_graph();
                let cuts = [1, 2].map(|pairs| KazanCut::pairs(pairs).unwrap());
                for cut in cuts
                    .into_iter()
                    .flat_map(|c| [c, c.without_graph()])
                    .chain([lean])
                {
                    let parts = solve_unit(n, &exits, u, cut, &progress).unwrap();
                    assert_eq!(whole, parts, "n={n} {u:?} {cut}");
                }
            }
        }
        // A value over a byte widens a side's cells as it is written.
        let mut v = LevelValues::Narrow(vec![1, 2]);
        v.set(0, 300);
        assert_eq!(v, LevelValues::Wide(vec![300, 2]));
    }

    /// Seeds and part values held in memory, for the seeding apart.
    #[derive(Default)]
    struct Held {
        seeds: std::collections::HashMap<SeedKey, (Vec<u32>, usize)>,
        values: std::collections::HashMap<(usize, u64), Vec<u16>>,
    }

    impl SeedStore for Held {
        fn create(&mut self, key: SeedKey) -> Result<(), SolveError> {
            self.seeds.insert(key, (Vec::new(), 0));
            Ok(())
        }
        fn write(&mut self, key: SeedKey, words: &[u32]) -> Result<(), SolveError> {
            self.seeds.get_mut(&key).unwrap().0.extend_from_slice(words);
            Ok(())
        }
        fn finish(&mut self, _key: SeedKey) -> Result<(), SolveError> {
            Ok(())
        }
        fn read(&mut self, key: SeedKey, words: &mut [u32], last: bool) -> Result<(), SolveError> {
            let (kept, at) = self.seeds.get_mut(&key).ok_or(SolveError::Part)?;
            words.copy_from_slice(kept.get(*at..*at + words.len()).ok_or(SolveError::Part)?);
            *at += words.len();
            if last {
                assert_eq!(*at, kept.len(), "every seed read");
                self.seeds.remove(&key);
            }
            Ok(())
        }
    }

    impl PartSink for Held {
        fn put(
            &mut self,
            side: usize,
            part: u64,
            fill: &mut dyn FnMut(&mut Vec<u16>) -> Result<bool, SolveError>,
        ) -> Result<(), SolveError> {
            let mut all = Vec::new();
            let mut buf = Vec::new();
            while fill(&mut buf)? {
                all.extend_from_slice(&buf);
            }
            self.values.insert((side, part), all);
            Ok(())
        }
    }

    /// A unit cut into kazan parts and seeded apart, in one pass over the
    /// levels below, one a level (in any order) or with a level's
    /// configurations over three passes, gives the values of the whole
    /// unit, in the same cell widths, and reads every seed it kept.
    #[test]
    fn units_seeded_apart_in_passes_give_the_whole_units_values() {
        let progress = AtomicU64::new(0);
        let levels = solve_all(5).unwrap();
        let exits = DtmExits::whole(&levels);
        let n = 6;
        let k = n as usize + 1;
        let one_a_level: Vec<Reach> = (0..n).rev().map(|m| Reach::levels(1 << m)).collect();
        // Level 5 in three passes by configuration, the others in one.
        let thirds =
            |r: u128| Reach::configs(5, (0..73).filter(|c| c % 3 == r).fold(0, |a, c| a | 1 << c));
        let by_config = vec![thirds(1), Reach::levels(0b11111), thirds(0), thirds(2)];
        for u in level_units(n) {
            let whole = solve_unit(n, &exits, u, KazanCut::WHOLE, &progress).unwrap();
            let cuts = [1, 2].map(|pairs| KazanCut::pairs(pairs).unwrap());
            for cut in cuts.into_iter().flat_map(|c| [c, c.without_graph()]) {
                for groups in [vec![Reach::ALL], one_a_level.clone(), by_config.clone()] {
                    let mut held = Held::default();
                    let parts = cut.parts(n);
                    for (pass, &reach) in groups.iter().enumerate() {
                        let last = (pass + 1 == groups.len()).then_some(&parts[..]);
                        seed_pass(n, &exits, u, reach, pass as u32, last, &mut held).unwrap();
                    }
                    let mut values = Held::default();
                    let widths =
                        solve_seeded(n, u, cut, &progress, &mut held, &mut values).unwrap();
                    assert!(held.seeds.is_empty(), "{u:?}: every seed read");
                    for (side, (id, cells)) in whole.iter().enumerate() {
                        let want = cells.widened();
                        let mut got = vec![u16::MAX; want.len()];
                        for &part in &parts {
                            let kp = part.count_ones() as usize;
                            let vals = &values.values[&(side, part)];
                            for (b, board) in vals.chunks(kp).enumerate() {
                                for (j, &v) in bits(part).zip(board) {
                                    got[b * k + j] = v;
                                }
                            }
                        }
                        assert_eq!(got, &want[..], "{u:?} {cut} {groups:x?}");
                        let width = match cells {
                            LevelValues::Narrow(_) => 1,
                            LevelValues::Wide(_) => 2,
                        };
                        assert_eq!(widths[side], (*id, width), "{u:?}");
                    }
                }
            }
        }
        // A pass that reads a level whose exits are missing says which.
        let none = DtmExits::below(n);
        let mut held = Held::default();
        assert!(matches!(
            seed_pass(
                n,
                &none,
                UnitId::of(0),
                Reach::levels(1 << 3),
                0,
                None,
                &mut held
            ),
            Err(SolveError::MissingExits { stones: 3, .. })
        ));
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
