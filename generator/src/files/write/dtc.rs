//! The DTC format (`docs/format.md`, DTC tables): the WDL section as one
//! draw split a board (one byte), the distance section as the DTC of every
//! won position. Draws, one a board, are left out, and so are losses, which
//! one ply of search over the wins recovers: zero entries in their number
//! fill each distance block to its fixed length, which zstd stores in a few
//! bytes.

use crate::files::write::format::{DistanceBlock, TableFormat, WriteOptions};
use crate::files::write::sink::{push_entry, Census, WriteError};
use crate::solve::score::{draw_split, losses_end, WdlLevel};
use togyz_tb::raw::format::{blocks_nest, Contents, DTC_BLOCK_BOARDS, DTC_WDL_BLOCK_BOARDS};
use togyz_tb::{Metric, Value};

/// zstd level of a DTC table's WDL section (65536 boards a block). On the
/// 7-stone level (`docs/performance.md`, "DTC table files"): 0.0486 bits a
/// position in 2.2 s; level 19 0.0478 in 8.1 s, level 9 0.0583 in 0.2 s.
pub const WDL_LEVEL: i32 = 15;
/// zstd level of a DTC table's distance section (262144 entries a block).
/// On the 7-stone level: 0.336 bits a position in 15 s; level 19 0.327 in
/// 39 s, level 9 0.411 in 1.7 s.
pub const DISTANCE_LEVEL: i32 = 15;

/// The DTC table format.
pub struct Dtc;

impl TableFormat for Dtc {
    const METRIC: Metric = Metric::Dtc;
    const BLOCKS: WriteOptions = WriteOptions {
        wdl_block_boards: DTC_WDL_BLOCK_BOARDS,
        distance_block_positions: DTC_BLOCK_BOARDS,
    };
    const WDL_LEVEL: i32 = WDL_LEVEL;
    const DISTANCE_LEVEL: i32 = DISTANCE_LEVEL;
    const KEEPS_WDL: bool = true;
    type ByProduct = WdlLevel;

    fn check(n: u32, blocks: &WriteOptions) -> Result<(), WriteError> {
        // A board of no stones has no decisive position to store.
        if n == 0 {
            return Err(WriteError::TooManyStones(n));
        }
        let (wdl, distance) = (blocks.wdl_block_boards, blocks.distance_block_positions);
        // The decoder finds a distance block's splits in one WDL block.
        if !blocks_nest(Metric::Dtc, wdl, distance) {
            return Err(WriteError::BlocksNotNested { wdl, distance });
        }
        Ok(())
    }

    fn encode_wdl(
        n: u32,
        _contents: Contents,
        first_board: u64,
        values: &[u16],
        raw: &mut Vec<u8>,
    ) -> Result<Census, WriteError> {
        let mut c = Census::default();
        for (gb, board) in (first_board..).zip(values.chunks_exact(n as usize + 1)) {
            let wdl = board.iter().map(|&v| {
                let v = Value::unpack(v);
                c.add(v);
                v.wdl()
            });
            raw.push(draw_split(n, gb, wdl)? as u8);
        }
        Ok(c)
    }

    fn encode_distance(at: &DistanceBlock, values: &[u16], raw: &mut Vec<u8>) {
        // The wins of each board, above its draw; the losses below it are
        // counted and stored as zeros at the block's end. Each board's
        // split is found again here (the WDL section checked that it has
        // one), so the level's splits need not be held while it is written.
        let DistanceBlock { n, width } = *at;
        let mut losses = 0;
        for board in values.chunks_exact(n as usize + 1) {
            let s = losses_end(board.iter().map(|&v| Value::unpack(v).wdl())) as usize;
            losses += s;
            for &v in &board[s + 1..] {
                push_entry(raw, width, Value::unpack(v).distance().unwrap_or(0) as u16);
            }
        }
        raw.resize(raw.len() + losses * width as usize, 0);
    }

    fn by_product(n: u32, splits: Vec<u8>) -> Result<WdlLevel, WriteError> {
        Ok(WdlLevel::from_splits(n, splits)?)
    }
}
