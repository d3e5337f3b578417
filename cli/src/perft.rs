//! `togyz-probe perft DEPTH [--fen FEN] [--divide]`: leaf counts, in
//! parallel across both the first moves and deeper subtrees (rayon).

use std::io::Write;

use rayon::prelude::*;
use togyz_probe::notation::parse_fen;
use togyz_probe::rules::{perft, Move, Position, ROW};

use crate::CliResult;

/// Arguments of `perft`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Plies to search.
    depth: u32,
    /// Start from this PlayStrategy FEN instead of the initial position.
    #[arg(long)]
    fen: Option<String>,
    /// Print the count below each first move (traditional and UCI).
    #[arg(long)]
    divide: bool,
}

/// Below this depth a subtree is counted on one thread: splitting further
/// costs more than it balances.
const SPLIT_DEPTH: u32 = 5;

/// The legal moves of `pos`, as an array slice without allocation.
fn moves(pos: &Position) -> ([Move; ROW], usize) {
    let mut out = [Move::from_index(0).expect("hole 1 exists"); ROW];
    let mut n = 0;
    for mv in pos.legal_moves() {
        out[n] = mv;
        n += 1;
    }
    (out, n)
}

/// [`perft`] with the subtrees of deep nodes counted in parallel.
pub fn parallel_perft(pos: &Position, depth: u32) -> u64 {
    if depth <= SPLIT_DEPTH || pos.outcome().is_some() {
        return perft(pos, depth);
    }
    let (mv, n) = moves(pos);
    mv[..n]
        .par_iter()
        .map(|&m| parallel_perft(&pos.after_unchecked(m), depth - 1))
        .sum()
}

/// Runs the subcommand.
pub fn run(args: Args) -> CliResult {
    let pos = match &args.fen {
        Some(fen) => parse_fen(fen)?,
        None => Position::start(),
    };
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
    let (mv, n) = moves(&pos);
    let counts: Vec<u64> = mv[..n]
        .par_iter()
        .map(|&m| parallel_perft(&pos.after_unchecked(m), args.depth - 1))
        .collect();
    for (&m, count) in mv[..n].iter().zip(&counts) {
        let mut p = pos;
        let report = p.play_unchecked(m);
        writeln!(out, "{:<4}{:<6}{count}", report.traditional(), report.uci())?;
    }
    writeln!(out, "total {}", counts.iter().sum::<u64>())?;
    Ok(())
}
