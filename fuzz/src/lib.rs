//! What the fuzz targets share: positions made from fuzzed bytes, and the
//! small tables written once per process.

use std::sync::OnceLock;

use togyz_tb::Tablebase;
use togyz_tb::{Position, Side, CYCLE, TOTAL_STONES};

/// Bytes [`position`] reads.
pub const POSITION_BYTES: usize = 22;

/// A position made from the first [`POSITION_BYTES`] bytes of `data` and
/// the bytes after them, or `None` when the bytes make no valid position
/// (too short, or tuzdyks the rules refuse). Every stone count, kazan and
/// tuzdyk the rules allow can come out, games over included: holes take
/// up to 31 stones each, the rest of the 162 is split between the kazans.
pub fn position(data: &[u8]) -> Option<(Position, &[u8])> {
    let (head, rest) = data.split_first_chunk::<POSITION_BYTES>()?;
    let tuzdyk = |b: u8| Some(b % 10).filter(|&h| h != 0);
    let tuzdyks = [tuzdyk(head[18]), tuzdyk(head[19])];
    let mut holes = [0u8; CYCLE];
    for (i, h) in holes.iter_mut().enumerate() {
        *h = head[i] % 32;
    }
    // A tuzdyk holds no stones (South's is in North's row, cycle 9..18).
    if let Some(h) = tuzdyks[0] {
        holes[8 + h as usize] = 0;
    }
    if let Some(h) = tuzdyks[1] {
        holes[h as usize - 1] = 0;
    }
    // Too many stones on the board: empty holes from the end until they fit.
    let mut board: u32 = holes.iter().map(|&h| h as u32).sum();
    for h in holes.iter_mut().rev() {
        if board <= TOTAL_STONES {
            break;
        }
        board -= *h as u32;
        *h = 0;
    }
    let kazans = TOTAL_STONES - board;
    let south = head[20] as u32 * (kazans + 1) / 256;
    let side = if head[21] & 1 == 0 {
        Side::South
    } else {
        Side::North
    };
    let number = 1 + (head[21] >> 1) as u32;
    let pos = Position::new(
        holes,
        [south as u8, (kazans - south) as u8],
        tuzdyks,
        side,
        number,
    )
    .ok()?;
    Some((pos, rest))
}

/// The bytes [`position`] reads back as `pos` (its move number modulo 128):
/// how seeds are written.
pub fn position_bytes(pos: &Position) -> [u8; POSITION_BYTES] {
    let mut out = [0u8; POSITION_BYTES];
    out[..CYCLE].copy_from_slice(pos.holes());
    out[18] = pos.tuzdyk(Side::South).unwrap_or(0);
    out[19] = pos.tuzdyk(Side::North).unwrap_or(0);
    let kazans = TOTAL_STONES - pos.stones_on_board();
    // The smallest byte whose share of the kazans is South's kazan.
    let south = pos.kazan(Side::South) as u32;
    out[20] = (0..=255u32)
        .find(|&b| b * (kazans + 1) / 256 == south)
        .unwrap_or(255) as u8;
    out[21] = pos.side_to_move().index() as u8 | (((pos.move_number() - 1) % 128) << 1) as u8;
    out
}

/// Stones of the tables [`small_tables`] holds.
pub const SMALL_TABLES: u32 = togyz_gen::fixture::SMALL_STONES;

/// The DTM tables for 1..=[`SMALL_TABLES`] stones, solved and written once
/// per process into a temporary folder, opened with a small cache.
pub fn small_tables() -> &'static Tablebase {
    static TB: OnceLock<Tablebase> = OnceLock::new();
    TB.get_or_init(|| {
        Tablebase::open_with_cache([togyz_gen::fixture::small_tables()], 4 << 20)
            .expect("tables just written")
    })
}
