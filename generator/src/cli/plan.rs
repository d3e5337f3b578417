//! `togyz-gen plan`: its flags, and its lines printed.

use crate::cli::{metric_arg, threads_arg};
use std::path::PathBuf;
use togyz_answer::parse_bytes;
use togyz_gen::run::plan::{plan_lines, PlanError, PlanOptions};
use togyz_tb::{Metric, TuzdykPairs};

/// Arguments of `togyz-gen plan`.
#[derive(clap::Args, Debug, Clone)]
pub struct PlanArgs {
    /// The largest stone count: the plan is for levels 1..=N from nothing.
    #[arg(long, default_value_t = 8)]
    pub max_stones: u32,
    /// The metric: dtm (distance to the end) or dtc (distance to
    /// conversion).
    #[arg(long, default_value = "dtm", value_parser = metric_arg)]
    pub metric: Metric,
    /// Worker threads (at least 1; default: one per core).
    #[arg(long, value_parser = threads_arg)]
    pub threads: Option<usize>,
    /// As `generate --hold-whole` and `verify --hold-whole` (default:
    /// each one's own).
    #[arg(long, value_name = "COUNT")]
    pub hold_whole: Option<u64>,
    /// Also show the memory available and the disk free at this folder
    /// (at the nearest folder above it if it does not exist yet).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// At most this much memory (`16G`, `500M`; powers of 1000), as
    /// `generate --max-memory`: the units are cut along the kazan axis to
    /// fit it (default: what the system has available).
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub max_memory: Option<u64>,
    /// As `generate --wdl-from`: the levels from N up as WDL tables.
    #[arg(long, value_name = "N")]
    pub wdl_from: Option<u32>,
    /// As `generate --wdl-pairs`: the WDL levels of these tuzdyk pairs.
    #[arg(long, value_name = "PAIRS", requires = "wdl_from")]
    pub wdl_pairs: Option<TuzdykPairs>,
    /// The plan of one of K shards (`generate --shard I/K`), the one dealt
    /// the biggest unit: its positions, its time; memory and disk are a
    /// shard's as they are one process's.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub shards: u32,
}

/// Runs `togyz-gen plan`: prints [`plan_lines`].
///
/// # Errors
///
/// [`PlanError::Stones`] for a stone count the index does not cover.
pub fn run(args: &PlanArgs) -> Result<(), PlanError> {
    let options = PlanOptions {
        max_stones: args.max_stones,
        metric: args.metric,
        threads: args.threads,
        hold_whole: args.hold_whole,
        out: args.out.clone(),
        max_memory: args.max_memory,
        wdl_from: args.wdl_from,
        wdl_pairs: args.wdl_pairs,
        shards: args.shards,
    };
    for line in plan_lines(&options)? {
        say!("{line}");
    }
    Ok(())
}
