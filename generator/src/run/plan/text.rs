//! Text for people: what `togyz-gen plan` is asked about, and the plans
//! it prints, one line each.

use crate::below;
use crate::run::options::{max_run_stones, wdl_levels};
use std::path::{Path, PathBuf};
use togyz_answer::text::{human_bytes, human_seconds, stones};
use togyz_tb::raw::index::MAX_STONES;
use togyz_tb::{Metric, TuzdykPairs};

use super::{default_hold_whole, disk_free, memory_available, plan, verify_plan};

/// What `togyz-gen plan` is asked about.
#[derive(Debug, Clone)]
pub struct PlanOptions {
    /// The largest stone count: the plan is for levels 1..=N from nothing.
    pub max_stones: u32,
    /// The metric.
    pub metric: Metric,
    /// Worker threads (`None`: one per core).
    pub threads: Option<usize>,
    /// As [`crate::run::options::GenerateOptions::hold_whole`] (`None`:
    /// the metric's default for the memory; `verify`'s,
    /// [`below::WHOLE_POSITIONS`], for its plan).
    pub hold_whole: Option<u64>,
    /// Also state the memory available and the disk free at this folder
    /// (at the nearest folder above it if it does not exist yet).
    pub out: Option<PathBuf>,
    /// The memory the run may take (`None`: what this machine has
    /// available, [`memory_available`]; it may be more, for a run
    /// elsewhere): the units are cut along the kazan axis to fit it.
    pub max_memory: Option<u64>,
    /// As [`crate::run::options::GenerateOptions::wdl_from`].
    pub wdl_from: Option<u32>,
    /// As [`crate::run::options::GenerateOptions::wdl_pairs`].
    pub wdl_pairs: Option<TuzdykPairs>,
    /// The run is shared by this many shards (`generate --shard I/K`):
    /// the plan is one shard's, the one dealt the biggest unit.
    pub shards: u32,
}

impl PlanOptions {
    /// The options for levels `1..=max_stones` in DTM, the rest default:
    /// one thread per core, the levels held whole by default, no folder.
    pub fn new(max_stones: u32) -> PlanOptions {
        PlanOptions {
            max_stones,
            metric: Metric::Dtm,
            threads: None,
            hold_whole: None,
            out: None,
            wdl_from: None,
            wdl_pairs: None,
            max_memory: None,
            shards: 1,
        }
    }
}

/// Why `togyz-gen plan` failed.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// A stone count the index does not cover.
    #[error("--max-stones {0}: the index covers 1 to {max} stones", max = MAX_STONES)]
    Stones(u32),
}

/// The plans of generating and of verifying levels `1..=args.max_stones`,
/// one line each, as `generate` states its plan before a run.
///
/// # Errors
///
/// [`PlanError::Stones`] for a stone count the index does not cover.
pub fn plan_lines(args: &PlanOptions) -> Result<Vec<String>, PlanError> {
    let max = args.max_stones;
    if max == 0 || max > MAX_STONES {
        return Err(PlanError::Stones(max));
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let todo: Vec<u32> = (1..=max).collect();
    // --max-memory may be more than this machine has: a plan for another.
    let bound = args.max_memory.or_else(memory_available);
    let plan_with = |threads, hold| {
        plan(
            args.metric,
            &todo,
            wdl_levels(args.wdl_from, args.wdl_pairs),
            max,
            threads,
            args.shards.max(1),
            hold,
            bound,
            |_| 0,
        )
    };
    // As `generate` picks it (crate::run::resources).
    let hold = args.hold_whole.unwrap_or_else(|| {
        let wdl = wdl_levels(args.wdl_from, args.wdl_pairs);
        default_hold_whole(args.metric, max, wdl, bound, |hold| {
            plan_with(1, hold).memory
        })
    });
    let g = plan_with(threads, hold);
    let verify_hold = args.hold_whole.unwrap_or(below::WHOLE_POSITIONS);
    let wdl = wdl_levels(args.wdl_from, args.wdl_pairs);
    let v = verify_plan(args.metric, max, wdl, threads, true, verify_hold, bound);
    let wide = verify_plan(args.metric, max, wdl, threads, false, verify_hold, bound);
    let s = if threads == 1 { "" } else { "s" };
    let mut lines = Vec::new();
    let solver_max = max_run_stones(wdl);
    if max > solver_max {
        lines.push(format!(
            "`togyz-gen generate` refuses --max-stones {max}: the solver handles at most {solver_max} stones (beyond, a unit's boards pass its 32-bit node ids); the figures below are what the model says"
        ));
    }
    lines.extend([
        format!(
            "generate --metric {} --max-stones {max}{}: {} positions, about {} of disk, a peak of about {} of memory (at {} stones), about {} with {threads} thread{s}",
            args.metric.to_string().to_lowercase(),
            args.wdl_from.map(|n| format!(" --wdl-from {n}")).unwrap_or_default()
                + &args.wdl_pairs.map(|p| format!(" --wdl-pairs {p}")).unwrap_or_default(),
            g.positions,
            human_bytes(g.disk),
            human_bytes(g.memory),
            g.memory_at,
            human_seconds(g.seconds),
        ) + &if args.shards > 1 {
            format!(" (one of {} shards: its units and every level's assembly)", args.shards)
        } else {
            String::new()
        },
        match (bound, g.parts) {
            (None, _) => "units: solved whole (the memory available is unknown)".to_string(),
            (Some(b), (1, _)) => format!("units: every unit solved whole within {}", human_bytes(b)),
            (Some(b), (parts, from)) => format!(
                "units: cut along the kazan axis to fit {} from {} on, into at most {parts} kazan parts a unit{}",
                human_bytes(b),
                stones(from),
                match g.graph_from {
                    0 => String::new(),
                    at => format!(
                        "; from {} on, the biggest units' quiet-move graphs are not stored but made again as boards are propagated (slower)",
                        stones(at)
                    ),
                }
            ),
        },
        format!("levels below: {}", held_text(args.metric, max, hold)),
        format!(
            "verify: a peak of about {} of memory (at {} stones; {} if a level's longest distance passes 126 plies), about {} with {threads} thread{s}{}",
            human_bytes(v.memory),
            v.memory_at,
            human_bytes(wide.memory),
            human_seconds(v.seconds),
            match v.parts {
                (1, _) => String::new(),
                (passes, from) => format!(
                    "; from {} on, units checked in up to {passes} passes over the levels below",
                    stones(from)
                ),
            },
        ),
    ]);
    if let Some(out) = &args.out {
        lines.push(format!(
            "{} of memory available, {}",
            memory_available().map_or_else(|| "unknown".into(), human_bytes),
            disk_free_text(out)
        ));
    }
    Ok(lines)
}

/// What a run of `metric` up to `max` stones holds of the levels below
/// while it solves, held whole up to `hold_whole` ([`below::held_whole`]),
/// as the plan line of a run says it when it does not hold them all
/// whole; `None` when it does.
pub fn held_line(metric: Metric, max: u32, hold_whole: u64) -> Option<String> {
    (highest_held(metric, max, hold_whole) + 1 < max).then(|| held_text(metric, max, hold_whole))
}

/// The highest level below `max` held whole up to `hold_whole` (0: none;
/// the levels held whole are a prefix).
fn highest_held(metric: Metric, max: u32, hold_whole: u64) -> u32 {
    (1..max)
        .take_while(|&m| below::held_whole(metric, m, hold_whole))
        .last()
        .unwrap_or(0)
}

/// The levels below `max` held whole up to `hold_whole` and their bytes,
/// and those of which each unit decodes its share.
fn held_text(metric: Metric, max: u32, hold_whole: u64) -> String {
    let held = highest_held(metric, max, hold_whole);
    let unit = match metric {
        Metric::Dtm => "positions",
        Metric::Dtc => "boards",
    };
    let limit = format!("--hold-whole {hold_whole} {unit}");
    if max <= 1 {
        return "none to read".into();
    }
    let bytes = human_bytes(below::whole_bytes(metric, max, hold_whole));
    let levels = match held + 1 {
        m if m + 1 == max => format!("level {m}"),
        m => format!("levels {m} to {}", max - 1),
    };
    let decoded = format!("each unit's share of {levels} decoded from their table files");
    match held {
        h if h + 1 == max => format!(
            "every level below {} held whole ({bytes}, {limit})",
            stones(max)
        ),
        0 => format!("none held whole, {decoded} ({limit})"),
        h => format!("levels 1 to {h} held whole ({bytes}), {decoded} ({limit})"),
    }
}

/// "12.30 GB of disk free at OUT", saying where the figure comes from when
/// `out` does not exist yet.
pub fn disk_free_text(out: &Path) -> String {
    let (free, at) = disk_free(out);
    let free = free.map_or_else(|e| format!("unknown ({e})"), human_bytes);
    if at == out {
        format!("{free} of disk free at {}", out.display())
    } else {
        format!(
            "{free} of disk free at {} ({} does not exist yet; it would be made there)",
            at.display(),
            out.display()
        )
    }
}
