//! What a `generate` run will take, stated before any work: positions,
//! disk, peak memory and time, checked against what the machine has.
//!
//! The model (docs/performance.md has the measurements behind each
//! constant): while level `n` is solved, the small levels below it are held
//! whole, one byte a position ([`crate::levels::lower`]), and each worker thread
//! holds one unit in flight (a state word per position, its quiet
//! predecessor lists and frontier, its solved values, and what it decoded
//! of the larger levels below for its exits); the level itself goes to disk
//! unit by unit. When a level that is held whole is assembled into its
//! table file, it is read into memory as the file is written.
//!
//! A DTC solve ([`crate::solve::dtc`]) holds the draw splits of every level below
//! (one byte a board) and, per unit in flight, a one-byte state and value
//! a position. `verify` checks one unit at a time (in parallel within
//! it): the unit decoded from its file, beside what its exits read of the
//! levels below ([`crate::levels::lower`] for DTM, [`crate::levels::lower_wdl`] for DTC).
//! `togyz-gen plan` prints both plans without running anything.

use crate::levels::{self, lower};
use crate::solve::unit::{level_units, max_solver_stones, KazanCut, UnitId};
use std::path::{Path, PathBuf};
use togyz_answer::text::{human_bytes, human_seconds, stones};
use togyz_tb::raw::index::{Layout, MAX_STONES};
use togyz_tb::Metric;

/// Bytes a unit in flight takes per board, either metric: its quiet
/// predecessor lists (4 bytes an edge, an 8-byte offset) and its frontier.
/// With [`BASE_BYTES`], the model stays on the safe side of the measured
/// peaks (docs/performance.md): 2.32 GB for the 10-stone set (model:
/// 2.58 GB) and 12.04 GB for the 12-stone level (model: 14.49 GB).
pub const UNIT_BYTES_PER_BOARD: f64 = 25.0;
/// Working memory besides the levels and units: the table writer's batches
/// and the program itself.
pub const BASE_BYTES: f64 = 100e6;
/// Unit-file bytes per position on disk (zstd level 1 of one-byte cells,
/// the same for both metrics), an upper bound: the 10-stone level's units
/// took 0.07.
pub const UNIT_FILE_BYTES_PER_POSITION: f64 = 0.1;

/// What the plan knows of one metric: its fitted figures
/// (docs/performance.md has the measurements behind each) and what its
/// solve holds. Every formula of the plan is written once over these.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fitted {
    /// Bytes a unit in flight takes per position of the kazan part being
    /// solved: its working state.
    pub state_bytes_per_position: f64,
    /// Bytes a unit in flight takes per position of the unit: its solved
    /// values, gathered part after part.
    pub value_bytes_per_position: f64,
    /// Bytes a unit in flight takes per board.
    pub unit_bytes_per_board: f64,
    /// Positions solved and written per second and worker thread.
    pub solve_rate: f64,
    /// Positions `verify` checks per second and worker thread.
    pub verify_rate: f64,
    /// Table bytes per position on disk, an upper bound.
    pub table_bytes_per_position: f64,
    /// Whether a solve holds every level below whole, whatever
    /// `hold_whole` says (else up to `hold_whole`, the others read per
    /// unit from their files).
    pub solve_holds_every_level: bool,
    /// Whether assembling a level's table holds what the levels above
    /// keep of it, needed or not (else only when it is kept and held
    /// whole).
    pub assembly_holds_level: bool,
}

impl Fitted {
    /// DTM: the distances below, a byte a position, held whole up to
    /// `hold_whole` positions ([`crate::levels::lower`]).
    pub const DTM: Fitted = Fitted {
        // Its 4-byte state word and its 1-byte solved value.
        state_bytes_per_position: 4.0,
        value_bytes_per_position: 1.0,
        unit_bytes_per_board: UNIT_BYTES_PER_BOARD,
        // 7.95e9 positions of the 11-stone level solved and written in
        // 842 s on 2 threads, the slowest level measured.
        solve_rate: 4.7e6,
        // The 12-stone level at 11.4 M positions/s on 2 threads, the
        // slowest level measured.
        verify_rate: 5.5e6,
        // 0.74 bits at 11 stones, growing slowly with the stones.
        table_bytes_per_position: 0.125,
        solve_holds_every_level: false,
        // The writer streams the values, collecting them only when kept.
        assembly_holds_level: false,
    };

    /// DTC: the draw splits below, a byte a board, every level held
    /// whole while solving ([`crate::solve::dtc`]).
    pub const DTC: Fitted = Fitted {
        // Its one-byte state and its one-byte solved value (two each if a
        // distance passes a byte).
        state_bytes_per_position: 1.0,
        value_bytes_per_position: 1.0,
        // As for DTM, and a draw split.
        unit_bytes_per_board: UNIT_BYTES_PER_BOARD + 1.0,
        // 4.64e9 positions of the DTC levels 1 to 10 solved and written in
        // 414 s of CPU (11.2 M a CPU second), rounded down for the larger
        // levels.
        solve_rate: 10.0e6,
        // Every DTC table up to 13 stones checked in 2,379 s on 2 threads
        // (16.5 M positions a second and thread; the 13-stone level, the
        // slowest, 15.7 M), rounded down.
        verify_rate: 15.0e6,
        // 0.41 bits at 9 and 10 stones.
        table_bytes_per_position: 0.0625,
        solve_holds_every_level: true,
        // The writer gathers the level's draw splits as it goes.
        assembly_holds_level: true,
    };

    /// The figures of `metric`.
    pub fn of(metric: Metric) -> &'static Fitted {
        match metric {
            Metric::Dtm => &Fitted::DTM,
            Metric::Dtc => &Fitted::DTC,
        }
    }

    /// Up to how many bytes a solve holds the levels below whole, given
    /// `hold_whole`.
    fn solve_limit(&self, hold_whole: u64) -> u64 {
        if self.solve_holds_every_level {
            u64::MAX
        } else {
            hold_whole
        }
    }
}

/// What a run will need.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// Positions this process solves.
    pub positions: u64,
    /// Bytes of disk the output folder needs on top of what is there.
    pub disk: u64,
    /// Peak memory, bytes.
    pub memory: u64,
    /// The level where the memory peaks.
    pub memory_at: u32,
    /// Seconds, estimated.
    pub seconds: f64,
    /// The most kazan parts a unit is cut into, and the first level
    /// where a unit is cut (1 and 0 when none is).
    pub parts: (usize, u32),
}

/// Memory of one unit of level `n` of `metric` in flight, solved in the
/// kazan parts of `cut`: the state of its largest part, its values, its
/// predecessor lists and frontier, and what its exits decode of the levels
/// below not held whole (up to `hold_whole`: [`levels::held_whole`]).
pub fn unit_memory(metric: Metric, n: u32, u: UnitId, hold_whole: u64, cut: KazanCut) -> u64 {
    let f = Fitted::of(metric);
    let boards = u.boards(n) as f64;
    let part = boards * cut.part_splits(n) as f64;
    (part * f.state_bytes_per_position
        + u.positions(n) as f64 * f.value_bytes_per_position
        + boards * f.unit_bytes_per_board) as u64
        + levels::unit_exit_bytes(metric, n, u, f.solve_limit(hold_whole))
}

/// The cut of unit `u` of level `n` when its units may take `budget`
/// bytes with `threads` units in flight: the fewest kazan parts that fit
/// a thread's share of the budget, else the fewest that fit it whole (the
/// unit then runs alone, [`UnitBudget`]), else parts of one pair.
pub fn pick_cut(
    metric: Metric,
    n: u32,
    u: UnitId,
    hold_whole: u64,
    budget: u64,
    threads: usize,
) -> KazanCut {
    let pairs = KazanCut::pair_count(n);
    let fits = |b: u64| {
        (1..=pairs)
            .rev()
            .filter_map(KazanCut::pairs)
            .find(|&c| unit_memory(metric, n, u, hold_whole, c) <= b)
    };
    let cut = fits(budget / threads.max(1) as u64)
        .or_else(|| fits(budget))
        .unwrap_or(KazanCut::pairs(1).expect("one pair"));
    if cut.is_whole(n) {
        KazanCut::WHOLE
    } else {
        cut
    }
}

/// How the units of a level are cut: each unit's cut and memory.
fn level_cuts(
    metric: Metric,
    n: u32,
    threads: usize,
    hold_whole: u64,
    units_budget: Option<u64>,
) -> Vec<(KazanCut, u64)> {
    level_units(n)
        .into_iter()
        .map(|u| {
            let cut = units_budget.map_or(KazanCut::WHOLE, |b| {
                pick_cut(metric, n, u, hold_whole, b, threads)
            });
            (cut, unit_memory(metric, n, u, hold_whole, cut))
        })
        .collect()
}

/// Peak memory of solving level `n` of `metric` with `threads` units in
/// flight at most (and of assembling it; `keep` if a larger level needs
/// it): the levels below held whole, and the units in flight or what the
/// assembly holds of the level, whichever is more. With `bound`, the
/// units are cut along the kazan axis ([`pick_cut`]) to fit what the
/// bound leaves them, and run one at a time when side by side they do
/// not; without, they are solved whole. Also returns the most kazan
/// parts a unit of the level is cut into.
pub fn level_memory(
    metric: Metric,
    n: u32,
    threads: usize,
    keep: bool,
    hold_whole: u64,
    bound: Option<u64>,
) -> (u64, usize) {
    let f = Fitted::of(metric);
    let limit = f.solve_limit(hold_whole);
    let whole = levels::whole_bytes(metric, n, limit) + BASE_BYTES as u64;
    let budget = bound.map(|b| b.saturating_sub(whole));
    let cuts = level_cuts(metric, n, threads, hold_whole, budget);
    let mut units: Vec<u64> = cuts.iter().map(|&(_, m)| m).collect();
    units.sort_unstable_by(|a, b| b.cmp(a));
    let mut in_flight: u64 = units.iter().take(threads.max(1)).sum();
    if let Some(b) = budget {
        // Units that do not fit side by side wait for each other.
        in_flight = in_flight.min(b).max(units.first().copied().unwrap_or(0));
    }
    let assembly = if f.assembly_holds_level || (keep && levels::held_whole(metric, n, limit)) {
        levels::level_bytes(metric, n)
    } else {
        0
    };
    let parts = cuts
        .iter()
        .map(|&(c, _)| c.parts(n).len())
        .max()
        .unwrap_or(1);
    (whole + in_flight.max(assembly), parts)
}

/// Bytes of the table file of level `n`, an upper bound.
pub fn table_bytes(metric: Metric, n: u32) -> u64 {
    (Layout::new(n).positions() as f64 * Fitted::of(metric).table_bytes_per_position) as u64
}

/// Peak memory of verifying level `n` of a `metric` table, the smaller
/// levels held whole up to `hold_whole` positions (DTM) or boards (DTC):
/// the levels held whole
/// (one byte a position for DTM, a board for DTC), and the largest of the
/// unit being checked (decoded in `cell` bytes a position: 1, or 2 if its
/// longest distance passes 126 plies) with what its exits decode of the
/// larger levels below, and of the level's own draw splits or values when
/// they are added to the levels held whole for the next level (`keep`).
pub fn verify_level_memory(metric: Metric, n: u32, cell: u64, keep: bool, hold_whole: u64) -> u64 {
    let whole = levels::whole_bytes(metric, n, hold_whole);
    let unit = level_units(n)
        .into_iter()
        .map(|u| u.positions(n) * cell + levels::unit_exit_bytes(metric, n, u, hold_whole))
        .max()
        .unwrap_or(0);
    let added = if keep && levels::held_whole(metric, n, hold_whole) {
        levels::level_bytes(metric, n)
    } else {
        0
    };
    whole + unit.max(added) + BASE_BYTES as u64
}

/// The plan of `togyz-gen verify` over levels `1..=max` of `metric`
/// tables with `threads` workers: the peak memory (at one-byte cells if
/// `narrow`, else two) and the time. Its disk is zero. The memory counts
/// the table files too: `verify` checks every checksum first through the
/// files' memory maps, and the pages read stay in its resident set (the
/// kernel may drop them when memory runs short: they are the files').
pub fn verify_plan(
    metric: Metric,
    max: u32,
    threads: usize,
    narrow: bool,
    hold_whole: u64,
) -> Plan {
    let cell = if narrow { 1 } else { 2 };
    let mut p = Plan::default();
    for n in 1..=max {
        p.positions += Layout::new(n).positions();
        let m = verify_level_memory(metric, n, cell, n < max, hold_whole)
            + (1..=max).map(|m| table_bytes(metric, m)).sum::<u64>();
        if m > p.memory {
            p.memory = m;
            p.memory_at = n;
        }
    }
    p.seconds = p.positions as f64 / (Fitted::of(metric).verify_rate * threads.max(1) as f64);
    p
}

/// Bytes of units in flight, bounded: a unit starts only when its memory
/// fits beside those running (or when none runs), so a level whose
/// biggest units do not fit side by side runs them one after the other.
pub struct UnitBudget {
    limit: u64,
    used: std::sync::Mutex<u64>,
    freed: std::sync::Condvar,
}

impl UnitBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> UnitBudget {
        UnitBudget {
            limit,
            used: std::sync::Mutex::new(0),
            freed: std::sync::Condvar::new(),
        }
    }

    /// Runs `f` once `bytes` fit the budget, holding them meanwhile.
    pub fn run<R>(&self, bytes: u64, f: impl FnOnce() -> R) -> R {
        {
            let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
            while *used > 0 && *used + bytes > self.limit {
                used = self.freed.wait(used).unwrap_or_else(|e| e.into_inner());
            }
            *used += bytes;
        }
        let r = f();
        *self.used.lock().unwrap_or_else(|e| e.into_inner()) -= bytes;
        self.freed.notify_all();
        r
    }
}

/// The plan for solving the levels in `todo` (ascending) of `metric`
/// with `threads` workers, `shards` processes sharing the work, the
/// largest level asked for being `max`, the smaller levels held whole up
/// to `hold_whole` ([`level_memory`]), the units cut along the kazan axis
/// to fit `bound` bytes when given; `solved(n)` positions of level `n`
/// are already in finished unit files (a resumed run; `|_| 0` from
/// nothing), so only the rest is solved and only its unit files take new
/// disk.
#[allow(clippy::too_many_arguments)]
pub fn plan(
    metric: Metric,
    todo: &[u32],
    max: u32,
    threads: usize,
    shards: u32,
    hold_whole: u64,
    bound: Option<u64>,
    solved: impl Fn(u32) -> u64,
) -> Plan {
    let mut p = Plan::default();
    let mut disk_tables = 0u64;
    let mut work_peak = 0u64;
    for &n in todo {
        let positions = Layout::new(n).positions();
        let left = positions - solved(n).min(positions);
        p.positions += left / shards as u64;
        disk_tables += table_bytes(metric, n);
        work_peak = work_peak.max((left as f64 * UNIT_FILE_BYTES_PER_POSITION) as u64);
        let (m, parts) = level_memory(metric, n, threads, n < max, hold_whole, bound);
        if m > p.memory {
            p.memory = m;
            p.memory_at = n;
        }
        if parts > 1 && p.parts.1 == 0 {
            p.parts.1 = n;
        }
        p.parts.0 = p.parts.0.max(parts);
    }
    p.parts.0 = p.parts.0.max(1);
    p.disk = disk_tables + work_peak;
    p.seconds = p.positions as f64 / (Fitted::of(metric).solve_rate * threads.max(1) as f64);
    p
}

/// What `togyz-gen plan` is asked about.
#[derive(Debug, Clone)]
pub struct PlanOptions {
    /// The largest stone count: the plan is for levels 1..=N from nothing.
    pub max_stones: u32,
    /// The metric.
    pub metric: Metric,
    /// Worker threads (`None`: one per core).
    pub threads: Option<usize>,
    /// As [`crate::run::options::GenerateOptions::hold_whole`].
    pub hold_whole: u64,
    /// Also state the memory available and the disk free at this folder
    /// (at the nearest folder above it if it does not exist yet).
    pub out: Option<PathBuf>,
    /// The memory the run may take (`None`: what this machine has
    /// available, [`memory_available`]; it may be more, for a run
    /// elsewhere): the units are cut along the kazan axis to fit it.
    pub max_memory: Option<u64>,
}

impl PlanOptions {
    /// The options for levels `1..=max_stones` in DTM, the rest default:
    /// one thread per core, [`lower::WHOLE_POSITIONS`] held whole, no
    /// folder.
    pub fn new(max_stones: u32) -> PlanOptions {
        PlanOptions {
            max_stones,
            metric: Metric::Dtm,
            threads: None,
            hold_whole: lower::WHOLE_POSITIONS,
            out: None,
            max_memory: None,
        }
    }
}

/// Why `togyz-gen plan` failed.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// A stone count the index does not cover.
    #[error("--max-stones {0}: the index covers 1 to {max} stones", max = MAX_STONES)]
    Stones(u32),
}

/// The plans of generating and of verifying levels `1..=args.max_stones`,
/// one line each, as `generate` states its plan before a run.
///
/// # Errors
///
/// [`PlanError::Stones`] for a stone count the index does not cover.
pub fn plan_lines(args: &PlanOptions) -> Result<Vec<String>, PlanError> {
    let max = args.max_stones;
    if max == 0 || max > MAX_STONES {
        return Err(PlanError::Stones(max));
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let todo: Vec<u32> = (1..=max).collect();
    let hold = args.hold_whole;
    // --max-memory may be more than this machine has: a plan for another.
    let bound = args.max_memory.or_else(memory_available);
    let g = plan(args.metric, &todo, max, threads, 1, hold, bound, |_| 0);
    let v = verify_plan(args.metric, max, threads, true, hold);
    let wide = verify_plan(args.metric, max, threads, false, hold);
    let s = if threads == 1 { "" } else { "s" };
    let mut lines = Vec::new();
    let solver_max = max_solver_stones();
    if max > solver_max {
        lines.push(format!(
            "`togyz-gen generate` refuses --max-stones {max}: the solver handles at most {solver_max} stones (beyond, a unit's boards pass its 32-bit node ids); the figures below are what the model says"
        ));
    }
    lines.extend([
        format!(
            "generate --metric {} --max-stones {max}: {} positions, about {} of disk, a peak of about {} of memory (at {} stones), about {} with {threads} thread{s}",
            args.metric.to_string().to_lowercase(),
            g.positions,
            human_bytes(g.disk),
            human_bytes(g.memory),
            g.memory_at,
            human_seconds(g.seconds),
        ),
        match (bound, g.parts) {
            (None, _) => "units: solved whole (the memory available is unknown)".to_string(),
            (Some(b), (1, _)) => format!("units: every unit solved whole within {}", human_bytes(b)),
            (Some(b), (parts, from)) => format!(
                "units: cut along the kazan axis to fit {} from {} on, into at most {parts} kazan parts a unit",
                human_bytes(b),
                stones(from)
            ),
        },
        format!(
            "verify: a peak of about {} of memory (at {} stones; {} if a level's longest distance passes 126 plies), about {} with {threads} thread{s}",
            human_bytes(v.memory),
            v.memory_at,
            human_bytes(wide.memory),
            human_seconds(v.seconds),
        ),
    ]);
    if let Some(out) = &args.out {
        lines.push(format!(
            "{} of memory available, {}",
            memory_available().map_or_else(|| "unknown".into(), human_bytes),
            disk_free_text(out)
        ));
    }
    Ok(lines)
}

/// The memory a run may use: what the kernel says is available
/// ([`memory_available`]), or `max_memory` (`--max-memory`) if that is
/// less; `None` when neither is known.
pub fn memory_limit(max_memory: Option<u64>) -> Option<u64> {
    match (memory_available(), max_memory) {
        (Some(a), Some(m)) => Some(a.min(m)),
        (a, m) => a.or(m),
    }
}

/// What units may take while a level is solved: 90% of what is available
/// now (the smaller levels already loaded), and no more than
/// `max_memory` less what the process already holds.
pub fn units_budget(max_memory: Option<u64>) -> u64 {
    let free = memory_available().map_or(u64::MAX, |a| a / 10 * 9);
    match max_memory {
        Some(m) => free.min(m.saturating_sub(resident_bytes().unwrap_or(0))),
        None => free,
    }
}

/// The resident memory of this process (`VmRSS` of `/proc/self/status`),
/// in bytes.
pub fn resident_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Memory the kernel says is available for new work (`MemAvailable` of
/// `/proc/meminfo`), in bytes; `None` where there is no such file.
pub fn memory_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Bytes free for an unprivileged user on the file system of `path`
/// (`statvfs`).
pub fn disk_available(path: &Path) -> std::io::Result<u64> {
    fs4::available_space(path)
}

/// `path`, or the nearest folder above it that exists (a relative path's
/// last resort being `.`): where a folder still to be made takes its disk.
pub fn nearest_existing(path: &Path) -> PathBuf {
    path.ancestors()
        .find(|p| p.is_dir())
        .unwrap_or_else(|| Path::new("."))
        .to_path_buf()
}

/// The disk free for an output folder `out`, or for the nearest existing
/// folder above it when it does not exist yet, and where that was
/// measured.
pub fn disk_free(out: &Path) -> (std::io::Result<u64>, PathBuf) {
    let at = nearest_existing(out);
    (disk_available(&at), at)
}

/// "12.30 GB of disk free at OUT", saying where the figure comes from when
/// `out` does not exist yet.
pub fn disk_free_text(out: &Path) -> String {
    let (free, at) = disk_free(out);
    let free = free.map_or_else(|e| format!("unknown ({e})"), human_bytes);
    if at == out {
        format!("{free} of disk free at {}", out.display())
    } else {
        format!(
            "{free} of disk free at {} ({} does not exist yet; it would be made there)",
            at.display(),
            out.display()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    const W: u64 = lower::WHOLE_POSITIONS;

    /// The DTM plan of `todo` from nothing.
    fn dtm(todo: &[u32], max: u32, threads: usize, shards: u32) -> Plan {
        plan(Metric::Dtm, todo, max, threads, shards, W, None, |_| 0)
    }

    #[test]
    fn a_given_limit_below_what_is_available_is_the_limit() {
        assert_eq!(memory_limit(Some(1000)), Some(1000));
    }

    #[test]
    fn the_plan_grows_with_the_stones_and_the_memory_peaks_at_the_top() {
        let p8 = dtm(&(1..=8).collect::<Vec<_>>(), 8, 2, 1);
        let p10 = dtm(&(1..=10).collect::<Vec<_>>(), 10, 2, 1);
        assert_eq!(p8.positions, 512_753_762);
        assert_eq!(p10.positions, 4_644_298_157);
        assert_eq!(p10.memory_at, 10);
        assert!(p8.memory < p10.memory && p8.disk < p10.disk && p8.seconds < p10.seconds);
        // At most 25% above the measured peaks (docs/performance.md), never
        // below.
        assert!(
            (2.32e9..2.90e9).contains(&(p10.memory as f64)),
            "{}",
            p10.memory
        );
        let p12 = dtm(&[12], 12, 2, 1);
        assert!(
            (12.04e9..15.05e9).contains(&(p12.memory as f64)),
            "{}",
            p12.memory
        );
        // Shards split the positions, not the memory.
        let half = dtm(&[10], 10, 2, 2);
        assert_eq!(half.positions, Layout::new(10).positions() / 2);
        assert_eq!(half.memory, dtm(&[10], 10, 2, 1).memory);
        assert_eq!(human_bytes(2_500_000_000), "2.50 GB");
        // Units over the budget run one at a time.
        let budget = Arc::new(UnitBudget::new(10));
        let running = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let most = Arc::new(std::sync::atomic::AtomicU64::new(0));
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    budget.run(6, || {
                        let now = running.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                        most.fetch_max(now, std::sync::atomic::Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        running.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                    })
                });
            }
        });
        assert_eq!(most.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert_eq!(human_seconds(7200.0), "2.0 h");
    }

    #[test]
    fn units_are_cut_along_the_kazan_axis_to_fit_the_bound() {
        let all = |max: u32| (1..=max).collect::<Vec<_>>();
        for metric in [Metric::Dtm, Metric::Dtc] {
            let uncut = plan(metric, &all(14), 14, 2, 1, W, None, |_| 0);
            assert_eq!(uncut.parts, (1, 0));
            // A bound with room for whole units changes nothing.
            let roomy = plan(metric, &all(14), 14, 2, 1, W, Some(u64::MAX / 4), |_| 0);
            assert_eq!(roomy, uncut);
            let cut = plan(metric, &all(14), 14, 2, 1, W, Some(16_000_000_000), |_| 0);
            assert!(cut.memory < uncut.memory, "{metric:?}");
            assert!(
                cut.parts.0 > 1 && cut.parts.1 > 0,
                "{metric:?} {:?}",
                cut.parts
            );
            // Positions, disk and time do not depend on the cut.
            assert_eq!((cut.positions, cut.disk), (uncut.positions, uncut.disk));
        }
        // The 14-stone DTC level's biggest unit: fewer pairs, less memory;
        // whole when the budget allows, one pair when nothing fits.
        let u = UnitId::of(1);
        let memory = |pairs| unit_memory(Metric::Dtc, 14, u, W, KazanCut::pairs(pairs).unwrap());
        assert!((1..8).all(|p| memory(p) < memory(p + 1)));
        assert_eq!(
            memory(8),
            unit_memory(Metric::Dtc, 14, u, W, KazanCut::WHOLE)
        );
        let pick = |budget| pick_cut(Metric::Dtc, 14, u, W, budget, 1);
        assert_eq!(pick(memory(8)), KazanCut::WHOLE);
        assert_eq!(pick(memory(3)), KazanCut::pairs(3).unwrap());
        assert_eq!(pick(memory(3) - 1), KazanCut::pairs(2).unwrap());
        assert_eq!(pick(0), KazanCut::pairs(1).unwrap());
        // Two threads share the budget, else the unit runs alone.
        assert_eq!(
            pick_cut(Metric::Dtc, 14, u, W, 2 * memory(3), 2),
            KazanCut::pairs(3).unwrap()
        );
        assert_eq!(
            pick_cut(Metric::Dtc, 14, u, W, memory(3), 2),
            KazanCut::pairs(3).unwrap()
        );
    }

    #[test]
    fn the_dtc_plans_use_the_dtc_model() {
        let all = |max: u32| (1..=max).collect::<Vec<_>>();
        let dtc = |max| plan(Metric::Dtc, &all(max), max, 2, 1, W, None, |_| 0);
        // DTC solves faster than DTM and holds a byte a board below.
        assert!(dtc(12).seconds < dtm(&all(12), 12, 2, 1).seconds);
        assert!(dtc(12).memory < dtm(&all(12), 12, 2, 1).memory);
        // A DTC solve holds every level below whole, whatever --hold-whole
        // says; its verify does not.
        assert_eq!(
            dtc(12),
            plan(Metric::Dtc, &all(12), 12, 2, 1, 0, None, |_| 0)
        );
        assert_ne!(
            verify_plan(Metric::Dtc, 13, 2, true, W),
            verify_plan(Metric::Dtc, 13, 2, true, 0)
        );
        // The measured verify of the DTC tables up to 10 stones peaked at
        // 384 MB (docs/performance.md): the model stays above it, within
        // twice.
        let v10 = verify_plan(Metric::Dtc, 10, 2, true, W);
        assert!(
            (384e6..768e6).contains(&(v10.memory as f64)),
            "{}",
            v10.memory
        );
        // Unit by unit: verifying 13 stones needs far less than the level
        // (two bytes a position decoded whole: 98 GB), also with the levels
        // below read per unit.
        let v13 = verify_plan(Metric::Dtc, 13, 2, true, W);
        assert!(
            v13.memory < Layout::new(13).positions() / 4,
            "{}",
            v13.memory
        );
        let read = verify_plan(Metric::Dtc, 13, 2, true, 0);
        assert!(
            read.memory < Layout::new(13).positions() / 4,
            "{}",
            read.memory
        );
        assert_eq!(v13.positions, 78_487_874_252);
        assert!(v13.seconds > 0.0 && v13.memory_at == 13);
        let args = PlanOptions {
            max_stones: 13,
            metric: Metric::Dtc,
            threads: Some(2),
            hold_whole: W,
            out: None,
            max_memory: Some(64_000_000_000),
        };
        let lines = plan_lines(&args).unwrap();
        assert!(
            lines[0].starts_with("generate --metric dtc --max-stones 13: 78487874252 positions")
        );
        assert!(lines[2].starts_with("verify: a peak of about"));
        let bad = PlanOptions {
            max_stones: 0,
            ..args
        };
        assert!(matches!(plan_lines(&bad), Err(PlanError::Stones(0))));
    }
}
