//! `togyz-gen plan`: its flags, and its lines printed.

use crate::cli::{metric_arg, threads_arg};
use std::path::PathBuf;
use togyz_gen::levels::lower;
use togyz_gen::run::plan::{plan_lines, PlanError, PlanOptions};
use togyz_probe::Metric;

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
    /// As `generate --hold-whole` and `verify --hold-whole`.
    #[arg(long, default_value_t = lower::WHOLE_POSITIONS, value_name = "POSITIONS")]
    pub hold_whole: u64,
    /// Also show the memory available and the disk free at this folder
    /// (at the nearest folder above it if it does not exist yet).
    #[arg(long)]
    pub out: Option<PathBuf>,
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
    };
    for line in plan_lines(&options)? {
        say!("{line}");
    }
    Ok(())
}
