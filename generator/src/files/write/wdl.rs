//! WDL tables (`docs/format.md`, "WDL tables"): a DTC table's WDL section
//! alone, one draw split a board, without the distance section, of the
//! boards with a tuzdyk (those of the configuration without one hold
//! [`ABSENT_SPLIT`]). The stream gives one draw split a board: from the
//! splits in memory, or from a level's unit files ([`SplitStream`]).

use crate::files::work::{Cells, LevelStream};
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
/// board, in index order, read as such from units of draw splits, or
/// found from the values of units that hold them (units solved with
/// their distances, [`Cells`]). The boards the table does not hold, of which a
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
            if self.config == CONFIG_COUNT {
                return Err(WriteError::WrongLength {
                    n,
                    expected: self.layout.boards(),
                    found: self.layout.boards() + count as u64,
                });
            }
            let end = self.layout.global_board(self.config + 1, 0);
            if self.board == end {
                self.config += 1;
                continue;
            }
            let take = ((end - self.board) as usize).min(count);
            if !self.contents.holds_config(self.config) {
                out.resize(out.len() + take, 0);
                self.board += take as u64;
            } else if self.values.cells()? == Cells::Splits {
                self.values.read_into(take, out)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::work::{write_unit, write_unit_splits};
    use crate::solve::cells::{LevelValues, UnitValues};
    use crate::solve::unit::{held_units, UnitId};

    /// A WDL level streams the same draw splits whether its unit files
    /// hold them, hold the values they come from (units solved with
    /// their distances, as a run of an older build leaves them), or some
    /// of each; a stream of values refuses a unit of draw splits.
    #[test]
    fn units_of_draw_splits_stream_as_units_of_values_do() {
        let n = 5;
        let (levels, _) = crate::solve::dtc::solve_all(n).unwrap();
        let (level, layout, k) = (&levels[n as usize], Layout::new(n), n as usize + 1);
        let cells = |c: usize| -> Vec<u16> {
            let from = layout.global_board(c, 0) as usize * k;
            let len = layout.config_boards(c) as usize * k;
            (from..from + len).map(|i| level.get(i)).collect()
        };
        let splits = |c: usize| -> Vec<u8> {
            cells(c)
                .chunks(k)
                .zip(layout.global_board(c, 0)..)
                .map(|(b, gb)| {
                    let wdl = b.iter().map(|&v| Value::unpack(v).wdl());
                    draw_split(n, gb, wdl).unwrap() as u8
                })
                .collect()
        };
        let units = held_units(n, Contents::Wdl);
        let write = |dir: &Path, as_splits: &dyn Fn(usize) -> bool| {
            for (i, &u) in units.iter().enumerate() {
                if as_splits(i) {
                    let s: Vec<(usize, Vec<u8>)> =
                        u.configs().into_iter().map(|c| (c, splits(c))).collect();
                    write_unit_splits(dir, n, u, &s).unwrap();
                } else {
                    let v: UnitValues = u
                        .configs()
                        .into_iter()
                        .map(|c| (c, LevelValues::from_packed(cells(c))))
                        .collect();
                    write_unit(dir, n, u, &v).unwrap();
                }
            }
        };
        let stream = |as_splits: &dyn Fn(usize) -> bool| -> Vec<u16> {
            let dir = tempfile::tempdir().unwrap();
            write(dir.path(), as_splits);
            let mut out = Vec::new();
            let mut s = SplitStream::new(dir.path(), n, Contents::Wdl);
            s.read(3, &mut out).unwrap();
            s.read(layout.boards() as usize - 3, &mut out).unwrap();
            assert!(s.read(1, &mut out).is_err(), "no more boards");
            out
        };
        let from_values = stream(&|_| false);
        let first_held = layout.global_board(1, 0) as usize;
        assert!(from_values[first_held..].iter().any(|&s| s > 0));
        assert_eq!(stream(&|_| true), from_values);
        assert_eq!(stream(&|i| i % 2 == 0), from_values);

        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &|_| true);
        let mut values = LevelStream::of_configs(dir.path(), n, 1 << units[0].first);
        assert_eq!(values.cells().unwrap(), Cells::Splits);
        // The unit without a tuzdyk, which a WDL level does not hold, as
        // values: the stream of values reaches the draw splits after it.
        let none = UnitId::of(0);
        write_unit(
            dir.path(),
            n,
            none,
            &vec![(0, LevelValues::from_packed(cells(0)))],
        )
        .unwrap();
        let e = LevelStream::new(dir.path(), n)
            .read_into(layout.positions() as usize, &mut Vec::new())
            .unwrap_err();
        assert!(e.to_string().contains("draw splits"), "{e}");
        // A unit file of draw splits of the wrong length is not finished.
        let u = UnitId::of(1);
        let short: Vec<(usize, Vec<u8>)> =
            u.configs().into_iter().map(|c| (c, vec![0; 3])).collect();
        let fresh = tempfile::tempdir().unwrap();
        write_unit_splits(fresh.path(), n, u, &short).unwrap();
        assert!(!crate::files::work::unit_done(fresh.path(), n, u));
    }
}
