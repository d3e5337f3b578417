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

use crate::decode::DecodeAll;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use togyz_probe::raw::index::Slot;
use togyz_probe::raw::index::{
    board_count, rank_board, BoardWalker, Layout, TuzdykConfig, CONFIG_COUNT,
};
use togyz_probe::raw::{landing, sow, tuzdyk_allowed, Landing};
use togyz_probe::{Position, Value};
use togyz_probe::{Side, CYCLE, ROW};

/// Why a level could not be solved.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// A distance outgrew the in-memory encoding.
    #[error("a distance of {0} plies exceeds the solver's limit of {MAX_DIST}")]
    DistanceOverflow(u32),
    /// Levels must be solved in ascending order.
    #[error("level {wanted} needs all levels below it, but only {have} are solved")]
    MissingLevel {
        /// The level asked for.
        wanted: u32,
        /// Levels available (highest).
        have: u32,
    },
    /// A unit's exits reach a configuration of a smaller level that was
    /// not given to the solver.
    #[error("the values of tuzdyk configuration {config} at {stones} stones, which the unit's exits reach, were not given")]
    MissingExits {
        /// The smaller level.
        stones: u32,
        /// The configuration.
        config: usize,
    },
    /// More stones than the solver supports ([`max_solver_stones`]).
    #[error("{0} stones is beyond what the solver supports (at most {max} stones: a unit's boards are numbered with 32-bit ids)", max = max_solver_stones())]
    TooManyStones(u32),
    /// A unit that is not a tuzdyk configuration and its swap.
    #[error("configurations {0} and {1} do not form a unit")]
    BadUnit(usize, usize),
    /// A value does not fit a one-byte cell; [`solve_unit`] then keeps the
    /// configuration's values in two-byte cells.
    #[error("a distance does not fit a one-byte cell")]
    CellTooNarrow,
}

/// One packed [`Value`] (see [`Value::pack`]) held in memory, in one or two
/// bytes. Distances up to 126 plies fit a byte (every value up to 10 stones
/// does), which halves the memory that the solved levels take.
pub trait Cell: Copy + Default + Send + Sync + Into<u16> + 'static {
    /// The cell holding `packed`, if it fits.
    fn from_packed(packed: u16) -> Option<Self>;
}

impl Cell for u8 {
    #[inline]
    fn from_packed(packed: u16) -> Option<u8> {
        u8::try_from(packed).ok()
    }
}

impl Cell for u16 {
    #[inline]
    fn from_packed(packed: u16) -> Option<u16> {
        Some(packed)
    }
}

/// The packed values of one solved level, in index order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LevelValues {
    /// One byte a position.
    Narrow(Vec<u8>),
    /// Two bytes a position, when some distance is over 126 plies.
    Wide(Vec<u16>),
}

impl LevelValues {
    /// The level in the narrowest cells that hold all of `packed`.
    pub fn from_packed(packed: Vec<u16>) -> LevelValues {
        if packed.iter().all(|&v| u8::from_packed(v).is_some()) {
            LevelValues::Narrow(packed.into_iter().map(|v| v as u8).collect())
        } else {
            LevelValues::Wide(packed)
        }
    }

    /// Reads a whole DTM table back, in one-byte cells when it fits.
    ///
    /// # Errors
    ///
    /// [`TableError::WrongMetric`](togyz_probe::TableError::WrongMetric)
    /// for a DTC table; a damaged block.
    pub fn load(
        table: &togyz_probe::raw::format::TableFile,
    ) -> Result<LevelValues, togyz_probe::TableError> {
        // A DTM solve or check needs the distances to the end below.
        table.require_metric(togyz_probe::Metric::Dtm)?;
        table.decode_range(0..table.header().positions)
    }

    /// The values of entries `range` (within the level), as held.
    pub fn part(&self, range: std::ops::Range<usize>) -> ConfigValues<'_> {
        match self {
            LevelValues::Narrow(v) => ConfigValues::Narrow(&v[range]),
            LevelValues::Wide(v) => ConfigValues::Wide(&v[range]),
        }
    }

    /// Positions in the level.
    pub fn len(&self) -> usize {
        match self {
            LevelValues::Narrow(v) => v.len(),
            LevelValues::Wide(v) => v.len(),
        }
    }

    /// Whether the level holds no position.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The packed value at `index`.
    #[inline]
    pub fn get(&self, index: usize) -> u16 {
        match self {
            LevelValues::Narrow(v) => v[index] as u16,
            LevelValues::Wide(v) => v[index],
        }
    }

    /// All packed values as `u16` (borrowed when the cells are wide).
    pub fn widened(&self) -> std::borrow::Cow<'_, [u16]> {
        match self {
            LevelValues::Narrow(v) => v.iter().map(|&x| x as u16).collect(),
            LevelValues::Wide(v) => std::borrow::Cow::Borrowed(v),
        }
    }
}

/// Solved tables held in memory: packed [`Value`]s in index order, one
/// [`LevelValues`] per stone count (stone count 0 needs none: every live
/// position with an empty board is an 81:81 draw).
pub struct Levels {
    tables: Vec<LevelValues>,
    layouts: Vec<Layout>,
}

impl Default for Levels {
    fn default() -> Levels {
        Levels::new()
    }
}

impl Levels {
    /// No levels solved yet (only the implicit empty board).
    pub fn new() -> Levels {
        Levels {
            tables: vec![LevelValues::Narrow(Vec::new())],
            layouts: vec![Layout::new(0)],
        }
    }

    /// The highest stone count solved.
    pub fn max_stones(&self) -> u32 {
        self.tables.len() as u32 - 1
    }

    /// Adds the next level's packed values (`max_stones() + 1` stones).
    ///
    /// # Panics
    ///
    /// If `values` is not the size of that level (a caller's bug: the
    /// solver and the table reader make levels of the right size).
    pub fn push(&mut self, values: LevelValues) {
        let n = self.tables.len() as u32;
        let layout = Layout::new(n);
        assert_eq!(
            values.len() as u64,
            layout.positions(),
            "level {n} has the wrong size"
        );
        self.tables.push(values);
        self.layouts.push(layout);
    }

    /// The packed values of level `n` as `u16` (copied when the level is
    /// held in one-byte cells).
    pub fn table(&self, n: u32) -> std::borrow::Cow<'_, [u16]> {
        self.tables[n as usize].widened()
    }

    /// The values of level `n` as held.
    pub fn level(&self, n: u32) -> &LevelValues {
        &self.tables[n as usize]
    }

    /// Packed value at `index` of level `n` (a draw for `n == 0`).
    #[inline]
    fn packed(&self, n: u32, index: u64) -> u16 {
        if n == 0 {
            0
        } else {
            self.tables[n as usize].get(index as usize)
        }
    }

    /// The value of a live position with at most `max_stones()` stones.
    pub fn value(&self, pos: &Position) -> Option<Value> {
        let slot = Slot::of(pos)?;
        if slot.stones > self.max_stones() {
            return None;
        }
        let index = self.layouts[slot.stones as usize].index(&slot);
        Some(Value::unpack(self.packed(slot.stones, index)))
    }
}

/// The packed values of one tuzdyk configuration of one level (its boards
/// in rank order, all kazan splits of a board adjacent), borrowed as held.
#[derive(Clone, Copy, Debug)]
pub enum ConfigValues<'a> {
    /// One byte a position.
    Narrow(&'a [u8]),
    /// Two bytes a position.
    Wide(&'a [u16]),
}

impl ConfigValues<'_> {
    /// Positions held.
    pub fn len(&self) -> usize {
        match self {
            ConfigValues::Narrow(v) => v.len(),
            ConfigValues::Wide(v) => v.len(),
        }
    }

    /// Whether no position is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What the exits of one unit read: the values of the smaller levels, by
/// stone count and configuration. Only the configurations that the unit's
/// exits reach ([`exit_configs`]) need be present, so a level need not be
/// held whole to solve the next one.
#[derive(Clone, Debug, Default)]
pub struct Exits<'a> {
    /// `parts[m][config]`, for `m` in `1..parts.len()`.
    parts: Vec<Vec<Option<ConfigValues<'a>>>>,
}

impl<'a> Exits<'a> {
    /// Nothing present yet, for the levels below `n`.
    pub fn below(n: u32) -> Exits<'a> {
        Exits {
            parts: vec![vec![None; CONFIG_COUNT]; n.max(1) as usize],
        }
    }

    /// Every configuration of every level in `levels`.
    pub fn whole(levels: &'a Levels) -> Exits<'a> {
        let mut exits = Exits::below(levels.max_stones() + 1);
        for m in 1..=levels.max_stones() {
            let layout = &levels.layouts[m as usize];
            for config in 0..CONFIG_COUNT {
                let first = layout.index_at(layout.global_board(config, 0), 0) as usize;
                let len = (layout.config_boards(config) * layout.kazans()) as usize;
                exits.insert(m, config, levels.level(m).part(first..first + len));
            }
        }
        exits
    }

    /// The same, with room for the levels below `n`.
    pub fn widen(mut self, n: u32) -> Exits<'a> {
        if self.parts.len() < n as usize {
            self.parts.resize(n as usize, vec![None; CONFIG_COUNT]);
        }
        self
    }

    /// Makes `values` the values of `config` at `m` stones.
    ///
    /// # Panics
    ///
    /// If `m` is not below the count given to [`Exits::below`] or `values`
    /// is not the configuration's size (a caller's bug).
    pub fn insert(&mut self, m: u32, config: usize, values: ConfigValues<'a>) {
        assert!(
            m >= 1 && (m as usize) < self.parts.len(),
            "level {m} out of range"
        );
        let layout = Layout::new(m);
        assert_eq!(
            values.len() as u64,
            layout.config_boards(config) * layout.kazans(),
            "configuration {config} at {m} stones has the wrong size"
        );
        self.parts[m as usize][config] = Some(values);
    }

    /// The values of `config` at `m` stones, if present.
    #[inline]
    pub fn get(&self, m: u32, config: usize) -> Option<ConfigValues<'a>> {
        self.parts.get(m as usize)?.get(config).copied().flatten()
    }
}

/// The configurations of the smaller levels that the exits of `unit` reach,
/// seen by the player who moves next: each side's swap (a capture or a
/// stone sown into a tuzdyk keeps the tuzdyks), and the swap of each
/// configuration a tuzdyk made from it leads to. The same at every level.
pub fn exit_configs(unit: UnitId) -> Vec<usize> {
    let mut out = Vec::new();
    for id in unit.configs() {
        let config = TuzdykConfig::from_id(id);
        out.push(config.swapped().id());
        let tz = config.cycle_indices();
        for h in 0..ROW {
            if tuzdyk_allowed(ROW + h, Side::South, tz) {
                let made = TuzdykConfig {
                    mover: Some(h as u8),
                    ..config
                };
                out.push(made.swapped().id());
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Largest distance the solver handles: what a packed [`Value`] holds.
pub const MAX_DIST: u32 = togyz_probe::MAX_PACKED_DISTANCE;

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

/// Per-configuration constants for ranking and sowing.
#[derive(Clone, Copy)]
pub(crate) struct ConfigInfo {
    pub(crate) config: TuzdykConfig,
    /// Free holes, mover seated South.
    pub(crate) free: [u8; CYCLE],
    /// The same holes as seen from the other player's seat (for ranking a
    /// child board without rotating it).
    pub(crate) free_rotated: [u8; CYCLE],
    pub(crate) m: usize,
    pub(crate) tz: [u8; 2],
}

impl ConfigInfo {
    fn new(config: TuzdykConfig) -> ConfigInfo {
        let free = config.free_indices();
        let mut free_rotated = [0u8; CYCLE];
        for (r, &f) in free_rotated.iter_mut().zip(free.iter()) {
            *r = (f + ROW as u8) % CYCLE as u8;
        }
        ConfigInfo {
            config,
            free,
            free_rotated,
            m: config.free_holes(),
            tz: config.cycle_indices(),
        }
    }
}

pub(crate) fn config_infos() -> Vec<ConfigInfo> {
    TuzdykConfig::all().map(ConfigInfo::new).collect()
}

#[inline]
pub(crate) fn rotate(b: &[u8; CYCLE]) -> [u8; CYCLE] {
    let mut r = [0u8; CYCLE];
    r[..ROW].copy_from_slice(&b[ROW..]);
    r[ROW..].copy_from_slice(&b[..ROW]);
    r
}

/// The most stones the solver handles: the largest `n` for which every
/// unit's boards fit 32-bit node ids (and a kazan-split mask fits 64 bits,
/// and the index covers `n`). 17 with the 73 configurations of the rules.
pub fn max_solver_stones() -> u32 {
    (1..=togyz_probe::raw::index::MAX_STONES.min(63))
        .take_while(|&n| level_units(n).iter().all(|u| u.boards(n) < u32::MAX as u64))
        .last()
        .unwrap_or(0)
}

/// One unit of work within a level: a tuzdyk configuration and its swap
/// (the same configuration when it is its own swap). Units of one level are
/// independent given the levels below.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UnitId {
    /// The smaller configuration id.
    pub first: usize,
    /// `first`'s swap (equal to `first` when it is its own swap).
    pub second: usize,
}

impl UnitId {
    /// The unit holding configuration `id`.
    pub fn of(id: usize) -> UnitId {
        let twin = TuzdykConfig::from_id(id).swapped().id();
        UnitId {
            first: id.min(twin),
            second: id.max(twin),
        }
    }

    /// The unit's configurations (one or two).
    pub fn configs(&self) -> Vec<usize> {
        if self.first == self.second {
            vec![self.first]
        } else {
            vec![self.first, self.second]
        }
    }

    /// Boards of the unit at `n` stones (its node count).
    pub fn boards(&self, n: u32) -> u64 {
        self.configs()
            .iter()
            .map(|&id| board_count(n, TuzdykConfig::from_id(id).free_holes()))
            .sum()
    }

    /// Positions of the unit at `n` stones.
    pub fn positions(&self, n: u32) -> u64 {
        self.boards(n) * (n as u64 + 1)
    }
}

/// The units of level `n`, by their first configuration (37 with the 73
/// configurations: the empty one, 8 one-tuzdyk pairs, 28 two-tuzdyk pairs).
pub fn level_units(_n: u32) -> Vec<UnitId> {
    (0..CONFIG_COUNT)
        .filter(|&id| UnitId::of(id).first == id)
        .map(UnitId::of)
        .collect()
}

/// The solved values of one unit: each configuration with its packed values
/// (board-major, the layout's order within the configuration).
pub type UnitValues = Vec<(usize, LevelValues)>;

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

/// Collects packed values into one-byte cells, switching to two-byte cells
/// when a value does not fit a byte.
pub struct LevelBuilder {
    values: LevelValues,
}

impl LevelBuilder {
    /// An empty level, room for `capacity` one-byte cells.
    pub fn with_capacity(capacity: usize) -> LevelBuilder {
        LevelBuilder {
            values: LevelValues::Narrow(Vec::with_capacity(capacity)),
        }
    }

    /// Appends packed values.
    pub fn extend(&mut self, packed: &[u16]) {
        if let LevelValues::Narrow(v) = &mut self.values {
            if packed.iter().all(|&p| u8::from_packed(p).is_some()) {
                v.extend(packed.iter().map(|&p| p as u8));
                return;
            }
            let wide: Vec<u16> = v.iter().map(|&x| x as u16).collect();
            self.values = LevelValues::Wide(wide);
        }
        if let LevelValues::Wide(v) = &mut self.values {
            v.extend_from_slice(packed);
        }
    }

    /// The values collected.
    pub fn finish(self) -> LevelValues {
        self.values
    }
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

/// The set bits of `mask` (kazan offsets), lowest first.
#[inline]
pub(crate) fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let j = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            j
        })
    })
}

/// The most quiet un-moves a board can have, [`ROW`] times [`CYCLE`]: an
/// un-move is an origin hole `h` of the mover's row and the number `c` of
/// stones sown from it, and for a given board after the move, `c` is
/// confined to one lap of [`CYCLE`] values by the stones left in `h` (the
/// origin keeps one stone per full lap: `a` stones there allow only
/// `c` in `18(a-1)+1 ..= 18a`, and an empty origin only `c = 1`). With `n`
/// stones it is also at most `ROW * n`. (A fixed buffer of 64 once
/// overflowed at 13 stones, where 13 single stones give 72.)
pub const MAX_UNMOVES: usize = ROW * CYCLE;

/// Generates the quiet un-moves: every board from which the mover (seated
/// South, configuration `info`) reaches `after` by one quiet move (no
/// capture, no tuzdyk made, nothing sown into a tuzdyk). Calls `emit` with
/// each and returns how many (at most [`MAX_UNMOVES`]).
///
/// This re-encodes, backwards, the rules that `togyz_probe::raw::sow`,
/// `landing` and `tuzdyk_allowed` (`probe/src/rules/sowing.rs`) own going
/// forwards: a change to either side must change the other. The test
/// `unmoves_invert_quiet_moves` below checks them against each other edge
/// for edge (and `unmoves_match_forward_moves_on_sampled_boards` at 13, 19
/// and 30 stones).
pub(crate) fn unmoves(
    after: &[u8; CYCLE],
    n: u32,
    info: &ConfigInfo,
    mut emit: impl FnMut(&[u8; CYCLE]),
) -> usize {
    let tz = info.tz;
    let is_tz = |i: usize| i as u8 == tz[0] || i as u8 == tz[1];
    // The last stone's hole: quiet unless it is an opponent's hole left even
    // or left at 3 where a tuzdyk may be made.
    let quiet_landing = |l: usize| {
        l < ROW || {
            let c = after[l];
            c % 2 == 1 && !(c == 3 && tuzdyk_allowed(l, Side::South, tz))
        }
    };
    let mut count = 0;
    for h in 0..ROW {
        if is_tz(h) {
            continue;
        }
        let a = after[h];
        if a == 0 {
            // One stone moved to the next hole.
            let l = h + 1;
            if !is_tz(l) && after[l] >= 1 && quiet_landing(l) {
                let mut pre = *after;
                pre[h] = 1;
                pre[l] -= 1;
                emit(&pre);
                count += 1;
            }
        } else if a == 1 {
            // 2..=18 stones: the origin keeps one, each following hole one.
            let mut pre = *after;
            for c in 2..=(CYCLE as u32).min(n) {
                let l = (h + c as usize - 1) % CYCLE;
                if is_tz(l) || after[l] == 0 {
                    break;
                }
                pre[l] -= 1;
                if quiet_landing(l) {
                    let mut p = pre;
                    p[h] = c as u8;
                    emit(&p);
                    count += 1;
                }
            }
        } else if tz == [togyz_probe::raw::NO_TUZDYK; 2] {
            // Laps: c in 18(a-1)+1 ..= 18a stones, origin gets a stone per lap.
            let lo = 18 * (a as u32 - 1) + 1;
            let hi = (18 * a as u32).min(n);
            for c in lo.max(2)..=hi {
                let mut pre = *after;
                let mut ok = true;
                for o in 1..CYCLE as u32 {
                    let inc = if c > o {
                        (c - o).div_ceil(CYCLE as u32)
                    } else {
                        0
                    };
                    let x = (h + o as usize) % CYCLE;
                    if (pre[x] as u32) < inc {
                        ok = false;
                        break;
                    }
                    pre[x] -= inc as u8;
                }
                let l = (h + c as usize - 1) % CYCLE;
                if ok && quiet_landing(l) {
                    pre[h] = c as u8;
                    emit(&pre);
                    count += 1;
                }
            }
        }
    }
    count
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
    use togyz_probe::Move;

    fn unit_swap(unit: UnitId) -> usize {
        TuzdykConfig::from_id(unit.first).swapped().id()
    }

    /// `exit_configs` names every configuration that exits reach (with few
    /// stones some tuzdyks cannot be made yet, so it may name more).
    #[test]
    fn exit_configs_hold_those_the_exits_reach() {
        let n = 5;
        for unit in level_units(n) {
            let mut reached = std::collections::BTreeSet::new();
            for id in unit.configs() {
                let config = TuzdykConfig::from_id(id);
                let tz = config.cycle_indices();
                let mut w = BoardWalker::new(n, config, 0, u64::MAX);
                while let Some((_, board)) = w.current() {
                    for h in (0..ROW).filter(|&h| board[h] > 0) {
                        let mut b = *board;
                        let sown = sow(&mut b, h, tz);
                        let mut child = config;
                        let landing = landing(&b, sown.last, Side::South, tz);
                        if landing == Landing::Tuzdyk {
                            child.mover = Some((sown.last - ROW) as u8);
                        }
                        if landing != Landing::Quiet || sown.fed != [0, 0] {
                            reached.insert(child.swapped().id());
                        }
                    }
                    w.advance();
                }
            }
            let named: std::collections::BTreeSet<usize> = exit_configs(unit).into_iter().collect();
            assert!(reached.is_subset(&named), "{unit:?}: {reached:?} {named:?}");
            assert!(reached.contains(&unit_swap(unit)), "{unit:?}");
        }
    }

    /// Forward quiet moves and un-moves describe the same edges.
    #[test]
    fn unmoves_invert_quiet_moves() {
        for n in 1..=6u32 {
            for id in [0usize, 1, 5, 9, 13, 17, 50, 72] {
                let info = ConfigInfo::new(TuzdykConfig::from_id(id));
                let child = ConfigInfo::new(info.config.swapped());
                let mut forward: Vec<(u64, u64)> = Vec::new();
                let mut w = BoardWalker::new(n, info.config, 0, u64::MAX);
                while let Some((rank, board)) = w.current() {
                    for h in 0..ROW {
                        if board[h] == 0 {
                            continue;
                        }
                        let mut b = *board;
                        let s = sow(&mut b, h, info.tz);
                        if s.fed == [0, 0]
                            && landing(&b, s.last, Side::South, info.tz) == Landing::Quiet
                        {
                            let cr = rank_board(&b, &child.free_rotated, child.m);
                            forward.push((rank, cr));
                        }
                    }
                    w.advance();
                }
                let mut backward: Vec<(u64, u64)> = Vec::new();
                let mut w = BoardWalker::new(n, child.config, 0, u64::MAX);
                while let Some((rank, board)) = w.current() {
                    unmoves(&rotate(board), n, &info, |p| {
                        backward.push((rank_board(p, &info.free, info.m), rank))
                    });
                    w.advance();
                }
                forward.sort_unstable();
                backward.sort_unstable();
                assert_eq!(forward, backward, "n={n} config={id}");
            }
        }
    }

    /// Un-moves against forward moves on sampled boards of 13, 19 and 30
    /// stones (beyond the levels the exhaustive test reaches, laps of 19
    /// and more stones included): every quiet move's origin board is among
    /// the un-moves of the board it leads to, every un-move leads back by a
    /// quiet move, and the count stays within the bound.
    #[test]
    fn unmoves_match_forward_moves_on_sampled_boards() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut rand = move |below: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % below
        };
        let mut laps = 0;
        for n in [13u32, 19, 30] {
            for id in [0usize, 0, 0, 3, 12, 40] {
                let info = ConfigInfo::new(TuzdykConfig::from_id(id));
                for _ in 0..400 {
                    let mut pre = [0u8; CYCLE];
                    let mut left = n;
                    if rand(2) == 0 {
                        // A big pile in one of the mover's holes: laps.
                        let h = info.free[rand(
                            ROW as u64
                                - info.tz.iter().filter(|&&t| (t as usize) < ROW).count() as u64,
                        ) as usize];
                        let pile = (n / 2 + rand(n as u64 / 2 + 1) as u32).min(n);
                        pre[h as usize] = pile as u8;
                        left -= pile;
                    }
                    while left > 0 {
                        let f = info.free[rand(info.m as u64) as usize] as usize;
                        pre[f] += 1;
                        left -= 1;
                    }
                    for h in 0..ROW {
                        if pre[h] == 0 || info.tz.contains(&(h as u8)) {
                            continue;
                        }
                        let mut after = pre;
                        let sown = sow(&mut after, h, info.tz);
                        if sown.fed != [0, 0]
                            || landing(&after, sown.last, Side::South, info.tz) != Landing::Quiet
                        {
                            continue;
                        }
                        laps += usize::from(pre[h] as usize > CYCLE);
                        let mut found = Vec::new();
                        let count = unmoves(&after, n, &info, |p| found.push(*p));
                        assert_eq!(count, found.len());
                        assert!(count <= ROW * (n as usize).min(CYCLE), "n={n}: {count}");
                        assert!(
                            found.contains(&pre),
                            "n={n} config={id}: {pre:?} -> {after:?}"
                        );
                        for p in &found {
                            let back = (0..ROW).any(|g| {
                                let mut b = *p;
                                p[g] > 0 && {
                                    let s = sow(&mut b, g, info.tz);
                                    s.fed == [0, 0]
                                        && landing(&b, s.last, Side::South, info.tz)
                                            == Landing::Quiet
                                        && b == after
                                }
                            });
                            assert!(back, "n={n} config={id}: {p:?} does not lead to {after:?}");
                        }
                    }
                }
            }
        }
        assert!(laps > 100, "laps of 19+ stones sampled: {laps}");
        // 13 single stones from the mover's hole 1 on: 72 un-moves, which
        // overflowed the old 64-entry buffer.
        let info = ConfigInfo::new(TuzdykConfig::from_id(0));
        let mut after = [0u8; CYCLE];
        after[..13].fill(1);
        assert_eq!(unmoves(&after, 13, &info, |_| {}), 72);
    }

    /// The level builder switches to two-byte cells when a value needs it.
    #[test]
    fn level_builder_widens() {
        let mut b = LevelBuilder::with_capacity(4);
        b.extend(&[1, 2]);
        b.extend(&[300, 4]);
        assert_eq!(b.finish(), LevelValues::Wide(vec![1, 2, 300, 4]));
        let mut b = LevelBuilder::with_capacity(2);
        b.extend(&[7, 255]);
        assert_eq!(b.finish(), LevelValues::Narrow(vec![7, 255]));
    }

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
