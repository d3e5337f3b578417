//! A bounded retrograde solve of the positions reachable from the root above
//! the tables: a small tablebase of the search graph, cycles included.
//!
//! The positions reachable from the root are enumerated breadth-first up to
//! a limit. Finished games, table-covered positions and positions the kazans
//! settle are leaves with exact values; the others are expanded. The graph
//! is then solved by retrograde analysis: a position is a win when some move
//! leads to a loss for the opponent, a loss when every move leads to a win
//! for the opponent, and a draw when neither follows at the fixed point
//! (endless play, or a forced 81:81). If the enumeration did not close, the
//! positions left unexpanded are given their worst values for the root's
//! side in one pass and their best in another: the value of a game graph is
//! monotone in its leaf values, so the two passes bound the root from below
//! and above.

use std::collections::HashMap;
use std::time::Instant;

use xxhash_rust::xxh3::Xxh3DefaultBuilder;

use super::{key_of, num, static_bounds, wdl_of, Key, Shared};
use crate::rules::{Move, Position, Side};
use crate::tablebase::{Horizon, ProbeError, Tablebase};
use crate::value::Wdl;

/// What the retrograde solve showed.
pub(crate) struct GraphOutcome {
    /// Positions enumerated.
    pub positions: u64,
    /// Whether every leaf was settled (the root's interval is then closed).
    pub closed: bool,
    /// Bounds for each root move, for the mover.
    pub moves: Vec<(Move, Wdl, Wdl)>,
}

/// One enumerated position: its static bounds and, once expanded, its
/// successors `edges[first..first + len]`.
#[derive(Clone, Copy)]
struct Node {
    lower: i8,
    upper: i8,
    expanded: bool,
    side: Side,
    first: u32,
    len: u8,
}

const UNKNOWN: i8 = 2;

/// Bytes one enumerated position takes at most, about (its node, position,
/// edges and map entry, with the slack of growing vectors: 101 to 143
/// measured at 1 to 4 M positions), what [`super::Budget::memory`] counts.
pub(crate) const POSITION_BYTES: u64 = 150;

/// Expansions between two looks at the clock.
const CLOCK_EVERY: usize = 256;

/// Enumerates at most `limit` positions from `root` (stones above
/// the tables' `horizon`) and solves the graph; narrows `shared` with the root's
/// bounds. Stops early, with what it has, at `deadline` or when `shared`
/// says so.
pub(crate) fn solve(
    tb: &Tablebase,
    horizon: Horizon,
    root: &Position,
    limit: usize,
    deadline: Option<Instant>,
    shared: &Shared,
) -> Result<GraphOutcome, ProbeError> {
    let mut ids: HashMap<Key, u32, Xxh3DefaultBuilder> = HashMap::default();
    let mut nodes: Vec<Node> = Vec::new();
    let mut positions: Vec<Position> = Vec::new();
    let mut edges: Vec<u32> = Vec::new();
    let (lo, hi) = static_bounds(tb, horizon, root)?;
    ids.insert(key_of(root), 0);
    nodes.push(node(root, lo, hi));
    positions.push(*root);
    let mut next = 0usize;
    let mut expansions = 0usize;
    while next < nodes.len() && nodes.len() < limit {
        let id = next;
        next += 1;
        if nodes[id].lower == nodes[id].upper {
            continue;
        }
        expansions += 1;
        if expansions.is_multiple_of(CLOCK_EVERY) {
            if shared.stopped() {
                return Ok(GraphOutcome {
                    positions: nodes.len() as u64,
                    closed: false,
                    moves: Vec::new(),
                });
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
        }
        let pos = positions[id];
        let first = edges.len() as u32;
        let mut len = 0u8;
        for mv in pos.legal_moves() {
            let child = pos.after_unchecked(mv);
            let key = key_of(&child);
            let cid = match ids.get(&key) {
                Some(&c) => c,
                None => {
                    let (lo, hi) = static_bounds(tb, horizon, &child)?;
                    let c = nodes.len() as u32;
                    ids.insert(key, c);
                    nodes.push(node(&child, lo, hi));
                    positions.push(child);
                    c
                }
            };
            edges.push(cid);
            len += 1;
        }
        nodes[id].expanded = true;
        nodes[id].first = first;
        nodes[id].len = len;
    }
    drop(ids);
    drop(positions);
    let closed = nodes.iter().all(|n| n.expanded || n.lower == n.upper);
    let preds = Predecessors::of(&nodes, &edges);
    let me = root.side_to_move();
    // Unexpanded positions at their worst for the root's side, then at
    // their best.
    let worst = retrograde(&nodes, &edges, &preds, me.opponent());
    let best = if closed {
        worst.clone()
    } else {
        retrograde(&nodes, &edges, &preds, me)
    };
    let root_node = nodes[0];
    let moves = root
        .legal_moves()
        .zip(&edges[root_node.first as usize..][..root_node.len as usize])
        .map(|(mv, &c)| {
            let c = c as usize;
            (mv, wdl_of(-worst[c]), wdl_of(-best[c]))
        })
        .collect();
    shared.narrow(wdl_of(worst[0]), wdl_of(best[0]));
    Ok(GraphOutcome {
        positions: nodes.len() as u64,
        closed,
        moves,
    })
}

fn node(pos: &Position, lo: Wdl, hi: Wdl) -> Node {
    Node {
        lower: num(lo),
        upper: num(hi),
        expanded: false,
        side: pos.side_to_move(),
        first: 0,
        len: 0,
    }
}

/// The reversed edges, in compressed rows: the predecessors of node `v` are
/// `list[start[v]..start[v + 1]]`, once per edge.
struct Predecessors {
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Predecessors {
    fn of(nodes: &[Node], edges: &[u32]) -> Predecessors {
        let mut start = vec![0u32; nodes.len() + 1];
        for &c in edges {
            start[c as usize + 1] += 1;
        }
        for i in 0..nodes.len() {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut list = vec![0u32; edges.len()];
        for (p, n) in nodes.iter().enumerate() {
            if !n.expanded {
                continue;
            }
            for &c in &edges[n.first as usize..][..n.len as usize] {
                list[fill[c as usize] as usize] = p as u32;
                fill[c as usize] += 1;
            }
        }
        Predecessors { start, list }
    }

    fn of_node(&self, v: usize) -> &[u32] {
        &self.list[self.start[v] as usize..self.start[v + 1] as usize]
    }
}

/// Solves the graph with every unexpanded position at its best value for
/// `favoured`; returns each node's value for its side to move (-1, 0, 1).
fn retrograde(nodes: &[Node], edges: &[u32], preds: &Predecessors, favoured: Side) -> Vec<i8> {
    let mut val = vec![UNKNOWN; nodes.len()];
    let mut left: Vec<u8> = vec![0; nodes.len()];
    let mut queue: Vec<u32> = Vec::new();
    for (v, n) in nodes.iter().enumerate() {
        if n.expanded {
            left[v] = n.len;
            continue;
        }
        val[v] = if n.side == favoured { n.upper } else { n.lower };
        if val[v] != 0 {
            queue.push(v as u32);
        }
    }
    debug_assert_eq!(edges.len(), preds.list.len());
    while let Some(c) = queue.pop() {
        let c = c as usize;
        for &p in preds.of_node(c) {
            let p = p as usize;
            if val[p] != UNKNOWN {
                continue;
            }
            if val[c] == -1 {
                val[p] = 1;
                queue.push(p as u32);
            } else {
                left[p] -= 1;
                if left[p] == 0 {
                    val[p] = -1;
                    queue.push(p as u32);
                }
            }
        }
    }
    for v in &mut val {
        if *v == UNKNOWN {
            *v = 0;
        }
    }
    val
}
