//! What a table's metric decides of its file (`docs/format.md`), as the
//! one writer ([`super::write_table_from`]) asks it: the block sizes and
//! zstd levels, how a block of values becomes WDL entries (counting the
//! census on the way) and distance entries; the file's per-metric facts
//! (entry widths, entries a block) are the reader's, in
//! `togyz_tb::raw::format`. Two formats implement it,
//! [`super::Dtm`] and [`super::Dtc`]; the writer is compiled for each, so
//! the metric is never asked per value at run time.

use crate::files::write::sink::{Census, WriteError};
use togyz_tb::raw::format::{distance_entries_of, wdl_entry_width, Contents, MAX_BLOCK_BYTES};
use togyz_tb::Metric;

/// Block geometry of a written table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// Boards per WDL block.
    pub wdl_block_boards: u32,
    /// Positions per distance block of a DTM table; boards per distance
    /// block of a DTC table (a divisor of `wdl_block_boards`).
    pub distance_block_positions: u32,
}

/// A distance block as its encoder sees it.
pub(crate) struct DistanceBlock {
    /// Stones of the table.
    pub(crate) n: u32,
    /// Bytes an entry.
    pub(crate) width: u8,
}

/// One metric's table format, as the writer sees it.
pub(crate) trait TableFormat {
    /// The metric the header names.
    const METRIC: Metric;
    /// Whether the table has a distance section: contents of every
    /// position's value.
    const DISTANCES: bool = true;
    /// The block sizes written unless told otherwise.
    const BLOCKS: WriteOptions;
    /// zstd level of the WDL section.
    const WDL_LEVEL: i32;
    /// zstd level of the distance section.
    const DISTANCE_LEVEL: i32;
    /// Whether the by-product is the WDL section's raw bytes, kept while
    /// the table is written when the caller asks for it: DTC's are the
    /// draw splits ([`TableFormat::ByProduct`]).
    const KEEPS_WDL: bool;
    /// What writing the table finds on the way that the caller may keep
    /// (DTC: the level's win/draw/loss, which the levels above need).
    type ByProduct;

    /// Values the stream gives a board: every position's (`n + 1`), or
    /// one draw split.
    fn stream_per_board(n: u32) -> u64 {
        n as u64 + 1
    }

    /// The format's own demands on `n` and the block sizes, beyond the
    /// bounds every format has.
    ///
    /// # Errors
    ///
    /// [`WriteError::TooManyStones`], [`WriteError::BlocksNotNested`].
    fn check(_n: u32, _blocks: &WriteOptions) -> Result<(), WriteError> {
        Ok(())
    }

    /// Appends the WDL entries of the boards of `values` (whole boards,
    /// the first being global board `first_board`) of a table of
    /// `contents` to `raw`; returns their census.
    ///
    /// # Errors
    ///
    /// A board the format cannot hold ([`WriteError::NotMonotone`],
    /// [`WriteError::Score`]).
    fn encode_wdl(
        n: u32,
        contents: Contents,
        first_board: u64,
        values: &[u16],
        raw: &mut Vec<u8>,
    ) -> Result<Census, WriteError>;

    /// Appends the entries of distance block `at`, whose values are
    /// `values`, to `raw`.
    fn encode_distance(at: &DistanceBlock, values: &[u16], raw: &mut Vec<u8>);

    /// The by-product of the `n`-stone table from what its WDL section
    /// kept.
    ///
    /// # Errors
    ///
    /// [`WriteError::Score`] if the kept splits are not the level's.
    fn by_product(n: u32, wdl: Vec<u8>) -> Result<Self::ByProduct, WriteError>;
}

/// An error unless `blocks` are sizes format `F` can write for `n`
/// stones: at least one entry a block, at most [`MAX_BLOCK_BYTES`]
/// decompressed (2 bytes being the widest distance entry).
pub(crate) fn check_blocks<F: TableFormat>(
    n: u32,
    blocks: &WriteOptions,
) -> Result<(), WriteError> {
    F::check(n, blocks)?;
    let (wb, per) = (blocks.wdl_block_boards, blocks.distance_block_positions);
    if wb == 0
        || per == 0
        || wb as u64 * wdl_entry_width(F::METRIC, n) as u64 > MAX_BLOCK_BYTES
        || distance_entries_of(F::METRIC, n, per as u64) * 2 > MAX_BLOCK_BYTES
    {
        return Err(WriteError::BadOptions);
    }
    Ok(())
}
