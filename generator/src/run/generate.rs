//! The `generate` run: solves stone counts in ascending order, each level
//! unit by unit into its work folder ([`crate::run::units`]) and then
//! assembled into its table file ([`crate::run::assemble`]), and resumes:
//! a complete, valid table already on disk is kept (and loaded if a larger
//! count still needs it), every finished unit of an unfinished level is
//! kept, and an invalid table is never overwritten.
//!
//! Before any work a run states what it needs and refuses when the memory
//! or the disk is not there ([`crate::run::resources`]), checks that the
//! output folder can be written, and locks it ([`crate::run::lock`]). With
//! `--shard I/K` ([`crate::run::shard`]), K processes (on one machine or
//! many sharing the folder) each solve a disjoint set of every level's
//! units; whichever finds all units of a level finished assembles its
//! table, under a lock, and every shard waits for a level's table before
//! it starts the next.

use crate::below::{DtcBelow, DtmBelow};
use crate::event::{Event, Report};
use crate::files::folder::remove_stale_temporaries;
use crate::files::write::{self, TableStatus};
use crate::pool::with_threads;
use crate::run::assemble::{kept_summary, LevelSummary};
use crate::run::error::GenerateError;
use crate::run::lock::{self, Lock};
use crate::run::metric::UnitSolver;
use crate::run::options::{max_run_stones, GenerateOptions};
use crate::run::resources::check_resources;
use crate::run::shard::Shard;
use crate::run::units::solve_level;
use std::path::Path;
use std::time::Instant;
use togyz_tb::raw::format::{file_name, TableFile};
use togyz_tb::Metric;

/// Solves and writes the tables of levels `1..=max_stones` in
/// `args.metric` into `args.out` (this shard's units with `--shard`),
/// skipping complete tables (of either metric: a DTC run may build on DTM
/// tables below) and finished units, on a pool of `args.threads` workers;
/// returns one summary per level. Each step goes to `report`
/// ([`crate::event::silent`] for none).
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
        Metric::Dtm => generate_with(args, DtmBelow::new, report),
        Metric::Dtc => generate_with(args, DtcBelow::new, report),
    })
    .map_err(GenerateError::Threads)?
}

/// [`generate`] with the metric's solver, made by `solver` once the plan
/// has said up to what it holds the levels below whole; it holds what the
/// levels above need of the levels below.
fn generate_with<S: UnitSolver>(
    args: &GenerateOptions,
    solver: impl FnOnce(u64) -> S,
    report: Report<'_>,
) -> Result<Vec<LevelSummary>, GenerateError> {
    let (_locks, complete, hold_whole) = start_run(args, report)?;
    let mut solver = solver(hold_whole);
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

/// What every `generate` run does first: checks `--max-stones` and every
/// level (a bad file stops the run before any work), states the plan and
/// refuses it when the memory or disk is not there, all before anything is
/// written (a refused run leaves nothing behind); then prepares and locks
/// the output folder (the lock names the command) and removes our dead
/// temporaries. Returns the locks, per level from 1 whether its table is
/// complete (looked at again under the lock), and up to what the levels
/// below are held whole ([`check_resources`]).
fn start_run(
    args: &GenerateOptions,
    report: Report<'_>,
) -> Result<(Vec<Lock>, Vec<bool>, u64), GenerateError> {
    let complete = survey(args)?;
    let todo: Vec<u32> = (1..=args.max_stones)
        .filter(|&n| !complete[n as usize - 1])
        .collect();
    let shard = args.shard.unwrap_or(Shard::ALL);
    let hold_whole = check_resources(args, &todo, shard, report)?;
    let (out, max) = (&args.out, args.max_stones);
    prepare_out(out)?;
    // The --metric option, as the folder lock names the command (none for
    // the default, DTM).
    let metric_flag = match args.metric {
        Metric::Dtm => "",
        Metric::Dtc => " --metric dtc",
    };
    let what = format!(
        "togyz-gen generate{metric_flag} --max-stones {max}{}{}",
        args.wdl_from
            .map(|n| format!(" --wdl-from {n}"))
            .unwrap_or_default()
            + &args
                .wdl_pairs
                .map(|p| format!(" --wdl-pairs {p}"))
                .unwrap_or_default(),
        args.shard
            .map(|s| format!(" --shard {}/{}", s.index, s.count))
            .unwrap_or_default()
    );
    let locks = lock_out(out, args.shard, &what)?;
    for path in remove_stale_temporaries(out) {
        report(Event::Removed { path: &path });
    }
    Ok((locks, survey(args)?, hold_whole))
}

/// Checks `--max-stones` and `--out` and looks at every level's table,
/// changing nothing; per level from 1, whether its table is complete.
fn survey(args: &GenerateOptions) -> Result<Vec<bool>, GenerateError> {
    let (out, max) = (&args.out, args.max_stones);
    let most = max_run_stones(args.wdl());
    if max == 0 || max > most {
        return Err(GenerateError::BadMaxStones { asked: max, most });
    }
    if out.exists() && !out.is_dir() {
        return Err(GenerateError::OutNotFolder(out.to_path_buf()));
    }
    if args.wdl_from.is_some() && args.metric != Metric::Dtc {
        return Err(GenerateError::WdlNeedsDtc);
    }
    let mut complete = Vec::new();
    for n in 1..=max {
        let path = out.join(file_name(n));
        match write::table_status(out, n) {
            TableStatus::Invalid(reason) => {
                return Err(GenerateError::InvalidExisting { path, reason })
            }
            TableStatus::Complete => {
                let found = TableFile::open(&path)?.header().contents;
                let asked = args.contents(n);
                // A table holding more than asked is kept, and serves as
                // a level below: a run for some pairs goes higher over
                // the levels of every pair (its units read their own
                // pair's boards).
                if !asked.within(found) {
                    return Err(GenerateError::OtherContents {
                        path,
                        stones: n,
                        found,
                        asked,
                    });
                }
                complete.push(true);
            }
            TableStatus::Missing => complete.push(false),
        }
    }
    Ok(complete)
}

/// Creates the output folder if needed and checks it can be written.
fn prepare_out(out: &Path) -> Result<(), GenerateError> {
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
fn lock_out(out: &Path, shard: Option<Shard>, what: &str) -> Result<Vec<Lock>, GenerateError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::below;
    use crate::event::silent;
    use crate::files::folder::{unit_lock_name, work_dir};
    use crate::run::plan;
    use crate::run::resources::{check_resources_with, solved_positions};
    use crate::solve::unit::level_units;
    use togyz_tb::raw::format::Contents;
    use togyz_tb::raw::index::Layout;

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
        assert_eq!(
            solved_positions(out.path(), n, Metric::Dtm, Contents::Full),
            all - left
        );
        let hold = below::WHOLE_POSITIONS;
        let fresh = plan::plan(Metric::Dtm, &[n], None, n, 1, 1, hold, None, |_| 0);
        let table = plan::table_bytes(Metric::Dtm, n, Contents::Full);
        let resume = table + (left as f64 * plan::UNIT_FILE_BYTES_PER_POSITION) as u64;
        assert!(resume < fresh.disk);
        let check = |args: &GenerateOptions, disk| {
            check_resources_with(args, &[n], Shard::ALL, None, Some(disk), &silent)
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
}
