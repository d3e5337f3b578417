//! What the provers share while they run: the root's bounds, the signal
//! to stop, and the node count against the budget.

use std::sync::atomic::{AtomicBool, AtomicI8, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::tablebase::ProbeError;
use crate::value::Wdl;

/// Shared between the two provers: the root's bounds as known so far, and
/// the signal to stop.
pub(crate) struct Shared {
    lower: AtomicI8,
    upper: AtomicI8,
    pub(super) stop: Arc<AtomicBool>,
}

pub(crate) fn wdl_of(v: i8) -> Wdl {
    match v {
        i8::MIN..=-1 => Wdl::Loss,
        0 => Wdl::Draw,
        _ => Wdl::Win,
    }
}

pub(crate) fn num(w: Wdl) -> i8 {
    match w {
        Wdl::Loss => -1,
        Wdl::Draw => 0,
        Wdl::Win => 1,
    }
}

impl Shared {
    pub(crate) fn new(lower: Wdl, upper: Wdl, stop: Arc<AtomicBool>) -> Shared {
        stop.store(false, Ordering::SeqCst);
        Shared {
            lower: AtomicI8::new(num(lower)),
            upper: AtomicI8::new(num(upper)),
            stop,
        }
    }

    /// Narrows the root interval; stops both provers once it closes.
    pub(crate) fn narrow(&self, lower: Wdl, upper: Wdl) {
        let lo = self
            .lower
            .fetch_max(num(lower), Ordering::SeqCst)
            .max(num(lower));
        let hi = self
            .upper
            .fetch_min(num(upper), Ordering::SeqCst)
            .min(num(upper));
        if lo >= hi {
            self.stop.store(true, Ordering::SeqCst);
        }
    }

    pub(crate) fn bounds(&self) -> (Wdl, Wdl) {
        (
            wdl_of(self.lower.load(Ordering::SeqCst)),
            wdl_of(self.upper.load(Ordering::SeqCst)),
        )
    }

    pub(crate) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Why a depth-first search stopped before finishing.
pub(crate) enum Halt {
    Budget,
    Probe(ProbeError),
}

impl From<ProbeError> for Halt {
    fn from(e: ProbeError) -> Halt {
        Halt::Probe(e)
    }
}

/// Counts one node against a budget: the node limit, and every 1024 nodes
/// the deadline and the other provers' stop signal.
pub(crate) fn tick(
    nodes: &mut u64,
    limit: u64,
    deadline: Option<Instant>,
    stop: &AtomicBool,
) -> Result<(), Halt> {
    *nodes += 1;
    if *nodes >= limit {
        return Err(Halt::Budget);
    }
    if nodes.is_multiple_of(1024)
        && (stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d))
    {
        return Err(Halt::Budget);
    }
    Ok(())
}
