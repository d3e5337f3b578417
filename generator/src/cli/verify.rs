//! `togyz-gen verify`: its flags, and the printing of its lines, bars and
//! summary.

use crate::cli::threads_arg;
use crate::cli::Printer;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;
use togyz_answer::parse_bytes;
use togyz_answer::text::thousands;
use togyz_gen::below;
use togyz_gen::verify::{self, VerifyError, VerifyOptions};

/// Arguments of `togyz-gen verify`.
#[derive(clap::Args, Debug, Clone)]
pub struct VerifyArgs {
    /// Folder holding the tables (`togyz-NN.tkb`; default: $TOGYZ_TABLES,
    /// else ./tables).
    #[arg(long)]
    pub tables: Option<PathBuf>,
    /// Worker threads (at least 1; default: one per core).
    #[arg(long, value_parser = threads_arg)]
    pub threads: Option<usize>,
    /// No progress bars (the per-level lines and the summary still print).
    #[arg(long)]
    pub quiet: bool,
    /// Smaller levels are held in memory whole while their positions (for
    /// DTC tables, whose check reads one byte a board below: their boards),
    /// up to and including the level, total at most this; the larger ones
    /// are read a unit's share at a time (as `generate --hold-whole`).
    #[arg(long, default_value_t = below::WHOLE_POSITIONS, value_name = "POSITIONS")]
    pub hold_whole: u64,
    /// At most this much memory (`16G`, `500M`; powers of 1000): a unit
    /// whose exits would not fit beside it is checked in passes over the
    /// levels below, a few at a time (default: what the system has
    /// available).
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub max_memory: Option<u64>,
    /// Check the levels from this many stones up (the smaller ones are
    /// read as the levels below, their checksums checked): a set grown by
    /// a level is checked without the levels checked before.
    #[arg(long, default_value_t = 1, value_name = "STONES")]
    pub from: u32,
}

impl VerifyArgs {
    /// The library's options: the tables folder is `--tables`, else
    /// `$TOGYZ_TABLES`, else `tables` (as `togyz-probe` finds it).
    fn options(&self) -> VerifyOptions {
        let tables = self
            .tables
            .clone()
            .or_else(|| std::env::var_os("TOGYZ_TABLES").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("tables"));
        VerifyOptions {
            tables,
            threads: self.threads,
            hold_whole: self.hold_whole,
            max_memory: self.max_memory,
            from: self.from,
        }
    }
}

/// Runs `togyz-gen verify`: prints a line per table and a summary, or
/// returns the first problem found (a line that cannot be written is one).
pub fn run(args: &VerifyArgs) -> Result<(), VerifyError> {
    let start = Instant::now();
    let printer = Printer::new(args.quiet);
    let verified = verify::verify(&args.options(), &|e| printer.event(e))?;
    if let Some(e) = printer.failed() {
        return Err(VerifyError::Stdout(e));
    }
    let reports = &verified.levels;
    let threads = verified.threads;
    let secs = start.elapsed().as_secs_f64();
    let positions: u64 = reports.iter().map(|r| r.positions).sum();
    let bytes: u64 = reports.iter().map(|r| r.bytes).sum();
    writeln!(
        std::io::stdout().lock(),
        "verified {} table{} ({}..={} stones, {} bytes): {} positions consistent with their successors, all checksums valid, in {:.1} s ({} positions/s, {} thread{})",
        reports.len(),
        if reports.len() == 1 { "" } else { "s" },
        reports.first().map_or(0, |r| r.stones),
        reports.last().map_or(0, |r| r.stones),
        thousands(bytes),
        thousands(positions),
        secs,
        thousands((positions as f64 / secs.max(1e-9)) as u64),
        threads,
        if threads == 1 { "" } else { "s" },
    )
    .map_err(VerifyError::Stdout)?;
    Ok(())
}
