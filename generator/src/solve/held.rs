//! The levels below held in memory, as the solvers read them: the packed
//! values by level ([`DtmLevels`]) or by configuration ([`DtmExits`]) for
//! DTM, the draw split of every board ([`DtcLevels`]) for DTC, or any
//! [`WdlBelow`] (one unit's share of them, `crate::below::DtcUnitBelow`).
//! It imports only `solve`'s cells, scores and errors: the solvers read it.

use crate::solve::cells::{ConfigValues, LevelValues};
use crate::solve::error::SolveError;
use crate::solve::score::{losses_end, WdlLevel};
use togyz_tb::raw::format::wdl_at;
use togyz_tb::raw::index::{Layout, Slot, CONFIG_COUNT};
use togyz_tb::{Position, Value, Wdl};

/// Solved tables held in memory: packed [`Value`]s in index order, one
/// [`LevelValues`] per stone count (stone count 0 needs none: every live
/// position with an empty board is an 81:81 draw).
pub struct DtmLevels {
    tables: Vec<LevelValues>,
    layouts: Vec<Layout>,
}

impl Default for DtmLevels {
    fn default() -> DtmLevels {
        DtmLevels::new()
    }
}

impl DtmLevels {
    /// No levels solved yet (only the implicit empty board).
    pub fn new() -> DtmLevels {
        DtmLevels {
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

/// What the exits of one unit read: the values of the smaller levels, by
/// stone count and configuration. Only the configurations that the unit's
/// exits reach ([`exit_configs`](crate::solve::unit::exit_configs)) need be present, so a level need not be
/// held whole to solve the next one.
#[derive(Clone, Debug, Default)]
pub struct DtmExits<'a> {
    /// `parts[m][config]`, for `m` in `1..parts.len()`.
    parts: Vec<Vec<Option<ConfigValues<'a>>>>,
}

impl<'a> DtmExits<'a> {
    /// Nothing present yet, for the levels below `n`.
    pub fn below(n: u32) -> DtmExits<'a> {
        DtmExits {
            parts: vec![vec![None; CONFIG_COUNT]; n.max(1) as usize],
        }
    }

    /// Every configuration of every level in `levels`.
    pub fn whole(levels: &'a DtmLevels) -> DtmExits<'a> {
        let mut exits = DtmExits::below(levels.max_stones() + 1);
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
    pub fn widen(mut self, n: u32) -> DtmExits<'a> {
        if self.parts.len() < n as usize {
            self.parts.resize(n as usize, vec![None; CONFIG_COUNT]);
        }
        self
    }

    /// Makes `values` the values of `config` at `m` stones.
    ///
    /// # Panics
    ///
    /// If `m` is not below the count given to [`DtmExits::below`] or `values`
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

/// The win/draw/loss of the solved levels, one byte per board, from the
/// empty board up.
#[derive(Clone, Debug)]
pub struct DtcLevels {
    levels: Vec<WdlLevel>,
    layouts: Vec<Layout>,
}

impl Default for DtcLevels {
    fn default() -> DtcLevels {
        DtcLevels::new()
    }
}

impl DtcLevels {
    /// Only the empty board (every position a draw).
    pub fn new() -> DtcLevels {
        DtcLevels {
            levels: vec![WdlLevel::empty_board()],
            layouts: vec![Layout::new(0)],
        }
    }

    /// The highest stone count held.
    pub fn max_stones(&self) -> u32 {
        self.levels.len() as u32 - 1
    }

    /// Adds the next level.
    ///
    /// # Errors
    ///
    /// [`SolveError::MissingLevel`] unless `level` has `max_stones() + 1`
    /// stones.
    pub fn push(&mut self, level: WdlLevel) -> Result<(), SolveError> {
        let n = self.levels.len() as u32;
        if level.stones() != n {
            return Err(SolveError::MissingLevel {
                wanted: level.stones(),
                have: self.max_stones(),
            });
        }
        self.layouts.push(Layout::new(n));
        self.levels.push(level);
        Ok(())
    }

    /// Level `n` (`n <= max_stones()`).
    pub fn level(&self, n: u32) -> &WdlLevel {
        &self.levels[n as usize]
    }

    /// The result of a live position with at most `max_stones()` stones.
    pub fn wdl(&self, pos: &Position) -> Option<Wdl> {
        let slot = Slot::of(pos)?;
        let level = self.levels.get(slot.stones as usize)?;
        Some(level.wdl(self.layouts[slot.stones as usize].index(&slot)))
    }

    /// Bytes held (one per board).
    pub fn bytes(&self) -> u64 {
        self.levels.iter().map(WdlLevel::boards).sum()
    }
}

/// The win/draw/loss of the levels below a DTC level as its solver reads
/// them ([`crate::solve::dtc`]): a board's draw split by level,
/// configuration and rank. Every level held whole ([`DtcLevels`]) gives
/// them, and so does one unit's share decoded from the table files of the
/// levels not held whole (`crate::below::DtcUnitBelow`); the solver is
/// compiled for each, so the levels held whole are read as before.
pub trait WdlBelow: Sync {
    /// The highest stone count it reads.
    fn max_stones(&self) -> u32;

    /// The draw split of board `board` (rank) of configuration `config`
    /// in level `m`.
    ///
    /// # Panics
    ///
    /// If that configuration of level `m` is not held (a caller's bug: a
    /// unit's share holds every configuration its exits reach,
    /// [`crate::solve::unit::exit_configs`]).
    fn split_in(&self, m: u32, config: usize, board: u64) -> u32;

    /// Asks the processor to bring in what [`WdlBelow::split_in`] would
    /// read (nothing by default): a solver that ranks all of a board's
    /// moves first then waits for their misses together, not one after
    /// the other.
    #[inline]
    fn prefetch(&self, _m: u32, _config: usize, _board: u64) {}

    /// The result at kazan offset `j` of board `board` (rank) of
    /// configuration `config` in level `m`.
    ///
    /// # Panics
    ///
    /// As [`WdlBelow::split_in`].
    #[inline]
    fn wdl_in(&self, m: u32, config: usize, board: u64, j: u32) -> Wdl {
        let s = self.split_in(m, config, board);
        wdl_at((s, s + 1), j)
    }
}

impl WdlBelow for DtcLevels {
    #[inline]
    fn max_stones(&self) -> u32 {
        DtcLevels::max_stones(self)
    }

    #[inline]
    fn split_in(&self, m: u32, config: usize, board: u64) -> u32 {
        let layout = &self.layouts[m as usize];
        self.levels[m as usize].split(layout.global_board(config, board))
    }

    #[inline]
    fn prefetch(&self, m: u32, config: usize, board: u64) {
        let layout = &self.layouts[m as usize];
        self.levels[m as usize].prefetch(layout.global_board(config, board));
    }
}

/// The levels below as a DTM unit's exits hold them, read as draw splits
/// (a board's first split that is not a loss): what the forward solve
/// ([`crate::solve::forward`]) reads of a DTM level's exits.
impl WdlBelow for DtmExits<'_> {
    #[inline]
    fn max_stones(&self) -> u32 {
        (self.parts.len() as u32).saturating_sub(1)
    }

    /// # Panics
    ///
    /// If that configuration of level `m` is not present (a caller's bug,
    /// as for [`WdlBelow::split_in`]).
    #[inline]
    fn split_in(&self, m: u32, config: usize, board: u64) -> u32 {
        let k = m as usize + 1;
        let at = board as usize * k;
        let wdl = |p: u16| Value::unpack(p).wdl();
        match self
            .get(m, config)
            .expect("the exits hold every configuration reached")
        {
            ConfigValues::Narrow(v) => losses_end(v[at..at + k].iter().map(|&p| wdl(p.into()))),
            ConfigValues::Wide(v) => losses_end(v[at..at + k].iter().map(|&p| wdl(p))),
        }
    }
}
