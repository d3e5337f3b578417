//! Whole-table decoding of DTC tables (the DTM side is [`crate::decode`],
//! which calls `fill` for DTC tables), and the draw splits of any table
//! as a [`WdlLevel`], which is all a DTC solve needs of the levels below.

use rayon::prelude::*;
use togyz_probe::raw::format::{wdl_at, Section, TableError, TableFile};
use togyz_probe::Metric;

use crate::score::{draw_split, ScoreError, WdlLevel};

/// Why a level's win/draw/loss could not be read as draw splits.
#[derive(Debug, thiserror::Error)]
pub enum SplitsError {
    /// The table is damaged or unreadable.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A board of the table is not one draw split.
    #[error(transparent)]
    Score(#[from] ScoreError),
}

/// The draw splits of every board of `file`, a DTM or a DTC table, read
/// from its WDL section alone.
///
/// # Errors
///
/// [`SplitsError::Table`] for a damaged block; [`SplitsError::Score`]
/// naming a board of a DTM table that is not one draw split.
pub fn wdl_level(file: &TableFile) -> Result<WdlLevel, SplitsError> {
    let h = file.header();
    let n = h.stones;
    let per = h.wdl_block_boards as u64;
    let blocks: Vec<Vec<u8>> = (0..h.wdl_blocks)
        .into_par_iter()
        .map(|block| -> Result<Vec<u8>, SplitsError> {
            let data = file.read_block(Section::Wdl, block)?;
            let first = block * per;
            let count = (h.boards - first).min(per);
            (0..count)
                .map(|i| {
                    let gb = first + i;
                    let t =
                        file.thresholds_in(&data, block, (i as usize) * h.wdl_width as usize)?;
                    let results = (0..=n).map(|j| wdl_at(t, j));
                    Ok(draw_split(n, gb, results)? as u8)
                })
                .collect()
        })
        .collect::<Result<_, _>>()?;
    Ok(WdlLevel::from_splits(n, blocks.concat())?)
}

/// Fills `out` (one cell a position, index order) with the packed values
/// of DTC table `file`, stored as `cell(packed)`; a `None` is an error.
/// Runs in parallel over the distance blocks, each decoded in one pass
/// (its losses, board by board, then its wins: `docs/format.md`).
///
/// # Errors
///
/// [`TableError`] for a damaged block or a value the cells cannot hold.
pub(crate) fn fill<T: Copy + Send>(
    file: &TableFile,
    cell: &(impl Fn(u16) -> Option<T> + Sync),
    out: &mut [T],
) -> Result<(), TableError> {
    let h = file.header();
    debug_assert_eq!(h.metric, Metric::Dtc);
    let k = file.layout().kazans() as usize;
    let n = h.stones as usize;
    let per = h.dtm_block_positions as usize;
    let width = h.dtm_width as usize;
    out.par_chunks_mut(per * k).enumerate().try_for_each_init(
        || (Vec::new(), Vec::new(), u64::MAX),
        |(wdl, dist, wdl_block), (bi, chunk)| -> Result<(), TableError> {
            let block = bi as u64;
            let first = block * per as u64;
            let (wb, at) = file.wdl_location(first);
            if *wdl_block != wb {
                *wdl_block = u64::MAX;
                file.read_block_into(Section::Wdl, wb, wdl)?;
                *wdl_block = wb;
            }
            file.read_block_into(Section::Dtm, block, dist)?;
            let boards = chunk.len() / k;
            let splits = (0..boards)
                .map(|i| Ok(file.thresholds_in(wdl, wb, at + i)?.0))
                .collect::<Result<Vec<u32>, TableError>>()?;
            let mut loss_at = 0usize;
            let mut win_at = splits.iter().map(|&s| s as usize).sum::<usize>();
            if win_at > boards * n {
                return Err(bad(file, block, "the draw splits do not add up"));
            }
            for (cells, &s) in chunk.chunks_mut(k).zip(&splits) {
                for (j, c) in cells.iter_mut().enumerate() {
                    let j = j as u32;
                    let t = (s, s + 1);
                    let v = if j == s {
                        togyz_probe::Value::Draw
                    } else {
                        let e = if j < s { &mut loss_at } else { &mut win_at };
                        let d = file.distance_in(dist, block, *e * width)?;
                        *e += 1;
                        file.combine(wdl_at(t, j), d, block)?
                    };
                    *c = v
                        .pack()
                        .and_then(cell)
                        .ok_or_else(|| bad(file, block, "distance too large for the cells"))?;
                }
            }
            Ok(())
        },
    )
}

fn bad(file: &TableFile, block: u64, detail: &str) -> TableError {
    TableError::BadEntry {
        path: file.path().to_path_buf(),
        section: Section::Dtm,
        block,
        detail: detail.into(),
    }
}
