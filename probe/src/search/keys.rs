//! A position as the provers see it: its key and hash in their tables,
//! and what is known of it before searching (the tables, the end of the
//! game, the kazans).

use crate::rules::{Position, Side, HALF};
use crate::tablebase::{terminal_value, Horizon, ProbeError, Tablebase};
use crate::value::Wdl;

/// The bounds the kazans alone put on the value for the side to move of a
/// live position: a side wins only with more than 81 at the end, and its
/// final kazan is at most its kazan plus every stone on the board (stones
/// never leave the game; tuzdyk feeding and atsyrau collection only move
/// board stones into kazans). A side that cannot pass 81 cannot win. A side
/// that cannot reach 81 does not lose outright either: endless play is a
/// draw, so only "not a win" follows. `(lower, upper)`.
pub fn kazan_bounds(pos: &Position) -> (Wdl, Wdl) {
    let board = pos.stones_on_board();
    let me = pos.side_to_move();
    let reach = |s: Side| pos.kazan(s) as u32 + board;
    let upper = if reach(me) <= HALF as u32 {
        Wdl::Draw
    } else {
        Wdl::Win
    };
    let lower = if reach(me.opponent()) <= HALF as u32 {
        Wdl::Draw
    } else {
        Wdl::Loss
    };
    (lower, upper)
}

/// The whole position as a key: holes, kazans, tuzdyks, side to move (the
/// move number is not part of it). df-pn's tables pack it into 22 bytes
/// with the side asked about (`pns::PKey`), so that an entry fits 32.
pub(crate) type Key = [u8; 24];

pub(crate) fn key_of(pos: &Position) -> Key {
    let mut k = [0u8; 24];
    k[..18].copy_from_slice(pos.holes());
    k[18..20].copy_from_slice(&pos.kazans());
    k[20..22].copy_from_slice(&pos.tuzdyk_indices());
    k[22] = pos.side_to_move().index() as u8;
    k
}

/// The hash that places a key in the provers' tables.
pub(crate) fn key_hash(key: &Key) -> u64 {
    xxhash_rust::xxh3::xxh3_64(key)
}

/// What is known about a position before searching it: exact for finished
/// games and table-covered positions, kazan bounds otherwise.
pub(crate) fn static_bounds(
    tb: &Tablebase,
    horizon: Horizon,
    pos: &Position,
) -> Result<(Wdl, Wdl), ProbeError> {
    // `Tablebase::wdl` answers finished games itself: test for one only
    // where no table is asked.
    if pos.stones_on_board() <= horizon.of(pos) {
        let w = tb.wdl(pos)?;
        return Ok((w, w));
    }
    if let Some(v) = terminal_value(pos) {
        return Ok((v.wdl(), v.wdl()));
    }
    Ok(kazan_bounds(pos))
}
