//! `togyz-gen generate` and `togyz-gen assemble`: their flags, and the
//! printing of their events, bars and summary.

use crate::cli::Printer;
use crate::cli::{metric_arg, threads_arg};
use std::path::{Path, PathBuf};
use togyz_answer::parse_bytes;
use togyz_gen::run::assemble::{self, LevelSummary};
use togyz_gen::run::error::GenerateError;
use togyz_gen::run::generate;
use togyz_gen::run::options::GenerateOptions;
use togyz_gen::run::shard::Shard;
use togyz_gen::solve::unit::KazanCut;
use togyz_tb::{Metric, TuzdykPairs};

/// Arguments of `togyz-gen generate`.
#[derive(clap::Args, Debug, Clone)]
pub struct GenerateArgs {
    /// Solve every position with up to this many stones on the board.
    #[arg(long, default_value_t = 8)]
    pub max_stones: u32,
    /// Output folder for the tables.
    #[arg(long, default_value = "tables")]
    pub out: PathBuf,
    /// Worker threads (at least 1; default: one per core).
    #[arg(long, value_parser = threads_arg)]
    pub threads: Option<usize>,
    /// No progress bars (the per-level lines and the summary still print).
    #[arg(long)]
    pub quiet: bool,
    /// Solve only shard I of K (I from 0 to K-1): a disjoint set of each
    /// level's units, into an output folder the K shards share
    /// (docs/cluster.md).
    #[arg(long, value_name = "I/K", value_parser = Shard::parse)]
    pub shard: Option<Shard>,
    /// How long a shard waits for the other shards to finish a level, in
    /// seconds, before it gives up.
    #[arg(long, default_value_t = GenerateOptions::WAIT_TIMEOUT, value_name = "SECONDS")]
    pub wait_timeout: u64,
    /// Smaller levels are held in memory whole while their positions
    /// (DTM; boards for DTC), up to and including the level, total at
    /// most this; each unit reads what it needs of the larger ones from
    /// their table files. Less memory for more decoding. Default: DTM
    /// 600000000 positions (levels 1 to 8); DTC every level below when
    /// that fits the memory, else as many as fit (the plan says which).
    #[arg(long, value_name = "COUNT")]
    pub hold_whole: Option<u64>,
    /// What the tables' distances count: `dtm` (plies to the end of the
    /// game) or `dtc` (plies to the next conversion, docs/dtc.md).
    #[arg(long, default_value = "dtm", value_parser = metric_arg)]
    pub metric: Metric,
    /// At most this much memory (`16G`, `500M`; powers of 1000): the run is
    /// refused if it cannot fit, and the biggest units of a level run one
    /// at a time when two would not fit side by side (default: what the
    /// system has available).
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub max_memory: Option<u64>,
    /// Write the levels from N up as WDL tables (with `--metric dtc`):
    /// the win/draw/loss of the positions with a tuzdyk, no distances, in
    /// a sixth of a DTC table's bytes, the unit without a tuzdyk never
    /// solved (docs/format.md, "WDL tables").
    #[arg(long, value_name = "N")]
    pub wdl_from: Option<u32>,
    /// With `--wdl-from`: the WDL levels hold only the positions with both
    /// tuzdyks in these pairs of holes (`3-6,4-7`: a tuzdyk in hole 3 and
    /// one in hole 6, either player's; `all` for the 28), whose search
    /// needs no other; a pair's level is a 28th of the positions with two
    /// tuzdyks
    /// (docs/generate.md, "Tables of one game's tuzdyks").
    #[arg(long, value_name = "PAIRS", requires = "wdl_from")]
    pub wdl_pairs: Option<TuzdykPairs>,
    /// Cut every unit into kazan parts of at most this many pairs of
    /// kazan offsets, whatever the memory (default: the fewest parts that
    /// fit it). For tests: the tables are the same whatever the cut.
    #[arg(long, hide = true, value_name = "PAIRS", value_parser = kazan_pairs_arg)]
    pub kazan_pairs: Option<KazanCut>,
    /// Solve every unit without storing its quiet-move graph, whatever the
    /// memory (default: stored unless even parts of one pair do not fit
    /// beside it). For tests: the tables are the same either way.
    #[arg(long, hide = true)]
    pub no_graph: bool,
}

/// `--kazan-pairs`: a whole number of at least 1.
fn kazan_pairs_arg(s: &str) -> Result<KazanCut, String> {
    s.parse::<u32>()
        .ok()
        .and_then(KazanCut::pairs)
        .ok_or_else(|| format!("{s:?} is not a whole number of pairs of at least 1"))
}

impl GenerateArgs {
    /// The library's options these flags ask for.
    fn options(&self) -> GenerateOptions {
        GenerateOptions {
            max_stones: self.max_stones,
            out: self.out.clone(),
            threads: self.threads,
            shard: self.shard,
            wait_timeout: self.wait_timeout,
            hold_whole: self.hold_whole,
            metric: self.metric,
            max_memory: self.max_memory,
            kazan_pairs: self.kazan_pairs,
            no_graph: self.no_graph,
            wdl_from: self.wdl_from,
            wdl_pairs: self.wdl_pairs,
        }
    }
}

/// Arguments of `togyz-gen assemble`.
#[derive(clap::Args, Debug, Clone)]
pub struct AssembleArgs {
    /// The output folder the shards wrote into.
    #[arg(long, default_value = "tables")]
    pub out: PathBuf,
}

/// Runs `togyz-gen generate`: the run's lines, then its summary.
pub fn run(args: &GenerateArgs) -> Result<(), GenerateError> {
    let printer = Printer::new(args.quiet);
    let summaries = generate::generate(&args.options(), &|e| printer.event(e))?;
    print_summary(&summaries, &args.out);
    Ok(())
}

/// Runs `togyz-gen assemble`.
pub fn assemble(args: &AssembleArgs) -> Result<(), GenerateError> {
    let printer = Printer::new(true);
    assemble::assemble(&args.out, &|e| printer.event(e))
}

/// The table of what each level contributed, with the totals.
fn print_summary(levels: &[LevelSummary], out: &Path) {
    say!();
    say!(
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
        say!(
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
    say!(
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
    say!("output folder: {}", out.display());
}
