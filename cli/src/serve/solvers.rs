//! The searches' solvers, kept from one request to the next: a solver's
//! transposition tables, once grown, cost no more time on fresh memory
//! (about a sixth of a 1 s search), and what one search proved stays
//! proven for every later one, so a player stepping through a game on the
//! board gets the search `annotate` gives a whole file
//! (docs/performance.md, "Kept solvers in the server").
//!
//! At most one solver a search slot is ever made ([`super::pool::Pool`]
//! bounds the searches running at once), so the memory they keep is at
//! most the slots times `--search-memory`, what the server needs at its
//! busiest anyway.

use std::sync::{Arc, Mutex};

use togyz_tb::search::{Budget, Solver};
use togyz_tb::Tablebase;

use super::metrics::Metrics;

/// The idle solvers over the server's tables.
pub struct Solvers {
    tb: &'static Tablebase,
    idle: Mutex<Vec<Solver<'static>>>,
    metrics: Arc<Metrics>,
}

impl Solvers {
    /// No solver yet over `tb`: each is made by the first search that
    /// finds none idle. The idle ones and their bytes are counted in
    /// `metrics`.
    pub fn new(tb: &'static Tablebase, metrics: Arc<Metrics>) -> Solvers {
        Solvers {
            tb,
            idle: Mutex::new(Vec::new()),
            metrics,
        }
    }

    /// An idle solver set to `budget`, or a new one; hand it back with
    /// [`Solvers::give_back`] when its search is done.
    pub fn take(&self, budget: Budget) -> Solver<'static> {
        let idle = {
            let mut idle = self.lock();
            let s = idle.pop();
            self.count(&idle);
            s
        };
        match idle {
            Some(mut s) => {
                // Tables of another size are made anew by `set_budget`.
                s.set_budget(budget);
                s
            }
            None => Solver::new(self.tb, budget),
        }
    }

    /// Keeps `solver` for the next search.
    pub fn give_back(&self, solver: Solver<'static>) {
        let mut idle = self.lock();
        idle.push(solver);
        self.count(&idle);
    }

    fn count(&self, idle: &[Solver<'static>]) {
        let bytes: u64 = idle.iter().map(Solver::table_bytes).sum();
        self.metrics.solvers_idle.set(idle.len() as i64);
        self.metrics
            .solver_table_bytes
            .set(i64::try_from(bytes).unwrap_or(i64::MAX));
    }

    /// The solvers idle now.
    #[cfg(test)]
    fn idle(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Solver<'static>>> {
        // A search that panicked held no lock: the list is never left
        // half-changed.
        self.idle.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_solver_given_back_is_the_next_one_taken() {
        let empty = Tablebase::open(std::iter::empty::<&std::path::Path>()).unwrap();
        let tb: &'static Tablebase = Box::leak(Box::new(empty));
        let metrics = Arc::new(Metrics::new(0));
        let solvers = Solvers::new(tb, metrics.clone());
        let budget = Budget::default();
        let a = solvers.take(budget);
        let b = solvers.take(budget);
        assert_eq!(solvers.idle(), 0);
        solvers.give_back(a);
        solvers.give_back(b);
        assert_eq!(solvers.idle(), 2);
        assert_eq!(metrics.solvers_idle.get(), 2);
        let short = Budget {
            time: Some(std::time::Duration::from_millis(10)),
            ..budget
        };
        let c = solvers.take(short);
        assert_eq!(c.budget().time, short.time);
        assert_eq!(solvers.idle(), 1);
    }
}
