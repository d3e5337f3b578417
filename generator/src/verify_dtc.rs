//! `togyz-gen verify` for DTC tables: each stored value must be the best of
//! its moves' values under the DTC definition (`docs/dtc.md`), the moves
//! generated forward with the rules (`Position::play`), never with the
//! solver's un-moves:
//!
//! * a move that ends the game is worth a win, draw or loss in 1;
//! * a move that leaves the stone count (a conversion) is worth the
//!   opponent's result in the smaller level, flipped, in 1;
//! * a quiet move is worth the successor's stored value one ply back;
//! * a position whose side to move has no stones holds the game's result
//!   at distance 0.
//!
//! As for DTM ([`crate::verify`]), local consistency checked level by level
//! is global correctness: within a level the DTC strictly falls along a
//! win's or loss's justification, and the conversions' results come from
//! the smaller levels, checked before. The smaller levels are held as one
//! draw split a board ([`WdlLevels`]); the level being checked is decoded
//! whole (two bytes a position), which suits the levels DTC tables are
//! generated for in memory.

use crate::decode::DecodeAll;
use crate::dtc::WdlLevels;
use crate::verify::{position_at, VerifyError};
use crate::write::Census;
use indicatif::ProgressBar;
use rayon::prelude::*;
use togyz_probe::raw::format::{TableError, TableFile};
use togyz_probe::raw::index::{BoardWalker, Layout, Slot, TuzdykConfig};
use togyz_probe::rules::Position;
use togyz_probe::tablebase::terminal_value;
use togyz_probe::{Metric, Value, Wdl};

/// Boards per work item of the parallel check.
const CHUNK_BOARDS: u64 = 2048;

/// The DTC value for the mover of each legal move of the live position
/// `pos` of level `n`, whose quiet successors' packed values are `values`.
fn move_values<'a>(
    pos: &'a Position,
    n: u32,
    layout: &'a Layout,
    values: &'a [u16],
    lower: &'a WdlLevels,
) -> impl Iterator<Item = (togyz_probe::Move, Value)> + 'a {
    pos.legal_moves().map(move |mv| {
        let mut child = *pos;
        let report = child.play_unchecked(mv);
        let v = if let Some(o) = report.outcome {
            match o.winner {
                None => Value::Draw,
                Some(w) if w == report.mover => Value::Win(1),
                Some(_) => Value::Loss(1),
            }
        } else if child.stones_on_board() < n {
            // A conversion: the smaller level's result, in 1.
            match lower.wdl(&child).expect("the smaller levels are held") {
                Wdl::Win => Value::Loss(1),
                Wdl::Draw => Value::Draw,
                Wdl::Loss => Value::Win(1),
            }
        } else {
            let slot = Slot::of(&child).expect("a live successor has an index slot");
            Value::unpack(values[layout.index(&slot) as usize]).back()
        };
        (mv, v)
    })
}

/// The best of a position's move values, or its result if the game is over.
fn expected(pos: &Position, n: u32, layout: &Layout, values: &[u16], lower: &WdlLevels) -> Value {
    terminal_value(pos).unwrap_or_else(|| {
        move_values(pos, n, layout, values, lower)
            .map(|(_, v)| v)
            .max()
            .expect("a position whose game is not over has a move")
    })
}

/// Checks every entry of the DTC table `file` of level `n` against its
/// successors, given the draw splits of every smaller level; returns the
/// entries' census.
///
/// # Errors
///
/// [`VerifyError::Table`] for a damaged file; [`VerifyError::Inconsistent`]
/// naming the first position (in index order) whose stored value does not
/// follow from its successors.
pub(crate) fn check_level(
    n: u32,
    file: &TableFile,
    lower: &WdlLevels,
    bar: &ProgressBar,
) -> Result<Census, VerifyError> {
    let values = file.decode_all()?;
    let layout = Layout::new(n);
    let work = layout.board_chunks(CHUNK_BOARDS);
    let results: Vec<Result<Census, (Position, Value, Value)>> = work
        .par_iter()
        .map(|&(id, start, end)| {
            let config = TuzdykConfig::from_id(id);
            let mut census = Census::default();
            let mut walker = BoardWalker::new(n, config, start, end);
            while let Some((rank, board)) = walker.current() {
                let gb = layout.global_board(id, rank);
                for j in 0..=n {
                    let pos = position_at(n, config, board, j);
                    let stored = Value::unpack(values[layout.index_at(gb, j) as usize]);
                    let want = expected(&pos, n, &layout, &values, lower);
                    if stored != want {
                        return Err((pos, stored, want));
                    }
                    census.add(stored);
                }
                walker.advance();
            }
            bar.inc((end - start) * layout.kazans());
            Ok(census)
        })
        .collect();
    let mut census = Census::default();
    for r in results {
        match r {
            Ok(c) => census.merge(&c),
            Err((pos, stored, expected)) => {
                let moves: Vec<String> = move_values(&pos, n, &layout, &values, lower)
                    .map(|(mv, v)| {
                        let mut p = pos;
                        format!("{} gives a {v}", p.play_unchecked(mv).traditional())
                    })
                    .collect();
                return Err(VerifyError::Inconsistent {
                    stones: n,
                    fen: pos.fen(),
                    stored,
                    expected,
                    moves: format!("DTC; moves: {}", moves.join(", ")),
                });
            }
        }
    }
    Ok(census)
}

/// Refuses a DTM table above a DTC one (`files[i]` holds `i + 1` stones):
/// checking it needs the distances to the end below it.
///
/// # Errors
///
/// [`VerifyError::Table`] with [`TableError::WrongMetric`] naming the
/// lowest DTC table under a DTM one.
pub fn check_metrics(files: &[TableFile]) -> Result<(), VerifyError> {
    let first_dtc = files.iter().position(|f| f.metric() == Metric::Dtc);
    let last_dtm = files.iter().rposition(|f| f.metric() == Metric::Dtm);
    match (first_dtc, last_dtm) {
        (Some(c), Some(m)) if c < m => Err(TableError::WrongMetric {
            path: files[c].path().to_path_buf(),
            found: Metric::Dtc,
            wanted: Metric::Dtm,
        }
        .into()),
        _ => Ok(()),
    }
}

/// Adds the draw splits of `file` (either metric) to `wdl`.
///
/// # Errors
///
/// [`VerifyError::Splits`] for a damaged block or a board that is not one
/// draw split.
pub fn push_wdl(wdl: &mut WdlLevels, file: &TableFile) -> Result<(), VerifyError> {
    let level = crate::decode_dtc::wdl_level(file)?;
    wdl.push(level)
        .expect("levels are checked in order, from 1 stone up");
    Ok(())
}
