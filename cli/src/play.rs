//! `togyz-probe play [--fen FEN] [--board] [MOVE...]`: replays moves and
//! prints each in traditional notation with the FEN after it (and the board
//! with `--board`), then the result if the game has ended; without moves,
//! the position and its board. `play -i` plays
//! interactively (see [`interactive`]).

use std::io::Write;

use togyz_tb::notation::result_text;
use togyz_tb::Position;

use crate::common::failure::Failure;
use crate::common::moves::{fen_arg, replay};
use crate::common::render::diagram;
use crate::common::tables::TablesArg;

mod interactive;

/// Arguments of `play`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Start from this PlayStrategy FEN (in quotes) instead of the initial
    /// position.
    #[arg(long)]
    fen: Option<String>,
    /// Print the board after each move.
    #[arg(long)]
    board: bool,
    /// Play move by move at a prompt, after the MOVEs if any: the board, the
    /// tables' verdict where they cover the position, the legal moves;
    /// `undo`, `help`, `quit`.
    #[arg(short, long)]
    interactive: bool,
    /// Tables for the verdicts of `-i`.
    #[command(flatten)]
    tables: TablesArg,
    /// Moves: traditional (`76`, `36x`), UCI (`g1d2`), a hole number, or
    /// as PlayOK writes them (`21(10)`, `36X`: the kazan and tuzdyk mark
    /// are checked); move numbers such as `1.` are skipped, and a whole
    /// pasted game (`'1. 76 98 2. 22'`) may be one argument. Without moves,
    /// the position is shown.
    #[arg(value_name = "MOVE")]
    moves: Vec<String>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<(), Failure> {
    if !args.interactive && args.tables.given() {
        // Silently ignoring the folder would look like an evaluation that
        // found nothing to say.
        clap::Error::raw(
            clap::error::ErrorKind::ArgumentConflict,
            "--tables gives the verdicts of `play -i`; to evaluate a list of moves, \
             use `togyz-probe annotate` (a game record or `-`) or `togyz-probe query`\n",
        )
        .exit();
    }
    let start = match &args.fen {
        Some(fen) => fen_arg(fen, &args.moves)?,
        None => Position::start(),
    };
    // Every move is checked before anything is printed, so bad input prints
    // only the error (with the position where the list stopped).
    let played = replay(&start, &args.moves)?;
    if args.interactive {
        return interactive::run(start, played, &args.tables.open());
    }
    let mut out = std::io::stdout().lock();
    if played.is_empty() {
        // Nothing to replay: the position itself.
        writeln!(out, "{}\n{}", start, diagram(&start))?;
        if let Some(result) = result_text(&start) {
            writeln!(out, "{result}")?;
        }
        return Ok(());
    }
    for p in &played {
        writeln!(
            out,
            "{:<6}{:<4}{}",
            p.report.mover.to_string(),
            p.report.traditional(),
            p.after
        )?;
        if args.board {
            writeln!(out, "{}", diagram(&p.after))?;
        }
    }
    if let Some(result) = played.last().and_then(|p| result_text(&p.after)) {
        writeln!(out, "{result}")?;
    }
    Ok(())
}
