//! `togyz-gen generate --metric dtc`: solves stone counts in ascending
//! order with the DTC solver ([`crate::dtc`]) through the DTM driver's
//! machinery ([`crate::generate`]): unit by unit into the level's work
//! folder (the same unit files, [`crate::work`]), `--shard I/K`, a stated
//! resource plan, and each table assembled streamed from its unit files
//! ([`crate::write_dtc::write_dtc_table_from`]). Only the win/draw/loss of
//! the levels below is held, one byte a board ([`WdlLevels`]).
//!
//! Resuming: a complete table already in the folder is kept, DTM or DTC
//! (so a folder may hold DTM tables for small levels and DTC tables for
//! larger ones), and only its WDL section is read when a larger level still
//! needs it: a DTC solve needs one draw split a board below, which either
//! kind of table gives. Every finished unit of an unfinished level is kept;
//! a work folder of DTM units is refused, never mixed in. An invalid file
//! is never touched.

use crate::decode_dtc::{wdl_level, SplitsError};
use crate::dtc::{self, DtcError, WdlLevels};
use crate::generate::{
    kept_summary, print_summary, solve_level, start_run, stones, GenerateArgs, GenerateError,
    LevelSummary, Shard, UnitSolver,
};
use crate::plan;
use crate::progress::with_threads;
use crate::retro::{UnitId, UnitValues};
use crate::score::WdlLevel;
use crate::work::{self, LevelStream};
use crate::write::WriteSummary;
use crate::write_dtc::write_dtc_table_from;
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::time::Instant;
use togyz_probe::raw::format::{file_name, TableFile};
use togyz_probe::Metric;

/// Why DTC generation stopped (besides what the DTM driver reports).
#[derive(Debug, thiserror::Error)]
pub enum DtcGenerateError {
    /// The solver failed, or a solved board is not one draw split.
    #[error(transparent)]
    Solve(#[from] DtcError),
    /// A kept table's WDL could not be read as draw splits.
    #[error(transparent)]
    Splits(#[from] SplitsError),
}

/// The DTC solver of the unit-by-unit driver: the win/draw/loss of the
/// levels below, one byte a board.
#[derive(Default)]
pub(crate) struct DtcSolver {
    lower: WdlLevels,
}

impl UnitSolver for DtcSolver {
    type Kept = WdlLevel;
    fn metric(&self) -> Metric {
        Metric::Dtc
    }
    fn unit_memory(&self, n: u32, u: UnitId) -> u64 {
        plan::dtc_unit_memory(n, u)
    }
    fn level_memory(&self, n: u32, threads: usize, _keep: bool) -> u64 {
        plan::dtc_level_memory(n, threads)
    }
    fn solve_unit(
        &self,
        n: u32,
        u: UnitId,
        progress: &AtomicU64,
    ) -> Result<UnitValues, GenerateError> {
        // The draw splits are checked here and found again at assembly.
        dtc::solve_unit(n, &self.lower, u, progress)
            .map(|unit| unit.values)
            .map_err(|e| DtcGenerateError::from(e).into())
    }
    fn write_level(
        &self,
        out: &Path,
        n: u32,
        keep: bool,
    ) -> Result<(WriteSummary, Option<WdlLevel>), GenerateError> {
        let dir = work::work_dir(out, n);
        let (written, wdl) = write_dtc_table_from(out, n, || Ok(LevelStream::new(&dir, n)))?;
        Ok((written, keep.then_some(wdl)))
    }
    fn load(&self, table: &TableFile) -> Result<WdlLevel, GenerateError> {
        Ok(wdl_level(table).map_err(DtcGenerateError::from)?)
    }
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
/// `args.out` (this shard's units with `--shard`), keeping every complete
/// table there (DTM or DTC) and every finished unit; returns one summary
/// per level.
///
/// # Errors
///
/// [`GenerateError`]: a bad `--max-stones`, an output folder that cannot
/// be used or is locked, too little memory or disk, an invalid file in the
/// way, a work folder of DTM units, a solve or write that fails.
pub fn generate_dtc(args: &GenerateArgs) -> Result<Vec<LevelSummary>, GenerateError> {
    let mut solver = DtcSolver::default();
    let (_locks, complete) = start_run(args, " --metric dtc", &solver)?;
    let (out, max) = (&args.out, args.max_stones);
    let todo: Vec<u32> = (1..=max).filter(|&n| !complete[n as usize - 1]).collect();
    let shard = args.shard.unwrap_or(Shard::ALL);
    let last_missing = todo.last().copied();
    let mut summaries = Vec::new();
    for n in 1..=max {
        let needed_later = last_missing.is_some_and(|m| n < m);
        let t = Instant::now();
        let push = |solver: &mut DtcSolver, level| {
            solver
                .lower
                .push(level)
                .map_err(|e| DtcGenerateError::from(DtcError::from(e)))
        };
        if complete[n as usize - 1] {
            let path = out.join(file_name(n));
            let table = TableFile::open(&path)?;
            let mut s = kept_summary(&table, n);
            if needed_later {
                let level = solver.load(&table)?;
                push(&mut solver, level)?;
                s.seconds = t.elapsed().as_secs_f64();
            }
            say!(
                "{:>9}: complete {} table found in {}, kept",
                stones(n),
                table.metric(),
                path.display()
            );
            summaries.push(s);
            continue;
        }
        let (mut summary, wdl) = solve_level(args, shard, n, &solver, needed_later)?;
        summary.seconds = t.elapsed().as_secs_f64();
        summaries.push(summary);
        if let Some(level) = wdl {
            push(&mut solver, level)?;
        }
    }
    Ok(summaries)
}
