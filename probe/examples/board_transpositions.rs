//! Counts how often the positions near a root share a board with other
//! kazans: what a table keyed by the board alone (holes, tuzdyks, side to
//! move) could share that one keyed by the whole position cannot.
//!
//! From each FEN of the file with a stone count in the range, the
//! positions reachable from it are enumerated breadth-first until LIMIT
//! are found; those with more than HORIZON stones on the board and the
//! game not over (what a search above tables to HORIZON expands) are
//! counted, and so are their distinct boards.
//!
//! ```text
//! cargo run --release -p togyz-tb --example board_transpositions -- \
//!     bench/search-real/pairs-top/real-800.fens 25 29 300000 18
//! ```

use std::collections::{HashSet, VecDeque};

use togyz_tb::Position;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run(&args) {
        eprintln!("board_transpositions: {e}");
        eprintln!("usage: board_transpositions FENS LOW HIGH LIMIT HORIZON");
        std::process::exit(2);
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let [fens, low, high, limit, horizon] = args else {
        return Err("five arguments wanted".into());
    };
    let number = |s: &String| s.parse::<u64>().map_err(|e| format!("{s}: {e}"));
    let (low, high) = (number(low)? as u32, number(high)? as u32);
    let (limit, horizon) = (number(limit)? as usize, number(horizon)? as u32);
    let text = std::fs::read_to_string(fens).map_err(|e| format!("{fens}: {e}"))?;
    let (mut roots, mut positions, mut boards) = (0u64, 0u64, 0u64);
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let root: Position = line.parse().map_err(|e| format!("{fens}:{}: {e}", i + 1))?;
        if !(low..=high).contains(&root.stones_on_board()) {
            continue;
        }
        roots += 1;
        let (p, b) = count(&root, limit, horizon);
        positions += p;
        boards += b;
    }
    println!(
        "{roots} roots: {positions} positions above {horizon} stones on {boards} boards, {:.3} a board",
        positions as f64 / boards.max(1) as f64
    );
    Ok(())
}

/// The positions above `horizon` among the first `limit` reachable from
/// `root`, and their distinct boards.
fn count(root: &Position, limit: usize, horizon: u32) -> (u64, u64) {
    // Keyed without the move number, which the rules ignore.
    let mut seen: HashSet<(Board, [u8; 2])> = HashSet::from([(board(root), root.kazans())]);
    let (mut positions, mut boards) = (0u64, HashSet::new());
    let mut queue = VecDeque::from([*root]);
    while let Some(pos) = queue.pop_front() {
        if seen.len() >= limit {
            break;
        }
        if pos.outcome().is_some() || pos.stones_on_board() <= horizon {
            continue;
        }
        positions += 1;
        boards.insert(board(&pos));
        for mv in pos.legal_moves() {
            let child = pos.after_unchecked(mv);
            if seen.insert((board(&child), child.kazans())) {
                queue.push_back(child);
            }
        }
    }
    (positions, boards.len() as u64)
}

/// Holes, tuzdyks and side to move: the position without its kazans.
type Board = ([u8; 18], [u8; 2], usize);

fn board(pos: &Position) -> Board {
    (
        *pos.holes(),
        pos.tuzdyk_indices(),
        pos.side_to_move().index(),
    )
}
