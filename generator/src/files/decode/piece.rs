//! Decoding a piece of a table, a run of entries within one distance
//! block, for either metric: a DTM block holds every position's distance,
//! a DTC block the wins of its boards, found through their draw splits
//! (`docs/format.md`). The blocks a worker decompressed are kept in its
//! [`Scratch`] from piece to piece.

use togyz_tb::raw::format::{wdl_at, Section, TableFile};
use togyz_tb::TableError;
use togyz_tb::{Metric, Value, Wdl};

use crate::files::recover::UNRECOVERED;

/// A worker's decompressed blocks, reused from piece to piece.
pub(crate) struct Scratch {
    /// The distance block last read.
    distance: Vec<u8>,
    wdl: Vec<u8>,
    wdl_block: u64,
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch {
            distance: Vec::new(),
            wdl: Vec::new(),
            wdl_block: u64::MAX,
        }
    }
}

impl Scratch {
    /// WDL block `wb` of `file`, read unless it is the one last read.
    fn wdl(&mut self, file: &TableFile, wb: u64) -> Result<&[u8], TableError> {
        if wb != self.wdl_block {
            self.wdl_block = u64::MAX;
            file.read_block_into(Section::Wdl, wb, &mut self.wdl)?;
            self.wdl_block = wb;
        }
        Ok(&self.wdl)
    }
}

/// Positions a distance block of `file` covers: a DTM block counts
/// positions, a DTC block boards.
pub(crate) fn block_positions(file: &TableFile) -> u64 {
    let per = file.header().distance_block_positions as u64;
    match file.metric() {
        Metric::Dtm => per,
        Metric::Dtc => per * file.layout().kazans(),
    }
}

/// Decodes the entries of `file` from position `first` on into `out`
/// (all within one distance block), stored as `cell(packed)`; a `None` is
/// an error. A DTC table's losses, which it does not store, are decoded as
/// [`UNRECOVERED`]: [`crate::files::recover::recover_losses`] fills them
/// in.
///
/// # Errors
///
/// [`TableError`] for a damaged block or a value the cells cannot hold.
pub(crate) fn decode_piece<T: Copy>(
    file: &TableFile,
    s: &mut Scratch,
    first: u64,
    out: &mut [T],
    cell: &impl Fn(u16) -> Option<T>,
) -> Result<(), TableError> {
    if out.is_empty() {
        return Ok(());
    }
    let block = first / block_positions(file);
    file.read_block_into(Section::Distance, block, &mut s.distance)?;
    let piece = Piece {
        file,
        block,
        first,
        s,
        out,
        cell,
    };
    match file.metric() {
        Metric::Dtm => piece.dtm(),
        Metric::Dtc => piece.dtc(),
    }
}

/// A piece to decode: its table, its distance block (read into the
/// worker's [`Scratch`]), its first position, where its cells go and how
/// a packed value becomes a cell.
struct Piece<'a, T, C> {
    file: &'a TableFile,
    block: u64,
    first: u64,
    s: &'a mut Scratch,
    out: &'a mut [T],
    cell: &'a C,
}

impl<T: Copy, C: Fn(u16) -> Option<T>> Piece<'_, T, C> {
    /// The piece of a DTM table: every position's distance is stored.
    fn dtm(self) -> Result<(), TableError> {
        let (file, block, first) = (self.file, self.block, self.first);
        let h = file.header();
        let kazans = file.layout().kazans();
        let width = h.distance_width as usize;
        let skip = (first - block * h.distance_block_positions as u64) as usize;
        let mut gb = first / kazans;
        let mut j = (first % kazans) as u32;
        let mut k = 0;
        while k < self.out.len() {
            let (wb, at) = file.wdl_location(gb);
            let t = file.thresholds_in(self.s.wdl(file, wb)?, wb, at)?;
            while (j as u64) < kazans && k < self.out.len() {
                let d = file.distance_in(&self.s.distance, block, (skip + k) * width)?;
                self.out[k] = self.to_cell(file.combine(wdl_at(t, j), d, block)?)?;
                k += 1;
                j += 1;
            }
            gb += 1;
            j = 0;
        }
        Ok(())
    }

    /// The piece of a DTC table: only the wins' distances are stored. A
    /// part of a block is decoded as well as a whole one: the splits
    /// before its first board say where its wins start (the entry formula
    /// of `docs/format.md`, "DTC tables").
    fn dtc(self) -> Result<(), TableError> {
        let (file, block, first) = (self.file, self.block, self.first);
        let h = file.header();
        let n = h.stones as u64;
        let k = n + 1;
        let width = h.distance_width as usize;
        let mut gb = first / k;
        // The block's boards, all in one WDL block (P divides B).
        let f = block * h.distance_block_positions as u64;
        let (wb, at) = file.wdl_location(f);
        let wdl = self.s.wdl(file, wb)?;
        let splits = (0..=(first + self.out.len() as u64 - 1) / k - f)
            .map(|i| Ok(file.thresholds_in(wdl, wb, at + i as usize)?.0 as u64))
            .collect::<Result<Vec<u64>, TableError>>()?;
        // Wins of the block's boards before `gb`: a board of split s has n - s.
        let mut wins = splits[..(gb - f) as usize]
            .iter()
            .map(|&x| n - x)
            .sum::<u64>();
        let unrecovered = self.to_cell(UNRECOVERED)?;
        let draw = self.to_cell(Value::Draw)?;
        let mut j = first % k;
        let mut i = 0;
        while i < self.out.len() {
            let split = splits[(gb - f) as usize];
            while j < k && i < self.out.len() {
                self.out[i] = if j < split {
                    unrecovered
                } else if j == split {
                    draw
                } else {
                    let entry = wins + j - split - 1;
                    let d = file.distance_in(&self.s.distance, block, entry as usize * width)?;
                    self.to_cell(file.combine(Wdl::Win, d, block)?)?
                };
                i += 1;
                j += 1;
            }
            wins += n - split;
            gb += 1;
            j = 0;
        }
        Ok(())
    }

    /// `cell(v.pack())`, or an error naming the distance block if the
    /// cells cannot hold it.
    #[inline]
    fn to_cell(&self, v: Value) -> Result<T, TableError> {
        // combine() bounds a distance by the header's longest, which the
        // header checks keep within u16 entries.
        v.pack()
            .and_then(self.cell)
            .ok_or_else(|| TableError::BadEntry {
                path: self.file.path().to_path_buf(),
                section: Section::Distance,
                block: self.block,
                detail: "distance too large for the cells".into(),
            })
    }
}
