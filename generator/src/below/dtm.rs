//! The distances of the levels below (DTM) that solving or verifying a
//! level reads through its exits, from their table files. The small ones are held whole (one byte a position); the larger
//! ones stay in their table files, and each unit decodes just the
//! configurations its exits reach ([`crate::solve::unit::exit_configs`]: a
//! unit's captures keep its tuzdyks, so a unit reads a few of the 73
//! configurations of each level below). At 12 stones that is about 1.5 GB
//! for the largest unit instead of 12.6 GB for every level below.

use super::held_whole;
use crate::files::decode::{load_level, DecodeAll};
use crate::solve::cells::LevelValues;
use crate::solve::held::{DtmExits, DtmLevels};
use crate::solve::unit::{exit_configs, Reach, UnitId};
use togyz_tb::raw::format::TableFile;
use togyz_tb::Metric;
use togyz_tb::TableError;

/// The solved levels below the one being worked on, from 1 up.
pub struct DtmBelow {
    /// Level `m`'s table is `files[m - 1]`.
    files: Vec<TableFile>,
    /// The levels held whole (a prefix).
    whole: DtmLevels,
    /// Positions up to which levels are held whole ([`held_whole`]).
    limit: u64,
}

impl DtmBelow {
    /// No levels yet; levels are held whole up to `limit` positions
    /// ([`held_whole`]).
    pub fn new(limit: u64) -> DtmBelow {
        DtmBelow {
            files: Vec::new(),
            whole: DtmLevels::new(),
            limit,
        }
    }

    /// The positions up to which levels are held whole.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Whether level `m` is held whole.
    pub fn holds_whole(&self, m: u32) -> bool {
        held_whole(Metric::Dtm, m, self.limit)
    }

    /// The highest level added.
    pub fn max_stones(&self) -> u32 {
        self.files.len() as u32
    }

    /// Adds the next level (`max_stones() + 1` stones) from its table,
    /// decoding it whole if [`held_whole`]; `values`, when given, are its
    /// values already decoded (and must be the table's).
    ///
    /// # Errors
    ///
    /// [`TableError::WrongMetric`] for a table that is not DTM (solving or
    /// checking DTM needs the distances below); a damaged block of the
    /// table, when it is decoded.
    pub fn push(&mut self, file: TableFile, values: Option<LevelValues>) -> Result<(), TableError> {
        file.require_metric(Metric::Dtm)?;
        let m = self.max_stones() + 1;
        if self.holds_whole(m) {
            let values = match values {
                Some(v) => v,
                None => load_level(&file)?,
            };
            self.whole.push(values);
        }
        self.files.push(file);
        Ok(())
    }

    /// Decodes what `unit` of level `n` reads of the levels not held
    /// whole.
    ///
    /// # Errors
    ///
    /// A damaged block of a table.
    ///
    /// # Panics
    ///
    /// If a level below `n` was not added (a caller's bug).
    pub fn for_unit(&self, n: u32, unit: UnitId) -> Result<DtmUnitBelow<'_>, TableError> {
        self.for_unit_levels(n, unit, Reach::ALL)
    }

    /// [`DtmBelow::for_unit`], decoding only what `reach` reads: what one
    /// pass of the seeding of a unit cut into kazan parts reads
    /// ([`crate::run::plan::seed_groups`]), or of a unit's check in passes.
    ///
    /// # Errors
    ///
    /// A damaged block of a table.
    ///
    /// # Panics
    ///
    /// If a level below `n` was not added (a caller's bug).
    pub fn for_unit_levels(
        &self,
        n: u32,
        unit: UnitId,
        reach: Reach,
    ) -> Result<DtmUnitBelow<'_>, TableError> {
        assert!(self.max_stones() + 1 >= n, "levels below {n} missing");
        let mut loaded = Vec::new();
        for m in (1..n).filter(|&m| !self.holds_whole(m) && reach.reads_level(m)) {
            let file = &self.files[m as usize - 1];
            for config in exit_configs(unit)
                .into_iter()
                .filter(|&c| reach.reads(m, c))
            {
                loaded.push((m, config, file.decode_config(config)?));
            }
        }
        Ok(DtmUnitBelow {
            lower: self,
            n,
            loaded,
        })
    }
}

/// What one unit reads of the smaller levels: borrowed from the levels
/// held whole, decoded for the others.
pub struct DtmUnitBelow<'a> {
    lower: &'a DtmBelow,
    n: u32,
    /// `(stones, configuration, values)`.
    loaded: Vec<(u32, usize, LevelValues)>,
}

impl DtmUnitBelow<'_> {
    /// The values as the solver reads them.
    pub fn exits(&self) -> DtmExits<'_> {
        let mut exits = DtmExits::whole(&self.lower.whole).widen(self.n);
        for (m, config, values) in &self.loaded {
            let all = 0..values.len();
            exits.insert(*m, *config, values.part(all));
        }
        exits
    }
}
