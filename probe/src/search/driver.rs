//! The driver: a search run, the provers started side by side and their
//! intervals intersected, and df-pn's two questions taking turns.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::rules::{Move, Position, Side};
use crate::tablebase::{terminal_value, Horizon, ProbeError, Tablebase};
use crate::value::Wdl;

use super::dfs::DfsOutcome;
use super::{graph, kazan_bounds, pns, static_bounds, SearchResult, Shared, Solver, Source};

impl Solver<'_> {
    /// Solves `pos` within the budget. The result is proven only when its
    /// interval has closed; then `best_move` achieves it.
    ///
    /// # Errors
    /// A damaged table ([`ProbeError::Table`]) or tables that contradict
    /// themselves.
    pub fn solve(&mut self, pos: &Position) -> Result<SearchResult, ProbeError> {
        let start = Instant::now();
        let n = self.horizon;
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
            table_stones: n.of(pos),
        };
        let stones = pos.stones_on_board();
        if terminal_value(pos).is_none() && stones <= n.of(pos) {
            // The best move by distance where the tables have distances,
            // else a move that keeps the result (a win in a table with a
            // tuzdyk ends: no position repeats there).
            let best = if stones <= n.all {
                self.tb.best_move(pos)?.map(|m| m.mv)
            } else {
                self.tb.wdl_moves(pos)?.first().map(|&(mv, _)| mv)
            };
            let w = self.tb.wdl(pos)?;
            result.lower = w;
            result.upper = w;
            result.best_move = best;
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
    n: Horizon,
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
