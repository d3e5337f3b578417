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
use togyz_tb::raw::index::{Layout, CONFIG_COUNT};
use togyz_tb::{Metric, Value};

/// The WDL table format.
pub struct WdlOnly;

impl TableFormat for WdlOnly {
    const METRIC: Metric = Metric::Dtc;
    const DISTANCES: bool = false;
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
        contents: Contents,
        first_board: u64,
        splits: &[u16],
        raw: &mut Vec<u8>,
    ) -> Result<Census, WriteError> {
        let layout = Layout::new(n);
        let mut c = Census::default();
        // Configuration by configuration: whether it is held is asked once.
        let (mut gb, mut rest) = (first_board, splits);
        while !rest.is_empty() {
            let config = layout.config_of(gb);
            let left = layout.global_board(config + 1, 0) - gb;
            let (now, later) = rest.split_at((left as usize).min(rest.len()));
            if !contents.holds_config(config) {
                raw.resize(raw.len() + now.len(), ABSENT_SPLIT);
            } else {
                for (gb, &s) in (gb..).zip(now) {
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
            }
            gb += now.len() as u64;
            rest = later;
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
/// board, in index order. The boards the table does not hold, of which a
/// WDL level solves no unit, come as zeros ([`WdlOnly`] writes them as
/// absent whatever they are).
pub struct SplitStream {
    values: LevelStream,
    n: u32,
    layout: Layout,
    contents: Contents,
    /// The next board's global index, and its configuration.
    board: u64,
    config: usize,
    buffer: Vec<u16>,
}

impl SplitStream {
    /// Streams level `n`'s draw splits of the boards `contents` holds from
    /// the unit files in `dir`.
    pub fn new(dir: &Path, n: u32, contents: Contents) -> SplitStream {
        let held = (0..CONFIG_COUNT)
            .filter(|&c| contents.holds_config(c))
            .fold(0u128, |m, c| m | 1 << c);
        SplitStream {
            values: LevelStream::of_configs(dir, n, held),
            n,
            layout: Layout::new(n),
            contents,
            board: 0,
            config: 0,
            buffer: Vec::new(),
        }
    }
}

impl ValueStream for SplitStream {
    /// `count` boards' draw splits; each board's values are checked to
    /// have one ([`draw_split`]).
    fn read(&mut self, mut count: usize, out: &mut Vec<u16>) -> Result<(), WriteError> {
        let n = self.n;
        let per = n as usize + 1;
        while count > 0 {
            let end = self.layout.global_board(self.config + 1, 0);
            if self.board == end {
                self.config += 1;
                continue;
            }
            let take = ((end - self.board) as usize).min(count);
            if !self.contents.holds_config(self.config) {
                out.resize(out.len() + take, 0);
                self.board += take as u64;
            } else {
                self.buffer.clear();
                self.values.read_into(take * per, &mut self.buffer)?;
                for board in self.buffer.chunks_exact(per) {
                    let wdl = board.iter().map(|&v| Value::unpack(v).wdl());
                    out.push(draw_split(n, self.board, wdl)? as u16);
                    self.board += 1;
                }
            }
            count -= take;
        }
        Ok(())
    }
}
