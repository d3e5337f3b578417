//! One level solved unit by unit into its work folder: this shard's units
//! and then any unit nobody is solving, each under its lock and within the
//! memory budget, damaged unit files removed and solved again; then the
//! level assembled ([`crate::run::assemble`]), or waited for while other
//! shards finish.

use crate::event::{DamagedUnit, Event, Report};
use crate::files::folder::{remove_stale_temporaries, unit_file_name, unit_lock_name, work_dir};
use crate::files::work::{self, UnitFileError, UnitState};
use crate::files::write::{self, TableStatus};
use crate::run::assemble::{assemble_level, Solved};
use crate::run::error::GenerateError;
use crate::run::lock;
use crate::run::metric::{SolvedUnit, UnitSolver};
use crate::run::options::GenerateOptions;
use crate::run::plan;
use crate::run::shard::Shard;
use crate::solve::unit::{held_units, KazanCut, UnitId};
use rayon::prelude::*;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use togyz_tb::raw::format::file_name;
use togyz_tb::Metric;

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
    let contents = args.contents(n);
    let units = held_units(n, contents);
    if write::table_status(out, n) == TableStatus::Complete {
        // Another shard wrote it since this run started.
        if let Some(result) = assemble_level(out, n, contents, keep, lower, report)? {
            return Ok(result);
        }
    }
    std::fs::create_dir_all(&dir).map_err(|source| GenerateError::NotWritable {
        path: dir.clone(),
        source,
    })?;
    work::claim_metric(&dir, lower.metric())?;
    if !contents.has_distances() {
        work::mark_wdl(&dir, contents)?;
    }
    for path in remove_stale_temporaries(&dir) {
        report(Event::Removed { path: &path });
    }
    let mine = shard.units(n, contents);
    let mut resumed = 0;
    for &u in &units {
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
    let mut others: Vec<UnitId> = units
        .iter()
        .copied()
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
        if let Some(result) = assemble_level(out, n, contents, keep, lower, report)? {
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
        let missing = units
            .iter()
            .filter(|&&u| !work::unit_done(&dir, n, u))
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
                units: units.len(),
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
                units: units.len(),
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
    let contents = args.contents(n);
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
        let free = plan::units_budget(args.max_memory);
        let budget = plan::UnitBudget::new(free);
        let threads = rayon::current_num_threads();
        let r = todo.par_iter().with_max_len(1).try_for_each(|&u| {
            let Some(lock) = lock_unit(dir, u, "solving")? else {
                return Ok(());
            };
            // The table (the work folder's name with the table extension)
            // appears, by a rename, only once every unit is done.
            let table = dir.with_extension("tkb");
            if !work::unit_done(dir, n, u) && !table.exists() {
                let (metric, hold) = (lower.metric(), lower.hold_whole());
                let (cut, memory) = if plan::splits_only(contents, u) {
                    (KazanCut::WHOLE, plan::splits_memory(n, u, hold))
                } else {
                    let cut = args
                        .kazan_pairs
                        .unwrap_or_else(|| plan::pick_cut(metric, n, u, hold, free, threads));
                    let cut = if args.no_graph {
                        cut.without_graph()
                    } else {
                        cut
                    };
                    (cut, plan::unit_memory(metric, n, u, hold, cut))
                };
                let unit = budget.run(memory, || {
                    lower.solve_unit(n, u, contents, cut, dir, &progress)
                })?;
                let file = match unit {
                    SolvedUnit::Values(values) => work::write_unit(dir, n, u, &values),
                    SolvedUnit::Splits(splits) => work::write_unit_splits(dir, n, u, &splits),
                    // The parts merged board by board: the same bytes.
                    SolvedUnit::Parts(spool, widths) => {
                        let dtc = lower.metric() == Metric::Dtc;
                        work::write_unit_parts(dir, n, u, spool, &widths, dtc)
                    }
                };
                match file {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::below::DtmBelow;
    use crate::event::silent;
    use crate::files::write::WriteSummary;
    use crate::solve::cells::LevelValues;
    use crate::solve::unit::{level_units, KazanCut};
    use std::path::PathBuf;
    use togyz_tb::raw::format::TableFile;
    use togyz_tb::Contents;
    use togyz_tb::Metric;

    /// The DTM solver, and something that empties every unit file of the
    /// work folder but the one being solved, whenever a unit is solved.
    struct Vandal {
        inner: DtmBelow,
        dir: PathBuf,
    }

    impl UnitSolver for Vandal {
        type Kept = LevelValues;
        fn metric(&self) -> Metric {
            self.inner.metric()
        }
        fn hold_whole(&self) -> u64 {
            self.inner.hold_whole()
        }
        fn solve_unit(
            &self,
            n: u32,
            u: UnitId,
            contents: Contents,
            cut: KazanCut,
            dir: &Path,
            progress: &AtomicU64,
        ) -> Result<SolvedUnit, GenerateError> {
            for other in level_units(n).into_iter().filter(|&o| o != u) {
                let path = self.dir.join(unit_file_name(other));
                if path.exists() {
                    std::fs::write(path, b"").unwrap();
                }
            }
            self.inner.solve_unit(n, u, contents, cut, dir, progress)
        }
        fn write_level(
            &self,
            out: &Path,
            n: u32,
            contents: Contents,
            keep: bool,
        ) -> Result<(WriteSummary, Option<LevelValues>), GenerateError> {
            self.inner.write_level(out, n, contents, keep)
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
    }

    #[test]
    fn units_that_keep_vanishing_stop_the_run_with_the_file_named() {
        let out = tempfile::tempdir().unwrap();
        let mut args = GenerateOptions::new(1, out.path());
        args.wait_timeout = 30;
        let vandal = Vandal {
            inner: DtmBelow::new(0),
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
