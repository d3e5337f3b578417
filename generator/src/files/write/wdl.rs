//! WDL tables (`docs/format.md`, "WDL tables"): a DTC table's WDL section
//! alone, one draw split a board, without the distance section, of the
//! boards with a tuzdyk (those of the configuration without one hold
//! [`ABSENT_SPLIT`]). The stream gives one draw split a board: from the
//! splits in memory, or from a level's unit files ([`SplitStream`]).

use crate::files::work::LevelStream;
use crate::files::write::format::{DistanceBlock, TableFormat, WriteOptions};
use crate::files::write::sink::{Census, ValueStream, WriteError};
use crate::files::write::Dtc;
use crate::solve::score::{draw_split, WdlLevel};
use std::path::Path;
use togyz_tb::raw::format::{Contents, ABSENT_SPLIT};
use togyz_tb::raw::index::Layout;
use togyz_tb::{Metric, Value};

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

/// A WDL table's stream from a level's unit files: one draw split a
/// board, in index order. The boards without a tuzdyk, which no unit of a
/// WDL level holds, are the first configuration's and come first, as
/// zeros ([`WdlOnly`] writes them as absent whatever they are).
pub struct SplitStream {
    values: LevelStream,
    n: u32,
    /// The next board's global index.
    board: u64,
    /// The boards without a tuzdyk.
    absent: u64,
    buffer: Vec<u16>,
}

impl SplitStream {
    /// Streams level `n`'s draw splits from the unit files in `dir`.
    pub fn new(dir: &Path, n: u32) -> SplitStream {
        SplitStream {
            // Configuration 0, the one without a tuzdyk, is left out.
            values: LevelStream::from_config(dir, n, 1),
            n,
            board: 0,
            absent: Contents::Wdl.absent_boards(&Layout::new(n)),
            buffer: Vec::new(),
        }
    }
}

impl ValueStream for SplitStream {
    /// `count` boards' draw splits; each board's values are checked to
    /// have one ([`draw_split`]).
    fn read(&mut self, count: usize, out: &mut Vec<u16>) -> Result<(), WriteError> {
        let per = self.n as usize + 1;
        let blank = (self.absent.saturating_sub(self.board) as usize).min(count);
        out.resize(out.len() + blank, 0);
        self.board += blank as u64;
        self.buffer.clear();
        self.values
            .read_into((count - blank) * per, &mut self.buffer)?;
        for board in self.buffer.chunks_exact(per) {
            let wdl = board.iter().map(|&v| Value::unpack(v).wdl());
            out.push(draw_split(self.n, self.board, wdl)? as u16);
            self.board += 1;
        }
        Ok(())
    }
}
