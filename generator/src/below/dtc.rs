//! The win/draw/loss of the levels below that solving or checking a DTC
//! level reads through its conversions, as [`crate::below::dtm`] holds the
//! distances for DTM: the small levels whole (one draw split a board, [`DtcLevels`]),
//! the larger ones in their table files, of which each unit decodes the
//! draw splits of just the configurations its exits reach
//! ([`exit_configs`]). Which levels are held whole is [`held_whole`]'s
//! choice: the same limit as for DTM, counted in boards (one byte each here)
//! instead of positions, so many more levels fit whole. The DTC solver
//! reads either through [`WdlBelow`]: the levels held whole when every
//! level below the unit's is ([`DtcBelow::whole`]), else the unit's share
//! ([`DtcBelow::for_unit`]). `generate` holds every level below whole
//! when that fits its memory, else as many as do
//! (`crate::run::plan::default_hold_whole`).

use super::held_whole;
use crate::files::splits::{config_splits, wdl_level, SplitsError};
use crate::solve::held::{DtcLevels, WdlBelow};
use crate::solve::prefetch::prefetch_byte;
use crate::solve::score::WdlLevel;
use crate::solve::unit::{exit_configs, Reach, UnitId};
use togyz_tb::raw::format::TableFile;
use togyz_tb::raw::index::CONFIG_COUNT;
use togyz_tb::Metric;

/// The win/draw/loss of the solved levels below the one being solved or
/// checked, from the empty board up.
pub struct DtcBelow {
    /// Level `m`'s table is `files[m - 1]`.
    files: Vec<TableFile>,
    /// The levels held whole (a prefix, the empty board first).
    whole: DtcLevels,
    /// Boards up to which levels are held whole.
    limit: u64,
}

impl DtcBelow {
    /// Only the empty board; levels are held whole up to `limit` boards
    /// ([`held_whole`]).
    pub fn new(limit: u64) -> DtcBelow {
        DtcBelow {
            files: Vec::new(),
            whole: DtcLevels::new(),
            limit,
        }
    }

    /// Whether level `m` is held whole.
    pub fn holds_whole(&self, m: u32) -> bool {
        held_whole(Metric::Dtc, m, self.limit)
    }

    /// The boards up to which levels are held whole.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The levels held whole (a prefix, the empty board first).
    pub fn whole(&self) -> &DtcLevels {
        &self.whole
    }

    /// Whether every level below `n` is held whole: a unit of level `n`
    /// then reads them all from [`DtcBelow::whole`], decoding nothing.
    pub fn holds_all_below(&self, n: u32) -> bool {
        self.whole.max_stones() + 1 >= n
    }

    /// The highest level added.
    pub fn max_stones(&self) -> u32 {
        self.files.len() as u32
    }

    /// Adds the next level (`max_stones() + 1` stones) from its table, DTM
    /// or DTC. A level held whole is read now, unless `level`, its
    /// win/draw/loss already known (and the table's), is given; every
    /// board of a DTM table not held whole is checked now to be one draw
    /// split, without keeping them (a DTC table holds one split a board by
    /// its format).
    ///
    /// # Errors
    ///
    /// [`SplitsError::Table`] for a damaged block, [`SplitsError::Score`]
    /// naming a board that is not one draw split.
    pub fn push(&mut self, file: TableFile, level: Option<WdlLevel>) -> Result<(), SplitsError> {
        let m = self.max_stones() + 1;
        if self.holds_whole(m) {
            let level = match level {
                Some(level) => level,
                None => wdl_level(&file)?,
            };
            self.whole
                .push(level)
                .expect("levels are added in order, from 1 stone up");
        } else if file.metric() == Metric::Dtm {
            for config in 0..CONFIG_COUNT {
                config_splits(&file, config)?;
            }
        }
        self.files.push(file);
        Ok(())
    }

    /// Decodes what `unit` of level `n` reads of the levels not held whole.
    ///
    /// # Errors
    ///
    /// As [`DtcBelow::push`].
    ///
    /// # Panics
    ///
    /// If a level below `n` was not added (a caller's bug).
    pub fn for_unit(&self, n: u32, unit: UnitId) -> Result<DtcUnitBelow<'_>, SplitsError> {
        self.for_unit_levels(n, unit, Reach::ALL)
    }

    /// [`DtcBelow::for_unit`], decoding only what `reach` reads: what one
    /// pass of a unit's check in passes reads
    /// ([`crate::run::plan::verify_groups`]).
    ///
    /// # Errors
    ///
    /// As [`DtcBelow::push`].
    ///
    /// # Panics
    ///
    /// If a level below `n` was not added (a caller's bug).
    pub fn for_unit_levels(
        &self,
        n: u32,
        unit: UnitId,
        reach: Reach,
    ) -> Result<DtcUnitBelow<'_>, SplitsError> {
        assert!(self.max_stones() + 1 >= n, "levels below {n} missing");
        let mut loaded = vec![Vec::new(); n as usize];
        for m in (1..n).filter(|&m| !self.holds_whole(m) && reach.reads_level(m)) {
            let file = &self.files[m as usize - 1];
            let level = &mut loaded[m as usize];
            level.resize(CONFIG_COUNT, None);
            for config in exit_configs(unit)
                .into_iter()
                .filter(|&c| reach.reads(m, c))
            {
                level[config] = Some(config_splits(file, config)?);
            }
        }
        Ok(DtcUnitBelow {
            lower: self,
            loaded,
        })
    }
}

/// What one unit reads of the smaller levels' win/draw/loss: borrowed from
/// the levels held whole, decoded for the others.
pub struct DtcUnitBelow<'a> {
    lower: &'a DtcBelow,
    /// `loaded[m][config]`: the draw splits in rank order, for the levels
    /// not held whole.
    loaded: Vec<Vec<Option<Vec<u8>>>>,
}

/// What the DTC solver of the unit's level reads, and `verify` checks
/// against.
impl WdlBelow for DtcUnitBelow<'_> {
    /// The levels below the unit's.
    #[inline]
    fn max_stones(&self) -> u32 {
        (self.loaded.len() as u32).saturating_sub(1)
    }

    /// # Panics
    ///
    /// If the unit's exits do not reach that configuration of level `m`
    /// or its level was left out ([`DtcBelow::for_unit_levels`]): a
    /// caller's bug, [`exit_configs`] names every one they reach.
    #[inline]
    fn split_in(&self, m: u32, config: usize, board: u64) -> u32 {
        if m <= self.lower.whole.max_stones() {
            return self.lower.whole.split_in(m, config, board);
        }
        let splits = self.loaded[m as usize][config]
            .as_ref()
            .expect("exit_configs names every configuration an exit reaches");
        splits[board as usize] as u32
    }

    #[inline]
    fn prefetch(&self, m: u32, config: usize, board: u64) {
        if m <= self.lower.whole.max_stones() {
            return self.lower.whole.prefetch(m, config, board);
        }
        if let Some(Some(splits)) = self.loaded[m as usize].get(config) {
            prefetch_byte(splits, board as usize);
        }
    }
}
