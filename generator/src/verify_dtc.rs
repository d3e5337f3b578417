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
//! the smaller levels, checked before.
//!
//! The check itself is [`crate::verify`]'s, one formula for both metrics:
//! the level is read unit by unit (a configuration and its swap, which
//! quiet moves stay within; [`crate::decode::DecodeAll::decode_config`]
//! decodes a DTC table's configuration in parallel over its blocks), and
//! a conversion reads the smaller levels as one draw split a board
//! ([`crate::lower_wdl::LowerWdl`]: the small levels whole, of the larger
//! ones the configurations the unit's exits reach, as `--hold-whole` says).
//! So the memory is the largest unit (one byte a position, two if a DTC
//! passes 126 plies) and its exits' draw splits, never the level. This
//! module adds what only DTC tables need: the metrics' order.

use crate::verify::VerifyError;
use togyz_probe::raw::format::TableFile;
use togyz_probe::Metric;
use togyz_probe::TableError;

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
