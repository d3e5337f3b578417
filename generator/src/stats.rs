//! `togyz-gen stats`: what the tables teach, in the form draughts database
//! authors publish.
//!
//! For each stone count, and for each tuzdyk class within it (no tuzdyk,
//! only the mover's, only the opponent's, both):
//!
//! * positions, wins, draws and losses for the side to move, each position
//!   counted once from its mover's point of view, as in the index;
//! * the longest win: its distance in plies, the first such position in
//!   index order and its line of best play;
//! * the histogram of win distances, and for each limit `L` the wins that
//!   need more than `L` plies;
//! * mutual zugzwangs: physical positions (board, kazans, tuzdyks) where
//!   whichever side is to move loses. A position and its side-swapped twin
//!   are one physical position and count once. Within a class the count is
//!   of physical positions with a view in that class: a zugzwang with one
//!   tuzdyk is seen from the tuzdyk's owner (mover only) and from the other
//!   player (opponent only), so it counts in both of those classes, once in
//!   the stone count's total.
//!
//! The tables are read through the library unit by unit (a tuzdyk
//! configuration and its swap, [`DecodeAll::decode_config`], DTM or DTC),
//! so a level never has to fit in memory; lines come from [`Tablebase`].
//!
//! One file per job: `stats/census.rs` counts ([`collect`]),
//! `stats/report.rs` gathers the counts and the lines into the [`Report`]
//! (what `--json` prints), `stats/markdown.rs` writes it for people
//! ([`markdown()`]) and `stats/chart.rs` draws the distances ([`chart()`]).

mod census;
mod chart;
mod markdown;
mod report;

pub use census::{collect, level_stats, Census, LevelStats, Zugzwang};
pub use chart::{chart, check_chart_path};
pub use markdown::markdown;
pub use report::{report, ByClass, CensusReport, LevelReport, Line, Report, ZugzwangReport};

use crate::event::{polled, Event, Report as Events};
use crate::files::decode::DecodeAll;
use crate::files::folder::FolderError;
use crate::pool::with_threads;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use togyz_answer::text::{stones, thousands};
use togyz_tb::raw::format::{self, TableFile};
use togyz_tb::raw::index::Slot;
use togyz_tb::raw::index::{BoardWalker, Layout, TuzdykClass, TuzdykConfig};
use togyz_tb::TableError;
use togyz_tb::{Metric, Value};
use togyz_tb::{Position, Side};
use togyz_tb::{ProbeError, Tablebase};

/// What a `stats` run reads and makes.
#[derive(Debug, Clone)]
pub struct StatsOptions {
    /// Folder holding the tables (`togyz-NN.tkb`, 1..=N stones).
    pub tables: PathBuf,
    /// Move-count limits, in plies: for each, the wins that need more.
    pub limits: Vec<u32>,
    /// Also draw the distribution of win distances per stone count as an
    /// SVG chart into this file.
    pub chart: Option<PathBuf>,
    /// Mutual zugzwang examples kept per stone count.
    pub examples: usize,
    /// Worker threads (`None`: one per core).
    pub threads: Option<usize>,
}

impl StatsOptions {
    /// The options for the tables in `tables`, the rest default: limits
    /// 40, 60 and 100 plies, no chart, 3 examples, one thread per core.
    pub fn new(tables: impl Into<PathBuf>) -> StatsOptions {
        StatsOptions {
            tables: tables.into(),
            limits: vec![40, 60, 100],
            chart: None,
            examples: 3,
            threads: None,
        }
    }
}

/// Why the statistics could not be made.
#[derive(Debug, thiserror::Error)]
pub enum StatsError {
    /// The tables folder is unreadable, empty or has a gap.
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// A table file is damaged or unreadable.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A line of best play could not be read.
    #[error(transparent)]
    Probe(#[from] ProbeError),
    /// The thread pool could not be built.
    #[error("cannot start {0} worker threads")]
    Threads(usize),
    /// The chart could not be drawn or written.
    #[error("cannot write the chart {}: {detail}", .path.display())]
    Chart {
        /// The chart file.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
    /// The report could not be written to standard output.
    #[error("cannot write to standard output: {0}")]
    Stdout(#[source] std::io::Error),
    /// The JSON report could not be encoded.
    #[error("cannot encode the JSON report: {0}")]
    Json(#[from] serde_json::Error),
}

/// Makes the [`Report`] of the tables in `options.tables` on a pool of
/// `options.threads` workers (each level's progress to `events`), and
/// draws its chart when `options.chart` asks.
///
/// # Errors
///
/// [`StatsError`]: a chart path that cannot be written (checked first), a
/// missing or damaged table, a line that cannot be read, a worker pool
/// that cannot be started.
pub fn stats(options: &StatsOptions, events: Events<'_>) -> Result<Report, StatsError> {
    // A chart that cannot be written is found now, not after the census.
    if let Some(path) = &options.chart {
        chart::check_chart_path(path)?;
    }
    let report = with_threads(options.threads, || {
        report(&options.tables, &options.limits, options.examples, events)
    })
    .map_err(StatsError::Threads)??;
    if let Some(path) = &options.chart {
        chart(&report, path)?;
    }
    Ok(report)
}
