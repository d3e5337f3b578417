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

use cli::{generate, plan, reblock, stats, verify};

/// Blocks of 4 MiB and more from the system, and back to it when freed.
/// glibc's malloc raises its mmap threshold as big blocks are freed, and
/// keeps later ones in its heaps after their free: a run capped at
/// `--max-memory 1G` (DTM up to 9 stones) peaked at 1.024 GB, and 0.960 GB
/// with this threshold (docs/performance.md, "Seeded apart"). A lower one
/// (128 KiB) took 9 % more wall time in system calls.
fn return_big_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets a parameter of the allocator, any value
    // is valid for it, and no other thread exists yet to allocate meanwhile.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
    };
}

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
    /// Write WDL tables again with another number of boards a block.
    Reblock(reblock::ReblockArgs),
}

fn main() -> ExitCode {
    return_big_blocks();
    let cli = Cli::parse();
    let result: Result<(), Box<dyn std::error::Error>> = match &cli.command {
        Command::Generate(args) => generate::run(args).map_err(Into::into),
        Command::Assemble(args) => generate::assemble(args).map_err(Into::into),
        Command::Verify(args) => verify::run(args).map_err(Into::into),
        Command::Stats(args) => stats::run(args).map_err(Into::into),
        Command::Plan(args) => plan::run(args).map_err(Into::into),
        Command::Reblock(args) => reblock::run(args).map_err(Into::into),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
