//! What a `generate` run is asked to do, as plain options (the command
//! line's flags are parsed into them by the binary).

use crate::run::shard::Shard;
use crate::solve::unit::{max_stones_of, KazanCut};
use std::path::PathBuf;
use togyz_tb::raw::format::{Contents, TuzdykPairs};
use togyz_tb::Metric;

/// What a `generate` run does (the command line's flags, plain).
#[derive(Debug, Clone)]
pub struct GenerateOptions {
    /// Solve every position with up to this many stones on the board.
    pub max_stones: u32,
    /// Output folder for the tables.
    pub out: PathBuf,
    /// Worker threads (`None`: one per core).
    pub threads: Option<usize>,
    /// Solve only this shard's units, into an output folder the shards
    /// share (docs/cluster.md).
    pub shard: Option<Shard>,
    /// How long a shard waits for the other shards to finish a level, in
    /// seconds, before it gives up.
    pub wait_timeout: u64,
    /// Smaller levels are held in memory whole while their positions (DTM)
    /// or boards (DTC), up to and including the level, total at most
    /// this; each unit reads what it needs of the larger ones from their
    /// table files. `None`: the metric's default
    /// ([`crate::run::plan::default_hold_whole`]: for DTM
    /// [`crate::below::WHOLE_POSITIONS`], for DTC every level when it fits the
    /// memory, else as many as do).
    pub hold_whole: Option<u64>,
    /// What the tables' distances count.
    pub metric: Metric,
    /// At most this many bytes of memory (`None`: what the system has
    /// available).
    pub max_memory: Option<u64>,
    /// Cut every unit into kazan parts of at most this many pairs of
    /// kazan offsets (`None`: the fewest parts that fit the memory,
    /// [`crate::run::plan::pick_cut`]). The tables are the same whatever
    /// the cut; tests force small parts with it.
    pub kazan_pairs: Option<KazanCut>,
    /// Solve every unit without storing its quiet-move graph (`false`:
    /// stored unless even parts of one pair would not fit beside it,
    /// [`crate::run::plan::pick_cut`]). The tables are the same either
    /// way; tests force it with this.
    pub no_graph: bool,
    /// Write the levels from this one up as WDL tables (DTC only:
    /// `docs/format.md`, "WDL tables"): the positions with a tuzdyk, no
    /// distances, the unit without a tuzdyk never solved. `None`: every
    /// level a full table.
    pub wdl_from: Option<u32>,
    /// With [`GenerateOptions::wdl_from`]: the WDL levels hold only the
    /// positions with both tuzdyks in these pairs of holes, whose units
    /// need no other (`docs/format.md`, "WDL tables of some tuzdyk
    /// pairs"). `None`: every position with a tuzdyk.
    pub wdl_pairs: Option<TuzdykPairs>,
}

impl GenerateOptions {
    /// Default seconds a shard waits for the others ([`GenerateOptions::wait_timeout`]).
    pub const WAIT_TIMEOUT: u64 = 86400;

    /// The options for `max_stones` into `out`, the rest default: one
    /// thread per core, one shard, DTM, the metric's levels held whole,
    /// the memory available.
    pub fn new(max_stones: u32, out: impl Into<PathBuf>) -> GenerateOptions {
        GenerateOptions {
            max_stones,
            out: out.into(),
            threads: None,
            shard: None,
            wait_timeout: Self::WAIT_TIMEOUT,
            hold_whole: None,
            metric: Metric::Dtm,
            max_memory: None,
            kazan_pairs: None,
            no_graph: false,
            wdl_from: None,
            wdl_pairs: None,
        }
    }

    /// What level `n`'s table holds: a WDL table from
    /// [`GenerateOptions::wdl_from`] up, else a full one.
    pub fn contents(&self, n: u32) -> Contents {
        contents_of(self.wdl(), n)
    }

    /// The first WDL level and what the WDL levels hold, if any.
    pub fn wdl(&self) -> Option<(u32, Contents)> {
        wdl_levels(self.wdl_from, self.wdl_pairs)
    }
}

/// The first WDL level and what the WDL levels hold: the positions with a
/// tuzdyk, or with both in `pairs`.
pub fn wdl_levels(from: Option<u32>, pairs: Option<TuzdykPairs>) -> Option<(u32, Contents)> {
    from.map(|from| (from, pairs.map_or(Contents::Wdl, Contents::Pairs)))
}

/// What level `n`'s table holds when the levels from `wdl.0` up are WDL
/// tables of contents `wdl.1`.
pub fn contents_of(wdl: Option<(u32, Contents)>, n: u32) -> Contents {
    match wdl {
        Some((from, contents)) if n >= from => contents,
        _ => Contents::Full,
    }
}

/// The most stones a run whose levels hold `wdl` (as [`contents_of`]) may
/// go up to: the largest `m` for which every unit solved at every level
/// up to `m` fits the solver's 32-bit node ids (and a board's kazan
/// splits its 32-bit frontier masks). 17 for complete tables
/// ([`togyz_tb::max_solver_stones`]) and for those of every tuzdyk; the
/// units of two tuzdyks have 16 free holes, not 17 or 18, so the tables
/// of tuzdyk pairs go to 19.
pub fn max_run_stones(wdl: Option<(u32, Contents)>) -> u32 {
    max_stones_of(|n| contents_of(wdl, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Complete tables and those of every tuzdyk stop at the solver's 17
    /// stones; the levels of tuzdyk pairs go to 19, as long as every
    /// level below them that is complete stays within 17.
    #[test]
    fn the_most_stones_of_a_run_follow_its_units() {
        let pairs = |from| wdl_levels(Some(from), Some(TuzdykPairs::ALL));
        assert_eq!(max_run_stones(None), togyz_tb::max_solver_stones());
        assert_eq!(max_run_stones(None), 17);
        assert_eq!(max_run_stones(wdl_levels(Some(1), None)), 17);
        assert_eq!(max_run_stones(pairs(1)), 19);
        assert_eq!(max_run_stones(pairs(18)), 19);
        assert_eq!(max_run_stones(pairs(19)), 17);
        let one = wdl_levels(Some(13), Some("3-6".parse().unwrap()));
        assert_eq!(max_run_stones(one), 19);
        assert_eq!(crate::solve::unit::max_pair_stones(), 19);
    }
}
