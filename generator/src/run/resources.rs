//! What a run needs against what the machine has: the plan of the levels
//! left ([`crate::run::plan`]) stated before any work, with how many of the
//! levels below it holds whole, and the run refused when the memory or the
//! disk is not there.

use crate::event::{Event, Report};
use crate::files::folder::work_dir;
use crate::files::work;
use crate::run::error::GenerateError;
use crate::run::options::GenerateOptions;
use crate::run::plan;
use crate::run::shard::Shard;
use crate::solve::unit::held_units;
use std::path::Path;
use togyz_answer::text::{human_bytes, human_seconds, stones};
use togyz_tb::raw::format::Contents;
use togyz_tb::Metric;

/// States the plan of solving the levels in `todo` and refuses it when the
/// memory or disk is not there: [`check_resources_with`] what the machine
/// has. Returns up to what the run holds the levels below whole.
pub(crate) fn check_resources(
    args: &GenerateOptions,
    todo: &[u32],
    shard: Shard,
    report: Report<'_>,
) -> Result<u64, GenerateError> {
    let (disk, _) = plan::disk_free(&args.out);
    check_resources_with(
        args,
        todo,
        shard,
        plan::memory_available(),
        disk.ok(),
        report,
    )
}

/// Positions of level `n` (a table of `contents`) already in finished
/// unit files of `metric` in output folder `out` (a resumed level).
pub(crate) fn solved_positions(out: &Path, n: u32, metric: Metric, contents: Contents) -> u64 {
    let dir = work_dir(out, n);
    if !dir.is_dir() || work::metric_of(&dir) != metric {
        return 0;
    }
    held_units(n, contents)
        .into_iter()
        .filter(|&u| work::unit_done(&dir, n, u))
        .map(|u| u.positions(n))
        .sum()
}

/// [`check_resources`] with `machine` bytes of memory available (the
/// run's cap being the least of it and `--max-memory`) and `disk` bytes
/// free where the output folder is (or will be); `None` when unknown. Only
/// what is left counts: the units already solved in a work folder are
/// neither solved nor written again. Returns the run's hold-whole limit:
/// `--hold-whole`, else the metric's default for the memory
/// ([`plan::default_hold_whole`]).
pub(crate) fn check_resources_with(
    args: &GenerateOptions,
    todo: &[u32],
    shard: Shard,
    machine: Option<u64>,
    disk: Option<u64>,
    report: Report<'_>,
) -> Result<u64, GenerateError> {
    let (out, max) = (&args.out, args.max_stones);
    let threads = rayon::current_num_threads();
    let metric = args.metric;
    let solved: Vec<u64> = (0..=max)
        .map(|n| {
            if todo.contains(&n) {
                solved_positions(out, n, metric, args.contents(n))
            } else {
                0
            }
        })
        .collect();
    let solved = |n: u32| solved[n as usize];
    // The cap is --max-memory when it is below what the machine has.
    let capped = args.max_memory.filter(|&m| machine.is_none_or(|a| m <= a));
    let memory = capped.or(machine);
    // Units are cut along the kazan axis to fit the memory, unless the
    // cut is forced (then the plan counts whole units, an upper bound).
    let bound = memory.filter(|_| args.kazan_pairs.is_none());
    let plan_with = |todo: &[u32], max, threads, hold| {
        plan::plan(
            metric,
            todo,
            args.wdl(),
            max,
            threads,
            shard.count,
            hold,
            bound,
            solved,
        )
    };
    // Whether a limit fits: its biggest unit, alone if need be.
    let hold = args.hold_whole.unwrap_or_else(|| {
        plan::default_hold_whole(metric, max, args.wdl(), memory, |hold| {
            plan_with(todo, max, 1, hold).memory
        })
    });
    if todo.is_empty() {
        return Ok(hold);
    }
    let plan_of = |todo: &[u32], max, threads| plan_with(todo, max, threads, hold);
    let p = plan_of(todo, max, threads);
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
    if let Some(line) = plan::held_line(metric, max, hold) {
        report(Event::Planned {
            line: format!("plan: {line}"),
        });
    }
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
    Ok(hold)
}
