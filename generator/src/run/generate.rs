//! The `generate` driver: solves stone counts in ascending order, unit by
//! unit into the level's work folder, assembles each level's table file
//! from its units, shows progress and a summary, and resumes: a complete,
//! valid table already on disk is kept (and loaded if a larger count still
//! needs it), every finished unit of an unfinished level is kept, and an
//! invalid table is never overwritten.
//!
//! Before any work a run states what it needs ([`crate::run::plan`]) and refuses
//! when the memory or the disk is not there, checks that the output folder
//! can be written, and locks it ([`crate::run::lock`]). With `--shard I/K`, K
//! processes (on one machine or many sharing the folder) each solve a
//! disjoint set of every level's units; whichever finds all units of a
//! level finished assembles its table, under a lock, and every shard waits
//! for a level's table before it starts the next.

use crate::files::folder::{remove_stale_temporaries, unit_file_name, unit_lock_name, work_dir};
use crate::files::work::{self, UnitFileError, UnitState};
use crate::files::write::{self, TableStatus, WriteSummary};
use crate::levels::lower::{self, Lower};
pub use crate::run::error::GenerateError;
use crate::run::event::{DamagedUnit, Event, Report};
use crate::run::lock::{self, Lock};
use crate::run::metric::{DtcSolver, UnitSolver};
use crate::run::plan::{self, human_bytes, human_seconds};
use crate::run::progress::with_threads;
use crate::solve::unit::{level_units, max_solver_stones, UnitId};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use togyz_probe::raw::format::{file_name, TableFile};
use togyz_probe::Metric;

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
    /// Smaller levels are held in memory whole while their positions, up
    /// to and including the level, total at most this; each unit reads
    /// what it needs of the larger ones from their table files.
    pub hold_whole: u64,
    /// What the tables' distances count.
    pub metric: Metric,
    /// At most this many bytes of memory (`None`: what the system has
    /// available).
    pub max_memory: Option<u64>,
}

impl GenerateOptions {
    /// Default seconds a shard waits for the others ([`GenerateOptions::wait_timeout`]).
    pub const WAIT_TIMEOUT: u64 = 86400;

    /// The options for `max_stones` into `out`, the rest default: one
    /// thread per core, one shard, DTM, [`lower::WHOLE_POSITIONS`] held
    /// whole, the memory available.
    pub fn new(max_stones: u32, out: impl Into<PathBuf>) -> GenerateOptions {
        GenerateOptions {
            max_stones,
            out: out.into(),
            threads: None,
            shard: None,
            wait_timeout: Self::WAIT_TIMEOUT,
            hold_whole: lower::WHOLE_POSITIONS,
            metric: Metric::Dtm,
            max_memory: None,
        }
    }
}

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

    /// This shard's units of level `n`: the units, biggest first, dealt
    /// to the shard with the least work so far (the same deal in every
    /// shard).
    pub fn units(&self, n: u32) -> Vec<UnitId> {
        let mut units = level_units(n);
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

/// What one stone count contributed.
#[derive(Clone, Debug, Default)]
pub struct LevelSummary {
    /// Stones on the board.
    pub stones: u32,
    /// Positions in the table.
    pub positions: u64,
    /// Wins for the side to move.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses for the side to move.
    pub losses: u64,
    /// The longest win, in plies.
    pub longest_win: u32,
    /// Seconds spent solving and writing (0 when the table was already there).
    pub seconds: f64,
    /// Bytes of the table file.
    pub bytes: u64,
    /// Whether the table was already on disk.
    pub reused: bool,
}

impl LevelSummary {
    /// The summary of level `n`, just written as `written` in `seconds`.
    pub fn written(n: u32, written: &WriteSummary, seconds: f64) -> LevelSummary {
        LevelSummary {
            stones: n,
            positions: written.positions,
            wins: written.wins,
            draws: written.draws,
            losses: written.losses,
            longest_win: written.longest_win,
            seconds,
            bytes: written.bytes,
            reused: false,
        }
    }
}

/// "1 stone", "8 stones".
pub fn stones(n: u32) -> String {
    format!("{n} stone{}", if n == 1 { "" } else { "s" })
}

/// Creates the output folder if needed and checks it can be written.
pub(crate) fn prepare_out(out: &Path) -> Result<(), GenerateError> {
    if out.exists() && !out.is_dir() {
        return Err(GenerateError::OutNotFolder(out.to_path_buf()));
    }
    std::fs::create_dir_all(out).map_err(|source| GenerateError::OutDir {
        path: out.to_path_buf(),
        source,
    })?;
    let probe = out.join(format!(".togyz-gen.write-test.{}", std::process::id()));
    std::fs::write(&probe, b"")
        .and_then(|()| std::fs::remove_file(&probe))
        .map_err(|source| GenerateError::NotWritable {
            path: out.to_path_buf(),
            source,
        })
}

/// The folder lock (`.togyz-gen.lock`): exclusive for a whole run, shared
/// by shards, each of which also holds its own shard lock.
pub(crate) fn lock_out(
    out: &Path,
    shard: Option<Shard>,
    what: &str,
) -> Result<Vec<Lock>, GenerateError> {
    let folder = out.join(".togyz-gen.lock");
    Ok(match shard {
        None => vec![lock::try_exclusive(&folder, what)?],
        Some(s) => vec![
            lock::try_shared(&folder)?,
            lock::try_exclusive(
                &out.join(format!(".togyz-gen.shard-{}-of-{}.lock", s.index, s.count)),
                what,
            )?,
        ],
    })
}

/// Checks `--max-stones` and `--out` and looks at every level's table,
/// changing nothing; per level from 1, whether its table is complete.
fn survey(args: &GenerateOptions) -> Result<Vec<bool>, GenerateError> {
    let (out, max) = (&args.out, args.max_stones);
    if max == 0 || max > max_solver_stones() {
        return Err(GenerateError::BadMaxStones(max));
    }
    if out.exists() && !out.is_dir() {
        return Err(GenerateError::OutNotFolder(out.to_path_buf()));
    }
    let mut complete = Vec::new();
    for n in 1..=max {
        match write::table_status(out, n) {
            TableStatus::Invalid(reason) => {
                return Err(GenerateError::InvalidExisting {
                    path: out.join(file_name(n)),
                    reason,
                })
            }
            s => complete.push(s == TableStatus::Complete),
        }
    }
    Ok(complete)
}

/// What every `generate` run does first: checks `--max-stones` and every
/// level (a bad file stops the run before any work), states the plan of
/// `solver` and refuses it when the memory or disk is not there, all before
/// anything is written (a refused run leaves nothing behind); then
/// prepares and locks the output folder (the lock names the command) and
/// removes our dead
/// temporaries. Returns the locks and, per level from 1, whether its table
/// is complete (looked at again under the lock).
pub(crate) fn start_run<S: UnitSolver>(
    args: &GenerateOptions,
    solver: &S,
    report: Report<'_>,
) -> Result<(Vec<Lock>, Vec<bool>), GenerateError> {
    let complete = survey(args)?;
    let todo: Vec<u32> = (1..=args.max_stones)
        .filter(|&n| !complete[n as usize - 1])
        .collect();
    check_resources(
        args,
        &todo,
        args.shard.unwrap_or(Shard::ALL),
        solver,
        report,
    )?;
    let (out, max) = (&args.out, args.max_stones);
    prepare_out(out)?;
    let what = format!(
        "togyz-gen generate{} --max-stones {max}{}",
        solver.metric_flag(),
        args.shard
            .map(|s| format!(" --shard {}/{}", s.index, s.count))
            .unwrap_or_default()
    );
    let locks = lock_out(out, args.shard, &what)?;
    for path in remove_stale_temporaries(out) {
        report(Event::Removed { path: &path });
    }
    Ok((locks, survey(args)?))
}

/// Solves and writes the tables of levels `1..=max_stones` in
/// `args.metric` into `args.out` (this shard's units with `--shard`),
/// skipping complete tables (of either metric: a DTC run may build on DTM
/// tables below) and finished units, on a pool of `args.threads` workers;
/// returns one summary per level. Each step goes to `report`
/// ([`crate::run::event::silent`] for none).
///
/// # Errors
///
/// [`GenerateError`]: a bad `max_stones`, a worker pool that cannot be
/// started, an output folder that cannot be used or is locked, too little
/// memory or disk, an invalid file in the way, a work folder of the other
/// metric's units, a solve or write that fails.
pub fn generate(
    args: &GenerateOptions,
    report: Report<'_>,
) -> Result<Vec<LevelSummary>, GenerateError> {
    with_threads(args.threads, || match args.metric {
        Metric::Dtm => generate_with(args, Lower::new(args.hold_whole), report),
        Metric::Dtc => generate_with(args, DtcSolver::default(), report),
    })
    .map_err(GenerateError::Threads)?
}

/// [`generate`] with the metric's `solver`, which holds what the levels
/// above need of the levels below.
fn generate_with<S: UnitSolver>(
    args: &GenerateOptions,
    mut solver: S,
    report: Report<'_>,
) -> Result<Vec<LevelSummary>, GenerateError> {
    let (_locks, complete) = start_run(args, &solver, report)?;
    let (out, max) = (&args.out, args.max_stones);
    let todo: Vec<u32> = (1..=max).filter(|&n| !complete[n as usize - 1]).collect();
    let shard = args.shard.unwrap_or(Shard::ALL);
    let last_missing = todo.last().copied();

    let mut summaries = Vec::new();
    for n in 1..=max {
        let path = out.join(file_name(n));
        let needed_later = last_missing.is_some_and(|m| n < m);
        if complete[n as usize - 1] {
            let table = TableFile::open(&path)?;
            let mut s = kept_summary(&table, n);
            if needed_later {
                let t = Instant::now();
                solver.push(&path, None)?;
                s.seconds = t.elapsed().as_secs_f64();
            }
            report(Event::Kept {
                stones: n,
                table: solver.kept_table(&table),
                path: &path,
            });
            summaries.push(s);
            continue;
        }
        let t = Instant::now();
        let keep = needed_later && solver.keeps_solved(n);
        let (mut summary, kept) = solve_level(args, shard, n, &solver, keep, report)?;
        summary.seconds = t.elapsed().as_secs_f64();
        summaries.push(summary);
        if needed_later {
            solver.push(&path, kept)?;
        }
    }
    Ok(summaries)
}

pub(crate) fn kept_summary(table: &TableFile, n: u32) -> LevelSummary {
    let h = table.header();
    LevelSummary {
        stones: n,
        positions: h.positions,
        wins: h.wins,
        draws: h.draws,
        losses: h.losses,
        longest_win: h.longest_win,
        bytes: h.file_length,
        reused: true,
        ..Default::default()
    }
}

/// States the plan of solving the levels in `todo` and refuses it when the
/// memory or disk is not there: [`check_resources_with`] what the machine
/// has.
pub(crate) fn check_resources<S: UnitSolver>(
    args: &GenerateOptions,
    todo: &[u32],
    shard: Shard,
    solver: &S,
    report: Report<'_>,
) -> Result<(), GenerateError> {
    let (disk, _) = plan::disk_free(&args.out);
    check_resources_with(
        args,
        todo,
        shard,
        solver,
        plan::memory_available(),
        disk.ok(),
        report,
    )
}

/// Positions of level `n` already in finished unit files of `metric` in
/// output folder `out` (a resumed level).
fn solved_positions(out: &Path, n: u32, metric: Metric) -> u64 {
    let dir = work_dir(out, n);
    if !dir.is_dir() || work::metric_of(&dir) != metric {
        return 0;
    }
    level_units(n)
        .into_iter()
        .filter(|&u| work::unit_done(&dir, n, u))
        .map(|u| u.positions(n))
        .sum()
}

/// [`check_resources`] with `machine` bytes of memory available (the
/// run's cap being the least of it and `--max-memory`) and `disk` bytes
/// free where the output folder is (or will be); `None` when unknown. Only
/// what is left counts: the units already solved in a work folder are
/// neither solved nor written again.
pub(crate) fn check_resources_with<S: UnitSolver>(
    args: &GenerateOptions,
    todo: &[u32],
    shard: Shard,
    solver: &S,
    machine: Option<u64>,
    disk: Option<u64>,
    report: Report<'_>,
) -> Result<(), GenerateError> {
    if todo.is_empty() {
        return Ok(());
    }
    let (out, max) = (&args.out, args.max_stones);
    let threads = rayon::current_num_threads();
    let metric = solver.metric();
    let solved: Vec<u64> = (0..=max)
        .map(|n| {
            if todo.contains(&n) {
                solved_positions(out, n, metric)
            } else {
                0
            }
        })
        .collect();
    let solved = |n: u32| solved[n as usize];
    let plan_of = |todo: &[u32], max, threads| {
        plan::plan(
            metric,
            todo,
            max,
            threads,
            shard.count,
            args.hold_whole,
            solved,
        )
    };
    let p = plan_of(todo, max, threads);
    // The cap is --max-memory when it is below what the machine has.
    let capped = args.max_memory.filter(|&m| machine.is_none_or(|a| m <= a));
    let memory = capped.or(machine);
    let memory_text = match (capped, machine) {
        (Some(m), Some(a)) => format!(
            "{} of memory allowed by --max-memory ({} available)",
            human_bytes(m),
            human_bytes(a)
        ),
        (Some(m), None) => format!("{} of memory allowed by --max-memory", human_bytes(m)),
        (None, Some(a)) => format!("{} of memory available", human_bytes(a)),
        (None, None) => "unknown memory available".into(),
    };
    let at = plan::nearest_existing(out);
    let line = format!(
        "plan: {} positions to solve{}, about {} of disk, a peak of about {} of memory (at {}), about {} with {threads} thread{}; {memory_text}, {} of disk free{}",
        p.positions,
        if shard.count > 1 { format!(" in shard {}/{}", shard.index, shard.count) } else { String::new() },
        human_bytes(p.disk),
        human_bytes(p.memory),
        stones(p.memory_at),
        human_seconds(p.seconds),
        if threads == 1 { "" } else { "s" },
        disk.map(human_bytes).unwrap_or_else(|| "unknown".into()),
        if at == *out { String::new() } else { format!(" at {} ({} is to be made there)", at.display(), out.display()) },
    );
    report(Event::Planned { line });
    if let Some(available) = memory {
        // Units wait for memory (plan::UnitBudget): a level fits when one
        // unit at a time fits.
        let serial = plan_of(todo, max, 1);
        if p.memory > available && serial.memory <= available {
            let line = format!(
                "plan: {} of memory is not enough for {threads} units side by side at {}: the biggest units will run one at a time (a peak of about {})",
                human_bytes(available),
                stones(p.memory_at),
                human_bytes(serial.memory)
            );
            report(Event::Planned { line });
        } else if p.memory > available {
            let run_to = |m: u32| {
                let todo: Vec<u32> = todo.iter().copied().filter(|&n| n <= m).collect();
                plan_of(&todo, m, 1).memory
            };
            let advice = match (1..max).rev().find(|&m| run_to(m) <= available) {
                Some(m) => format!(
                    "; the largest run that fits in it is --max-stones {m} (a peak of about {})",
                    human_bytes(run_to(m))
                ),
                None => {
                    let least = run_to(1);
                    // Rounded, the need could read as the cap itself.
                    let least = if human_bytes(least) == human_bytes(available) {
                        format!("{:.2} MB", least as f64 / 1e6)
                    } else {
                        human_bytes(least)
                    };
                    format!("; nothing fits in it: even --max-stones 1 needs about {least}")
                }
            };
            let limit = match capped {
                Some(m) => format!("--max-memory allows {}", human_bytes(m)),
                None => format!("this machine has {} available", human_bytes(available)),
            };
            return Err(GenerateError::Memory {
                stones: serial.memory_at,
                needed: human_bytes(serial.memory),
                threads: 1,
                limit,
                advice,
            });
        }
    }
    if let Some(available) = disk {
        if p.disk > available {
            return Err(GenerateError::Disk {
                path: at,
                needed: human_bytes(p.disk),
                available: human_bytes(available),
            });
        }
    }
    Ok(())
}

/// Solves this shard's unfinished units of level `n`, then assembles the
/// level's table (or waits for the shard that does). Returns the level's
/// summary and, with `keep`, its values for the levels above.
pub(crate) fn solve_level<S: UnitSolver>(
    args: &GenerateOptions,
    shard: Shard,
    n: u32,
    lower: &S,
    keep: bool,
    report: Report<'_>,
) -> Result<Solved<S>, GenerateError> {
    let out = &args.out;
    let dir = work_dir(out, n);
    if write::table_status(out, n) == TableStatus::Complete {
        // Another shard wrote it since this run started.
        if let Some(result) = assemble_level(out, n, keep, lower, report)? {
            return Ok(result);
        }
    }
    std::fs::create_dir_all(&dir).map_err(|source| GenerateError::NotWritable {
        path: dir.clone(),
        source,
    })?;
    work::claim_metric(&dir, lower.metric())?;
    for path in remove_stale_temporaries(&dir) {
        report(Event::Removed { path: &path });
    }
    let mine = shard.units(n);
    let mut resumed = 0;
    for u in level_units(n) {
        match work::check_unit(&dir, n, u) {
            UnitState::Done => resumed += usize::from(mine.contains(&u)),
            UnitState::Missing => {}
            UnitState::Damaged { .. } => discard_damaged(&dir, n, u, report)?,
        }
    }
    if resumed > 0 {
        report(Event::UnitsResumed {
            stones: n,
            resumed,
            units: mine.len(),
            dir: &dir,
        });
    }
    // This shard's units first; then, smallest first, the other shards'
    // units that nobody is solving (a shard that has not started, or
    // died, does not hold the others up).
    let mut order = mine.clone();
    let mut others: Vec<UnitId> = level_units(n)
        .into_iter()
        .filter(|u| !mine.contains(u))
        .collect();
    others.sort_by_key(|u| (u.positions(n), u.first));
    order.extend(others);
    let t = Instant::now();
    let (positions, mut written) = solve_units(n, lower, &order, &dir, true, args, report)?;
    if !written.is_empty() {
        report(Event::UnitsSolved {
            stones: n,
            positions,
            units: written.len(),
            seconds: t.elapsed().as_secs_f64(),
            dir: &dir,
        });
    }
    let path = out.join(file_name(n));
    let waited = Instant::now();
    // None until the first note: say at once that we wait, then each minute.
    let mut last_note: Option<Instant> = None;
    // Each pass assembles the level, or solves at least one unit not
    // solved in this run before (finitely many), or waits half a second
    // within --wait-timeout: the loop ends.
    loop {
        if let Some(result) = assemble_level(out, n, keep, lower, report)? {
            return Ok(result);
        }
        // A unit this run wrote that is gone or damaged while the table is
        // still missing: solving it again could go on for ever.
        if let Some(&u) = written.iter().find(|&&u| !work::unit_done(&dir, n, u)) {
            match write::table_status(out, n) {
                // Another shard wrote the table and removed the folder.
                TableStatus::Complete => continue,
                TableStatus::Missing => {
                    return Err(GenerateError::UnitLost {
                        path: dir.join(unit_file_name(u)),
                    })
                }
                TableStatus::Invalid(reason) => {
                    return Err(GenerateError::InvalidExisting { path, reason })
                }
            }
        }
        let missing = level_units(n)
            .into_iter()
            .filter(|&u| !work::unit_done(&dir, n, u))
            .count();
        if waited.elapsed().as_secs() >= args.wait_timeout && missing == 0 {
            let lock = out.join(format!(".togyz-{n:02}.assemble.lock"));
            return Err(GenerateError::AssemblyTimeout {
                stones: n,
                seconds: args.wait_timeout,
                holder: lock::holder(&lock),
                lock,
            });
        }
        if waited.elapsed().as_secs() >= args.wait_timeout {
            return Err(GenerateError::WaitTimeout {
                stones: n,
                seconds: args.wait_timeout,
                missing,
                units: level_units(n).len(),
                dir,
            });
        }
        // Units are missing: those of another process still at work, or one
        // that stopped since the pass above (then solve them here).
        let (positions, more) = solve_units(n, lower, &order, &dir, false, args, report)?;
        if !more.is_empty() {
            report(Event::MoreUnitsSolved {
                stones: n,
                positions,
                units: more.len(),
            });
            written.extend(more);
            continue;
        }
        if last_note.is_none_or(|t| t.elapsed() >= Duration::from_secs(60)) {
            report(Event::Waiting {
                stones: n,
                missing,
                units: level_units(n).len(),
                path: &path,
                waited: waited.elapsed().as_secs_f64(),
                timeout: args.wait_timeout,
            });
            last_note = Some(Instant::now());
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// The lock of unit `u` in work folder `dir`, taken for `doing` it;
/// `None` when another process holds it (it is on the unit) or the folder
/// is gone (another shard wrote the table).
fn lock_unit(dir: &Path, u: UnitId, doing: &str) -> Result<Option<lock::Lock>, GenerateError> {
    let lock_path = dir.join(unit_lock_name(u));
    match lock::try_exclusive(&lock_path, &format!("{doing} unit {u:?}")) {
        Ok(lock) => Ok(Some(lock)),
        Err(lock::LockError::Held { .. }) => Ok(None),
        Err(lock::LockError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// Removes the damaged file of unit `u` of level `n` from work folder
/// `dir` with a warning, so that the unit is solved again; under the
/// unit's lock, and only if it is still damaged then (a process holding
/// the lock is solving the unit and replaces the file itself).
fn discard_damaged(dir: &Path, n: u32, u: UnitId, report: Report<'_>) -> Result<(), GenerateError> {
    let Some(lock) = lock_unit(dir, u, "replacing")? else {
        return Ok(());
    };
    if let UnitState::Damaged { path, reason } = work::check_unit(dir, n, u) {
        report(Event::Damaged {
            path: &path,
            reason: &reason,
            action: DamagedUnit::Removed,
        });
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(UnitFileError::Io { path, source: e }.into())
            }
            _ => {}
        }
    }
    let _ = std::fs::remove_file(lock.path());
    Ok(())
}

/// Solves the `units` of level `n` that are neither finished nor being
/// solved by another process (each unit is solved under its lock in the
/// work folder `dir`), in parallel, each written to its unit file as soon
/// as it is solved, units waiting for memory beyond `args.max_memory`
/// ([`plan::units_budget`]). Returns the positions solved and the units
/// written.
fn solve_units<S: UnitSolver>(
    n: u32,
    lower: &S,
    units: &[UnitId],
    dir: &Path,
    first: bool,
    args: &GenerateOptions,
    report: Report<'_>,
) -> Result<(u64, Vec<UnitId>), GenerateError> {
    let todo: Vec<UnitId> = units
        .iter()
        .copied()
        .filter(|&u| !work::unit_done(dir, n, u))
        .collect();
    let positions: u64 = todo.iter().map(|u| u.positions(n)).sum();
    let progress = AtomicU64::new(0);
    let solved = AtomicU64::new(0);
    let written = std::sync::Mutex::new(Vec::new());
    let done = AtomicBool::new(false);
    report(Event::UnitsStarted {
        stones: n,
        positions,
        first,
    });
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                report(Event::UnitsProgress {
                    stones: n,
                    solved: progress.load(Ordering::Relaxed).min(positions),
                    positions,
                });
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        // What is free now, with the smaller levels already loaded.
        let budget = plan::UnitBudget::new(plan::units_budget(args.max_memory));
        let r = todo.par_iter().with_max_len(1).try_for_each(|&u| {
            let Some(lock) = lock_unit(dir, u, "solving")? else {
                return Ok(());
            };
            // The table (the work folder's name with the table extension)
            // appears, by a rename, only once every unit is done.
            let table = dir.with_extension("tkb");
            if !work::unit_done(dir, n, u) && !table.exists() {
                let memory = plan::unit_memory(lower.metric(), n, u, args.hold_whole);
                let values = budget.run(memory, || lower.solve_unit(n, u, &progress))?;
                match work::write_unit(dir, n, u, &values) {
                    Ok((_, replaced)) => {
                        if let Some((path, reason)) = replaced {
                            report(Event::Damaged {
                                path: &path,
                                reason: &reason,
                                action: DamagedUnit::Replaced,
                            });
                        }
                        solved.fetch_add(u.positions(n), Ordering::Relaxed);
                        written.lock().unwrap_or_else(|e| e.into_inner()).push(u);
                    }
                    // Another shard solved the unit too, wrote the table
                    // and removed the work folder meanwhile.
                    Err(_) if table.exists() => {}
                    Err(e) => return Err(e.into()),
                }
            }
            // Whoever takes the lock next finds the unit finished.
            let _ = std::fs::remove_file(lock.path());
            Ok::<(), GenerateError>(())
        });
        done.store(true, Ordering::Relaxed);
        r
    });
    report(Event::UnitsEnded { stones: n });
    result?;
    let written = written.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok((solved.into_inner(), written))
}

/// Writes level `n`'s table from its unit files if they are all there and
/// the table is not (under the level's assembly lock, so one shard does
/// it), and removes the work folder. `None` while units are missing or
/// another run holds that lock; otherwise the summary and, with `keep`, the
/// level's values.
/// A level's summary and, when kept, what the levels above need of it.
pub(crate) type Solved<S> = (LevelSummary, Option<<S as UnitSolver>::Kept>);

fn assemble_level<S: UnitSolver>(
    out: &Path,
    n: u32,
    keep: bool,
    solver: &S,
    report: Report<'_>,
) -> Result<Option<Solved<S>>, GenerateError> {
    let path = out.join(file_name(n));
    let dir = work_dir(out, n);
    let finished = |path: &Path| -> Result<_, GenerateError> {
        let table = TableFile::open(path)?;
        let mut s = kept_summary(&table, n);
        s.reused = false;
        let values = if keep {
            Some(solver.load(&table)?)
        } else {
            None
        };
        Ok(Some((s, values)))
    };
    if let TableStatus::Complete = write::table_status(out, n) {
        // A shard that started the level late may have made the folder
        // again: it is empty (or holds only our lock files).
        let _ = work::remove_work_dir(&dir);
        return finished(&path);
    }
    if level_units(n).iter().any(|&u| !work::unit_done(&dir, n, u)) {
        return Ok(None);
    }
    let lock_path = out.join(format!(".togyz-{n:02}.assemble.lock"));
    let lock = match lock::try_exclusive(&lock_path, &format!("assembling {}", path.display())) {
        Ok(lock) => lock,
        // Another run is writing the table: it appears when done, and the
        // caller waits for it within its bound.
        Err(lock::LockError::Held { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    match write::table_status(out, n) {
        TableStatus::Complete => return finished(&path),
        TableStatus::Invalid(reason) => {
            return Err(GenerateError::InvalidExisting { path, reason })
        }
        TableStatus::Missing => {}
    }
    let t = Instant::now();
    let (written, kept) = solver.write_level(out, n, keep)?;
    work::remove_work_dir(&dir).map_err(|source| GenerateError::NotWritable {
        path: dir.clone(),
        source,
    })?;
    // Shards waiting on this lock find the table when they get it.
    let _ = std::fs::remove_file(lock.path());
    drop(lock);
    report(Event::Assembled {
        stones: n,
        seconds: t.elapsed().as_secs_f64(),
        path: &path,
        bytes: written.bytes,
        positions: written.positions,
    });
    let s = LevelSummary::written(n, &written, 0.0);
    Ok(Some((s, kept)))
}

/// `togyz-gen assemble`: writes the table of every level in output folder
/// `out` whose units are all solved and whose table is missing, each step
/// to `report`.
///
/// # Errors
///
/// [`GenerateError`]: `out` is not a folder, a table in the way is
/// invalid, a unit file or the table cannot be read or written.
pub fn assemble(out: &Path, report: Report<'_>) -> Result<(), GenerateError> {
    if !out.is_dir() {
        return Err(GenerateError::OutNotFolder(out.to_path_buf()));
    }
    let mut any = false;
    for n in 1..=max_solver_stones() {
        if !work_dir(out, n).is_dir() {
            continue;
        }
        let dir = work_dir(out, n);
        let assembled = match work::metric_of(&dir) {
            Metric::Dtm => assemble_level(out, n, false, &Lower::new(0), report)?,
            Metric::Dtc => assemble_level(out, n, false, &DtcSolver::default(), report)?
                .map(|(s, _)| (s, None)),
        };
        match assembled {
            Some(_) => any = true,
            None => {
                let dir = work_dir(out, n);
                let missing: Vec<UnitId> = level_units(n)
                    .into_iter()
                    .filter(|&u| !work::unit_done(&dir, n, u))
                    .collect();
                for &u in &missing {
                    if let UnitState::Damaged { path, reason } = work::check_unit(&dir, n, u) {
                        report(Event::Damaged {
                            path: &path,
                            reason: &reason,
                            action: DamagedUnit::Left,
                        });
                    }
                }
                let missing = missing.len();
                if missing == 0 {
                    let lock = out.join(format!(".togyz-{n:02}.assemble.lock"));
                    report(Event::AssembledElsewhere {
                        stones: n,
                        holder: lock::holder(&lock),
                    });
                    continue;
                }
                report(Event::NotAssembled {
                    stones: n,
                    missing,
                    units: level_units(n).len(),
                    dir: &dir,
                });
            }
        }
    }
    if !any {
        report(Event::NothingToAssemble { out });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::event::silent;
    use crate::solve::cells::{LevelValues, UnitValues};
    use std::sync::atomic::AtomicU64;
    use togyz_probe::raw::index::Layout;

    /// The DTM solver, and something that empties every unit file of the
    /// work folder but the one being solved, whenever a unit is solved.
    struct Vandal {
        inner: Lower,
        dir: PathBuf,
    }

    impl UnitSolver for Vandal {
        type Kept = LevelValues;
        fn metric(&self) -> Metric {
            self.inner.metric()
        }
        fn solve_unit(
            &self,
            n: u32,
            u: UnitId,
            progress: &AtomicU64,
        ) -> Result<UnitValues, GenerateError> {
            for other in level_units(n).into_iter().filter(|&o| o != u) {
                let path = self.dir.join(unit_file_name(other));
                if path.exists() {
                    std::fs::write(path, b"").unwrap();
                }
            }
            self.inner.solve_unit(n, u, progress)
        }
        fn write_level(
            &self,
            out: &Path,
            n: u32,
            keep: bool,
        ) -> Result<(WriteSummary, Option<LevelValues>), GenerateError> {
            self.inner.write_level(out, n, keep)
        }
        fn load(&self, table: &TableFile) -> Result<LevelValues, GenerateError> {
            self.inner.load(table)
        }
        fn keeps_solved(&self, n: u32) -> bool {
            self.inner.keeps_solved(n)
        }
        fn push(&mut self, path: &Path, kept: Option<LevelValues>) -> Result<(), GenerateError> {
            UnitSolver::push(&mut self.inner, path, kept)
        }
        fn kept_table(&self, table: &TableFile) -> String {
            self.inner.kept_table(table)
        }
        fn metric_flag(&self) -> &'static str {
            self.inner.metric_flag()
        }
    }

    #[test]
    fn a_resume_needs_only_the_disk_of_what_is_left() {
        let out = tempfile::tempdir().unwrap();
        let n = 3;
        generate(&GenerateOptions::new(n - 1, out.path()), &silent).unwrap();
        // All of level 3's units but one, held here (its lock taken), as
        // a run that stopped in the level leaves them.
        let dir = work_dir(out.path(), n);
        std::fs::create_dir_all(&dir).unwrap();
        let held_unit = level_units(n)[0];
        let held = lock::try_exclusive(&dir.join(unit_lock_name(held_unit)), "a test").unwrap();
        let mut args = GenerateOptions::new(n, out.path());
        args.wait_timeout = 0;
        let r = generate(&args, &silent);
        assert!(
            matches!(r, Err(GenerateError::WaitTimeout { missing: 1, .. })),
            "{r:?}"
        );
        drop(held);
        let left = held_unit.positions(n);
        let all = Layout::new(n).positions();
        assert_eq!(solved_positions(out.path(), n, Metric::Dtm), all - left);
        let lower = Lower::new(args.hold_whole);
        let fresh = plan::plan(Metric::Dtm, &[n], n, 1, 1, args.hold_whole, |_| 0);
        let table = plan::table_bytes(Metric::Dtm, n);
        let resume = table + (left as f64 * plan::UNIT_FILE_BYTES_PER_POSITION) as u64;
        assert!(resume < fresh.disk);
        let check = |args: &GenerateOptions, disk| {
            check_resources_with(args, &[n], Shard::ALL, &lower, None, Some(disk), &silent)
        };
        // Disk for what is left, not for the whole level: the resume runs.
        check(&args, resume).unwrap();
        // Less than the table itself: refused.
        let r = check(&args, table - 1);
        assert!(matches!(r, Err(GenerateError::Disk { .. })), "{r:?}");
        // A run from nothing needs the whole level's disk.
        let empty = tempfile::tempdir().unwrap();
        let r = check(&GenerateOptions::new(n, empty.path()), resume);
        assert!(matches!(r, Err(GenerateError::Disk { .. })), "{r:?}");
        check(&GenerateOptions::new(n, empty.path()), fresh.disk).unwrap();
    }

    #[test]
    fn units_that_keep_vanishing_stop_the_run_with_the_file_named() {
        let out = tempfile::tempdir().unwrap();
        let mut args = GenerateOptions::new(1, out.path());
        args.wait_timeout = 30;
        let vandal = Vandal {
            inner: Lower::new(0),
            dir: work_dir(out.path(), 1),
        };
        // In a thread, so that a loop that never ends fails the test.
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .unwrap();
            let r = pool.install(|| solve_level(&args, Shard::ALL, 1, &vandal, false, &silent));
            let _ = send.send(r.map(|_| ()));
        });
        let r = receive
            .recv_timeout(Duration::from_secs(25))
            .expect("the run ends");
        match r {
            Err(GenerateError::UnitLost { path }) => {
                assert!(path.to_string_lossy().contains("togyz-01.work/unit-"))
            }
            other => panic!("{other:?}"),
        }
    }
}
