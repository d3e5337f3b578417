//! A level's table written from its unit files, once every unit is
//! solved and under the level's assembly lock (one shard writes it), and
//! the summary of each level a run reports; `togyz-gen assemble` over a
//! folder of solved units.

use crate::below::{DtcBelow, DtmBelow};
use crate::event::{DamagedUnit, Event, Report};
use crate::files::folder::work_dir;
use crate::files::work::{self, UnitState};
use crate::files::write::{self, TableStatus, WriteSummary};
use crate::run::error::GenerateError;
use crate::run::lock;
use crate::run::metric::UnitSolver;
use crate::solve::unit::{held_units, max_pair_stones, UnitId};
use std::path::Path;
use std::time::Instant;
use togyz_tb::raw::format::{file_name, Contents, TableFile};
use togyz_tb::Metric;

/// What one stone count contributed.
#[derive(Clone, Debug, Default)]
pub struct LevelSummary {
    /// Stones on the board.
    pub stones: u32,
    /// Positions the table holds (all of the level's, but for a WDL
    /// table, which leaves out the boards without a tuzdyk).
    pub positions: u64,
    /// Wins for the side to move.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses for the side to move.
    pub losses: u64,
    /// The longest win, in plies.
    pub longest_win: u32,
    /// Seconds spent solving and writing (0 when the table was already there).
    pub seconds: f64,
    /// Bytes of the table file.
    pub bytes: u64,
    /// Whether the table was already on disk.
    pub reused: bool,
}

impl LevelSummary {
    /// The summary of level `n`, just written as `written` in `seconds`.
    pub fn written(n: u32, written: &WriteSummary, seconds: f64) -> LevelSummary {
        LevelSummary {
            stones: n,
            positions: written.held(),
            wins: written.wins,
            draws: written.draws,
            losses: written.losses,
            longest_win: written.longest_win,
            seconds,
            bytes: written.bytes,
            reused: false,
        }
    }
}

/// The summary of level `n`'s complete `table`, found on disk.
pub(crate) fn kept_summary(table: &TableFile, n: u32) -> LevelSummary {
    let h = table.header();
    LevelSummary {
        stones: n,
        positions: h.wins + h.draws + h.losses,
        wins: h.wins,
        draws: h.draws,
        losses: h.losses,
        longest_win: h.longest_win,
        bytes: h.file_length,
        reused: true,
        ..Default::default()
    }
}

/// A level's summary and, when kept, what the levels above need of it.
pub(crate) type Solved<S> = (LevelSummary, Option<<S as UnitSolver>::Kept>);

/// Writes level `n`'s table of `contents` from its unit files if they
/// are all there ([`held_units`]) and the table is not (under the level's assembly lock, so one shard does
/// it), and removes the work folder. `None` while units are missing or
/// another run holds that lock; otherwise the summary and, with `keep`, the
/// level's values.
pub(crate) fn assemble_level<S: UnitSolver>(
    out: &Path,
    n: u32,
    contents: Contents,
    keep: bool,
    solver: &S,
    report: Report<'_>,
) -> Result<Option<Solved<S>>, GenerateError> {
    let path = out.join(file_name(n));
    let dir = work_dir(out, n);
    let finished = |path: &Path| -> Result<_, GenerateError> {
        let table = TableFile::open(path)?;
        let mut s = kept_summary(&table, n);
        s.reused = false;
        let values = if keep {
            Some(solver.load(&table)?)
        } else {
            None
        };
        Ok(Some((s, values)))
    };
    if let TableStatus::Complete = write::table_status(out, n) {
        // A shard that started the level late may have made the folder
        // again: it is empty (or holds only our lock files).
        let _ = work::remove_work_dir(&dir);
        return finished(&path);
    }
    if held_units(n, contents)
        .iter()
        .any(|&u| !work::unit_done(&dir, n, u))
    {
        return Ok(None);
    }
    let lock_path = out.join(format!(".togyz-{n:02}.assemble.lock"));
    let lock = match lock::try_exclusive(&lock_path, &format!("assembling {}", path.display())) {
        Ok(lock) => lock,
        // Another run is writing the table: it appears when done, and the
        // caller waits for it within its bound.
        Err(lock::LockError::Held { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    match write::table_status(out, n) {
        TableStatus::Complete => return finished(&path),
        TableStatus::Invalid(reason) => {
            return Err(GenerateError::InvalidExisting { path, reason })
        }
        TableStatus::Missing => {}
    }
    let t = Instant::now();
    let (written, kept) = solver.write_level(out, n, contents, keep)?;
    work::remove_work_dir(&dir).map_err(|source| GenerateError::NotWritable {
        path: dir.clone(),
        source,
    })?;
    // Shards waiting on this lock find the table when they get it.
    let _ = std::fs::remove_file(lock.path());
    drop(lock);
    report(Event::Assembled {
        stones: n,
        seconds: t.elapsed().as_secs_f64(),
        path: &path,
        bytes: written.bytes,
        positions: written.held(),
    });
    let s = LevelSummary::written(n, &written, 0.0);
    Ok(Some((s, kept)))
}

/// `togyz-gen assemble`: writes the table of every level in output folder
/// `out` whose units are all solved and whose table is missing, each step
/// to `report`.
///
/// # Errors
///
/// [`GenerateError`]: `out` is not a folder, a table in the way is
/// invalid, a unit file or the table cannot be read or written.
pub fn assemble(out: &Path, report: Report<'_>) -> Result<(), GenerateError> {
    if !out.is_dir() {
        return Err(GenerateError::OutNotFolder(out.to_path_buf()));
    }
    let mut any = false;
    for n in 1..=max_pair_stones() {
        if !work_dir(out, n).is_dir() {
            continue;
        }
        let dir = work_dir(out, n);
        // A WDL run's folder (marked so) never holds the unit without a
        // tuzdyk; if a full run solved it there since, the table is full.
        let contents = match work::marked_wdl(&dir) {
            Some(c) if !work::unit_done(&dir, n, UnitId::of(0)) => c,
            _ => Contents::Full,
        };
        let assembled = match work::metric_of(&dir) {
            Metric::Dtm => assemble_level(out, n, contents, false, &DtmBelow::new(0), report)?,
            Metric::Dtc => assemble_level(out, n, contents, false, &DtcBelow::new(0), report)?
                .map(|(s, _)| (s, None)),
        };
        match assembled {
            Some(_) => any = true,
            None => {
                let dir = work_dir(out, n);
                let units = held_units(n, contents);
                let missing: Vec<UnitId> = units
                    .iter()
                    .copied()
                    .filter(|&u| !work::unit_done(&dir, n, u))
                    .collect();
                for &u in &missing {
                    if let UnitState::Damaged { path, reason } = work::check_unit(&dir, n, u) {
                        report(Event::Damaged {
                            path: &path,
                            reason: &reason,
                            action: DamagedUnit::Left,
                        });
                    }
                }
                let missing = missing.len();
                if missing == 0 {
                    let lock = out.join(format!(".togyz-{n:02}.assemble.lock"));
                    report(Event::AssembledElsewhere {
                        stones: n,
                        holder: lock::holder(&lock),
                    });
                    continue;
                }
                report(Event::NotAssembled {
                    stones: n,
                    missing,
                    units: units.len(),
                    dir: &dir,
                });
            }
        }
    }
    if !any {
        report(Event::NothingToAssemble { out });
    }
    Ok(())
}
