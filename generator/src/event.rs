//! What `generate`, `assemble`, `verify` and `stats` report as they go: an [`Event`] per
//! level, per batch of units or per progress poll (every tenth of a
//! second while units are solved), never per position. The library prints
//! nothing; the caller decides what to show.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// The callback a run reports through; called from the run's threads
/// (hence `Sync`), and never with a lock held.
pub type Report<'r> = &'r (dyn Fn(Event<'_>) + Sync);

/// A report that drops every event.
pub fn silent(_: Event<'_>) {}

/// Runs `f` while a thread passes the value of `progress` to `tick` every
/// tenth of a second: progress reaches the report without the work
/// calling it.
pub fn polled<R: Send>(
    progress: &AtomicU64,
    tick: impl Fn(u64) + Sync,
    f: impl FnOnce() -> R + Send,
) -> R {
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                tick(progress.load(Ordering::Relaxed));
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        let r = f();
        done.store(true, Ordering::Relaxed);
        r
    })
}

/// What was done to a damaged unit file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DamagedUnit {
    /// Removed, so that the unit is solved again.
    Removed,
    /// Replaced by the unit just solved.
    Replaced,
    /// Left as it is: `assemble` does not solve, `generate` will.
    Left,
}

/// One step of a `generate` or `assemble` run.
#[derive(Clone, Debug)]
pub enum Event<'a> {
    /// A temporary file an interrupted run left behind was removed.
    Removed {
        /// The file.
        path: &'a Path,
    },
    /// What the run will take, stated before any work, as one sentence
    /// (the plan's figures and the memory and disk there are).
    Planned {
        /// The sentence.
        line: String,
    },
    /// A complete table already on disk, kept.
    Kept {
        /// Stones of its level.
        stones: u32,
        /// What the table is (its metric and contents, as the solver says).
        table: String,
        /// The table file.
        path: &'a Path,
    },
    /// Units of a level found already solved in its work folder, kept.
    UnitsResumed {
        /// Stones of the level.
        stones: u32,
        /// This shard's units already solved.
        resumed: usize,
        /// This shard's units of the level.
        units: usize,
        /// The work folder.
        dir: &'a Path,
    },
    /// A batch of units starts being solved.
    UnitsStarted {
        /// Stones of the level.
        stones: u32,
        /// Positions in the units left to solve.
        positions: u64,
        /// Whether this is the level's first batch (later ones take up
        /// units other shards left).
        first: bool,
    },
    /// Positions solved so far in the batch (polled, not per position).
    UnitsProgress {
        /// Stones of the level.
        stones: u32,
        /// Positions solved so far (at most `positions`).
        solved: u64,
        /// Positions in the batch.
        positions: u64,
    },
    /// The batch is over (solved or failed).
    UnitsEnded {
        /// Stones of the level.
        stones: u32,
    },
    /// The level's first batch solved units.
    UnitsSolved {
        /// Stones of the level.
        stones: u32,
        /// Positions solved.
        positions: u64,
        /// Units written.
        units: usize,
        /// Seconds taken.
        seconds: f64,
        /// The work folder.
        dir: &'a Path,
    },
    /// A later batch solved units other shards left.
    MoreUnitsSolved {
        /// Stones of the level.
        stones: u32,
        /// Positions solved.
        positions: u64,
        /// Units written.
        units: usize,
    },
    /// Waiting for the other shards to finish a level (at once, then
    /// about each minute).
    Waiting {
        /// Stones of the level.
        stones: u32,
        /// Units not solved yet.
        missing: usize,
        /// Units of the level.
        units: usize,
        /// The table waited for.
        path: &'a Path,
        /// Seconds waited so far.
        waited: f64,
        /// Seconds the run waits at most.
        timeout: u64,
    },
    /// A level's table was written from its units.
    Assembled {
        /// Stones of the level.
        stones: u32,
        /// Seconds taken.
        seconds: f64,
        /// The table file.
        path: &'a Path,
        /// Bytes of the table file.
        bytes: u64,
        /// Positions the table holds (all, but in a WDL table).
        positions: u64,
    },
    /// A damaged unit file was found.
    Damaged {
        /// The unit file.
        path: &'a Path,
        /// What is wrong with it.
        reason: &'a str,
        /// What was done to it.
        action: DamagedUnit,
    },
    /// `assemble`: a level whose units are not all solved yet.
    NotAssembled {
        /// Stones of the level.
        stones: u32,
        /// Units not solved yet.
        missing: usize,
        /// Units of the level.
        units: usize,
        /// The work folder.
        dir: &'a Path,
    },
    /// `assemble`: a level another run is assembling.
    AssembledElsewhere {
        /// Stones of the level.
        stones: u32,
        /// Who holds the assembly lock, as the lock file says.
        holder: String,
    },
    /// `assemble`: no level could be assembled.
    NothingToAssemble {
        /// The folder.
        out: &'a Path,
    },
    /// `verify`: a level's check starts.
    Checking {
        /// Stones of the level.
        stones: u32,
        /// Positions in the level.
        positions: u64,
    },
    /// `verify`: units of a level found checked in its journal (an
    /// interrupted run's), kept.
    ChecksResumed {
        /// Stones of the level.
        stones: u32,
        /// Units already checked.
        resumed: usize,
        /// Units of the level.
        units: usize,
        /// The journal.
        path: &'a Path,
    },
    /// `verify`: the level's journal cannot be written (a read-only
    /// folder): an interrupted check will start the level again.
    NoJournal {
        /// The journal.
        path: &'a Path,
        /// Why.
        error: &'a std::io::Error,
    },
    /// `verify`: positions checked so far in the level (polled).
    CheckProgress {
        /// Stones of the level.
        stones: u32,
        /// Positions checked so far (at most `positions`).
        checked: u64,
        /// Positions in the level.
        positions: u64,
    },
    /// `verify`: a level's check is over (passed or failed).
    Checked {
        /// Stones of the level.
        stones: u32,
    },
    /// `verify`: a level's every entry and checksum passed.
    Verified {
        /// Stones of the level.
        stones: u32,
        /// Positions checked.
        positions: u64,
        /// Seconds spent (checksums, decoding and the successor check).
        seconds: f64,
        /// The table file.
        path: &'a Path,
    },
    /// `stats`: a level's census starts.
    Counting {
        /// Stones of the level.
        stones: u32,
        /// Positions in the level.
        positions: u64,
    },
    /// `stats`: positions counted so far in the level (polled).
    CountProgress {
        /// Stones of the level.
        stones: u32,
        /// Positions counted so far (at most `positions`).
        counted: u64,
        /// Positions in the level.
        positions: u64,
    },
    /// `stats`: a level's census is over.
    Counted {
        /// Stones of the level.
        stones: u32,
    },
}
