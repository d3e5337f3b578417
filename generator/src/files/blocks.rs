//! Decompressed blocks as the decoders read them: a worker's scratch
//! buffers and the check that a decoded value fits its cells.

use togyz_probe::raw::format::{Section, TableFile};
use togyz_probe::TableError;
use togyz_probe::Value;

/// A worker's decompressed blocks, reused from piece to piece.
pub(crate) struct Scratch {
    /// The distance block last read.
    pub dtm: Vec<u8>,
    wdl: Vec<u8>,
    wdl_block: u64,
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch {
            dtm: Vec::new(),
            wdl: Vec::new(),
            wdl_block: u64::MAX,
        }
    }
}

impl Scratch {
    /// WDL block `wb` of `file`, read unless it is the one last read.
    pub fn wdl(&mut self, file: &TableFile, wb: u64) -> Result<&[u8], TableError> {
        if wb != self.wdl_block {
            self.wdl_block = u64::MAX;
            file.read_block_into(Section::Wdl, wb, &mut self.wdl)?;
            self.wdl_block = wb;
        }
        Ok(&self.wdl)
    }
}

/// `cell(v.pack())`, or an error naming distance block `block` if the
/// cells cannot hold it.
#[inline]
pub(crate) fn to_cell<T>(
    file: &TableFile,
    v: Value,
    block: u64,
    cell: impl Fn(u16) -> Option<T>,
) -> Result<T, TableError> {
    // combine() bounds a distance by the header's longest, which the
    // header checks keep within u16 entries.
    v.pack().and_then(cell).ok_or_else(|| TableError::BadEntry {
        path: file.path().to_path_buf(),
        section: Section::Distance,
        block,
        detail: "distance too large for the cells".into(),
    })
}
