//! `togyz-probe`: the command line of the probe crate.
//!
//! Each subcommand lives in its own file beside this one and exposes an
//! `Args` struct (clap) and a `run` function; this file only dispatches.
//! Any error is printed as one `error: ...` line on stderr with exit code 2
//! (clap's own usage errors exit with 2 as well).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod above;
mod annotate;
mod perft;
mod play;
mod query;

/// What a subcommand returns: any error ends the program with exit code 2.
pub type CliResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// Togyz Kumalak rules tools and endgame tablebase prober.
#[derive(Parser, Debug)]
#[command(name = "togyz-probe", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Replay game records (PlayOK text or plain move lists), check their
    /// landings and kazans, and mark every move that changes the result.
    Annotate(annotate::Args),
    /// Count the leaves DEPTH plies below a position (finished games count
    /// as leaves).
    Perft(perft::Args),
    /// Replay moves (traditional `76`/`36x` or UCI `g1d2`) and print each
    /// move and the FEN after it.
    Play(play::Args),
    /// Who wins here: the result and distance to the end from the tables,
    /// every legal move with its result, and the line of best play; above
    /// the tables, proof search (exit codes: 0 answered, 2 bad input, 3
    /// missing table, 4 damaged table).
    Query(query::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Annotate(args) => annotate::run(args),
        Command::Perft(args) => perft::run(args),
        Command::Play(args) => play::run(args),
        // Exit codes 3 and 4 are its own: it reports and exits by itself.
        Command::Query(args) => return query::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line, whatever the error says.
            let msg = e.to_string().replace('\n', " ");
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}
