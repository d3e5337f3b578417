//! `Solver`: a proof searcher bound to a tablebase, keeping its tables
//! between searches.

use std::fmt;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use crate::rules::Position;
use crate::tablebase::{Horizon, ProbeError, Tablebase};

use super::dfs::Tt;
use super::{pns, Budget, SearchResult};

/// A proof searcher bound to a tablebase, keeping its transposition tables
/// between searches: proven bounds stay valid for every later position, and
/// df-pn's other numbers only steer. An entry is worth a quarter as much to
/// keep for each search since it was written, so a solver kept for many
/// unrelated positions fills with what the current search needs; and its
/// tables, once grown, cost no more time on fresh memory (about a sixth of
/// a 1 s search: docs/performance.md, "The move played, and one
/// solver for a whole file"). (Annotating 30 self-play games with
/// 0.5 s a position: 722 plies settled in 53 s with df-pn's tables kept,
/// 681 in 69 s without, medians of 3; docs/performance.md, "Annotating
/// games".)
pub struct Solver<'a> {
    pub(super) tb: &'a Tablebase,
    pub(super) horizon: Horizon,
    pub(super) budget: Budget,
    /// The depth-first prover's table, made when that prover first runs.
    pub(super) tt: Option<Tt>,
    /// One df-pn table a thread, kept between searches (made on first
    /// use).
    pub(super) dfpn_tables: Vec<pns::Table>,
    pub(super) nodes: u64,
    pub(super) node_limit: u64,
    pub(super) deadline: Option<Instant>,
    /// Set when the other prover has closed the root interval.
    pub(super) stop: Arc<AtomicBool>,
}

impl fmt::Debug for Solver<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Solver")
            .field("horizon", &self.horizon)
            .field("budget", &self.budget)
            .finish()
    }
}

impl Tablebase {
    /// Solves `pos` within `budget`: by the tables if they cover it, else by
    /// search (see [`Solver::solve`]). Each call starts from empty tables;
    /// to solve the positions of one game, keep one [`Solver`].
    ///
    /// # Errors
    /// A damaged table ([`ProbeError::Table`]) or tables that contradict
    /// themselves.
    pub fn solve(&self, pos: &Position, budget: Budget) -> Result<SearchResult, ProbeError> {
        Solver::new(self, budget).solve(pos)
    }
}

impl<'a> Solver<'a> {
    /// A solver over the complete run of tables of `tb`
    /// ([`Tablebase::horizon`]: `1..=N` for every position, perhaps more
    /// for those with a tuzdyk), allocating its transposition table.
    pub fn new(tb: &'a Tablebase, budget: Budget) -> Solver<'a> {
        Solver {
            tb,
            horizon: tb.horizon(),
            budget,
            tt: None,
            dfpn_tables: Vec::new(),
            nodes: 0,
            node_limit: u64::MAX,
            deadline: None,
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The bytes its transposition tables take now. They grow with the
    /// positions the searches store, up to what the budget allows
    /// ([`Budget::memory`]), so this is what a search has cost in memory.
    pub fn table_bytes(&self) -> u64 {
        let dfs = self.tt.as_ref().map_or(0, Tt::bytes);
        dfs + self.dfpn_tables.iter().map(pns::Table::bytes).sum::<u64>()
    }

    /// The budget each call of [`Solver::solve`] gets.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// Sets the budget each call of [`Solver::solve`] gets. Tables of
    /// another size are made anew (what they held is lost): the depth-first
    /// one here, df-pn's at the next search.
    pub fn set_budget(&mut self, budget: Budget) {
        if budget.tt_entries != self.budget.tt_entries {
            self.tt = None;
        }
        self.budget = budget;
    }
}
