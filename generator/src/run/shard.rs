//! Sharing a run's work between processes: `--shard I/K` and the units
//! each shard solves first.

use crate::solve::unit::{held_units, UnitId};
use togyz_tb::raw::format::Contents;

/// One of K shards: `index` in `0..count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, from 0.
    pub index: u32,
    /// How many shards share the work.
    pub count: u32,
}

impl Shard {
    /// Parses `I/K` with `I < K`.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let bad = || format!("`{s}` is not a shard: write I/K with 0 <= I < K, e.g. 0/4");
        let (i, k) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = k.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The whole work in one process.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// This shard's units of level `n` for a table of `contents`: the
    /// units, biggest first, dealt to the shard with the least work so far
    /// (the same deal in every shard).
    pub fn units(&self, n: u32, contents: Contents) -> Vec<UnitId> {
        let mut units = held_units(n, contents);
        units.sort_by_key(|u| (std::cmp::Reverse(u.positions(n)), u.first));
        let mut load = vec![0u64; self.count as usize];
        let mut mine = Vec::new();
        for u in units {
            let s = (0..load.len())
                .min_by_key(|&s| (load[s], s))
                .expect("K >= 1");
            load[s] += u.positions(n);
            if s == self.index as usize {
                mine.push(u);
            }
        }
        mine
    }
}
