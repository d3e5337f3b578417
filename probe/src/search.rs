//! Proof search above the tables: exact results for positions with more
//! stones than any table holds.
//!
//! A result is an interval over loss < draw < win for the side to move, and
//! it is *proven* only when the interval closes. Leaves are positions the
//! tables cover (probed by win/draw/loss), finished games, and positions the
//! kazans settle ([`kazan_bounds`]). Three provers can run side by side on
//! their own threads, and their intervals are intersected ([`Budget`] says
//! which; by default df-pn on two threads and a small retrograde solve):
//!
//! * df-pn, depth-first proof-number search (`pns`), on "does the mover
//!   win?" and "does the opponent win?", one thread each or both in turn on
//!   one: it follows the narrow forcing lines, and two refutations that
//!   need no cycle prove a draw. What it proves of a board holds for every
//!   kazan split with more for the winner (a split table), so lines that
//!   reach one board by different captures share their proofs;
//! * an iterative-deepening depth-first search (`dfs`) over the two
//!   questions "is it at least a draw?" and "is it a win?", with a
//!   transposition table keyed by the whole position that stores proven
//!   bounds (path-independent: there is no repetition rule) and, for
//!   unresolved entries, the depth already searched for each question. It
//!   proves the forcing lines, but it can never prove a draw by endless
//!   play, and on 2 cores its time served df-pn better (off by default);
//! * a bounded retrograde solve (`graph`) of the positions reachable from
//!   the root above the tables: if the enumeration closes, the finite graph
//!   (cycles included) is solved exactly, and positions unresolved at the
//!   fixed point are draws; if it does not, two passes with the frontier set
//!   to its worst and best values still bound the root.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicI8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::rules::{Move, Position, Side, HALF};
use crate::tablebase::{terminal_value, ProbeError, Tablebase};
use crate::value::Wdl;

mod dfs;
mod graph;
mod pns;
mod table;

use dfs::{DfsOutcome, Tt, DFS_ENTRY_BYTES};

/// A table size asked for, as the power of two a table gets (at least 4,
/// at most 2^40 entries).
pub(crate) fn table_size(entries: usize) -> usize {
    entries.clamp(4, 1 << 40).next_power_of_two()
}

/// The least memory [`Budget::with_memory`] takes: 1 MB, room for tables
/// of a few thousand entries.
pub const MIN_SEARCH_MEMORY: u64 = 1_000_000;

/// What a search may spend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Wall-clock limit (`None`: no limit).
    pub time: Option<Duration>,
    /// Limit on the nodes of each depth-first prover, per question for
    /// df-pn (`None`: no limit).
    pub nodes: Option<u64>,
    /// Entries of each transposition table (rounded up to a power of two):
    /// the depth-first prover's (30 bytes an entry) and each df-pn
    /// thread's (56 bytes an entry: 48 and a quarter of a 32-byte record
    /// of its split table, which holds what is proven of a board whatever
    /// the kazans). One [`Solver`] keeps them between
    /// searches, so the positions of one game help each other. This is a
    /// ceiling: a table starts small and doubles as it fills, so a short
    /// search takes little memory whatever the ceiling.
    pub tt_entries: usize,
    /// Positions the retrograde solve may enumerate (at most about 150 bytes each);
    /// 0 turns it off.
    pub graph_positions: usize,
    /// Run the iterative-deepening prover (off by default).
    pub dfs: bool,
    /// Run the proof-number prover (df-pn).
    pub dfpn: bool,
    /// Threads for df-pn: 1 asks its two questions in turn, 2 (or more)
    /// one each, each thread with its own table; under a time limit
    /// without a node limit, a thread whose question is settled takes up
    /// the other's.
    pub dfpn_threads: usize,
}

impl Default for Budget {
    /// Five seconds; df-pn on two threads, one question each, with 2^22
    /// entries in each table (224 MiB each when full); the retrograde solve
    /// up to 2^18 positions (about 39 MB): 509 MB in all; no iterative
    /// deepening. On 2
    /// cores this proved the most (docs/performance.md, "Proof search above
    /// the tables"): the depth-first prover and a larger graph took time
    /// that df-pn used better.
    fn default() -> Budget {
        Budget {
            time: Some(Duration::from_secs(5)),
            nodes: None,
            tt_entries: 1 << 22,
            graph_positions: 1 << 18,
            dfs: false,
            dfpn: true,
            dfpn_threads: 2,
        }
    }
}

impl Budget {
    /// The default budget with a wall-clock limit of `time`.
    pub fn time(time: Duration) -> Budget {
        Budget {
            time: Some(time),
            ..Budget::default()
        }
    }

    /// The default memory limits, no time limit, at most `nodes` depth-first
    /// nodes (reproducible: the same answer on any machine).
    pub fn nodes(nodes: u64) -> Budget {
        Budget {
            time: None,
            nodes: Some(nodes),
            ..Budget::default()
        }
    }

    /// The default budget with the limits a caller from another language
    /// passes: at most `seconds` of wall time (0: no time limit) and
    /// `nodes` per question (0: no node limit).
    ///
    /// # Errors
    /// [`LimitError`] when `seconds` is negative, not finite or above a
    /// year, or when both limits are 0 (a search that might never end).
    pub fn limits(seconds: f64, nodes: u64) -> Result<Budget, LimitError> {
        const YEAR: f64 = 365.0 * 86_400.0;
        if !(0.0..=YEAR).contains(&seconds) {
            return Err(LimitError::Seconds(seconds));
        }
        if seconds == 0.0 && nodes == 0 {
            return Err(LimitError::Unlimited);
        }
        Ok(Budget {
            time: (seconds > 0.0).then(|| Duration::from_secs_f64(seconds)),
            nodes: (nodes > 0).then_some(nodes),
            ..Budget::default()
        })
    }

    /// The most memory a search with this budget takes, in bytes: each
    /// transposition table grown to its ceiling and the retrograde solve at
    /// its limit. (Tables grow as they fill, so a short search takes far
    /// less: [`Solver::table_bytes`].)
    pub fn memory(&self) -> u64 {
        table_size(self.tt_entries) as u64 * self.entry_bytes()
            + self.graph_positions as u64 * graph::POSITION_BYTES
    }

    /// This budget with its tables sized to take at most `bytes` in all
    /// ([`Budget::memory`]): the retrograde solve a sixteenth of it (at most
    /// its default 2^18 positions, more took time that df-pn used better),
    /// the transposition tables the largest power of two of entries that
    /// fits in the rest.
    ///
    /// The budget is a ceiling: a search takes memory in proportion to the
    /// positions it stores, so a larger budget never makes a short search
    /// slower.
    ///
    /// # Errors
    /// [`LimitError::Memory`] when `bytes` is below [`MIN_SEARCH_MEMORY`],
    /// [`LimitError::MemoryAboveMachine`] when it is more than the machine
    /// has ([`machine_memory`]): a search that long would fail to allocate,
    /// or push everything else out of memory, before it reached its bound.
    pub fn with_memory(self, bytes: u64) -> Result<Budget, LimitError> {
        if bytes < MIN_SEARCH_MEMORY {
            return Err(LimitError::Memory(bytes));
        }
        if let Some(machine) = machine_memory().filter(|&m| bytes > m) {
            return Err(LimitError::MemoryAboveMachine { bytes, machine });
        }
        let graph_positions = if self.graph_positions == 0 {
            0
        } else {
            (bytes / 16 / graph::POSITION_BYTES).min(Budget::default().graph_positions as u64)
                as usize
        };
        let rest = bytes - graph_positions as u64 * graph::POSITION_BYTES;
        let entries = match rest.checked_div(self.entry_bytes()) {
            // Neither table runs: their size does not matter.
            None => self.tt_entries,
            Some(fit) => 1usize << fit.max(4).ilog2().min(40),
        };
        Ok(Budget {
            tt_entries: entries,
            graph_positions,
            ..self
        })
    }

    /// Bytes one entry index costs across the transposition tables that
    /// run (each has `tt_entries` entries).
    fn entry_bytes(&self) -> u64 {
        let dfs = if self.dfs { DFS_ENTRY_BYTES } else { 0 };
        (dfs + self.dfpn_tables() * pns::ENTRY_BYTES) as u64
    }

    /// The df-pn tables a search keeps: one per thread, one per question.
    fn dfpn_tables(&self) -> usize {
        match (self.dfpn, self.dfpn_threads) {
            (false, _) => 0,
            (true, 0 | 1) => 1,
            (true, _) => 2,
        }
    }
}

/// Limits [`Budget::limits`] and [`Budget::with_memory`] refuse.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum LimitError {
    /// A time limit out of range.
    #[error("the time limit is {0} s: it must be between 0 and a year")]
    Seconds(f64),
    /// Neither a time nor a node limit.
    #[error("no time limit and no node limit: a search needs one")]
    Unlimited,
    /// Less memory than [`MIN_SEARCH_MEMORY`].
    #[error("the search memory is {0} bytes: it must be at least 1 MB")]
    Memory(u64),
    /// More memory than the machine has ([`machine_memory`]).
    #[error(
        "the search memory is {} MB, more than this machine's {} MB of memory",
        bytes / 1_000_000,
        machine / 1_000_000
    )]
    MemoryAboveMachine {
        /// The bound asked for.
        bytes: u64,
        /// The machine's physical memory.
        machine: u64,
    },
}

/// The machine's physical memory in bytes (`MemTotal` of `/proc/meminfo`),
/// or `None` where that is not known (then no bound is refused for it).
pub fn machine_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line
        .trim_start_matches("MemTotal:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// How a result was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The game is over, or the kazans alone settle it.
    Rules,
    /// The tables cover the position.
    Tables,
    /// Search down to the tables.
    Search,
}

/// What a search showed about a position, for its side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The value is at least this.
    pub lower: Wdl,
    /// The value is at most this.
    pub upper: Wdl,
    /// When proven and the game is not over: a move that achieves the value
    /// (for a loss, any move does).
    pub best_move: Option<Move>,
    /// Where the answer came from.
    pub source: Source,
    /// Nodes visited by the depth-first provers (iterative deepening and
    /// df-pn).
    pub nodes: u64,
    /// The deepest completed iteration of the depth-first search (plies).
    pub depth: u32,
    /// Positions the retrograde solve enumerated above the tables.
    pub graph_positions: u64,
    /// Whether that enumeration closed (every leaf settled).
    pub graph_closed: bool,
    /// Wall time spent.
    pub elapsed: Duration,
    /// The tables used: every position with at most this many stones.
    pub table_stones: u32,
}

impl Source {
    /// `"rules"`, `"tables"` or `"search"`.
    pub fn name(self) -> &'static str {
        match self {
            Source::Rules => "rules",
            Source::Tables => "tables",
            Source::Search => "search",
        }
    }
}

impl SearchResult {
    /// The value, when the interval has closed.
    pub fn proven(&self) -> Option<Wdl> {
        (self.lower == self.upper).then_some(self.lower)
    }
}

impl fmt::Display for SearchResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.proven() {
            Some(v) => write!(f, "{v}"),
            None => write!(f, "between {} and {}", self.lower, self.upper),
        }
    }
}

/// The bounds the kazans alone put on the value for the side to move of a
/// live position: a side wins only with more than 81 at the end, and its
/// final kazan is at most its kazan plus every stone on the board (stones
/// never leave the game; tuzdyk feeding and atsyrau collection only move
/// board stones into kazans). A side that cannot pass 81 cannot win. A side
/// that cannot reach 81 does not lose outright either: endless play is a
/// draw, so only "not a win" follows. `(lower, upper)`.
pub fn kazan_bounds(pos: &Position) -> (Wdl, Wdl) {
    let board = pos.stones_on_board();
    let me = pos.side_to_move();
    let reach = |s: Side| pos.kazan(s) as u32 + board;
    let upper = if reach(me) <= HALF as u32 {
        Wdl::Draw
    } else {
        Wdl::Win
    };
    let lower = if reach(me.opponent()) <= HALF as u32 {
        Wdl::Draw
    } else {
        Wdl::Loss
    };
    (lower, upper)
}

/// The whole position as a key: holes, kazans, tuzdyks, side to move (the
/// move number is not part of it).
pub(crate) type Key = [u8; 24];

pub(crate) fn key_of(pos: &Position) -> Key {
    let mut k = [0u8; 24];
    k[..18].copy_from_slice(pos.holes());
    k[18..20].copy_from_slice(&pos.kazans());
    k[20..22].copy_from_slice(&pos.tuzdyk_indices());
    k[22] = pos.side_to_move().index() as u8;
    k
}

/// The hash that places a key in the provers' tables.
pub(crate) fn key_hash(key: &Key) -> u64 {
    xxhash_rust::xxh3::xxh3_64(key)
}

/// What is known about a position before searching it: exact for finished
/// games and table-covered positions, kazan bounds otherwise.
pub(crate) fn static_bounds(
    tb: &Tablebase,
    table_stones: u32,
    pos: &Position,
) -> Result<(Wdl, Wdl), ProbeError> {
    // `Tablebase::wdl` answers finished games itself: test for one only
    // where no table is asked.
    if pos.stones_on_board() <= table_stones {
        let w = tb.wdl(pos)?;
        return Ok((w, w));
    }
    if let Some(v) = terminal_value(pos) {
        return Ok((v.wdl(), v.wdl()));
    }
    Ok(kazan_bounds(pos))
}

/// Shared between the two provers: the root's bounds as known so far, and
/// the signal to stop.
pub(crate) struct Shared {
    lower: AtomicI8,
    upper: AtomicI8,
    stop: Arc<AtomicBool>,
}

pub(crate) fn wdl_of(v: i8) -> Wdl {
    match v {
        i8::MIN..=-1 => Wdl::Loss,
        0 => Wdl::Draw,
        _ => Wdl::Win,
    }
}

pub(crate) fn num(w: Wdl) -> i8 {
    match w {
        Wdl::Loss => -1,
        Wdl::Draw => 0,
        Wdl::Win => 1,
    }
}

impl Shared {
    fn new(lower: Wdl, upper: Wdl, stop: Arc<AtomicBool>) -> Shared {
        stop.store(false, Ordering::SeqCst);
        Shared {
            lower: AtomicI8::new(num(lower)),
            upper: AtomicI8::new(num(upper)),
            stop,
        }
    }

    /// Narrows the root interval; stops both provers once it closes.
    pub(crate) fn narrow(&self, lower: Wdl, upper: Wdl) {
        let lo = self
            .lower
            .fetch_max(num(lower), Ordering::SeqCst)
            .max(num(lower));
        let hi = self
            .upper
            .fetch_min(num(upper), Ordering::SeqCst)
            .min(num(upper));
        if lo >= hi {
            self.stop.store(true, Ordering::SeqCst);
        }
    }

    pub(crate) fn bounds(&self) -> (Wdl, Wdl) {
        (
            wdl_of(self.lower.load(Ordering::SeqCst)),
            wdl_of(self.upper.load(Ordering::SeqCst)),
        )
    }

    pub(crate) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Why a depth-first search stopped before finishing.
enum Halt {
    Budget,
    Probe(ProbeError),
}

impl From<ProbeError> for Halt {
    fn from(e: ProbeError) -> Halt {
        Halt::Probe(e)
    }
}

/// Counts one node against a budget: the node limit, and every 1024 nodes
/// the deadline and the other provers' stop signal.
fn tick(
    nodes: &mut u64,
    limit: u64,
    deadline: Option<Instant>,
    stop: &AtomicBool,
) -> Result<(), Halt> {
    *nodes += 1;
    if *nodes >= limit {
        return Err(Halt::Budget);
    }
    if nodes.is_multiple_of(1024)
        && (stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d))
    {
        return Err(Halt::Budget);
    }
    Ok(())
}

/// A proof searcher bound to a tablebase, keeping its transposition tables
/// between searches: proven bounds stay valid for every later position, and
/// df-pn's other numbers only steer. (Annotating 30 self-play games with
/// 0.5 s a position: 722 plies settled in 53 s with df-pn's tables kept,
/// 681 in 69 s without, medians of 3; docs/performance.md, "Annotating
/// games".)
pub struct Solver<'a> {
    tb: &'a Tablebase,
    table_stones: u32,
    budget: Budget,
    /// The depth-first prover's table, made when that prover first runs.
    tt: Option<Tt>,
    /// One df-pn table a thread, kept between searches (made on first
    /// use).
    dfpn_tables: Vec<pns::Table>,
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    /// Set when the other prover has closed the root interval.
    stop: Arc<AtomicBool>,
}

impl fmt::Debug for Solver<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Solver")
            .field("table_stones", &self.table_stones)
            .field("budget", &self.budget)
            .finish()
    }
}

impl Tablebase {
    /// Solves `pos` within `budget`: by the tables if they cover it, else by
    /// search (see [`Solver::solve`]). Each call starts from empty tables;
    /// to solve the positions of one game, keep one [`Solver`].
    ///
    /// # Errors
    /// A damaged table ([`ProbeError::Table`]) or tables that contradict
    /// themselves.
    pub fn solve(&self, pos: &Position, budget: Budget) -> Result<SearchResult, ProbeError> {
        Solver::new(self, budget).solve(pos)
    }
}

impl<'a> Solver<'a> {
    /// A solver over the complete run of tables `1..=N` of `tb`
    /// ([`Tablebase::complete_up_to`]), allocating its transposition table.
    pub fn new(tb: &'a Tablebase, budget: Budget) -> Solver<'a> {
        Solver {
            tb,
            table_stones: tb.complete_up_to(),
            budget,
            tt: None,
            dfpn_tables: Vec::new(),
            nodes: 0,
            node_limit: u64::MAX,
            deadline: None,
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The bytes its transposition tables take now. They grow with the
    /// positions the searches store, up to what the budget allows
    /// ([`Budget::memory`]), so this is what a search has cost in memory.
    pub fn table_bytes(&self) -> u64 {
        let dfs = self.tt.as_ref().map_or(0, Tt::bytes);
        dfs + self.dfpn_tables.iter().map(pns::Table::bytes).sum::<u64>()
    }

    /// The budget each call of [`Solver::solve`] gets.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// Sets the budget each call of [`Solver::solve`] gets. Tables of
    /// another size are made anew (what they held is lost): the depth-first
    /// one here, df-pn's at the next search.
    pub fn set_budget(&mut self, budget: Budget) {
        if budget.tt_entries != self.budget.tt_entries {
            self.tt = None;
        }
        self.budget = budget;
    }

    /// Solves `pos` within the budget. The result is proven only when its
    /// interval has closed; then `best_move` achieves it.
    ///
    /// # Errors
    /// A damaged table ([`ProbeError::Table`]) or tables that contradict
    /// themselves.
    pub fn solve(&mut self, pos: &Position) -> Result<SearchResult, ProbeError> {
        let start = Instant::now();
        let n = self.table_stones;
        let mut result = SearchResult {
            lower: Wdl::Loss,
            upper: Wdl::Win,
            best_move: None,
            source: Source::Rules,
            nodes: 0,
            depth: 0,
            graph_positions: 0,
            graph_closed: false,
            elapsed: Duration::ZERO,
            table_stones: n,
        };
        if terminal_value(pos).is_none() && pos.stones_on_board() <= n {
            let best = self.tb.best_move(pos)?;
            let w = self.tb.wdl(pos)?;
            result.lower = w;
            result.upper = w;
            result.best_move = best.map(|m| m.mv);
            result.source = Source::Tables;
            result.elapsed = start.elapsed();
            return Ok(result);
        }
        let (lower, upper) = static_bounds(self.tb, n, pos)?;
        if lower == upper {
            result.lower = lower;
            result.upper = upper;
            result.best_move = pos.legal_moves().next();
            result.elapsed = start.elapsed();
            return Ok(result);
        }
        result.source = Source::Search;
        self.nodes = 0;
        self.node_limit = self.budget.nodes.unwrap_or(u64::MAX);
        self.deadline = self.budget.time.map(|t| start + t);
        let shared = Shared::new(lower, upper, Arc::clone(&self.stop));
        let graph_limit = self.budget.graph_positions;
        let deadline = self.deadline;
        let tb = self.tb;
        let tt_entries = self.budget.tt_entries;
        let node_limit = self.node_limit;
        // One thread takes both questions in turn, or one each.
        let first = first_side(pos);
        let split: Vec<Vec<Side>> = match self.budget.dfpn_tables() {
            0 => vec![],
            1 => vec![vec![first, first.opponent()]],
            _ => vec![vec![first], vec![first.opponent()]],
        };
        // The tables of the searches before, when the budget still fits.
        let mut tables = std::mem::take(&mut self.dfpn_tables);
        if tables.len() != split.len() || tables.iter().any(|t| t.asked() != tt_entries) {
            tables.clear();
            // A table the system refuses (out of memory) leaves its
            // questions unasked: the result is then not proven by df-pn.
            tables.extend(split.iter().map_while(|_| pns::Table::new(tt_entries)));
        }
        let (dfs, graph, dfpn) = std::thread::scope(|s| {
            let shared = &shared;
            let graph = (graph_limit > 0)
                .then(|| s.spawn(move || graph::solve(tb, n, pos, graph_limit, deadline, shared)));
            let dfpn: Vec<_> = split
                .into_iter()
                .zip(tables.iter_mut())
                .map(|(sides, table)| {
                    table.next_search();
                    s.spawn(move || dfpn(tb, n, pos, &sides, table, node_limit, deadline, shared))
                })
                .collect();
            let dfs = if self.budget.dfs {
                self.deepen(pos, shared)
            } else {
                Ok(DfsOutcome {
                    depth: 0,
                    moves: pos.legal_moves().map(|mv| (mv, lower, upper)).collect(),
                })
            };
            // Each prover ends by its own budget, or when the root interval
            // closes.
            let dfpn: Vec<_> = dfpn
                .into_iter()
                .map(|h| h.join().expect("df-pn does not panic"))
                .collect();
            let graph = graph.map(|h| h.join().expect("the retrograde solve does not panic"));
            (dfs, graph, dfpn)
        });
        self.dfpn_tables = tables;
        let dfs = dfs?;
        result.nodes += self.nodes;
        result.depth = dfs.depth;
        let mut moves = dfs.moves;
        let mut narrow = |other: Vec<(Move, Wdl, Wdl)>| {
            // Every prover is sound: intersect, move by move.
            for (mv, lo, hi) in other {
                if let Some(m) = moves.iter_mut().find(|m| m.0 == mv) {
                    m.1 = m.1.max(lo);
                    m.2 = m.2.min(hi);
                }
            }
        };
        for d in dfpn {
            let d = d?;
            result.nodes += d.nodes;
            narrow(d.moves);
        }
        if let Some(g) = graph {
            let g = g?;
            result.graph_positions = g.positions;
            result.graph_closed = g.closed;
            narrow(g.moves);
        }
        let (lo, hi) = shared.bounds();
        let lo = moves.iter().map(|m| m.1).max().unwrap_or(lo).max(lo);
        let hi = moves.iter().map(|m| m.2).max().unwrap_or(hi).min(hi);
        result.lower = lo;
        result.upper = hi;
        if lo == hi {
            // A move whose own interval guarantees the value.
            result.best_move = moves.iter().find(|m| m.1 >= lo).map(|m| m.0);
        }
        result.elapsed = start.elapsed();
        Ok(result)
    }
}

/// What df-pn found: nodes, and bounds for each root move.
struct DfpnOutcome {
    nodes: u64,
    moves: Vec<(Move, Wdl, Wdl)>,
}

/// The side df-pn asks about first: the one ahead in kazan.
fn first_side(pos: &Position) -> Side {
    let me = pos.side_to_move();
    if pos.kazan(me) >= pos.kazan(me.opponent()) {
        me
    } else {
        me.opponent()
    }
}

/// Df-pn on the questions "does `x` win?" for the sides `x` in `sides`
/// (one or both), narrowing `shared` as each is settled. Two questions take
/// turns with doubling node slices in one table (the side asked about is
/// part of the key), so a loss is proven without first refuting the win,
/// and a question that bogs down does not starve the other.
#[allow(clippy::too_many_arguments)]
fn dfpn(
    tb: &Tablebase,
    n: u32,
    pos: &Position,
    sides: &[Side],
    table: &mut pns::Table,
    node_limit: u64,
    deadline: Option<Instant>,
    shared: &Shared,
) -> Result<DfpnOutcome, ProbeError> {
    let (lo, hi) = kazan_bounds(pos);
    let mut out = DfpnOutcome {
        nodes: 0,
        moves: pos.legal_moves().map(|mv| (mv, lo, hi)).collect(),
    };
    let me = pos.side_to_move();
    let first = sides[0];
    let mut p = pns::Pns::new(tb, n, first, table, node_limit, deadline, &shared.stop);
    // Per question: the side asked about and the nodes spent on it
    // (`None` once settled or out of budget).
    let mut questions: Vec<(Side, Option<u64>)> = sides.iter().map(|&x| (x, Some(0))).collect();
    let mut slice = DFPN_SLICE;
    while questions.iter().any(|q| q.1.is_some()) {
        for (x, spent) in questions.iter_mut() {
            let Some(used) = *spent else { continue };
            let mover = *x == me;
            let (lo, hi) = shared.bounds();
            if lo == hi || shared.stopped() {
                return Ok(out);
            }
            // Already answered by another prover.
            let answered = if mover {
                lo == Wdl::Win || hi < Wdl::Win
            } else {
                lo > Wdl::Loss || hi == Wdl::Loss
            };
            if answered {
                *spent = None;
                continue;
            }
            p.ask(*x);
            let before = p.nodes;
            p.node_limit = before.saturating_add(slice.min(node_limit.saturating_sub(used)));
            let verdict = p.run(pos)?;
            out.nodes += p.nodes - before;
            let used = used + (p.nodes - before);
            *spent = Some(used);
            let witness = match verdict {
                pns::Verdict::Open | pns::Verdict::Cyclic => None,
                _ => p.witness(pos)?,
            };
            match (verdict, mover) {
                (pns::Verdict::Open, _) => {
                    if used >= node_limit || deadline.is_some_and(|d| Instant::now() >= d) {
                        *spent = None;
                    }
                    continue;
                }
                (pns::Verdict::Cyclic, _) => {}
                // The mover wins: the proven move is a win.
                (pns::Verdict::Proven, true) => {
                    shared.narrow(Wdl::Win, Wdl::Win);
                    raise(&mut out.moves, witness, Wdl::Win);
                }
                (pns::Verdict::Disproven, true) => {
                    shared.narrow(Wdl::Loss, Wdl::Draw);
                    for m in &mut out.moves {
                        m.2 = m.2.min(Wdl::Draw);
                    }
                }
                (pns::Verdict::Proven, false) => {
                    shared.narrow(Wdl::Loss, Wdl::Loss);
                    for m in &mut out.moves {
                        m.2 = Wdl::Loss;
                    }
                }
                // The opponent cannot win after the refuting move.
                (pns::Verdict::Disproven, false) => {
                    shared.narrow(Wdl::Draw, Wdl::Win);
                    raise(&mut out.moves, witness, Wdl::Draw);
                }
            }
            *spent = None;
        }
        slice = slice.saturating_mul(2);
    }
    Ok(out)
}

/// The first node slice of each df-pn question (doubled each turn).
const DFPN_SLICE: u64 = 1 << 16;

/// Raises the lower bound of root move `mv` (if any) to `lo`.
fn raise(moves: &mut [(Move, Wdl, Wdl)], mv: Option<Move>, lo: Wdl) {
    if let Some(m) = moves.iter_mut().find(|m| Some(m.0) == mv) {
        m.1 = m.1.max(lo);
    }
}
