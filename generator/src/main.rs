//! `togyz-gen`: generate, verify and study Togyz Kumalak endgame tables.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// `println!` that never panics: when standard output is closed or fails
/// (`togyz-gen generate | head -1`), the line is lost and the work goes on
/// (`println!` would panic on the closed pipe).
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// `eprintln!("warning: ...")` that never panics (see `say!`).
macro_rules! warn {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "warning: {}", format_args!($($arg)*));
    }};
}

mod cli;

use cli::{generate, plan, stats, verify};

#[derive(Parser)]
#[command(
    name = "togyz-gen",
    version,
    about = "Generate, verify and study Togyz Kumalak endgame tables"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve every position with up to N stones on the board and write the tables.
    Generate(generate::GenerateArgs),
    /// Write the tables of levels whose units the shards of `generate --shard` all solved.
    Assemble(generate::AssembleArgs),
    /// Check every stored entry against its successors, and every checksum.
    Verify(verify::VerifyArgs),
    /// Endgame statistics: results, longest wins, distance census, mutual zugzwangs.
    Stats(stats::StatsArgs),
    /// What generating and verifying the tables up to N stones would take (runs nothing).
    Plan(plan::PlanArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: Result<(), Box<dyn std::error::Error>> = match &cli.command {
        Command::Generate(args) => generate::run(args).map_err(Into::into),
        Command::Assemble(args) => generate::assemble(args).map_err(Into::into),
        Command::Verify(args) => verify::run(args).map_err(Into::into),
        Command::Stats(args) => stats::run(args).map_err(Into::into),
        Command::Plan(args) => plan::run(args).map_err(Into::into),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
