//! The `generate` driver: solves stone counts in ascending order, writes one
//! table per count, shows progress and a summary, and resumes: a complete,
//! valid table already on disk is kept (and loaded if a larger count still
//! needs it), an invalid one is never overwritten.

use crate::progress::{positions_bar, with_threads};
use crate::retro::{self, LevelValues, Levels, SolveError};
use crate::write::{self, TableStatus, WriteError};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use togyz_probe::raw::format::{file_name, TableError, TableFile};
use togyz_probe::raw::index::{Layout, MAX_STONES};

/// Arguments of `togyz-gen generate`.
#[derive(clap::Args, Debug, Clone)]
pub struct GenerateArgs {
    /// Solve every position with up to this many stones on the board.
    #[arg(long, default_value_t = 8)]
    pub max_stones: u32,
    /// Output folder for the tables.
    #[arg(long, default_value = "tables")]
    pub out: PathBuf,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// No progress bars (the per-level lines and the summary still print).
    #[arg(long)]
    pub quiet: bool,
}

/// Why generation stopped.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// The requested stone count is out of range.
    #[error("--max-stones must be between 1 and {MAX_STONES}, not {0}")]
    BadMaxStones(u32),
    /// A file with a table's name is in the way and is not a valid table.
    #[error("{path} exists but is not a valid table ({reason}); it is left untouched: move it away or delete it, then run again")]
    InvalidExisting {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The output folder could not be created.
    #[error("cannot create the output folder {path}: {source}")]
    OutDir {
        /// The folder.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The thread pool could not be built.
    #[error("cannot start {0} worker threads")]
    Threads(usize),
    /// The solver failed.
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// Writing a table failed.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// Reading back an existing table failed.
    #[error(transparent)]
    Table(#[from] TableError),
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

/// Runs `togyz-gen generate`.
pub fn run(args: &GenerateArgs) -> Result<(), GenerateError> {
    let summaries =
        with_threads(args.threads, || generate(args)).map_err(GenerateError::Threads)??;
    print_summary(&summaries, &args.out);
    Ok(())
}

/// Solves and writes levels `1..=max_stones` into `args.out`, skipping
/// complete tables; returns one summary per level.
pub fn generate(args: &GenerateArgs) -> Result<Vec<LevelSummary>, GenerateError> {
    let max = args.max_stones;
    if max == 0 || max > MAX_STONES {
        return Err(GenerateError::BadMaxStones(max));
    }
    std::fs::create_dir_all(&args.out).map_err(|source| GenerateError::OutDir {
        path: args.out.clone(),
        source,
    })?;
    for path in write::remove_stale_temporaries(&args.out) {
        println!("removed {}, left by an interrupted run", path.display());
    }
    // Look at every level first, so a bad file stops the run before any work.
    let mut status = Vec::new();
    for n in 1..=max {
        let s = write::table_status(&args.out, n);
        if let TableStatus::Invalid(reason) = &s {
            return Err(GenerateError::InvalidExisting {
                path: args.out.join(file_name(n)),
                reason: reason.clone(),
            });
        }
        status.push(s);
    }
    let last_missing = (1..=max)
        .rev()
        .find(|&n| !matches!(status[n as usize - 1], TableStatus::Complete));

    let mut levels = Levels::new();
    let mut summaries = Vec::new();
    for n in 1..=max {
        let path = args.out.join(file_name(n));
        let needed_later = last_missing.is_some_and(|m| n < m);
        if matches!(status[n as usize - 1], TableStatus::Complete) {
            let table = TableFile::open(&path)?;
            let h = table.header();
            let mut s = LevelSummary {
                stones: n,
                positions: h.positions,
                wins: h.wins,
                draws: h.draws,
                losses: h.losses,
                longest_win: h.longest_win,
                bytes: std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0),
                reused: true,
                ..Default::default()
            };
            if needed_later {
                let t = Instant::now();
                levels.push(LevelValues::load(&table)?);
                s.seconds = t.elapsed().as_secs_f64();
            }
            println!(
                "{n:>2} stones: complete table found in {}, kept",
                path.display()
            );
            summaries.push(s);
            continue;
        }
        let positions = Layout::new(n).positions();
        let t = Instant::now();
        let values = solve_with_progress(n, &levels, positions, args.quiet)?;
        let solved = t.elapsed().as_secs_f64();
        let written = match &values {
            LevelValues::Narrow(v) => write::write_table(&args.out, n, v)?,
            LevelValues::Wide(v) => write::write_table(&args.out, n, v)?,
        };
        let seconds = t.elapsed().as_secs_f64();
        let s = LevelSummary {
            stones: n,
            positions,
            wins: written.wins,
            draws: written.draws,
            losses: written.losses,
            longest_win: written.longest_win,
            seconds,
            bytes: written.bytes,
            reused: false,
        };
        println!(
            "{n:>2} stones: {positions} positions solved in {solved:.1}s, written in {:.1}s: {} ({} bytes, {:.2} bits/position)",
            seconds - solved,
            path.display(),
            s.bytes,
            s.bytes as f64 * 8.0 / positions as f64
        );
        summaries.push(s);
        if needed_later {
            levels.push(values);
        } else {
            // Nothing larger needs it: free the memory now.
            drop(values);
        }
    }
    Ok(summaries)
}

fn solve_with_progress(
    n: u32,
    levels: &Levels,
    positions: u64,
    quiet: bool,
) -> Result<LevelValues, GenerateError> {
    let progress = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let bar = positions_bar(positions, format!("{n} stones"), !quiet);
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                bar.set_position(progress.load(Ordering::Relaxed).min(positions));
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        let r = retro::solve_level(n, levels, &progress);
        done.store(true, Ordering::Relaxed);
        r
    });
    bar.finish_and_clear();
    Ok(result?)
}

fn print_summary(levels: &[LevelSummary], out: &Path) {
    println!();
    println!(
        "{:>6} {:>14} {:>14} {:>14} {:>14} {:>7} {:>9} {:>12} {:>13} {:>6}",
        "stones",
        "positions",
        "wins",
        "draws",
        "losses",
        "longest",
        "seconds",
        "positions/s",
        "bytes",
        "bits"
    );
    let mut total = LevelSummary::default();
    for s in levels {
        let rate = if s.reused || s.seconds == 0.0 {
            "kept".to_string()
        } else {
            format!("{:.0}", s.positions as f64 / s.seconds)
        };
        println!(
            "{:>6} {:>14} {:>14} {:>14} {:>14} {:>7} {:>9.1} {:>12} {:>13} {:>6.3}",
            s.stones,
            s.positions,
            s.wins,
            s.draws,
            s.losses,
            s.longest_win,
            s.seconds,
            rate,
            s.bytes,
            s.bytes as f64 * 8.0 / s.positions as f64
        );
        total.positions += s.positions;
        total.wins += s.wins;
        total.draws += s.draws;
        total.losses += s.losses;
        total.longest_win = total.longest_win.max(s.longest_win);
        total.seconds += s.seconds;
        total.bytes += s.bytes;
    }
    println!(
        "{:>6} {:>14} {:>14} {:>14} {:>14} {:>7} {:>9.1} {:>12.0} {:>13} {:>6.3}",
        "all",
        total.positions,
        total.wins,
        total.draws,
        total.losses,
        total.longest_win,
        total.seconds,
        if total.seconds > 0.0 {
            total.positions as f64 / total.seconds
        } else {
            0.0
        },
        total.bytes,
        total.bytes as f64 * 8.0 / total.positions.max(1) as f64
    );
    println!("tables in {}", out.display());
}
