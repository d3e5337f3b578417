//! Whole-table tools over the reader's [`TableFile`]: decoding every value
//! into memory (resume, verify, stats) and checking every checksum, in
//! parallel. They live here, not in `togyz-probe`, because only the
//! generator needs them and they need rayon.

use std::io;
use std::ops::Range;
use std::sync::Arc;

use crate::retro::LevelValues;
use rayon::prelude::*;
use togyz_probe::raw::format::{wdl_at, Section, TableError, TableFile};

/// The generator's whole-table operations on a [`TableFile`] (import the
/// trait to call them as methods).
pub trait DecodeAll {
    /// The packed values ([`Value::pack`](togyz_probe::Value::pack)) of the
    /// whole table in index order, decoded in parallel over DTM blocks.
    ///
    /// # Errors
    ///
    /// [`TableError`] for a damaged block or an allocation that fails.
    fn decode_all(&self) -> Result<Vec<u16>, TableError>;

    /// Whether every packed value of the table fits one byte (its longest
    /// distance is at most 126 plies), so [`DecodeAll::decode_all_narrow`]
    /// can hold it in half the memory.
    fn fits_in_bytes(&self) -> bool;

    /// [`DecodeAll::decode_all`] into one byte a position.
    ///
    /// # Errors
    ///
    /// As [`DecodeAll::decode_all`], and an error unless
    /// [`DecodeAll::fits_in_bytes`].
    fn decode_all_narrow(&self) -> Result<Vec<u8>, TableError>;

    /// The packed values of the entries in `range` (index order), in
    /// one-byte cells when [`DecodeAll::fits_in_bytes`]: what the solver
    /// reads of a configuration it needs without holding the whole level.
    ///
    /// # Errors
    ///
    /// As [`DecodeAll::decode_all`]; a range past the table's end is
    /// [`TableError::OutOfRange`].
    fn decode_range(&self, range: Range<u64>) -> Result<LevelValues, TableError>;

    /// [`DecodeAll::decode_range`] over the entries of one tuzdyk
    /// configuration (its boards in rank order, every kazan split): what a
    /// unit reads of a level at a time.
    ///
    /// # Errors
    ///
    /// As [`DecodeAll::decode_range`].
    fn decode_config(&self, config: usize) -> Result<LevelValues, TableError>;

    /// Checks the checksum of everything after the header, then every
    /// block's checksum (in parallel). Does not decompress.
    ///
    /// # Errors
    ///
    /// The first mismatch or read error found.
    fn verify_checksums(&self) -> Result<(), TableError>;
}

impl DecodeAll for TableFile {
    fn decode_all(&self) -> Result<Vec<u16>, TableError> {
        decode_cells(self, 0..self.header().positions, Some)
    }

    fn fits_in_bytes(&self) -> bool {
        self.header().longest() <= 126
    }

    fn decode_all_narrow(&self) -> Result<Vec<u8>, TableError> {
        decode_cells(self, 0..self.header().positions, |v| u8::try_from(v).ok())
    }

    fn decode_config(&self, config: usize) -> Result<LevelValues, TableError> {
        let layout = self.layout();
        let first = layout.index_at(layout.global_board(config, 0), 0);
        self.decode_range(first..first + layout.config_boards(config) * layout.kazans())
    }

    fn decode_range(&self, range: Range<u64>) -> Result<LevelValues, TableError> {
        if self.fits_in_bytes() {
            decode_cells(self, range, |v| u8::try_from(v).ok()).map(LevelValues::Narrow)
        } else {
            decode_cells(self, range, Some).map(LevelValues::Wide)
        }
    }

    fn verify_checksums(&self) -> Result<(), TableError> {
        self.check_body()?;
        for section in [Section::Wdl, Section::Dtm] {
            (0..self.header().blocks(section))
                .into_par_iter()
                .try_for_each(|b| self.check_block(section, b))?;
        }
        Ok(())
    }
}

/// Decodes the entries in `range` and stores `cell(packed)` for each; a
/// `None` is an error (a value the cells cannot hold).
fn decode_cells<T: Copy + Default + Send + Sync>(
    file: &TableFile,
    range: Range<u64>,
    cell: impl Fn(u16) -> Option<T> + Sync,
) -> Result<Vec<T>, TableError> {
    let h = file.header();
    if range.start > range.end || range.end > h.positions {
        let kazans = file.layout().kazans();
        return Err(TableError::OutOfRange {
            path: file.path().to_path_buf(),
            board: range.end / kazans,
            kazan: (range.end % kazans) as u32,
        });
    }
    let out_of_memory = |detail: String| TableError::Io {
        path: file.path().to_path_buf(),
        source: Arc::new(io::Error::new(io::ErrorKind::OutOfMemory, detail)),
    };
    let len = usize::try_from(range.end - range.start)
        .map_err(|_| out_of_memory("table too large for this machine's address space".into()))?;
    // A fallible reservation: a damaged header that passed its checks
    // must not abort the process by asking for too much memory.
    let mut out = Vec::new();
    out.try_reserve_exact(len)
        .map_err(|e| out_of_memory(e.to_string()))?;
    out.resize(len, T::default());
    if h.metric == togyz_probe::Metric::Dtc {
        // DTC tables are decoded whole only (stats, verify): a part of
        // one is asked for by DTM solving alone, which needs DTM below.
        if range != (0..h.positions) {
            file.require_metric(togyz_probe::Metric::Dtm)?;
        }
        crate::decode_dtc::fill(file, &cell, &mut out)?;
        return Ok(out);
    }
    let kazans = file.layout().kazans();
    let per = h.dtm_block_positions as u64;
    // The output cut at DTM block boundaries: (first entry, cells).
    let mut pieces: Vec<(u64, &mut [T])> = Vec::new();
    let mut rest = out.as_mut_slice();
    let mut first = range.start;
    while !rest.is_empty() {
        let take = ((first / per + 1) * per - first).min(rest.len() as u64) as usize;
        let (piece, tail) = rest.split_at_mut(take);
        pieces.push((first, piece));
        first += take as u64;
        rest = tail;
    }
    struct Scratch {
        dtm: Vec<u8>,
        wdl: Vec<u8>,
        wdl_block: u64,
    }
    pieces.into_par_iter().try_for_each_init(
        || Scratch {
            dtm: Vec::new(),
            wdl: Vec::new(),
            wdl_block: u64::MAX,
        },
        |s, (first, chunk)| -> Result<(), TableError> {
            let block = first / per;
            let skip = (first - block * per) as usize;
            file.read_block_into(Section::Dtm, block, &mut s.dtm)?;
            let mut gb = first / kazans;
            let mut j = (first % kazans) as u32;
            let mut k = 0;
            while k < chunk.len() {
                let (wb, at) = file.wdl_location(gb);
                if wb != s.wdl_block {
                    s.wdl_block = u64::MAX;
                    file.read_block_into(Section::Wdl, wb, &mut s.wdl)?;
                    s.wdl_block = wb;
                }
                let t = file.thresholds_in(&s.wdl, wb, at)?;
                while (j as u64) < kazans && k < chunk.len() {
                    let d = file.distance_in(&s.dtm, block, (skip + k) * h.dtm_width as usize)?;
                    let v = file.combine(wdl_at(t, j), d, block)?;
                    // combine() bounds d by the header's longest, which
                    // the header checks keep within u16 entries.
                    chunk[k] = v
                        .pack()
                        .and_then(&cell)
                        .ok_or_else(|| TableError::BadEntry {
                            path: file.path().to_path_buf(),
                            section: Section::Dtm,
                            block,
                            detail: "distance too large for the cells".into(),
                        })?;
                    k += 1;
                    j += 1;
                }
                gb += 1;
                j = 0;
            }
            Ok(())
        },
    )?;
    Ok(out)
}
