//! The cost model: each metric's fitted figures, and a run's positions,
//! disk, peak memory and time level by level; the units' kazan cuts chosen
//! to fit the memory.

use crate::below;
use crate::run::options::contents_of;
use crate::run::shard::Shard;
use crate::solve::unit::{exit_configs, held_units, KazanCut, Reach, UnitId};
use togyz_tb::raw::format::{Contents, DTC_WDL_BLOCK_BOARDS};
use togyz_tb::raw::index::Layout;
use togyz_tb::Metric;

/// Bytes a unit in flight takes per board besides its graph, either
/// metric: its frontier, 8-byte entries of which it holds at most about
/// one a board at once (0.97 in the 9-stone unit with the most; 0.35 in
/// most units). With [`graph_bytes_per_board`] and [`BASE_BYTES`], the
/// model stays on the safe side of the measured peaks
/// (docs/performance.md).
pub const UNIT_BYTES_PER_BOARD: f64 = 8.0;

/// Quiet moves a board at 9 to 17 stones, over every configuration
/// (`cargo run --release -p togyz-gen --example quiet_moves`, 3,000 boards
/// sampled a configuration and level): a unit's stored quiet-move graph
/// holds one edge for each. The biggest units, without tuzdyks, have
/// more (3.54 at 12 stones against 3.01), which the frontier's bound in
/// [`UNIT_BYTES_PER_BOARD`] more than covers: about one entry in three
/// boards is on it at once in most units.
const QUIET_MOVES: [f64; 9] = [2.58, 2.74, 2.88, 3.01, 3.12, 3.23, 3.33, 3.41, 3.49];

/// Bytes a unit's stored quiet-move graph takes per board at `n` stones:
/// 4 bytes an edge and an 8-byte offset.
pub fn graph_bytes_per_board(n: u32) -> f64 {
    let i = n.clamp(9, 17) as usize - 9;
    8.0 + 4.0 * QUIET_MOVES[i]
}
/// Working memory besides the levels and units: the table writer's batches
/// and the program itself.
pub const BASE_BYTES: f64 = 100e6;
/// Bytes a unit cut into kazan parts holds for its values besides its
/// graph and part: the buffers that hand a part to its files as it is
/// solved and merge the parts into the unit file when it ends
/// ([`crate::files::work::PartSpool`]); its values are never held whole.
pub const PART_SPOOL_BYTES: f64 = 64e6;
/// How much longer a unit takes to solve without its stored quiet-move
/// graph: 1.90 times whole, 1.68 times in parts of one pair (the three
/// biggest 8-stone DTM units, `cargo run --release -p togyz-gen --example
/// graph_cost`, docs/performance.md).
pub const NO_GRAPH_TIME: f64 = 1.9;

/// How much longer a position takes in a unit cut into kazan parts than
/// in a unit solved whole (each part reads the unit's exits and walks
/// its boards again): the 3 biggest 8-stone DTM units, in parts of one
/// pair, took 182.2 s against 92.9 s whole (x1.96; parts of more pairs,
/// fewer of them, cost less).
pub const CUT_TIME: f64 = 2.0;

/// Bytes on disk per position of a unit cut into kazan parts while it is
/// solved: its parts' files (zstd level 1 of two-byte values), an upper
/// bound: the biggest 10-stone DTC unit (117 M positions, parts of one
/// pair) took 19.8 MB, 0.17.
pub const PART_FILE_BYTES_PER_POSITION: f64 = 0.25;
/// Bytes on disk per position of a DTM unit seeded apart
/// ([`seed_groups`]), for its seeds (zstd level 1 of 4-byte state words)
/// and again for the best exits carried between passes, an upper bound:
/// the biggest 8-stone unit's seeds (13.2 M positions, parts of one pair,
/// no level held whole) peaked at 2.09 MB, 0.16.
pub const SEED_FILE_BYTES_PER_POSITION: f64 = 0.5;
/// Boards a second that one thread solves of a unit solved on draw splits
/// alone ([`splits_only`]): every tuzdyk pair's level 14 (28 units of
/// 155 M boards, 14 rounds on 2 threads) in 580 s, 3.74 M; level 13
/// 3.91 M; three pairs' level 16 (two rounds of 600 M boards) 2.33 M,
/// their level 17 1.1 M beside a 14-stone generation and tests. Set so
/// that the three pairs' run to 17, made beside other work, is not
/// planned shorter than it took (levels 14 to 17 in 1 h 04 min; the
/// plan says 69 min from one stone).
pub const SPLITS_BOARD_RATE: f64 = 1.5e6;

/// Boards a second of the assembly of such a level (its unit files read,
/// its table blocks compressed on every thread), rounded down: every
/// pair's level 14 (4.34 G boards) in 316 s, 13.7 M; level 13 14.5 M;
/// three pairs' level 16 10.5 M, level 17 7.3 M beside other work.
pub const SPLITS_ASSEMBLY_RATE: f64 = 7.0e6;

/// Seconds of a level of `units` whose units are solved on draw splits
/// alone, `left` of its positions not solved yet, on `threads` threads
/// and `shards` shards: a unit on one thread, so the level takes rounds
/// of its biggest unit, and then its assembly (by one shard).
pub(crate) fn splits_level_seconds(
    n: u32,
    units: &[UnitId],
    left: u64,
    threads: usize,
    shards: u32,
) -> f64 {
    if left == 0 {
        return 0.0;
    }
    let boards = |positions: u64| positions as f64 / (n as f64 + 1.0);
    let biggest = units
        .iter()
        .map(|u| u.positions(n))
        .max()
        .unwrap_or(0)
        .max(1);
    let pieces = (left as f64 / shards as f64 / biggest as f64).ceil();
    let rounds = (pieces / threads.max(1) as f64).ceil();
    let all: u64 = units.iter().map(|u| u.positions(n)).sum();
    rounds * boards(biggest) / SPLITS_BOARD_RATE + boards(all) / SPLITS_ASSEMBLY_RATE
}

/// Unit-file bytes per position on disk (zstd level 1 of one-byte cells,
/// the same for both metrics), an upper bound: the 10-stone level's units
/// took 0.07.
pub const UNIT_FILE_BYTES_PER_POSITION: f64 = 0.1;

/// What the plan knows of one metric: its fitted figures
/// (docs/performance.md has the measurements behind each). Every formula
/// of the plan is written once over these; what a level holds of the
/// levels below is [`crate::below`]'s, the same rule for both metrics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fitted {
    /// Bytes a unit in flight takes per position of the kazan part being
    /// solved: its working state.
    pub state_bytes_per_position: f64,
    /// Bytes a unit solved whole takes per position of the unit: its
    /// solved values (a unit cut into kazan parts hands each part's to
    /// its files instead: `PART_SPOOL_BYTES`).
    pub value_bytes_per_position: f64,
    /// Bytes a unit in flight takes per board besides its quiet-move
    /// graph ([`graph_bytes_per_board`]).
    pub unit_bytes_per_board: f64,
    /// Positions solved and written per second and worker thread.
    pub solve_rate: f64,
    /// Positions per second and worker thread of a level's assembly (its
    /// unit files read back, its table blocks coded and compressed).
    pub assembly_rate: f64,
    /// Positions `verify` checks per second and worker thread.
    pub verify_rate: f64,
    /// Table bytes per position on disk, an upper bound.
    pub table_bytes_per_position: f64,
}

impl Fitted {
    /// DTM: the distances below, a byte a position, held whole up to
    /// `hold_whole` positions ([`crate::below::dtm`]).
    pub const DTM: Fitted = Fitted {
        // Its 4-byte state word and its 1-byte solved value.
        state_bytes_per_position: 4.0,
        value_bytes_per_position: 1.0,
        unit_bytes_per_board: UNIT_BYTES_PER_BOARD,
        // 7.95e9 positions of the 11-stone level solved and written in
        // 842 s on 2 threads, the slowest level measured.
        solve_rate: 4.7e6,
        // The 12-stone level (19.66e9 positions) assembled in 239 s on 2
        // threads, 41 M a thread, rounded down.
        assembly_rate: 30.0e6,
        // The 12-stone level at 11.4 M positions/s on 2 threads, the
        // slowest level measured.
        verify_rate: 5.5e6,
        // 0.74 bits at 11 stones, growing slowly with the stones.
        table_bytes_per_position: 0.125,
    };

    /// DTC: the draw splits below, a byte a board, held whole up to
    /// `hold_whole` boards ([`crate::below::dtc`]).
    pub const DTC: Fitted = Fitted {
        // Its one-byte state and its one-byte solved value (two each if a
        // distance passes a byte).
        state_bytes_per_position: 1.0,
        value_bytes_per_position: 1.0,
        // As for DTM, and a draw split.
        unit_bytes_per_board: UNIT_BYTES_PER_BOARD + 1.0,
        // Units of whole levels solved on a quiet machine at 27.7 M
        // positions a second and thread at 10 stones, 23.6 M at 11, 22.3 M
        // at 12, about 20 M at 13: rounded down.
        solve_rate: 18.0e6,
        // Levels 9, 10 and 12 assembled at 18.3 to 19.1 M positions a
        // second and thread on a quiet machine, level 13 at 24.7 M; level
        // 14 at 12.0 M, beside other work: that.
        assembly_rate: 12.0e6,
        // Levels 11 and 12 checked on a quiet machine in 389.9 s and
        // 1,034.0 s on 2 threads (10.2 M and 9.5 M positions a second and
        // thread; every table up to 13 stones had taken 2,379 s, 16.5 M,
        // on another machine: builds f2c406c and this one check level 10
        // equally fast here), rounded down.
        verify_rate: 9.0e6,
        // 0.41 bits at 9 and 10 stones.
        table_bytes_per_position: 0.0625,
    };

    /// The figures of `metric`.
    pub fn of(metric: Metric) -> &'static Fitted {
        match metric {
            Metric::Dtm => &Fitted::DTM,
            Metric::Dtc => &Fitted::DTC,
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
    /// where a unit is cut (1 and 0 when none is); for `verify`, the most
    /// passes over the levels below a unit is checked in, and the first
    /// level where there are more than one.
    pub parts: (usize, u32),
    /// The first level where a unit's quiet-move graph is not stored
    /// (0 when every unit's is).
    pub graph_from: u32,
}

/// Memory of one unit of level `n` of `metric` in flight, solved in the
/// kazan parts of `cut`: the state of its largest part, its values (held
/// whole for a whole unit; for a cut one, only the buffers that spool its
/// parts to disk), its predecessor lists and frontier, and what its exits
/// decode of the levels below not held whole (up to `hold_whole`:
/// [`below::held_whole`]). A DTM unit cut into parts holds its exits and
/// its graph one after the other, never together ([`seed_groups`]): the
/// larger of the two phases, as does a DTC unit cut into parts that
/// decodes a share of the levels below (in one pass).
pub fn unit_memory(metric: Metric, n: u32, u: UnitId, hold_whole: u64, cut: KazanCut) -> u64 {
    let exits = below::unit_exit_bytes(metric, n, u, hold_whole);
    if seeds_apart(metric, n, cut, hold_whole) {
        let seeding = match metric {
            Metric::Dtm => seed_groups(n, u, hold_whole, cut)
                .iter()
                .map(|&g| group_bytes(metric, n, u, hold_whole, g))
                .max()
                .unwrap_or(0),
            Metric::Dtc => exits,
        };
        return solving_memory(metric, n, u, cut).max(seeding + PART_SPOOL_BYTES as u64);
    }
    solving_memory(metric, n, u, cut) + exits
}

/// Memory of DTC unit `u` of level `n` solved forward
/// ([`crate::solve::forward`], a unit with a tuzdyk): its values in
/// two-byte cells (the widest a solve may restart in), a draw split a
/// board, and what its exits decode of the levels below not held whole.
pub fn forward_memory(n: u32, u: UnitId, hold_whole: u64) -> u64 {
    u.positions(n) * 2 + u.boards(n) + below::unit_exit_bytes(Metric::Dtc, n, u, hold_whole)
}

/// Whether unit `u` of a level whose table holds `contents` is solved
/// forward on draw splits alone ([`crate::solve::forward::solve_unit`]):
/// the table keeps no distance (a WDL table) and the unit has a tuzdyk.
/// Such a unit is never cut: its memory is a byte a board
/// ([`splits_memory`]).
pub fn splits_only(contents: Contents, u: UnitId) -> bool {
    !contents.has_distances() && crate::solve::forward::solves(u)
}

/// Memory of DTC unit `u` of level `n` solved forward on draw splits
/// alone ([`splits_only`]): a draw split a board, the solve's stack (a
/// few boards), and what its exits decode of the levels below not held
/// whole.
pub fn splits_memory(n: u32, u: UnitId, hold_whole: u64) -> u64 {
    u.boards(n) + below::unit_exit_bytes(Metric::Dtc, n, u, hold_whole)
}

/// Whether DTC unit `u` of level `n` is solved forward: it has a tuzdyk
/// (no position repeats) and its values fit the memory the plan gave it
/// for the retrograde solve cut as `cut` ([`unit_memory`]), so the plan
/// holds either way.
pub fn solved_forward(n: u32, u: UnitId, hold_whole: u64, cut: KazanCut) -> bool {
    crate::solve::forward::solves(u)
        && forward_memory(n, u, hold_whole) <= unit_memory(Metric::Dtc, n, u, hold_whole, cut)
}

/// Whether a unit of level `n` of `metric` cut as `cut`, the levels below
/// held whole up to `hold_whole`, is seeded apart from its solve: a DTM
/// unit cut into kazan parts; a DTC one too when it decodes a share of the
/// levels below (with every level below held whole, its exits read
/// them in place as each part is seeded).
pub fn seeds_apart(metric: Metric, n: u32, cut: KazanCut, hold_whole: u64) -> bool {
    !cut.is_whole(n)
        && match metric {
            Metric::Dtm => true,
            Metric::Dtc => !below::held_whole(metric, n.saturating_sub(1), hold_whole),
        }
}

/// Memory of one unit in flight besides its exits: its largest part's
/// state, its values or the buffers that spool them, its frontier and,
/// when the cut stores it, its quiet-move graph.
fn solving_memory(metric: Metric, n: u32, u: UnitId, cut: KazanCut) -> u64 {
    let f = Fitted::of(metric);
    let boards = u.boards(n) as f64;
    let graph = if cut.stores_graph() {
        graph_bytes_per_board(n)
    } else {
        0.0
    };
    let part = boards * cut.part_splits(n) as f64;
    let values = if cut.is_whole(n) {
        u.positions(n) as f64 * f.value_bytes_per_position
    } else {
        PART_SPOOL_BYTES
    };
    (part * f.state_bytes_per_position + values + boards * (f.unit_bytes_per_board + graph)) as u64
}

/// Bytes that unit `u` of level `n` of `metric` decodes for the exits
/// into what `reach` reads of the levels not held whole.
fn group_bytes(metric: Metric, n: u32, u: UnitId, hold_whole: u64, reach: Reach) -> u64 {
    pieces(metric, n, u, hold_whole)
        .filter(|&(m, c, _)| reach.reads(m, c))
        .map(|(_, _, bytes)| bytes)
        .sum()
}

/// What unit `u` of level `n` of `metric` decodes for its exits, piece
/// by piece: each configuration it reaches of each level below not held
/// whole, `(stones, configuration, bytes)`, the levels in ascending
/// order.
fn pieces(
    metric: Metric,
    n: u32,
    u: UnitId,
    hold_whole: u64,
) -> impl Iterator<Item = (u32, usize, u64)> {
    let configs = exit_configs(u);
    (1..n)
        .filter(move |&m| !below::held_whole(metric, m, hold_whole))
        .flat_map(move |m| {
            configs
                .clone()
                .into_iter()
                .map(move |c| (m, c, below::config_bytes(metric, m, c)))
        })
}

/// The passes over the levels below `n`, each a [`Reach`] whose exits for
/// unit `u` take at most `cap` bytes (or one configuration's, when that
/// is more), in ascending order of their levels, the levels held whole
/// and the empty board in the first group of whole levels; a level whose
/// share alone passes `cap` is cut by configuration into passes of its
/// own.
fn level_groups(metric: Metric, n: u32, u: UnitId, hold_whole: u64, cap: u64) -> Vec<Reach> {
    let one = |m: u32| below::unit_level_bytes(metric, m, u, hold_whole);
    let mut groups = Vec::new();
    let mut levels = 1u64;
    let mut held = 0;
    for m in 1..n {
        let bytes = one(m);
        if bytes > cap {
            let mut configs = 0u128;
            let mut taken = 0;
            for c in exit_configs(u) {
                let b = below::config_bytes(metric, m, c);
                if taken + b > cap && taken > 0 {
                    groups.push(Reach::configs(m, configs));
                    (configs, taken) = (0, 0);
                }
                configs |= 1 << c;
                taken += b;
            }
            groups.push(Reach::configs(m, configs));
        } else if held + bytes > cap && held > 0 {
            groups.push(Reach::levels(levels));
            levels = 1 << m;
            held = bytes;
        } else {
            levels |= 1 << m;
            held += bytes;
        }
    }
    groups.push(Reach::levels(levels));
    groups
}

/// The largest piece ([`pieces`]) unit `u` of level `n` decodes: one
/// configuration of a level below.
fn biggest_piece(metric: Metric, n: u32, u: UnitId, hold_whole: u64) -> u64 {
    pieces(metric, n, u, hold_whole)
        .map(|(_, _, bytes)| bytes)
        .max()
        .unwrap_or(0)
}

/// The passes over the levels below that seed DTM unit `u` of level `n`
/// cut as `cut` (`crate::solve::dtm::seed_pass`), each a [`Reach`]: the
/// levels in ascending order, as many a pass as keep its decoded exits
/// within what the unit's solve takes after them (or within the largest
/// configuration's share of a level, when that is more), a level too big
/// for a pass cut by configuration. A unit's memory is
/// then the larger of its solve's and its largest pass's, and its exits
/// are decoded once.
pub fn seed_groups(n: u32, u: UnitId, hold_whole: u64, cut: KazanCut) -> Vec<Reach> {
    let cap = solving_memory(Metric::Dtm, n, u, cut)
        .saturating_sub(PART_SPOOL_BYTES as u64)
        .max(biggest_piece(Metric::Dtm, n, u, hold_whole));
    level_groups(Metric::Dtm, n, u, hold_whole, cap)
}

/// How `verify` holds the entries of the unit it checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entries {
    /// Packed values, this many bytes a position (1 or 2).
    Cells(u64),
    /// A draw split a board: a table without distances (a WDL table).
    Splits,
}

impl Entries {
    /// The entries of a table of `contents` decoded in `cell` bytes a
    /// position where it keeps distances.
    pub fn of(contents: Contents, cell: u64) -> Entries {
        if contents.has_distances() {
            Entries::Cells(cell)
        } else {
            Entries::Splits
        }
    }

    /// Bytes of unit `u` of level `n` held so.
    pub fn bytes(self, n: u32, u: UnitId) -> u64 {
        match self {
            Entries::Cells(cell) => u.positions(n) * cell,
            Entries::Splits => u.boards(n),
        }
    }
}

/// The passes over the levels below in which `verify` checks unit `u` of
/// level `n` of a `metric` table (its entries held as `entries`),
/// each a [`Reach`] as [`seed_groups`] makes them: one, with every exit
/// decoded at once, when that fits `budget` bytes (or no budget is
/// given); else as few as keep the unit, a bit a position and each
/// pass's exits within it (or one configuration of a level a pass, when
/// even that does not fit). Each pass checks the moves into what it
/// reads; the last, the others.
pub fn verify_groups(
    metric: Metric,
    n: u32,
    u: UnitId,
    hold_whole: u64,
    entries: Entries,
    budget: Option<u64>,
) -> Vec<Reach> {
    let values = entries.bytes(n, u);
    let exits = below::unit_exit_bytes(metric, n, u, hold_whole);
    match budget {
        Some(b) if values + exits > b => {
            let cap = b
                .saturating_sub(values + u.positions(n) / 8)
                .max(biggest_piece(metric, n, u, hold_whole));
            level_groups(metric, n, u, hold_whole, cap)
        }
        _ => vec![Reach::ALL],
    }
}

/// Memory of checking unit `u` of level `n` in the passes of
/// [`verify_groups`]: its values, and its exits at once, or a bit a
/// position and the largest pass's exits.
pub fn verify_unit_memory(
    metric: Metric,
    n: u32,
    u: UnitId,
    hold_whole: u64,
    entries: Entries,
    budget: Option<u64>,
) -> u64 {
    let values = entries.bytes(n, u);
    let groups = verify_groups(metric, n, u, hold_whole, entries, budget);
    if groups.len() == 1 {
        return values + below::unit_exit_bytes(metric, n, u, hold_whole);
    }
    let exits = groups
        .iter()
        .map(|&g| group_bytes(metric, n, u, hold_whole, g))
        .max()
        .unwrap_or(0);
    values + u.positions(n) / 8 + exits
}

/// The cut of unit `u` of level `n` when its units may take `budget`
/// bytes with `threads` units in flight: the fewest kazan parts that fit
/// a thread's share of the budget, else the fewest that fit it whole (the
/// unit then runs alone, [`UnitBudget`]); else, the quiet-move graph not
/// stored, the fewest that fit the budget; else parts of one pair without
/// the graph.
pub fn pick_cut(
    metric: Metric,
    n: u32,
    u: UnitId,
    hold_whole: u64,
    budget: u64,
    threads: usize,
) -> KazanCut {
    let pairs = KazanCut::pair_count(n);
    let fits = |b: u64, stored: bool| {
        (1..=pairs)
            .rev()
            .filter_map(KazanCut::pairs)
            .map(|c| if stored { c } else { c.without_graph() })
            .find(|&c| unit_memory(metric, n, u, hold_whole, c) <= b)
    };
    // Without its graph a unit takes more time, about what a unit run
    // alone loses: first the graph.
    let one_pair = KazanCut::pairs(1).expect("one pair").without_graph();
    let cut = fits(budget / threads.max(1) as u64, true)
        .or_else(|| fits(budget, true))
        .or_else(|| fits(budget, false))
        .unwrap_or(one_pair);
    match (cut.is_whole(n), cut.stores_graph()) {
        (true, true) => KazanCut::WHOLE,
        (true, false) => KazanCut::WHOLE.without_graph(),
        _ => cut,
    }
}

/// How the units of level `n` (a table of `contents`) are cut: each
/// unit's cut and memory.
fn level_cuts(
    metric: Metric,
    n: u32,
    contents: Contents,
    threads: usize,
    hold_whole: u64,
    units_budget: Option<u64>,
) -> Vec<(KazanCut, u64)> {
    held_units(n, contents)
        .into_iter()
        .map(|u| unit_cut(metric, n, contents, u, threads, hold_whole, units_budget))
        .collect()
}

/// How unit `u` of level `n` is cut within `units_budget` (the bytes
/// [`units_room`] leaves), and its memory.
fn unit_cut(
    metric: Metric,
    n: u32,
    contents: Contents,
    u: UnitId,
    threads: usize,
    hold_whole: u64,
    units_budget: Option<u64>,
) -> (KazanCut, u64) {
    if splits_only(contents, u) {
        return (KazanCut::WHOLE, splits_memory(n, u, hold_whole));
    }
    let cut = units_budget.map_or(KazanCut::WHOLE, |b| {
        pick_cut(metric, n, u, hold_whole, b, threads)
    });
    (cut, unit_memory(metric, n, u, hold_whole, cut))
}

/// What a run holds besides the units of level `n`: the levels below held
/// whole up to `hold_whole`, and the process's base.
fn held_below(metric: Metric, n: u32, hold_whole: u64) -> u64 {
    below::whole_bytes(metric, n, hold_whole) + BASE_BYTES as u64
}

/// The bytes `bound` leaves the units of level `n` (or a check's passes)
/// beside [`held_below`]; `None` without a bound.
fn units_room(metric: Metric, n: u32, hold_whole: u64, bound: Option<u64>) -> Option<u64> {
    bound.map(|b| b.saturating_sub(held_below(metric, n, hold_whole)))
}

/// Peak memory of solving level `n` of `metric` (its table of `contents`:
/// a WDL table's units are all but the one without a tuzdyk) with
/// `threads` units in
/// flight at most (and of assembling it; `keep` if a larger level needs
/// it): the levels below held whole, and the units in flight or what the
/// assembly gathers of the level for the levels above (when it is kept
/// and held whole), whichever is more. With `bound`, the
/// units are cut along the kazan axis ([`pick_cut`]) to fit what the
/// bound leaves them, and run one at a time when side by side they do
/// not; without, they are solved whole. Also returns the most kazan
/// parts a unit of the level is cut into, and the positions of its units
/// whose quiet-move graphs are not stored.
pub fn level_memory(
    metric: Metric,
    n: u32,
    contents: Contents,
    threads: usize,
    keep: bool,
    hold_whole: u64,
    bound: Option<u64>,
) -> (u64, usize, u64) {
    let whole = held_below(metric, n, hold_whole);
    let budget = units_room(metric, n, hold_whole, bound);
    let cuts = level_cuts(metric, n, contents, threads, hold_whole, budget);
    let mut units: Vec<u64> = cuts.iter().map(|&(_, m)| m).collect();
    units.sort_unstable_by(|a, b| b.cmp(a));
    let mut in_flight: u64 = units.iter().take(threads.max(1)).sum();
    if let Some(b) = budget {
        // Units that do not fit side by side wait for each other.
        in_flight = in_flight.min(b).max(units.first().copied().unwrap_or(0));
    }
    let assembly = if keep && below::held_whole(metric, n, hold_whole) {
        below::level_bytes(metric, n)
    } else {
        0
    };
    let parts = cuts
        .iter()
        .map(|&(c, _)| c.parts(n).len())
        .max()
        .unwrap_or(1);
    let lean = held_units(n, contents)
        .iter()
        .zip(&cuts)
        .filter(|(_, (c, _))| !c.stores_graph())
        .map(|(u, _)| u.positions(n))
        .sum();
    (whole + in_flight.max(assembly), parts, lean)
}

/// Seconds the units of level `n` that shard 0 of `shards` solves
/// ([`Shard::units`], biggest first) take on `threads` threads within
/// `bound`, at the metric's fitted rate: each unit's time grows with its
/// positions, [`CUT_TIME`] when it is cut into kazan parts and
/// [`NO_GRAPH_TIME`] without its stored graph; the units are scheduled
/// as `generate` runs them, a free thread taking the next unit and
/// holding it until its memory fits beside the units running (or none
/// runs: [`UnitBudget`]), so a level whose biggest units do not fit side
/// by side solves them one after the other.
pub fn units_seconds(
    metric: Metric,
    n: u32,
    contents: Contents,
    threads: usize,
    shards: u32,
    hold_whole: u64,
    bound: Option<u64>,
) -> f64 {
    let budget = units_room(metric, n, hold_whole, bound);
    let rate = Fitted::of(metric).solve_rate;
    let shard = Shard {
        index: 0,
        count: shards.max(1),
    };
    let units: Vec<(f64, u64)> = shard
        .units(n, contents)
        .into_iter()
        .map(|u| {
            let (cut, memory) = unit_cut(metric, n, contents, u, threads, hold_whole, budget);
            let mut time = u.positions(n) as f64 / rate;
            if cut.parts(n).len() > 1 {
                time *= CUT_TIME;
            }
            if !cut.stores_graph() {
                time *= NO_GRAPH_TIME;
            }
            (time, memory)
        })
        .collect();
    schedule(&units, threads, budget)
}

/// When the last of `units` (seconds, bytes), taken in order by
/// `threads` threads, ends, a unit starting only once its bytes fit
/// `budget` beside the units running or none runs.
pub(crate) fn schedule(units: &[(f64, u64)], threads: usize, budget: Option<u64>) -> f64 {
    let budget = budget.unwrap_or(u64::MAX);
    let mut next = units.iter();
    let mut waiting: Vec<(f64, u64)> = Vec::new();
    let mut running: Vec<(f64, u64)> = Vec::new();
    let (mut now, mut used, mut idle) = (0.0f64, 0u64, threads.max(1));
    loop {
        while idle > 0 {
            let Some(&u) = next.next() else { break };
            waiting.push(u);
            idle -= 1;
        }
        // Waiting units start in the order they were taken, as they fit.
        let mut i = 0;
        while i < waiting.len() {
            let (time, memory) = waiting[i];
            if running.is_empty() || used.saturating_add(memory) <= budget {
                running.push((now + time, memory));
                used += memory;
                waiting.remove(i);
            } else {
                i += 1;
            }
        }
        let Some(first) = (0..running.len()).min_by(|&a, &b| running[a].0.total_cmp(&running[b].0))
        else {
            return now;
        };
        let (end, memory) = running.swap_remove(first);
        now = end;
        used -= memory;
        idle += 1;
    }
}

/// Bytes of the table file of level `n` (of `contents`), an upper bound.
pub fn table_bytes(metric: Metric, n: u32, contents: Contents) -> u64 {
    let layout = Layout::new(n);
    let held = contents.held_boards(&layout) * layout.kazans();
    match contents {
        Contents::Full => (held as f64 * Fitted::of(metric).table_bytes_per_position) as u64,
        // The boards left out: a few bytes a block and its index entry.
        Contents::Wdl | Contents::Pairs(_) => {
            let blocks = layout.boards().div_ceil(DTC_WDL_BLOCK_BOARDS as u64);
            (held as f64 * WDL_TABLE_BITS_PER_POSITION / 8.0) as u64 + blocks * 64
        }
    }
}

/// Bits a position of a WDL table (`docs/format.md`, "WDL tables"), an
/// upper bound: the DTC tables' WDL sections took 0.0436 bits a position
/// at 9 stones and less at each level up to 13, the 11-stone WDL table
/// 0.041 (docs/performance.md).
const WDL_TABLE_BITS_PER_POSITION: f64 = 0.05;

/// Peak memory of verifying level `n` of a `metric` table, the smaller
/// levels held whole up to `hold_whole` positions (DTM) or boards (DTC):
/// the levels held whole
/// (one byte a position for DTM, a board for DTC), and the largest of the
/// unit being checked (decoded in `cell` bytes a position: 1, or 2 if its
/// longest distance passes 126 plies) with what its exits decode of the
/// larger levels below, in passes over them to fit `bound`
/// ([`verify_groups`]), and of the level's own draw splits or values when
/// they are added to the levels held whole for the next level (`keep`).
pub fn verify_level_memory(
    metric: Metric,
    n: u32,
    contents: Contents,
    cell: u64,
    keep: bool,
    hold_whole: u64,
    bound: Option<u64>,
) -> u64 {
    let whole = held_below(metric, n, hold_whole);
    let budget = units_room(metric, n, hold_whole, bound);
    let entries = Entries::of(contents, cell);
    let unit = held_units(n, contents)
        .into_iter()
        .map(|u| verify_unit_memory(metric, n, u, hold_whole, entries, budget))
        .max()
        .unwrap_or(0);
    let added = if keep && below::held_whole(metric, n, hold_whole) {
        below::level_bytes(metric, n)
    } else {
        0
    };
    whole + unit.max(added)
}

/// The plan of `togyz-gen verify` over levels `1..=max` of `metric`
/// tables, the levels from `wdl.0` up WDL tables of contents `wdl.1`
/// (only their positions are checked), with `threads` workers, within
/// `bound` bytes when given
/// ([`verify_level_memory`]): the peak memory (at one-byte cells if
/// `narrow`, else two) and the time. Its disk is zero. The table files
/// are not in the memory: `verify` reads them by positioned reads, a
/// block at a time, never through a memory map (whose pages, once read,
/// would stay in its resident set).
#[allow(clippy::too_many_arguments)]
pub fn verify_plan(
    metric: Metric,
    max: u32,
    wdl: Option<(u32, Contents)>,
    threads: usize,
    narrow: bool,
    hold_whole: u64,
    bound: Option<u64>,
) -> Plan {
    let cell = if narrow { 1 } else { 2 };
    let mut p = Plan::default();
    for n in 1..=max {
        let contents = contents_of(wdl, n);
        let layout = Layout::new(n);
        p.positions += contents.held_boards(&layout) * layout.kazans();
        let m = verify_level_memory(metric, n, contents, cell, n < max, hold_whole, bound);
        if m > p.memory {
            p.memory = m;
            p.memory_at = n;
        }
        // The most passes a unit is checked in, and from which level.
        let budget = units_room(metric, n, hold_whole, bound);
        let entries = Entries::of(contents, cell);
        let passes = held_units(n, contents)
            .into_iter()
            .map(|u| verify_groups(metric, n, u, hold_whole, entries, budget).len())
            .max()
            .unwrap_or(1);
        if passes > 1 && p.parts.1 == 0 {
            p.parts.1 = n;
        }
        p.parts.0 = p.parts.0.max(passes);
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
/// disk. The levels from `wdl.0` up are WDL tables of contents `wdl.1`
/// ([`crate::run::options::wdl_levels`]): only the units they hold are
/// solved.
#[allow(clippy::too_many_arguments)]
pub fn plan(
    metric: Metric,
    todo: &[u32],
    wdl: Option<(u32, Contents)>,
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
    let fitted = Fitted::of(metric);
    for &n in todo {
        let contents = contents_of(wdl, n);
        let units = held_units(n, contents);
        let positions: u64 = units.iter().map(|u| u.positions(n)).sum();
        let left = positions - solved(n).min(positions);
        p.positions += left / shards as u64;
        disk_tables += table_bytes(metric, n, contents);
        let (m, parts, lean) =
            level_memory(metric, n, contents, threads, n < max, hold_whole, bound);
        if lean > 0 && p.graph_from == 0 {
            p.graph_from = n;
        }
        let splits = units.iter().all(|&u| splits_only(contents, u));
        if splits {
            // By boards, a unit on one thread.
            p.seconds += splits_level_seconds(n, &units, left, threads, shards);
        } else if left > 0 {
            // The share of the level still to solve.
            let share = left as f64 / positions as f64;
            p.seconds +=
                share * units_seconds(metric, n, contents, threads, shards, hold_whole, bound);
            // The assembly, by one shard, of the whole level.
            p.seconds += positions as f64 / (fitted.assembly_rate * threads.max(1) as f64);
        }
        // The parts' files of the units in flight, when units are cut,
        // and their seeds while they are seeded apart (and a DTM unit's
        // carried exits).
        let spooled = if parts > 1 {
            let mut units: Vec<u64> = units.iter().map(|u| u.positions(n)).collect();
            units.sort_unstable_by(|a, b| b.cmp(a));
            let biggest: u64 = units.iter().take(threads.max(1)).sum();
            let one_pair = KazanCut::pairs(1).expect("one pair");
            let seeds = match metric {
                Metric::Dtm => 2.0 * SEED_FILE_BYTES_PER_POSITION,
                _ if seeds_apart(metric, n, one_pair, hold_whole) => SEED_FILE_BYTES_PER_POSITION,
                _ => 0.0,
            };
            biggest as f64 * (PART_FILE_BYTES_PER_POSITION + seeds)
        } else {
            0.0
        };
        // A unit of draw splits holds a byte a board, not a position.
        let cells = if splits { left / (n as u64 + 1) } else { left };
        work_peak = work_peak.max((cells as f64 * UNIT_FILE_BYTES_PER_POSITION + spooled) as u64);
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
    p
}

/// The limit up to which a run of `metric` up to `max` stones holds the
/// levels below whole when `--hold-whole` is not given (positions for
/// DTM, boards for DTC, [`below::held_whole`]). DTM:
/// [`below::WHOLE_POSITIONS`]. DTC: every level below `max` whole when
/// the run's peak with that limit (`peak(limit)`, its plan's memory) fits
/// `bound` or no bound is known, as fast as it gets (no unit decodes
/// anything); else the largest limit whose peak fits, levels 1 to some
/// `m` held whole and each unit's share of the others decoded from their
/// files; else none held whole, the least a run can take (it is then
/// refused with that figure). The levels from `wdl.0` up are never held
/// whole when they are tables of some tuzdyk pairs (`wdl.1`): a unit
/// reads its own share of them, a few configurations of the 73.
pub fn default_hold_whole(
    metric: Metric,
    max: u32,
    wdl: Option<(u32, Contents)>,
    bound: Option<u64>,
    peak: impl Fn(u64) -> u64,
) -> u64 {
    let top = match wdl {
        Some((from, Contents::Pairs(_))) => from.min(max),
        _ => max,
    };
    match metric {
        Metric::Dtm => below::WHOLE_POSITIONS,
        Metric::Dtc => (0..top)
            .rev()
            .map(|m| below::whole_limit(metric, m))
            .find(|&limit| bound.is_none_or(|b| peak(limit) <= b))
            .unwrap_or(0),
    }
}
