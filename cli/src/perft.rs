//! `togyz-probe perft DEPTH [--fen FEN] [--divide]`: leaf counts, in
//! parallel across both the first moves and deeper subtrees (rayon).

use std::io::Write;

use rayon::prelude::*;
use togyz_tb::{perft, Move, Position};

use crate::common::failure::{Failure, Kind};
use crate::common::moves::fen_arg;
use crate::common::render::names;

/// Arguments of `perft`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Plies to search.
    depth: u32,
    /// Start from this PlayStrategy FEN (in quotes) instead of the initial
    /// position.
    #[arg(long)]
    fen: Option<String>,
    /// Print the count below each first move (traditional and UCI).
    #[arg(long)]
    divide: bool,
    /// Arguments after the depth: only the rest of an unquoted FEN ends up
    /// here, and is refused with a hint to quote it.
    #[arg(hide = true)]
    stray: Vec<String>,
}

/// Below this depth a subtree is counted on one thread: splitting further
/// costs more than it balances.
const SPLIT_DEPTH: u32 = 5;

/// [`perft`] with the subtrees of deep nodes counted in parallel.
pub fn parallel_perft(pos: &Position, depth: u32) -> u64 {
    if depth <= SPLIT_DEPTH || pos.outcome().is_some() {
        return perft(pos, depth);
    }
    let moves: Vec<Move> = pos.legal_moves().collect();
    moves
        .par_iter()
        .map(|&m| parallel_perft(&pos.after_unchecked(m), depth - 1))
        .sum()
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<(), Failure> {
    let pos = match &args.fen {
        Some(fen) => fen_arg(fen, &args.stray)?,
        None => Position::start(),
    };
    if let Some(stray) = args.stray.first() {
        return Err(Failure::new(
            Kind::BadFen,
            format!("unexpected argument `{stray}`: perft takes a depth and options only"),
        ));
    }
    let mut out = std::io::stdout().lock();
    if !args.divide {
        writeln!(out, "{}", parallel_perft(&pos, args.depth))?;
        return Ok(());
    }
    if args.depth == 0 || pos.outcome().is_some() {
        // No first moves to divide by: the position itself is the leaf.
        writeln!(out, "total {}", perft(&pos, args.depth))?;
        return Ok(());
    }
    let moves: Vec<Move> = pos.legal_moves().collect();
    let counts: Vec<u64> = moves
        .par_iter()
        .map(|&m| parallel_perft(&pos.after_unchecked(m), args.depth - 1))
        .collect();
    for (&m, count) in moves.iter().zip(&counts) {
        let (traditional, uci) = names(&pos, m);
        writeln!(out, "{traditional:<4}{uci:<6}{count}")?;
    }
    writeln!(out, "total {}", counts.iter().sum::<u64>())?;
    Ok(())
}
