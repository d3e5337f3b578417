//! The DTM format (`docs/format.md`): the WDL section as the thresholds
//! `(draw_from, win_from)` of each board, the distance section as the DTM
//! of every position (0 for a draw).

use crate::files::write::format::{DistanceBlock, TableFormat, WriteOptions};
use crate::files::write::sink::{push_entry, Census, WriteError};
use togyz_tb::raw::format::{
    pack_thresholds, wdl_width_for, Contents, DISTANCE_BLOCK_POSITIONS, WDL_BLOCK_BOARDS,
};
use togyz_tb::{Metric, Value, Wdl};

/// zstd level of a DTM table's WDL section. On the 8-stone table (16384
/// boards a block, two busy cores): level 9 gives 3.33 MB at 36 MB/s,
/// level 6 3.51 MB at 120 MB/s, level 12 3.30 MB at 18 MB/s
/// (docs/format.md).
pub const WDL_LEVEL: i32 = 9;
/// zstd level of a DTM table's distance section. On the 8-stone table
/// (65536 positions a block): level 9 gives 24.2 MB at 141 MB/s, level 6
/// 25.7 MB at 249 MB/s, level 12 23.5 MB at 25 MB/s.
pub const DISTANCE_LEVEL: i32 = 9;

/// The DTM table format.
pub struct Dtm;

impl TableFormat for Dtm {
    const METRIC: Metric = Metric::Dtm;
    const BLOCKS: WriteOptions = WriteOptions {
        wdl_block_boards: WDL_BLOCK_BOARDS,
        distance_block_positions: DISTANCE_BLOCK_POSITIONS,
    };
    const WDL_LEVEL: i32 = WDL_LEVEL;
    const DISTANCE_LEVEL: i32 = DISTANCE_LEVEL;
    const KEEPS_WDL: bool = false;
    type ByProduct = ();

    fn encode_wdl(
        n: u32,
        _contents: Contents,
        first_board: u64,
        values: &[u16],
        raw: &mut Vec<u8>,
    ) -> Result<Census, WriteError> {
        let width = wdl_width_for(n);
        let mut c = Census::default();
        for (gb, board) in (first_board..).zip(values.chunks_exact(n as usize + 1)) {
            let (d, w) = thresholds(n, gb, board, &mut c)?;
            push_entry(raw, width, pack_thresholds(n, d, w));
        }
        Ok(c)
    }

    fn encode_distance(at: &DistanceBlock, values: &[u16], raw: &mut Vec<u8>) {
        for &v in values {
            push_entry(
                raw,
                at.width,
                Value::unpack(v).distance().unwrap_or(0) as u16,
            );
        }
    }

    fn by_product(_n: u32, _wdl: Vec<u8>) -> Result<(), WriteError> {
        Ok(())
    }
}

/// The thresholds `(draw_from, win_from)` of one board's `n + 1` values,
/// counting them into `census`; an error unless they run losses, draws,
/// wins.
fn thresholds(
    n: u32,
    gb: u64,
    board: &[u16],
    census: &mut Census,
) -> Result<(u32, u32), WriteError> {
    let mut draw_from = None;
    let mut win_from = None;
    let mut previous = Wdl::Loss;
    for (j, &v) in board.iter().enumerate() {
        let value = Value::unpack(v);
        let wdl = value.wdl();
        if wdl < previous {
            return Err(WriteError::NotMonotone {
                n,
                index: gb * board.len() as u64 + j as u64,
                board: gb,
                kazan: j as u32,
                previous,
                found: wdl,
            });
        }
        census.add(value);
        match value {
            Value::Loss(_) => {}
            Value::Draw => {
                draw_from.get_or_insert(j as u32);
            }
            Value::Win(_) => {
                draw_from.get_or_insert(j as u32);
                win_from.get_or_insert(j as u32);
            }
        }
        previous = wdl;
    }
    let end = board.len() as u32;
    Ok((draw_from.unwrap_or(end), win_from.unwrap_or(end)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_of_runs() {
        let pack = |v: Value| v.pack().unwrap();
        let mut c = Census::default();
        let b = [
            pack(Value::Loss(3)),
            pack(Value::Draw),
            pack(Value::Win(5)),
            pack(Value::Win(1)),
        ];
        assert_eq!(thresholds(3, 0, &b, &mut c).unwrap(), (1, 2));
        assert_eq!(
            (c.wins, c.draws, c.losses, c.longest_win, c.longest_loss),
            (2, 1, 1, 5, 3)
        );
        let all_loss = [pack(Value::Loss(0)); 3];
        assert_eq!(thresholds(2, 0, &all_loss, &mut c).unwrap(), (3, 3));
        let all_win = [pack(Value::Win(2)); 3];
        assert_eq!(thresholds(2, 0, &all_win, &mut c).unwrap(), (0, 0));
        let bad = [pack(Value::Draw), pack(Value::Loss(4)), pack(Value::Win(1))];
        match thresholds(2, 7, &bad, &mut c) {
            Err(WriteError::NotMonotone {
                index,
                board,
                kazan,
                previous,
                found,
                ..
            }) => {
                assert_eq!((index, board, kazan), (22, 7, 1));
                assert_eq!((previous, found), (Wdl::Draw, Wdl::Loss));
            }
            other => panic!("{other:?}"),
        }
    }
}
