//! What a search may spend: time, nodes and memory, the limits refused,
//! and the machine's memory.

use std::time::Duration;

use super::dfs::{DFS_ENTRY_BYTES, DFS_SHARE};
#[cfg(doc)]
use super::Solver;
use super::{graph, pns};

/// A table size asked for, as the power of two a table gets (at least 4,
/// at most 2^40 entries).
pub(crate) fn table_size(entries: usize) -> usize {
    entries.clamp(4, 1 << 40).next_power_of_two()
}

/// The least memory [`Budget::with_memory`] takes: 1 MB, room for tables
/// of a few thousand entries.
pub const MIN_SEARCH_MEMORY: u64 = 1_000_000;

/// What a search may spend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Wall-clock limit (`None`: no limit).
    pub time: Option<Duration>,
    /// Limit on the nodes of each depth-first prover, per question for
    /// df-pn (`None`: no limit).
    pub nodes: Option<u64>,
    /// Entries of each transposition table (rounded up to a power of two):
    /// the depth-first prover's (a quarter as many, 28 bytes each) and each df-pn
    /// thread's (38 bytes an entry: 32 and a quarter of a 24-byte record
    /// of its split table, which holds what is proven of a board whatever
    /// the kazans). One [`Solver`] keeps them between
    /// searches, so the positions of one game help each other, and
    /// replaces the entries of older searches first. This is a
    /// ceiling: a table starts small and doubles as it fills, so a short
    /// search takes little memory whatever the ceiling.
    pub tt_entries: usize,
    /// Positions the retrograde solve may enumerate (at most about 150 bytes each);
    /// 0 turns it off.
    pub graph_positions: usize,
    /// Run the iterative-deepening prover.
    pub dfs: bool,
    /// Run the proof-number prover (df-pn).
    pub dfpn: bool,
    /// Threads for df-pn: 1 asks its two questions in turn, 2 (or more)
    /// one each, each thread with its own table.
    pub dfpn_threads: usize,
}

impl Default for Budget {
    /// Five seconds; df-pn on two threads, one question each, with 2^22
    /// entries in each table (152 MiB each when full); the iterative-
    /// deepening prover beside them, with 2^20 entries (28 MiB); the
    /// retrograde solve up to 2^18 positions (about 39 MB): 387 MB in all.
    /// On 2 cores this proved the most (docs/performance.md, "Proof search
    /// above the tables" and "The last positions of unsettled games"): a
    /// larger graph took time that df-pn used better, and the iterative
    /// deepening proves what df-pn leaves open.
    fn default() -> Budget {
        Budget {
            time: Some(Duration::from_secs(5)),
            nodes: None,
            tt_entries: 1 << 22,
            graph_positions: 1 << 18,
            dfs: true,
            dfpn: true,
            dfpn_threads: 2,
        }
    }
}

impl Budget {
    /// The default budget with a wall-clock limit of `time`.
    pub fn time(time: Duration) -> Budget {
        Budget {
            time: Some(time),
            ..Budget::default()
        }
    }

    /// The default memory limits, no time limit, at most `nodes` depth-first
    /// nodes (reproducible: the same answer on any machine).
    pub fn nodes(nodes: u64) -> Budget {
        Budget {
            time: None,
            nodes: Some(nodes),
            ..Budget::default()
        }
    }

    /// The default budget with the limits a caller from another language
    /// passes: at most `seconds` of wall time (0: no time limit) and
    /// `nodes` per question (0: no node limit).
    ///
    /// # Errors
    /// [`LimitError`] when `seconds` is negative, not finite or above a
    /// year, or when both limits are 0 (a search that might never end).
    pub fn limits(seconds: f64, nodes: u64) -> Result<Budget, LimitError> {
        const YEAR: f64 = 365.0 * 86_400.0;
        if !(0.0..=YEAR).contains(&seconds) {
            return Err(LimitError::Seconds(seconds));
        }
        if seconds == 0.0 && nodes == 0 {
            return Err(LimitError::Unlimited);
        }
        Ok(Budget {
            time: (seconds > 0.0).then(|| Duration::from_secs_f64(seconds)),
            nodes: (nodes > 0).then_some(nodes),
            ..Budget::default()
        })
    }

    /// The most memory a search with this budget takes, in bytes: each
    /// transposition table grown to its ceiling and the retrograde solve at
    /// its limit. (Tables grow as they fill, so a short search takes far
    /// less: [`Solver::table_bytes`].)
    pub fn memory(&self) -> u64 {
        table_size(self.tt_entries) as u64 * self.entry_bytes()
            + self.graph_positions as u64 * graph::POSITION_BYTES
    }

    /// This budget with its tables sized to take at most `bytes` in all
    /// ([`Budget::memory`]): the retrograde solve a sixteenth of it (at most
    /// its default 2^18 positions, more took time that df-pn used better),
    /// the transposition tables the largest power of two of entries that
    /// fits in the rest.
    ///
    /// The budget is a ceiling: a search takes memory in proportion to the
    /// positions it stores, so a larger budget never makes a short search
    /// slower.
    ///
    /// # Errors
    /// [`LimitError::Memory`] when `bytes` is below [`MIN_SEARCH_MEMORY`],
    /// [`LimitError::MemoryAboveMachine`] when it is more than the machine
    /// has ([`machine_memory`]): a search that long would fail to allocate,
    /// or push everything else out of memory, before it reached its bound.
    pub fn with_memory(self, bytes: u64) -> Result<Budget, LimitError> {
        if bytes < MIN_SEARCH_MEMORY {
            return Err(LimitError::Memory(bytes));
        }
        if let Some(machine) = machine_memory().filter(|&m| bytes > m) {
            return Err(LimitError::MemoryAboveMachine { bytes, machine });
        }
        let graph_positions = if self.graph_positions == 0 {
            0
        } else {
            (bytes / 16 / graph::POSITION_BYTES).min(Budget::default().graph_positions as u64)
                as usize
        };
        let rest = bytes - graph_positions as u64 * graph::POSITION_BYTES;
        let entries = match rest.checked_div(self.entry_bytes()) {
            // Neither table runs: their size does not matter.
            None => self.tt_entries,
            Some(fit) => 1usize << fit.max(4).ilog2().min(40),
        };
        Ok(Budget {
            tt_entries: entries,
            graph_positions,
            ..self
        })
    }

    /// Bytes one entry index costs across the transposition tables that
    /// run (each has `tt_entries` entries).
    pub(super) fn entry_bytes(&self) -> u64 {
        let dfs = if self.dfs {
            DFS_ENTRY_BYTES / DFS_SHARE
        } else {
            0
        };
        (dfs + self.dfpn_tables() * pns::ENTRY_BYTES) as u64
    }

    /// The df-pn tables a search keeps: one per thread, one per question.
    pub(super) fn dfpn_tables(&self) -> usize {
        match (self.dfpn, self.dfpn_threads) {
            (false, _) => 0,
            (true, 0 | 1) => 1,
            (true, _) => 2,
        }
    }
}

/// Limits [`Budget::limits`] and [`Budget::with_memory`] refuse.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum LimitError {
    /// A time limit out of range.
    #[error("the time limit is {0} s: it must be between 0 and a year")]
    Seconds(f64),
    /// Neither a time nor a node limit.
    #[error("no time limit and no node limit: a search needs one")]
    Unlimited,
    /// Less memory than [`MIN_SEARCH_MEMORY`].
    #[error("the search memory is {0} bytes: it must be at least 1 MB")]
    Memory(u64),
    /// More memory than the machine has ([`machine_memory`]).
    #[error(
        "the search memory is {} MB, more than this machine's {} MB of memory",
        bytes / 1_000_000,
        machine / 1_000_000
    )]
    MemoryAboveMachine {
        /// The bound asked for.
        bytes: u64,
        /// The machine's physical memory.
        machine: u64,
    },
}

/// The machine's physical memory in bytes (`MemTotal` of `/proc/meminfo`),
/// or `None` where that is not known (then no bound is refused for it).
pub fn machine_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line
        .trim_start_matches("MemTotal:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}
