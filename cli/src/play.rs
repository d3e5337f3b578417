//! `togyz-probe play [--fen FEN] MOVE...`: replays moves and prints each in
//! traditional notation with the FEN after it, then the result if the game
//! has ended.

use std::io::Write;

use togyz_probe::notation::{parse_fen, parse_move, result_text};
use togyz_probe::rules::Position;

use crate::CliResult;

/// Arguments of `play`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Start from this PlayStrategy FEN instead of the initial position.
    #[arg(long)]
    fen: Option<String>,
    /// Moves, each traditional (`76`, `36x`) or UCI (`g1d2`).
    #[arg(required = true, value_name = "MOVE")]
    moves: Vec<String>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> CliResult {
    let mut pos = match &args.fen {
        Some(fen) => parse_fen(fen)?,
        None => Position::start(),
    };
    // Check every move before printing anything, so bad input prints only
    // the error line.
    let mut lines = Vec::with_capacity(args.moves.len());
    for text in &args.moves {
        let mv = parse_move(&pos, text)?;
        let mover = pos.side_to_move();
        let report = pos.play(mv)?;
        lines.push(format!(
            "{:<6}{:<4}{pos}",
            mover.to_string(),
            report.traditional()
        ));
    }
    let mut out = std::io::stdout().lock();
    for line in &lines {
        writeln!(out, "{line}")?;
    }
    if let Some(result) = result_text(&pos) {
        writeln!(out, "{result}")?;
    }
    Ok(())
}
