//! Whole-table decoding of DTC tables (the DTM side is [`crate::decode`],
//! which calls [`fill`] for DTC tables), and the draw splits of any table
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
                    let t = file.thresholds_in(&data, block, (i as usize) * h.wdl_width as usize)?;
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
/// Runs in parallel over the WDL blocks.
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
    let per = h.wdl_block_boards as usize;
    out.par_chunks_mut(per * k).enumerate().try_for_each_init(
        || (Vec::new(), Vec::new(), u64::MAX),
        |(wdl, dist, dist_block), (bi, chunk)| -> Result<(), TableError> {
            let wb = bi as u64;
            file.read_block_into(Section::Wdl, wb, wdl)?;
            for (i, cells) in chunk.chunks_mut(k).enumerate() {
                let gb = wb * per as u64 + i as u64;
                let t = file.thresholds_in(wdl, wb, i)?;
                for (j, c) in cells.iter_mut().enumerate() {
                    let j = j as u32;
                    let v = match file.distance_location(gb, j, t) {
                        None => togyz_probe::Value::Draw,
                        Some((block, at)) => {
                            if *dist_block != block {
                                *dist_block = u64::MAX;
                                file.read_block_into(Section::Dtm, block, dist)?;
                                *dist_block = block;
                            }
                            let d = file.distance_in(dist, block, at)?;
                            file.combine(wdl_at(t, j), d, block)?
                        }
                    };
                    *c = v.pack().and_then(cell).ok_or_else(|| TableError::BadEntry {
                        path: file.path().to_path_buf(),
                        section: Section::Dtm,
                        block: 0,
                        detail: "distance too large for the cells".into(),
                    })?;
                }
            }
            Ok(())
        },
    )
}
