//! `togyz-gen stats`: its flags, its bars, and the report printed as
//! Markdown or JSON.

use crate::cli::threads_arg;
use crate::cli::Printer;
use std::path::PathBuf;
use togyz_gen::stats::{self, markdown, StatsError, StatsOptions};

/// Arguments of `togyz-gen stats`.
#[derive(clap::Args, Debug, Clone)]
pub struct StatsArgs {
    /// Folder holding the tables (`togyz-NN.tkb`, 1..=N stones); default:
    /// $TOGYZ_TABLES, else ./tables (as togyz-probe).
    #[arg(long, env = "TOGYZ_TABLES", default_value = "tables")]
    pub tables: PathBuf,
    /// Print the report as JSON instead of Markdown.
    #[arg(long)]
    pub json: bool,
    /// Move-count limits, in plies: for each, the wins that need more.
    #[arg(long, value_delimiter = ',', default_value = "40,60,100")]
    pub limits: Vec<u32>,
    /// Also draw the distribution of win distances per stone count as an
    /// SVG chart into this file.
    #[arg(long)]
    pub chart: Option<PathBuf>,
    /// Mutual zugzwang examples shown per stone count.
    #[arg(long, default_value_t = 3)]
    pub examples: usize,
    /// Worker threads, at least 1 (default: one per core).
    #[arg(long, value_parser = threads_arg)]
    pub threads: Option<usize>,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
}

impl StatsArgs {
    /// The library's options these flags ask for.
    fn options(&self) -> StatsOptions {
        StatsOptions {
            tables: self.tables.clone(),
            limits: self.limits.clone(),
            chart: self.chart.clone(),
            examples: self.examples,
            threads: self.threads,
        }
    }
}

/// Runs `togyz-gen stats`: the report on standard output, as Markdown or
/// with `--json` as JSON.
///
/// # Errors
///
/// [`StatsError`]: as [`stats::stats`], or output that cannot be written.
pub fn run(args: &StatsArgs) -> Result<(), StatsError> {
    let printer = Printer::new(args.quiet);
    let report = stats::stats(&args.options(), &|e| printer.event(e))?;
    let text = if args.json {
        serde_json::to_string_pretty(&report)? + "\n"
    } else {
        markdown(&report, args.chart.as_deref())
    };
    std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes())
        .map_err(StatsError::Stdout)?;
    Ok(())
}
