//! `togyz-probe`: the command line of the `togyz-tb` library.
//!
//! Each subcommand lives in its own file beside this one and exposes an
//! `Args` struct (clap) and a `run` function; this file only dispatches and
//! turns a [`common::failure::Failure`] into its `error: ...` text on standard
//! error and its exit code (clap's own usage errors exit with 2 as well).

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod annotate;
mod common;
mod perft;
mod play;
mod query;
mod serve;

/// The exit codes, for `--help` (`common::failure::Kind::code` gives them).
const EXIT_CODES: &str = "\
Exit codes: 0 done; 1 standard input or output failed; 2 bad input (FEN,
move, arguments); 3 no table covers the position; 4 a table is damaged;
5 a table or the tables folder cannot be read (permissions, I/O).";

/// The exit codes of `perft`, which reads no tables.
const EXIT_CODES_NO_TABLES: &str = "\
Exit codes: 0 done; 1 standard input or output failed; 2 bad input (FEN,
move, arguments).";

/// The exit codes of `play`.
const EXIT_CODES_PLAY: &str = "\
Exit codes: 0 done; 1 standard input or output failed; 2 bad input (FEN,
move, arguments). `play -i` exits with 0 at `quit` or the end of input.";

/// Togyz Kumalak rules tools and endgame tablebase prober.
#[derive(Parser, Debug)]
#[command(name = "togyz-probe", version, about, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Who wins here: the result and distance to the end from the tables,
    /// every legal move with its result, and the line of best play; above
    /// the tables, proof search within --search-time.
    #[command(after_help = QUERY_HELP)]
    Query(query::Args),
    /// Replay moves and print each move and the FEN after it, or play at a
    /// prompt with the tables' verdicts (`-i`).
    #[command(after_help = EXIT_CODES_PLAY)]
    Play(play::Args),
    /// Replay game records (PlayOK text or plain move lists), check their
    /// landings and kazans, and mark every move that changes the result.
    #[command(after_help = EXIT_CODES)]
    Annotate(annotate::Args),
    /// Count the leaves DEPTH plies below a position (finished games count
    /// as leaves).
    #[command(after_help = EXIT_CODES_NO_TABLES)]
    Perft(perft::Args),
    /// Answer over HTTP (docs/http-api.md): positions, game records, the
    /// analysis board in the browser at `/`.
    #[command(after_help = SERVE_HELP)]
    Serve(serve::Args),
}

/// `serve --help`'s closing text.
const SERVE_HELP: &str = "\
Example:
  togyz-probe serve --tables tables --bind 127.0.0.1:9000
  curl 'http://127.0.0.1:9000/v1/togyzkumalak?fen=7,2S,1/8,2S_79_79_S_1'

Exit codes: 0 stopped (Ctrl-C, SIGTERM); 1 the address cannot be bound;
2 bad arguments; 3 the tables folder holds no tables; 5 the tables folder
cannot be read.";

/// `query --help`'s closing text: examples and the exit codes.
const QUERY_HELP: &str = "\
Examples:
  togyz-probe query '7,2S,1/8,2S 79 79 S 1'
  togyz-probe query '7,2S,1/8,2S 79 79 S 1' 91 12
  togyz-probe query 76 98 22        (moves from the initial position)
  printf '%s\\n' FEN 'FEN MOVE...' | togyz-probe query -

Exit codes: 0 answered; 1 standard input or output failed; 2 bad input
(FEN, move, arguments); 3 no table covers the position (the board and the
legal moves are still printed); 4 a table is damaged; 5 a table or the
tables folder cannot be read (permissions, I/O). With `-`, the highest code
of any line; each failed line's JSON object has `error` and `kind`
(bad_fen, bad_move, illegal_move, no_table, damaged_table,
unreadable_table).";

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Annotate(args) => annotate::run(args),
        Command::Perft(args) => perft::run(args),
        Command::Play(args) => play::run(args),
        Command::Query(args) => query::run(args),
        Command::Serve(args) => serve::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader has seen enough: nothing more to say.
        Err(f) if f.is_closed_output() => ExitCode::SUCCESS,
        Err(f) => {
            // Nowhere left to report a failure to write standard error.
            let _ = std::io::stderr().write_all(f.text().as_bytes());
            ExitCode::from(f.kind.code())
        }
    }
}
