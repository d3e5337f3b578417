//! `togyz-gen verify`: checks written tables on a path independent of the
//! solver.
//!
//! Every table file `togyz-NN.tkb` in the folder (1..=N, none missing) has
//! all its checksums checked, is decoded through the library's reader,
//! and then every stored entry is checked against its successors, generated
//! *forward* with the rules (`Position::play`), never with the solver's
//! un-moves:
//!
//! * a win in `d` needs a move into a loss in `d - 1` for the opponent (or a
//!   move that ends the game in the mover's favour, at `d = 1`) and no
//!   faster one;
//! * a loss in `d`: every move leads to a win for the opponent (or ends the
//!   game in the opponent's favour, which counts as one ply), the slowest in
//!   `d - 1`;
//! * a draw: no move wins and at least one draws;
//! * a position whose side to move has no stones holds the game's result at
//!   distance 0.
//!
//! The level being checked is read from its file chunk by chunk, never held
//! whole; the smaller levels its moves lead to are held one byte a position
//! (as the generator holds them), so verify checks whatever generate made.
//! DTC tables go through the same check, their conversions valued by the
//! smaller levels' win/draw/loss (`docs/dtc.md`): a move that ends the game
//! or converts is worth its result in 1, a quiet move the successor's
//! stored value one ply back. Within a level the DTC strictly falls along a
//! win's or loss's justification, so the same induction holds. A DTC
//! level reads the smaller ones as one draw split a board
//! ([`DtcBelow`]: the small levels whole, of the larger ones the
//! configurations the unit's exits reach, as `--hold-whole` says). What a
//! level is checked against is its metric's `CheckBelow`, as `generate`
//! solves with its metric's `UnitSolver`: [`DtmBelow`] or [`DtcBelow`].
//!
//! A level's check resumes by unit: the units that passed are recorded in
//! its journal ([`journal_path`]) until the level passes.
//!
//! In short, each entry must equal the best of its moves' values. Checked
//! level by level from 1 stone up, local consistency is also global
//! correctness: distances strictly fall along a win's or loss's
//! justification, so by induction every win and loss is exact, and a real
//! win or loss stored as a draw would contradict a correctly stored
//! successor.

mod journal;

pub use journal::journal_path;
use journal::{Journal, Opened};

use crate::below::{self, DtcBelow, DtcUnitBelow, DtmBelow, DtmExits, DtmUnitBelow, WdlBelow};
use crate::event::{polled, silent, Event, Report};
use crate::files::decode::{result_only, BoardValues, DecodeAll, UnitValues};
use crate::files::folder::{table_levels, FolderError};
use crate::files::write::Census;
use crate::pool::with_threads;
use crate::run::plan;
use crate::solve::cells::ConfigValues;
use crate::solve::moves::{play_each, quiet_board};
use crate::solve::unit::{held_units, Reach, UnitId};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use togyz_tb::raw::format::{self, Contents, TableFile};
use togyz_tb::raw::index::Slot;
use togyz_tb::raw::index::{BoardWalker, Layout, TuzdykConfig};
use togyz_tb::terminal_value;
use togyz_tb::Backend;
use togyz_tb::TableError;
use togyz_tb::{Metric, Value, Wdl};
use togyz_tb::{Move, Position, HALF};

/// What a `verify` run checks, and how.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// Folder holding the tables (`togyz-NN.tkb`).
    pub tables: PathBuf,
    /// Worker threads (`None`: one per core).
    pub threads: Option<usize>,
    /// Smaller levels are held in memory whole while their positions (for
    /// DTC tables, whose check reads one byte a board below: their boards),
    /// up to and including the level, total at most this; the larger ones
    /// are read a unit's share at a time (as `generate`'s `hold_whole`).
    pub hold_whole: u64,
    /// At most this much memory (`None`: what the system has available):
    /// a unit whose exits do not fit beside it is checked in passes over
    /// the levels below ([`crate::run::plan::verify_groups`]).
    pub max_memory: Option<u64>,
    /// Check the levels from this stone count up (1: all); the smaller
    /// ones are still read as the levels below, their checksums checked.
    pub from: u32,
}

impl VerifyOptions {
    /// The options for the tables in `tables`, the rest default: one
    /// thread per core, [`below::WHOLE_POSITIONS`] held whole.
    pub fn new(tables: impl Into<PathBuf>) -> VerifyOptions {
        VerifyOptions {
            tables: tables.into(),
            threads: None,
            hold_whole: below::WHOLE_POSITIONS,
            max_memory: None,
            from: 1,
        }
    }
}

/// What a whole `verify` run covered.
#[derive(Clone, Debug)]
pub struct Verified {
    /// One report per level, from 1 stone up.
    pub levels: Vec<LevelReport>,
    /// Worker threads the check ran on.
    pub threads: usize,
}

/// Why verification failed.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The tables folder is unreadable, empty or has a gap.
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// The thread pool could not be built.
    #[error("cannot start {0} worker threads")]
    Threads(usize),
    /// A file is damaged or unreadable (a checksum, the header, a block).
    #[error(transparent)]
    Table(#[from] TableError),
    /// The header's census disagrees with the decoded entries.
    #[error("{}: the header says {field} = {header}, the entries give {found}", .path.display())]
    HeaderCensus {
        /// The file.
        path: PathBuf,
        /// The header field.
        field: &'static str,
        /// The header's figure.
        header: u64,
        /// What the entries give.
        found: u64,
    },
    /// The report could not be written to standard output.
    #[error("cannot write to standard output: {0}")]
    Stdout(#[source] std::io::Error),
    /// A table's boards are not one draw split each (DTC tables rely on it).
    #[error(transparent)]
    Splits(#[from] crate::files::splits::SplitsError),
    /// A table above one that does not hold the positions it needs: a
    /// table of every position above a WDL table (which leaves out the
    /// positions without a tuzdyk), or one of more tuzdyk pairs above
    /// one of fewer.
    #[error("{}: holds the {above_contents}, but the smaller table {} holds only the {below_contents}, so its positions cannot be checked", .above.display(), .below.display())]
    AboveHoldsMore {
        /// The smaller table.
        below: PathBuf,
        /// What it holds.
        below_contents: Contents,
        /// The table above it.
        above: PathBuf,
        /// What that holds.
        above_contents: Contents,
    },
    /// `--from` names no level of the folder.
    #[error("no level to check from {from} stones: the tables go from 1 to {max}")]
    NoLevelFrom {
        /// The first level asked for.
        from: u32,
        /// The largest table.
        max: u32,
    },
    /// A stored value does not follow from its successors.
    #[error("inconsistent entry in the {stones}-stone table: {fen} is stored as a {stored}, but its successors give a {expected} ({moves})")]
    Inconsistent {
        /// Stones on the board.
        stones: u32,
        /// The position (South to move, as the index seats it).
        fen: String,
        /// What the table holds.
        stored: Value,
        /// The best of its moves' values.
        expected: Value,
        /// Every move with its value for the mover, or why there is none.
        moves: String,
    },
}

/// What one stone count's check covered.
#[derive(Clone, Debug)]
pub struct LevelReport {
    /// Stones on the board.
    pub stones: u32,
    /// Positions checked.
    pub positions: u64,
    /// Bytes of the table file.
    pub bytes: u64,
    /// Seconds spent (checksums, decoding and the successor check).
    pub seconds: f64,
}

/// Verifies every table in `options.tables` on a pool of
/// `options.threads` workers, each level's progress and result to
/// `report`.
///
/// # Errors
///
/// The first problem found ([`VerifyError`]), or
/// [`VerifyError::Threads`] when the worker pool cannot be started.
pub fn verify(options: &VerifyOptions, report: Report<'_>) -> Result<Verified, VerifyError> {
    let (levels, threads) = with_threads(options.threads, || {
        (
            verify_levels(
                &options.tables,
                options.hold_whole,
                options.max_memory,
                options.from,
                report,
            ),
            rayon::current_num_threads(),
        )
    })
    .map_err(VerifyError::Threads)?;
    Ok(Verified {
        levels: levels?,
        threads,
    })
}

/// Verifies every table in `dir` (in the current rayon pool), reporting
/// nothing.
///
/// # Errors
///
/// The first problem found ([`VerifyError`]).
pub fn verify_dir(dir: &Path) -> Result<Vec<LevelReport>, VerifyError> {
    verify_dir_holding(dir, below::WHOLE_POSITIONS, &silent)
}

/// [`verify_dir`], the smaller levels held whole up to `hold_whole`
/// positions (boards for the win/draw/loss a DTC level reads:
/// [`crate::below::held_whole`]) and the larger ones read unit by unit
/// from their files, as `generate --hold-whole` does; each level's progress
/// and result to `report`.
///
/// # Errors
///
/// The first problem found ([`VerifyError`]).
pub fn verify_dir_holding(
    dir: &Path,
    hold_whole: u64,
    report: Report<'_>,
) -> Result<Vec<LevelReport>, VerifyError> {
    verify_dir_within(dir, hold_whole, None, report)
}

/// [`verify_dir_holding`] within `max_memory` bytes (`None`: what the
/// system has available): a unit whose exits do not fit beside it is
/// checked in passes over the levels below
/// ([`crate::run::plan::verify_groups`]).
///
/// # Errors
///
/// The first problem found ([`VerifyError`]).
pub fn verify_dir_within(
    dir: &Path,
    hold_whole: u64,
    max_memory: Option<u64>,
    report: Report<'_>,
) -> Result<Vec<LevelReport>, VerifyError> {
    verify_levels(dir, hold_whole, max_memory, 1, report)
}

/// [`verify_dir_within`] of the levels from `from` stones up (the smaller
/// ones read as the levels below, their checksums checked, their entries
/// not): a set grown by a level is checked without the levels checked
/// before. One report per level checked.
///
/// # Errors
///
/// As [`verify_dir_within`]; [`VerifyError::NoLevelFrom`] when `from` is
/// 0 or above the largest table.
pub fn verify_levels(
    dir: &Path,
    hold_whole: u64,
    max_memory: Option<u64>,
    from: u32,
    report: Report<'_>,
) -> Result<Vec<LevelReport>, VerifyError> {
    let max = table_levels(dir)?;
    if from == 0 || from > max {
        return Err(VerifyError::NoLevelFrom { from, max });
    }
    // All checksums first: a damaged file stops the run before the long part.
    // Read by positioned reads, never mapped: the pages of a map, once
    // read, stay in the resident set (every table's, over a run), and
    // the plan keeps verify within --max-memory without them.
    let mut files = Vec::new();
    for n in 1..=max {
        let file = TableFile::open_with(dir.join(format::file_name(n)), Backend::Pread)?;
        file.verify_checksums()?;
        files.push(file);
    }
    // DTM tables need DTM tables below them (DTC tables need only the
    // win/draw/loss, which both kinds give: check_metrics).
    check_metrics(&files)?;
    let any_dtc = files.iter().any(|f| f.metric() == Metric::Dtc);
    // The smaller levels, as the generator holds them; the level being
    // checked is streamed from its file.
    let mut dtm = DtmBelow::new(hold_whole);
    let mut dtc = DtcBelow::new(hold_whole);
    let mut reports = Vec::new();
    for (file, n) in files.into_iter().zip(1..) {
        // A level below `from` is only read, by the levels above.
        if n >= from {
            reports.push(check_table(n, &file, &dtm, &dtc, max_memory, report)?);
        }
        if n < max && any_dtc {
            dtc.push(TableFile::open_with(file.path(), Backend::Pread)?, None)?;
        }
        if n < max && file.metric() == Metric::Dtm {
            dtm.push(file, None)?;
        }
    }
    Ok(reports)
}

/// Checks level `n`'s `file` over the levels below (`dtm` or `dtc`, by
/// its metric), its progress and result to `report`.
fn check_table(
    n: u32,
    file: &TableFile,
    dtm: &DtmBelow,
    dtc: &DtcBelow,
    max_memory: Option<u64>,
    report: Report<'_>,
) -> Result<LevelReport, VerifyError> {
    let t = Instant::now();
    // The boards a WDL table does not hold are not checked.
    let layout = file.layout();
    let positions = file.header().contents.held_boards(layout) * layout.kazans();
    report(Event::Checking {
        stones: n,
        positions,
    });
    let dir = file.path().parent().unwrap_or(Path::new("."));
    let (mut journal, opened) = Journal::open(dir, n, file);
    let units = held_units(n, file.header().contents);
    let resumed = journal.count(&units);
    match opened {
        Opened::Resumed if resumed > 0 => report(Event::ChecksResumed {
            stones: n,
            resumed,
            units: units.len(),
            path: journal.path(),
        }),
        Opened::Unwritable(e) => report(Event::NoJournal {
            path: journal.path(),
            error: &e,
        }),
        _ => {}
    }
    let checked = AtomicU64::new(0);
    let tick = |c: u64| {
        report(Event::CheckProgress {
            stones: n,
            checked: c.min(positions),
            positions,
        })
    };
    let result = polled(&checked, tick, || match file.metric() {
        Metric::Dtm => check_level(n, file, dtm, max_memory, &checked, &mut journal),
        Metric::Dtc => check_level(n, file, dtc, max_memory, &checked, &mut journal),
    });
    report(Event::Checked { stones: n });
    if let Err(e) = check_header_census(file, &result?) {
        // The units taken from the journal may be what is wrong: the next
        // run checks them all again.
        if resumed > 0 {
            journal.remove();
        }
        return Err(e);
    }
    journal.remove();
    let level = LevelReport {
        stones: n,
        positions,
        bytes: file.header().file_length,
        seconds: t.elapsed().as_secs_f64(),
    };
    report(Event::Verified {
        stones: n,
        positions,
        seconds: level.seconds,
        path: file.path(),
    });
    Ok(level)
}

/// The header's wins, draws, losses and longest distances against the
/// decoded entries' census.
fn check_header_census(file: &TableFile, c: &Census) -> Result<(), VerifyError> {
    let Census {
        wins,
        draws,
        losses,
        longest_win,
        longest_loss,
    } = *c;
    let h = file.header();
    for (field, header, found) in [
        ("wins", h.wins, wins),
        ("draws", h.draws, draws),
        ("losses", h.losses, losses),
        ("longest_win", h.longest_win as u64, longest_win as u64),
        ("longest_loss", h.longest_loss as u64, longest_loss as u64),
    ] {
        if header != found {
            return Err(VerifyError::HeaderCensus {
                path: file.path().to_path_buf(),
                field,
                header,
                found,
            });
        }
    }
    Ok(())
}

/// Boards per work item of the parallel check.
const CHUNK_BOARDS: u64 = 2048;

/// A stored entry that does not follow from its successors.
struct Mismatch {
    pos: Position,
    stored: Value,
    expected: Value,
}

/// What a level is checked against of the levels under it, by its table's
/// metric: the distances to the end ([`DtmBelow`]) or the win/draw/loss,
/// one draw split a board ([`DtcBelow`]), read a unit at a time.
pub(crate) trait CheckBelow: Sync {
    /// What one unit reads of the levels below, held while it is checked.
    type Unit<'a>: Sync
    where
        Self: 'a;
    /// How the unit's exits read it.
    type Exits<'a>: ExitValue
    where
        Self: 'a;
    /// Decodes what `unit` of level `n` reads, of what `reach` reads of
    /// the levels not held whole.
    fn for_unit(&self, n: u32, unit: UnitId, reach: Reach) -> Result<Self::Unit<'_>, VerifyError>;
    /// The metric of the levels below, as the plan models them.
    fn metric(&self) -> Metric;
    /// Up to what the levels below are held whole ([`below::held_whole`]).
    fn limit(&self) -> u64;
    /// The unit's share as its exits read it.
    fn exits<'a>(unit: &'a Self::Unit<'_>) -> Self::Exits<'a>;
}

/// What an exit (a move into a smaller level) is worth.
pub(crate) trait ExitValue: Sync {
    /// What the description of a position's moves opens with.
    const NOTE: &'static str;
    /// The value for the mover of reaching kazan offset `j` of board
    /// `board` (rank) of configuration `config` at `m` stones, below the
    /// level being checked.
    fn exit_value(&self, m: u32, config: usize, board: u64, j: u64) -> Value;
}

impl CheckBelow for DtmBelow {
    type Unit<'a> = DtmUnitBelow<'a>;
    type Exits<'a> = DtmExits<'a>;
    fn for_unit(
        &self,
        n: u32,
        unit: UnitId,
        reach: Reach,
    ) -> Result<DtmUnitBelow<'_>, VerifyError> {
        Ok(self.for_unit_levels(n, unit, reach)?)
    }
    fn metric(&self) -> Metric {
        Metric::Dtm
    }
    fn limit(&self) -> u64 {
        DtmBelow::limit(self)
    }
    fn exits<'a>(unit: &'a DtmUnitBelow<'_>) -> DtmExits<'a> {
        unit.exits()
    }
}

/// Distances to the end: an exit is worth its successor one ply back.
impl ExitValue for DtmExits<'_> {
    const NOTE: &'static str = "";
    #[inline]
    fn exit_value(&self, m: u32, config: usize, board: u64, j: u64) -> Value {
        let index = (board * (m as u64 + 1) + j) as usize;
        let packed = match self
            .get(m, config)
            .expect("exit_configs names every configuration an exit reaches")
        {
            ConfigValues::Narrow(v) => v[index] as u16,
            ConfigValues::Wide(v) => v[index],
        };
        Value::unpack(packed).back()
    }
}

impl CheckBelow for DtcBelow {
    type Unit<'a> = DtcUnitBelow<'a>;
    type Exits<'a> = &'a DtcUnitBelow<'a>;
    fn for_unit(
        &self,
        n: u32,
        unit: UnitId,
        reach: Reach,
    ) -> Result<DtcUnitBelow<'_>, VerifyError> {
        Ok(self.for_unit_levels(n, unit, reach)?)
    }
    fn metric(&self) -> Metric {
        Metric::Dtc
    }
    fn limit(&self) -> u64 {
        DtcBelow::limit(self)
    }
    fn exits<'a>(unit: &'a DtcUnitBelow<'_>) -> &'a DtcUnitBelow<'a> {
        unit
    }
}

/// Win/draw/loss: an exit (a conversion) is worth its successor's result,
/// flipped, in 1 (`docs/dtc.md`).
impl ExitValue for &DtcUnitBelow<'_> {
    const NOTE: &'static str = "DTC; ";
    #[inline]
    fn exit_value(&self, m: u32, config: usize, board: u64, j: u64) -> Value {
        match self.wdl_in(m, config, board, j as u32) {
            Wdl::Win => Value::Loss(1),
            Wdl::Draw => Value::Draw,
            Wdl::Loss => Value::Win(1),
        }
    }
}

/// Where the check reads successors: what the unit's exits reach of the
/// smaller levels, and the unit of the level being checked (a
/// configuration and its swap, which quiet moves stay within), decoded
/// from the file.
struct Lookup<'a, E> {
    exits: E,
    n: u32,
    /// A WDL table's unit: its entries are results without distances
    /// (`Win(0)`, `Draw`, `Loss(0)`), so each is held to the best of its
    /// moves' results ([`Lookup::judged`]). Where no position repeats (a
    /// tuzdyk stands) that is all a result must be.
    results_only: bool,
    /// The unit's configurations: id and packed values.
    parts: &'a [(usize, UnitValues)],
}

impl<'a, E: ExitValue> Lookup<'a, E> {
    /// `v`, the best of a position's moves, as its table stores it: the
    /// value, or in a WDL table the result alone.
    #[inline]
    fn judged(&self, v: Value) -> Value {
        if self.results_only {
            result_only(v.wdl())
        } else {
            v
        }
    }

    /// The values of configuration `config` of the unit being checked.
    #[inline]
    fn part(&self, config: usize) -> &'a UnitValues {
        let (_, values) = self
            .parts
            .iter()
            .find(|(id, _)| *id == config)
            .expect("a quiet move stays within its unit");
        values
    }
}

/// Checks every entry of level `n`, read unit by unit from `file` (a
/// configuration and its swap: quiet moves stay within a unit), against
/// its successors; returns the entries' census. Finds the inconsistency
/// with the smallest index in the first unit that has one. A DTM table is
/// checked against the distances of `smaller`, a DTC table against their
/// win/draw/loss ([`CheckBelow`]); only the unit being checked is held of
/// level `n`.
///
/// # Errors
///
/// [`VerifyError::Table`] for a damaged block; [`VerifyError::Inconsistent`]
/// naming a position whose stored value does not follow from its
/// successors.
pub(crate) fn check_level<B: CheckBelow>(
    n: u32,
    file: &TableFile,
    smaller: &B,
    max_memory: Option<u64>,
    checked: &AtomicU64,
    journal: &mut Journal,
) -> Result<Census, VerifyError> {
    let mut census = Census::default();
    // What a unit may take now, the smaller levels loaded.
    let budget = plan::units_budget(max_memory);
    let cell = if file.fits_in_bytes() { 1 } else { 2 };
    let contents = file.header().contents;
    for unit in held_units(n, contents) {
        if let Some(c) = journal.checked(unit) {
            census.merge(c);
            checked.fetch_add(unit.positions(n), Ordering::Relaxed);
            continue;
        }
        let groups = plan::verify_groups(
            smaller.metric(),
            n,
            unit,
            smaller.limit(),
            plan::Entries::of(contents, cell),
            Some(budget),
        );
        let found = if groups.len() == 1 {
            check_unit(n, file, smaller, unit, checked)?
        } else {
            match check_unit_in_passes(n, file, smaller, unit, &groups, checked)? {
                Some(c) => c,
                // Found again whole, to name the first one with every
                // move's value (more memory, only on the way out).
                None => check_unit(n, file, smaller, unit, checked)?,
            }
        };
        census.merge(&found);
        journal.record(unit, &found);
    }
    Ok(census)
}

/// The work items of `unit` of level `n`: (configuration, first board,
/// end board).
fn unit_work(n: u32, unit: UnitId) -> Vec<(usize, u64, u64)> {
    Layout::new(n)
        .board_chunks(CHUNK_BOARDS)
        .into_iter()
        .filter(|w| unit.configs().contains(&w.0))
        .collect()
}

/// Checks every entry of `unit` of level `n` against its successors, all
/// its exits decoded at once; its census.
fn check_unit<B: CheckBelow>(
    n: u32,
    file: &TableFile,
    smaller: &B,
    unit: UnitId,
    checked: &AtomicU64,
) -> Result<Census, VerifyError> {
    let layout = &Layout::new(n);
    let mut census = Census::default();
    // A DTC table's losses come recovered from its wins, so the check
    // below also holds them to their moves.
    let parts = file.decode_unit(unit)?;
    let share = smaller.for_unit(n, unit, Reach::ALL)?;
    let lookup = Lookup {
        exits: B::exits(&share),
        n,
        results_only: !file.header().contents.has_distances(),
        parts: &parts,
    };
    let work = unit_work(n, unit);
    let results: Vec<Result<Census, Mismatch>> = work
        .par_iter()
        .map(|&(id, start, end)| {
            let found = check_boards(n, id, start, end, &lookup);
            checked.fetch_add((end - start) * layout.kazans(), Ordering::Relaxed);
            found
        })
        .collect();
    for r in results {
        match r {
            Ok(c) => census.merge(&c),
            Err(m) => {
                return Err(VerifyError::Inconsistent {
                    stones: n,
                    fen: m.pos.fen(),
                    stored: m.stored,
                    expected: m.expected,
                    moves: describe_moves(&m.pos, &lookup),
                })
            }
        }
    }
    Ok(census)
}

/// Checks every entry of `unit` of level `n` in passes over the levels
/// below (`groups`, what each reads of them, [`plan::verify_groups`]),
/// each pass holding the exits into what it reads only: an entry must be at least
/// each of its moves' values, and equal one of them (a bit a position
/// remembers that a pass found it), which is being their best. Returns
/// the unit's census, or `None` when an entry does not follow from its
/// successors (the caller finds which, and why, with every exit).
fn check_unit_in_passes<B: CheckBelow>(
    n: u32,
    file: &TableFile,
    smaller: &B,
    unit: UnitId,
    groups: &[Reach],
    checked: &AtomicU64,
) -> Result<Option<Census>, VerifyError> {
    let layout = &Layout::new(n);
    let parts = file.decode_unit(unit)?;
    // A bit a position of each configuration: a move found equal to it.
    let justified: Vec<(usize, Vec<AtomicU64>)> = parts
        .iter()
        .map(|(id, v)| {
            (
                *id,
                (0..v.len().div_ceil(64))
                    .map(|_| AtomicU64::new(0))
                    .collect(),
            )
        })
        .collect();
    let work = unit_work(n, unit);
    let mut census = Census::default();
    for (i, &reach) in groups.iter().enumerate() {
        let last = i + 1 == groups.len();
        let share = smaller.for_unit(n, unit, reach)?;
        let lookup = Lookup {
            exits: B::exits(&share),
            n,
            results_only: !file.header().contents.has_distances(),
            parts: &parts,
        };
        let results: Vec<Option<Census>> = work
            .par_iter()
            .map(|&(id, start, end)| {
                let bits = &justified
                    .iter()
                    .find(|(c, _)| *c == id)
                    .expect("a unit's work is of its configurations")
                    .1;
                let pass = Pass { reach, last, bits };
                let found = check_boards_pass(n, id, start, end, &lookup, &pass);
                if last {
                    checked.fetch_add((end - start) * layout.kazans(), Ordering::Relaxed);
                }
                found
            })
            .collect();
        for r in results {
            match r {
                Some(c) => census.merge(&c),
                None => return Ok(None),
            }
        }
    }
    Ok(Some(census))
}

/// One pass of [`check_unit_in_passes`] over a configuration's boards.
struct Pass<'a> {
    /// What the pass reads of the levels below.
    reach: Reach,
    /// The last pass: it also reads the quiet moves and the moves that
    /// end the game, and checks that some move equals each entry.
    last: bool,
    /// A bit a position of the configuration: some move equals it.
    bits: &'a [AtomicU64],
}

/// Boards `start..end` of configuration `id` at level `n` checked in one
/// pass ([`Pass`]); their census (from the last pass only), or `None`
/// when an entry is less than a move's value or (last pass) equals none.
fn check_boards_pass<E: ExitValue>(
    n: u32,
    id: usize,
    start: u64,
    end: u64,
    tables: &Lookup<E>,
    pass: &Pass<'_>,
) -> Option<Census> {
    let config = TuzdykConfig::from_id(id);
    let own = tables.part(id);
    let mut census = Census::default();
    let mut walker = BoardWalker::new(n, config, start, end);
    while let Some((rank, board)) = walker.current() {
        let mut slots = [None; 9];
        let (pos0, played, legal) = board_moves(n, config, board, tables);
        let entries = own.board(n, rank);
        for j in 0..=n {
            let index = (rank * (n as u64 + 1) + j as u64) as usize;
            let stored = Value::unpack(entries.get(j));
            if legal == 0 {
                if pass.last {
                    let end = terminal_value(&at_offset(&pos0, j))
                        .expect("the side to move has no stones: the game is over");
                    if stored != tables.judged(end) {
                        return None;
                    }
                    census.add(stored);
                }
                continue;
            }
            let (word, bit) = (&pass.bits[index / 64], 1u64 << (index % 64));
            if let Some(best) = pass_value(j, tables, &played, legal, &mut slots, pass) {
                let best = tables.judged(best);
                if best > stored {
                    return None;
                }
                if best == stored {
                    word.fetch_or(bit, Ordering::Relaxed);
                }
            }
            if pass.last {
                if word.load(Ordering::Relaxed) & bit == 0 {
                    return None;
                }
                census.add(stored);
            }
        }
        walker.advance();
    }
    Some(census)
}

/// The best of the move values at kazan offset `j` of a board (as
/// [`expected_value`]) among the moves a pass reads: its exits into what
/// `pass` reads, and in the last pass every other move too; `None` when
/// it reads none.
#[inline]
fn pass_value<E: ExitValue>(
    j: u32,
    tables: &Lookup<E>,
    played: &[Option<Played>; 9],
    legal: u16,
    slots: &mut [Option<(u32, usize, u64)>; 9],
    pass: &Pass<'_>,
) -> Option<Value> {
    let mut best: Option<Value> = None;
    let mut mask = legal;
    while mask != 0 {
        let hole = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        let v = match played[hole] {
            Some(Played::Quiet(values)) if pass.last => {
                Value::unpack(values.get(tables.n - j)).back()
            }
            Some(Played::Other(child0)) => {
                let child = at_offset(&child0, j);
                let m = child.stones_on_board();
                // An exit is read in the pass that reads its level (and
                // configuration); a move that ends the game, or stays in
                // the level, in the last.
                let read = if child.outcome().is_none() && m < tables.n {
                    if pass.reach.whole_levels() {
                        pass.reach.reads_level(m)
                    } else {
                        let (_, config, _) = child_slot(&child, &mut slots[hole]);
                        pass.reach.reads(m, config)
                    }
                } else {
                    pass.last
                };
                if !read {
                    continue;
                }
                child_value(&child, tables, &mut slots[hole])
            }
            _ => continue,
        };
        best = best.max(Some(v));
    }
    best
}

/// The value for the mover of playing `mv` in `pos`: the rules' outcome if
/// the move ends the game, else the successor's stored value one ply back
/// (for a DTC level, a conversion's successor's result in 1).
fn move_value<E: ExitValue>(pos: &Position, mv: Move, tables: &Lookup<E>) -> Value {
    child_value(&pos.after_unchecked(mv), tables, &mut None)
}

/// The stone count, configuration and board of a live `child`, found
/// once a move (`slot`: they do not depend on the kazans).
#[inline]
fn child_slot(child: &Position, slot: &mut Option<(u32, usize, u64)>) -> (u32, usize, u64) {
    *slot.get_or_insert_with(|| {
        let s = Slot::of(child).expect("a live successor has an index slot");
        (child.stones_on_board(), s.config.id(), s.board)
    })
}

/// The value for the mover (the side not to move in `child`) of reaching
/// `child`: see [`move_value`]. `slot` remembers the child's stone count,
/// configuration and board, which do not depend on the kazans.
#[inline]
fn child_value<E: ExitValue>(
    child: &Position,
    tables: &Lookup<E>,
    slot: &mut Option<(u32, usize, u64)>,
) -> Value {
    if let Some(o) = child.outcome() {
        return match o.winner {
            None => Value::Draw,
            Some(w) if w == child.side_to_move() => Value::Loss(1),
            Some(_) => Value::Win(1),
        };
    }
    let (n, config, board) = child_slot(child, slot);
    // The child's mover (our opponent) has kazan 81 - n + j'.
    let j = child.kazan(child.side_to_move()) as u64 + n as u64 - HALF as u64;
    debug_assert_eq!(Slot::of(child).map(|s| s.kazan as u64), Some(j));
    if n < tables.n {
        return tables.exits.exit_value(n, config, board, j);
    }
    Value::unpack(tables.part(config).board(n, board).get(j as u32)).back()
}

/// A board's legal move, played once (at kazan offset 0): sowing, captures
/// and tuzdyks do not depend on the kazans.
#[derive(Clone, Copy)]
enum Played<'a> {
    /// A quiet move (no capture, tuzdyk or feed) whose game goes on: it
    /// keeps both kazans and swaps the sides, so at every kazan offset `j`
    /// its successor is the same board (these entries) at offset `n - j`.
    Quiet(BoardValues<'a>),
    /// Any other move (a conversion, or one that ends the game): its
    /// successor at offset 0. At offset `j` the mover's kazan holds `j`
    /// more stones and the opponent's `j` fewer, before and after the move,
    /// so the successor at `j` is this one with its kazans shifted; whether
    /// its game is over depends on them.
    Other(Position),
}

/// Plays each legal move of `board` (mover South, kazan offset 0) once and
/// sorts it; also the position at offset 0 and the legal holes.
fn board_moves<'a, E: ExitValue>(
    n: u32,
    config: TuzdykConfig,
    board: &[u8; 18],
    tables: &Lookup<'a, E>,
) -> (Position, [Option<Played<'a>>; 9], u16) {
    let mut played = [None; 9];
    let (pos, legal) = play_each(n, config, board, |hole, child| {
        played[hole] = Some(match quiet_board(n, &child) {
            Some((id, rank)) => Played::Quiet(tables.part(id).board(n, rank)),
            None => Played::Other(child),
        });
    });
    (pos, played, legal)
}

/// `pos` (South the mover of a board at kazan offset 0, or a successor of
/// such a position) at kazan offset `j`: South's kazan `j` stones fuller,
/// North's `j` emptier.
#[inline]
fn at_offset(pos: &Position, j: u32) -> Position {
    let [s, n] = pos.kazans();
    pos.with_kazans([s + j as u8, n - j as u8])
        .expect("stones move between the kazans")
}

/// The best of the move values at kazan offset `j` of the board whose
/// legal moves (`legal`, not empty) are `played`.
#[inline]
fn expected_value<E: ExitValue>(
    j: u32,
    tables: &Lookup<E>,
    played: &[Option<Played>; 9],
    legal: u16,
    slots: &mut [Option<(u32, usize, u64)>; 9],
) -> Value {
    let mut best: Option<Value> = None;
    let mut mask = legal;
    while mask != 0 {
        let hole = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        let v = match played[hole] {
            Some(Played::Quiet(values)) => Value::unpack(values.get(tables.n - j)).back(),
            Some(Played::Other(child0)) => {
                child_value(&at_offset(&child0, j), tables, &mut slots[hole])
            }
            None => unreachable!("every legal hole was played"),
        };
        best = best.max(Some(v));
    }
    best.expect("a board with a legal move")
}

/// Checks boards `start..end` of configuration `id` at level `n` (stored
/// in `tables`' unit); returns their census.
fn check_boards<E: ExitValue>(
    n: u32,
    id: usize,
    start: u64,
    end: u64,
    tables: &Lookup<E>,
) -> Result<Census, Mismatch> {
    let config = TuzdykConfig::from_id(id);
    let own = tables.part(id);
    let mut census = Census::default();
    let mut walker = BoardWalker::new(n, config, start, end);
    while let Some((rank, board)) = walker.current() {
        let mut slots = [None; 9];
        let (pos0, played, legal) = board_moves(n, config, board, tables);
        let at = |j: u32| at_offset(&pos0, j);
        let entries = own.board(n, rank);
        for j in 0..=n {
            let stored = Value::unpack(entries.get(j));
            // A live index position has both kazans at most 81, so its game
            // is over exactly when the side to move has no stones.
            let expected = tables.judged(if legal == 0 {
                terminal_value(&at(j)).expect("the side to move has no stones: the game is over")
            } else {
                expected_value(j, tables, &played, legal, &mut slots)
            });
            if stored != expected {
                return Err(Mismatch {
                    pos: at(j),
                    stored,
                    expected,
                });
            }
            census.add(stored);
        }
        walker.advance();
    }
    Ok(census)
}

/// Every move of `pos` with its value for the mover, for the error message.
fn describe_moves<E: ExitValue>(pos: &Position, tables: &Lookup<E>) -> String {
    if let Some(o) = pos.outcome() {
        return format!("no moves: the game is over, {}:{}", o.score[0], o.score[1]);
    }
    let parts: Vec<String> = pos
        .legal_moves()
        .map(|mv| {
            let report = {
                let mut p = *pos;
                p.play_unchecked(mv)
            };
            let v = move_value(pos, mv, tables);
            format!("{} gives a {v}", report.traditional())
        })
        .collect();
    format!("{}moves: {}", E::NOTE, parts.join(", "))
}

/// Refuses a DTM table above a DTC one (`files[i]` holds `i + 1` stones):
/// checking it needs the distances to the end below it; and a table of
/// every position above a WDL table.
///
/// # Errors
///
/// [`VerifyError::AboveHoldsMore`]; [`VerifyError::Table`] with
/// [`TableError::WrongMetric`] naming the lowest DTC table under a DTM
/// one.
pub fn check_metrics(files: &[TableFile]) -> Result<(), VerifyError> {
    // A table needs the positions its own reach below it: every position
    // for a table of every position, those with a tuzdyk for a WDL table,
    // its pairs' for a table of tuzdyk pairs.
    for pair in files.windows(2) {
        let (below, above) = (pair[0].header().contents, pair[1].header().contents);
        if !above.within(below) {
            return Err(VerifyError::AboveHoldsMore {
                below: pair[0].path().to_path_buf(),
                below_contents: below,
                above: pair[1].path().to_path_buf(),
                above_contents: above,
            });
        }
    }
    let first_dtc = files.iter().position(|f| f.metric() == Metric::Dtc);
    let last_dtm = files.iter().rposition(|f| f.metric() == Metric::Dtm);
    match (first_dtc, last_dtm) {
        (Some(c), Some(m)) if c < m => Err(TableError::WrongMetric {
            path: files[c].path().to_path_buf(),
            found: Metric::Dtc,
            wanted: Metric::Dtm,
        }
        .into()),
        _ => Ok(()),
    }
}
