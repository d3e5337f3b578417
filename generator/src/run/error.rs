//! Why a `generate` or `assemble` run stopped.

use crate::files::splits::SplitsError;
use crate::files::work::UnitFileError;
use crate::files::write::WriteError;
use crate::run::lock::LockError;
use crate::solve::dtc::DtcError;
use crate::solve::error::SolveError;
use std::path::PathBuf;
use togyz_tb::TableError;

/// Why generation stopped.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// The requested stone count is out of range for the tables asked
    /// for.
    #[error("--max-stones must be between 1 and {most}, the most the solver supports for these tables (beyond, a unit's boards pass its 32-bit node ids), not {asked}")]
    BadMaxStones {
        /// The stone count asked for.
        asked: u32,
        /// The most the run may take ([`crate::run::options::max_run_stones`]).
        most: u32,
    },
    /// A file with a table's name is in the way and is not a valid table.
    #[error("{path} exists but is not a valid table ({reason}); it is left untouched: move it away or delete it, then run again")]
    InvalidExisting {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A complete table lacks positions the run writes at its level (a
    /// WDL table where a full one is asked for, or other tuzdyk pairs); a
    /// table holding more than asked is kept.
    #[error("{path} holds {found}, but this run writes {asked} at {stones} stones; it is left untouched: give --wdl-from and --wdl-pairs to match the folder's tables, or another --out")]
    OtherContents {
        /// The table.
        path: PathBuf,
        /// Its stones.
        stones: u32,
        /// What it holds.
        found: togyz_tb::raw::format::Contents,
        /// What the run writes there.
        asked: togyz_tb::raw::format::Contents,
    },
    /// `--wdl-from` was given for DTM tables.
    #[error("--wdl-from writes WDL tables, which are made from the DTC solve: add --metric dtc")]
    WdlNeedsDtc,
    /// `--out` names something that is not a folder.
    #[error("--out {} is a file, not a folder: give the folder the tables go into (it is created if missing)", .0.display())]
    OutNotFolder(PathBuf),
    /// The output folder could not be created.
    #[error("cannot create the output folder {path}: {source}")]
    OutDir {
        /// The folder.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The output folder cannot be written.
    #[error("cannot write into the output folder {path}: {source}")]
    NotWritable {
        /// The folder.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The machine lacks the memory the run needs.
    #[error("not enough memory: solving {stones} stones needs about {needed} with {threads} unit(s) in flight, and {limit}{advice}")]
    Memory {
        /// The level where the memory peaks.
        stones: u32,
        /// Estimated peak.
        needed: String,
        /// Worker threads.
        threads: usize,
        /// The cap: `--max-memory`, or what the machine has available.
        limit: String,
        /// What would fit.
        advice: String,
    },
    /// The output folder's file system (or, when it is still to be made,
    /// that of the nearest folder above it) lacks the space the run needs.
    #[error(
        "not enough disk space in {path}: the run needs about {needed}, and {available} is free"
    )]
    Disk {
        /// The output folder.
        path: PathBuf,
        /// Estimated need.
        needed: String,
        /// Free space.
        available: String,
    },
    /// The output folder is locked by another run.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// Other shards did not finish a level in time.
    #[error("{stones} stones: gave up after waiting {seconds} s for the other shards; {missing} of {units} units are still unsolved in {}: start the missing shards (or a run without --shard) and run again", .dir.display())]
    WaitTimeout {
        /// The level.
        stones: u32,
        /// Seconds waited.
        seconds: u64,
        /// Units not finished.
        missing: usize,
        /// Units of the level.
        units: usize,
        /// The work folder.
        dir: PathBuf,
    },
    /// Every unit of a level is solved, and another run has been writing
    /// its table for too long.
    #[error("{stones} stones: gave up after waiting {seconds} s for the table, which another run is writing ({holder}, holding {}): wait for it and run again, or, if it is stuck, stop it and run `togyz-gen assemble`", .lock.display())]
    AssemblyTimeout {
        /// The level.
        stones: u32,
        /// Seconds waited.
        seconds: u64,
        /// The level's assembly lock.
        lock: PathBuf,
        /// What its holder wrote into it.
        holder: String,
    },
    /// A unit file this run wrote went missing or was damaged before its
    /// level's table was written.
    #[error("{}: this run solved and wrote the unit, and now the file is missing or damaged: something else is changing the work folder (another program, or a failing disk); stop it and run again", .path.display())]
    UnitLost {
        /// The unit file.
        path: PathBuf,
    },
    /// The thread pool could not be built.
    #[error("cannot start {0} worker threads")]
    Threads(usize),
    /// The solver failed.
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// Writing a table failed.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// Writing a unit file failed.
    #[error(transparent)]
    Unit(#[from] UnitFileError),
    /// Reading back an existing table failed.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The DTC solver failed, or a solved board is not one draw split.
    #[error(transparent)]
    Dtc(#[from] DtcError),
    /// A kept table's WDL could not be read as draw splits.
    #[error(transparent)]
    Splits(#[from] SplitsError),
}
