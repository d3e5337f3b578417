//! A WDL table written again with another number of boards a WDL block
//! (`docs/format.md`, "WDL tables"): the same entries, cut finer or
//! coarser. A probe decompresses a whole block to read one board, so
//! smaller blocks make each cache miss of a search cheaper and let a
//! block cache of the same size hold more of the table, at some cost in
//! file size (docs/performance.md, "Smaller blocks for the search").

use std::path::Path;

use togyz_tb::raw::format::{Section, TableFile};
use togyz_tb::TableError;

use crate::files::write::{
    write_table_from, ValueStream, WdlOnly, WriteError, WriteOptions, WriteSummary,
};

/// Why a table could not be written again.
#[derive(Debug, thiserror::Error)]
pub enum ReblockError {
    /// The table to read is damaged or unreadable.
    #[error(transparent)]
    Table(#[from] TableError),
    /// Writing the new table failed (nothing is left of it).
    #[error(transparent)]
    Write(#[from] WriteError),
    /// Only WDL tables (no distance section) can be written again so.
    #[error("{}: only a WDL table (from `generate --wdl-from`) can be written with other blocks; this one has a distance section", .0.display())]
    HasDistances(std::path::PathBuf),
    /// The new table's census differs from the old one's (the new file
    /// is removed).
    #[error("{}: wrote {found:?} wins, draws and losses where the table read has {expected:?}", .path.display())]
    Census {
        /// The file written and removed.
        path: std::path::PathBuf,
        /// The table read's wins, draws and losses.
        expected: (u64, u64, u64),
        /// The new table's.
        found: (u64, u64, u64),
    },
}

/// Writes the WDL table `src` again into the folder `dir`, under its
/// usual name, with `boards` boards a WDL block, and returns what was
/// written. The entries are read back block by block, checked by the
/// reader's checksums, and the new file gets its own; its census is
/// checked against the old one's.
///
/// # Errors
///
/// [`ReblockError::HasDistances`] for a table with a distance section,
/// [`ReblockError::Table`] for a `src` that cannot be opened, and
/// [`ReblockError::Write`] with [`WriteError::Table`] for a block of it
/// that cannot be read (the checksums); [`ReblockError::Write`] when
/// writing fails, for a block size of 0 or one larger than a reader
/// accepts ([`WriteError::BadOptions`]) and when the file exists in `dir`
/// already (nothing is overwritten), [`ReblockError::Census`] when the
/// census differs.
pub fn reblock(src: &Path, dir: &Path, boards: u32) -> Result<WriteSummary, ReblockError> {
    let file = TableFile::open(src)?;
    let h = file.header();
    if h.contents.has_distances() {
        return Err(ReblockError::HasDistances(src.to_path_buf()));
    }
    let options = WriteOptions {
        wdl_block_boards: boards,
        // No distance section; the field is what a DTC table's would be,
        // a divisor of `boards` (the nesting check), 32768 where it can.
        distance_block_positions: 1 << boards.trailing_zeros().min(15),
    };
    let open = |_| {
        Ok(Blocks {
            file: &file,
            next: 0,
            data: Vec::new(),
            at: 0,
        })
    };
    let (summary, _) =
        write_table_from::<WdlOnly, _>(dir, h.stones, h.contents, open, Some(&options), false)?;
    if (summary.wins, summary.draws, summary.losses) != (h.wins, h.draws, h.losses) {
        let _ = std::fs::remove_file(&summary.path);
        return Err(ReblockError::Census {
            path: summary.path,
            expected: (h.wins, h.draws, h.losses),
            found: (summary.wins, summary.draws, summary.losses),
        });
    }
    Ok(summary)
}

/// The entries of a table's WDL section, one a board, block after block.
struct Blocks<'a> {
    file: &'a TableFile,
    /// The next block to read.
    next: u64,
    /// The block read last, and the first of its entries not yet given.
    data: Vec<u8>,
    at: usize,
}

impl ValueStream for Blocks<'_> {
    fn read(&mut self, mut count: usize, out: &mut Vec<u16>) -> Result<(), WriteError> {
        out.reserve(count);
        while count > 0 {
            if self.at == self.data.len() {
                if self.next >= self.file.header().wdl_blocks {
                    return Err(WriteError::ShortInput);
                }
                self.file
                    .read_block_into(Section::Wdl, self.next, &mut self.data)?;
                self.next += 1;
                self.at = 0;
            }
            let take = count.min(self.data.len() - self.at);
            out.extend(
                self.data[self.at..self.at + take]
                    .iter()
                    .map(|&b| u16::from(b)),
            );
            self.at += take;
            count -= take;
        }
        Ok(())
    }
}
