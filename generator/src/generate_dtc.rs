//! `togyz-gen generate --metric dtc`: solves stone counts in ascending
//! order with the DTC solver ([`crate::dtc`]), a level at a time in memory,
//! and writes DTC tables ([`crate::write_dtc`]).
//!
//! Resuming: a complete table already in the folder is kept, DTM or DTC
//! (so a folder may hold DTM tables for small levels and DTC tables for
//! larger ones), and only its WDL section is read when a larger level still
//! needs it: a DTC solve needs one draw split a board below, which either
//! kind of table gives. An invalid file is never touched. Sharding and the
//! unit files of the DTM driver are not used here: each level is solved
//! and held whole in memory.

use crate::decode_dtc::{wdl_level, SplitsError};
use crate::dtc::{self, DtcError, WdlLevels};
use crate::generate::{
    kept_summary, lock_out, prepare_out, print_summary, stones, GenerateArgs, GenerateError,
    LevelSummary,
};
use crate::progress::{positions_bar, with_threads};
use crate::retro::max_solver_stones;
use crate::write::{self, TableStatus};
use crate::write_dtc::write_dtc_table;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use togyz_probe::raw::format::{file_name, TableFile};
use togyz_probe::raw::index::Layout;
use togyz_probe::Metric;

/// Why DTC generation stopped (besides what the DTM driver reports).
#[derive(Debug, thiserror::Error)]
pub enum DtcGenerateError {
    /// `--shard` was given: DTC levels are solved whole in one process.
    #[error(
        "--shard is not supported with --metric dtc: DTC levels are solved whole, in one process"
    )]
    Shard,
    /// The solver failed, or a solved board is not one draw split.
    #[error(transparent)]
    Solve(#[from] DtcError),
    /// A kept table's WDL could not be read as draw splits.
    #[error(transparent)]
    Splits(#[from] SplitsError),
}

/// Parses `--metric`: `dtm` or `dtc`.
pub fn metric_arg(s: &str) -> Result<Metric, String> {
    match s.to_ascii_lowercase().as_str() {
        "dtm" => Ok(Metric::Dtm),
        "dtc" => Ok(Metric::Dtc),
        _ => Err(format!(
            "`{s}` is not a metric: dtm (distance to the end) or dtc (distance to conversion)"
        )),
    }
}

/// Runs `togyz-gen generate --metric dtc`.
///
/// # Errors
///
/// As [`generate_dtc`].
pub fn run(args: &GenerateArgs) -> Result<(), GenerateError> {
    let summaries =
        with_threads(args.threads, || generate_dtc(args)).map_err(GenerateError::Threads)??;
    print_summary(&summaries, &args.out);
    Ok(())
}

/// Solves and writes the DTC tables of levels `1..=max_stones` into
/// `args.out`, keeping every complete table there (DTM or DTC); returns
/// one summary per level.
///
/// # Errors
///
/// [`GenerateError`]: a bad `--max-stones`, `--shard` ([`DtcGenerateError::Shard`]),
/// an output folder that cannot be used or is locked, an invalid file in
/// the way, a solve or write that fails.
pub fn generate_dtc(args: &GenerateArgs) -> Result<Vec<LevelSummary>, GenerateError> {
    let max = args.max_stones;
    if max == 0 || max > max_solver_stones() {
        return Err(GenerateError::BadMaxStones(max));
    }
    if args.shard.is_some() {
        return Err(DtcGenerateError::Shard.into());
    }
    let out = &args.out;
    prepare_out(out)?;
    let _locks = lock_out(
        out,
        None,
        &format!("togyz-gen generate --metric dtc --max-stones {max}"),
    )?;
    for path in write::remove_stale_temporaries(out) {
        println!("removed {}, left by an interrupted run", path.display());
    }
    // Every level first, so a bad file stops the run before any work.
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
    let last_missing = (1..=max).rev().find(|&n| !complete[n as usize - 1]);
    let mut lower = WdlLevels::new();
    let mut summaries = Vec::new();
    for n in 1..=max {
        let needed_later = last_missing.is_some_and(|m| n < m);
        let t = Instant::now();
        if complete[n as usize - 1] {
            let path = out.join(file_name(n));
            let table = TableFile::open(&path)?;
            let mut s = kept_summary(&table, n);
            if needed_later {
                lower
                    .push(wdl_level(&table).map_err(DtcGenerateError::from)?)
                    .map_err(DtcError::from)
                    .map_err(DtcGenerateError::from)?;
                s.seconds = t.elapsed().as_secs_f64();
            }
            println!(
                "{:>9}: complete {} table found in {}, kept",
                stones(n),
                table.metric(),
                path.display()
            );
            summaries.push(s);
            continue;
        }
        let progress = AtomicU64::new(0);
        let bar = positions_bar(
            Layout::new(n).positions(),
            format!("DTC {n:>2}"),
            !args.quiet,
        );
        let done = std::sync::atomic::AtomicBool::new(false);
        let level = std::thread::scope(|scope| {
            scope.spawn(|| {
                while !done.load(Ordering::Relaxed) {
                    bar.set_position(progress.load(Ordering::Relaxed));
                    std::thread::sleep(Duration::from_millis(200));
                }
            });
            let r = dtc::solve_level(n, &lower, &progress);
            done.store(true, Ordering::Relaxed);
            r
        })
        .map_err(DtcGenerateError::from)?;
        bar.finish_and_clear();
        let written = match &level.values {
            crate::retro::LevelValues::Narrow(v) => write_dtc_table(out, n, v)?,
            crate::retro::LevelValues::Wide(v) => write_dtc_table(out, n, v)?,
        };
        println!(
            "{:>9}: solved (DTC) and written to {} in {:.1} s",
            stones(n),
            written.path.display(),
            t.elapsed().as_secs_f64()
        );
        summaries.push(LevelSummary::written(
            n,
            &written,
            t.elapsed().as_secs_f64(),
        ));
        if needed_later {
            lower
                .push(level.wdl)
                .map_err(DtcError::from)
                .map_err(DtcGenerateError::from)?;
        }
    }
    Ok(summaries)
}
