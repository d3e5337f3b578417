//! [`TableError`]: everything that can be wrong with a table file.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Section, FORMAT_VERSION_DTC, FORMAT_VERSION_DTM, RULES_VARIANT};
use crate::value::Metric;

/// Everything that can be wrong with a table file. Every variant names the
/// file.
#[derive(Clone, Debug, thiserror::Error)]
pub enum TableError {
    /// The file could not be opened, read or mapped (no permission, removed,
    /// an I/O failure): its contents were not judged. See
    /// [`TableError::io_error`].
    #[error("{}: cannot read the file: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: Arc<io::Error>,
    },
    /// The file is shorter than its header says (or than a header).
    #[error("{}: truncated: {len} bytes, expected {expected}", .path.display())]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Its length.
        len: u64,
        /// The length it should have.
        expected: u64,
    },
    /// The file is longer than its header says.
    #[error("{}: {len} bytes, longer than the {expected} its header gives", .path.display())]
    TrailingBytes {
        /// The file.
        path: PathBuf,
        /// Its length.
        len: u64,
        /// The length it should have.
        expected: u64,
    },
    /// Not a togyz-tb table.
    #[error("{}: not a togyz-tb table (bad magic)", .path.display())]
    BadMagic {
        /// The file.
        path: PathBuf,
    },
    /// A format version this reader does not know.
    #[error("{}: format version {found} for a {metric} table, this reader reads DTM tables of version {FORMAT_VERSION_DTM} and DTC tables of version {FORMAT_VERSION_DTC}{}", .path.display(), if *.metric == Metric::Dtc && *.found < FORMAT_VERSION_DTC { " (an older DTC table, which stored its losses too: generate it again)" } else { "" })]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
        /// The metric the header names (DTM when its code is unknown).
        metric: Metric,
    },
    /// Tables solved under other rules.
    #[error("{}: rules variant {found}, this reader expects {RULES_VARIANT}", .path.display())]
    RulesVariant {
        /// The file.
        path: PathBuf,
        /// The variant in the file.
        found: u32,
    },
    /// The header's own checksum does not match.
    #[error("{}: header checksum mismatch", .path.display())]
    HeaderChecksum {
        /// The file.
        path: PathBuf,
    },
    /// The header's fields contradict each other, the file name or the index
    /// layout.
    #[error("{}: inconsistent header: {detail}", .path.display())]
    InconsistentHeader {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// The block index checksum does not match.
    #[error("{}: block index checksum mismatch", .path.display())]
    IndexChecksum {
        /// The file.
        path: PathBuf,
    },
    /// A block index entry points outside its section or breaks the
    /// sequence of blocks.
    #[error("{}: bad index entry for block {block} of the {section} section: {detail}", .path.display())]
    BadIndex {
        /// The file.
        path: PathBuf,
        /// The section.
        section: Section,
        /// The block number.
        block: u64,
        /// What is wrong.
        detail: String,
    },
    /// A block's compressed bytes do not match their checksum.
    #[error("{}: checksum mismatch in block {block} of the {section} section", .path.display())]
    BlockChecksum {
        /// The file.
        path: PathBuf,
        /// The section.
        section: Section,
        /// The block number.
        block: u64,
    },
    /// zstd could not decompress a block.
    #[error("{}: cannot decompress block {block} of the {section} section: {detail}", .path.display())]
    Decompress {
        /// The file.
        path: PathBuf,
        /// The section.
        section: Section,
        /// The block number.
        block: u64,
        /// zstd's message.
        detail: String,
    },
    /// A block decompressed to the wrong number of bytes.
    #[error("{}: block {block} of the {section} section decompressed to {found} bytes, expected {expected}", .path.display())]
    BlockLength {
        /// The file.
        path: PathBuf,
        /// The section.
        section: Section,
        /// The block number.
        block: u64,
        /// Bytes expected.
        expected: u64,
        /// Bytes produced.
        found: u64,
    },
    /// A decompressed entry holds an impossible value.
    #[error("{}: bad entry in block {block} of the {section} section: {detail}", .path.display())]
    BadEntry {
        /// The file.
        path: PathBuf,
        /// The section.
        section: Section,
        /// The block number.
        block: u64,
        /// What is wrong.
        detail: String,
    },
    /// A table of the other metric where one metric is needed (a DTM solve
    /// or check needs DTM tables below it).
    #[error("{}: holds {found} distances, {wanted} ones are needed here", .path.display())]
    WrongMetric {
        /// The file.
        path: PathBuf,
        /// The metric the file holds.
        found: Metric,
        /// The metric needed.
        wanted: Metric,
    },
    /// The checksum over everything after the header does not match.
    #[error("{}: file checksum mismatch", .path.display())]
    FileChecksum {
        /// The file.
        path: PathBuf,
    },
    /// A probe asked for a board or kazan offset outside the table (a
    /// caller's mistake, not a damaged file).
    #[error("{}: board {board}, kazan offset {kazan} is outside the table", .path.display())]
    OutOfRange {
        /// The file.
        path: PathBuf,
        /// The global board asked for.
        board: u64,
        /// The kazan offset asked for.
        kazan: u32,
    },
    /// What the table does not hold by design (`docs/format.md`, "WDL
    /// tables"): a distance of a table without distances, or a board
    /// without a tuzdyk of a table of the boards with one.
    #[error("{}: holds the {contents} only", .path.display())]
    NotHeld {
        /// The file.
        path: PathBuf,
        /// What it holds.
        contents: super::Contents,
    },
}

impl TableError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            TableError::Io { path, .. }
            | TableError::Truncated { path, .. }
            | TableError::TrailingBytes { path, .. }
            | TableError::BadMagic { path }
            | TableError::UnsupportedVersion { path, .. }
            | TableError::RulesVariant { path, .. }
            | TableError::HeaderChecksum { path }
            | TableError::InconsistentHeader { path, .. }
            | TableError::IndexChecksum { path }
            | TableError::BadIndex { path, .. }
            | TableError::BlockChecksum { path, .. }
            | TableError::Decompress { path, .. }
            | TableError::BlockLength { path, .. }
            | TableError::BadEntry { path, .. }
            | TableError::WrongMetric { path, .. }
            | TableError::FileChecksum { path }
            | TableError::OutOfRange { path, .. }
            | TableError::NotHeld { path, .. } => path,
        }
    }

    /// The operating system's error if the file could not be read at all
    /// ([`TableError::Io`]: permissions, a removed file, an I/O failure);
    /// `None` if it was read and found damaged or foreign, which only
    /// generating it again mends.
    pub fn io_error(&self) -> Option<&io::Error> {
        match self {
            TableError::Io { source, .. } => Some(source),
            _ => None,
        }
    }

    pub(crate) fn io(path: &Path, e: io::Error) -> TableError {
        TableError::Io {
            path: path.to_path_buf(),
            source: Arc::new(e),
        }
    }
}
