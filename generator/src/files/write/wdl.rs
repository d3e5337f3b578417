//! WDL tables (`docs/format.md`, "WDL tables"): a DTC table's WDL section
//! alone, one draw split a board, without the distance section, of the
//! boards with a tuzdyk (those of the configuration without one hold
//! [`ABSENT_SPLIT`]). The stream gives one draw split a board.

use crate::files::write::format::{DistanceBlock, TableFormat, WriteOptions};
use crate::files::write::sink::{Census, WriteError};
use crate::files::write::Dtc;
use crate::solve::score::WdlLevel;
use togyz_tb::raw::format::{Contents, ABSENT_SPLIT};
use togyz_tb::raw::index::Layout;
use togyz_tb::Metric;

/// The WDL table format.
pub struct WdlOnly;

impl TableFormat for WdlOnly {
    const METRIC: Metric = Metric::Dtc;
    const CONTENTS: Contents = Contents::Wdl;
    const BLOCKS: WriteOptions = Dtc::BLOCKS;
    const WDL_LEVEL: i32 = Dtc::WDL_LEVEL;
    const DISTANCE_LEVEL: i32 = Dtc::DISTANCE_LEVEL;
    // The boards left out have no split: the levels above such a level
    // read it back from its file.
    const KEEPS_WDL: bool = false;
    type ByProduct = WdlLevel;

    fn stream_per_board(_n: u32) -> u64 {
        1
    }

    fn check(n: u32, blocks: &WriteOptions) -> Result<(), WriteError> {
        Dtc::check(n, blocks)
    }

    fn encode_wdl(
        n: u32,
        first_board: u64,
        splits: &[u16],
        raw: &mut Vec<u8>,
    ) -> Result<Census, WriteError> {
        let absent = Self::CONTENTS.absent_boards(&Layout::new(n));
        let mut c = Census::default();
        for (gb, &s) in (first_board..).zip(splits) {
            if gb < absent {
                raw.push(ABSENT_SPLIT);
                continue;
            }
            if s as u32 > n {
                return Err(WriteError::SplitAbove {
                    n,
                    board: gb,
                    split: s,
                });
            }
            c.losses += s as u64;
            c.draws += 1;
            c.wins += (n - s as u32) as u64;
            raw.push(s as u8);
        }
        Ok(c)
    }

    fn encode_distance(_at: &DistanceBlock, _values: &[u16], _raw: &mut Vec<u8>) {
        unreachable!("a table without distances has no distance section")
    }

    fn by_product(n: u32, splits: Vec<u8>) -> Result<WdlLevel, WriteError> {
        Ok(WdlLevel::from_splits(n, splits)?)
    }
}
