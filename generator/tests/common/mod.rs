//! An independent brute-force solver for the test suite.
//!
//! It shares nothing with the retrograde solver (`togyz_gen::solve`) nor with
//! the position index (`togyz_tb::raw::index`) but the rules: positions are
//! enumerated here by hand, looked up in a hash map, linked by forward moves
//! (`Position::play`), and solved by plain value iteration to a fixed point.
//! Iteration `i` settles the wins and losses of distance `i`; whatever is
//! never settled is a draw.

#![allow(dead_code)] // each test binary uses part of this module

use std::collections::HashMap;
use togyz_tb::Value;
use togyz_tb::{Move, Position, Side, CYCLE, ROW};

/// A position with South to move, without its move number (which the rules
/// ignore but `Position`'s equality does not).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Key {
    holes: [u8; CYCLE],
    south_kazan: u8,
    tuzdyks: [u8; 2],
}

impl Key {
    /// The key of a South-to-move position.
    pub fn of(pos: &Position) -> Key {
        assert_eq!(pos.side_to_move(), Side::South);
        Key {
            holes: *pos.holes(),
            south_kazan: pos.kazan(Side::South),
            tuzdyks: pos.tuzdyk_indices(),
        }
    }

    /// The key of any position: a North-to-move one through its colour
    /// mirror, which has the same value for the side to move.
    pub fn canonical(pos: &Position) -> Key {
        match pos.side_to_move() {
            Side::South => Key::of(pos),
            Side::North => Key::of(&pos.mirrored()),
        }
    }
}

/// `C(n, k)`, computed directly (not the index's table).
pub fn binomial(n: u64, k: u64) -> u64 {
    let mut r = 1u64;
    for i in 0..k {
        r = r * (n - i) / (i + 1);
    }
    r
}

/// The position count of issue 3 for `n` stones:
/// `(n+1) * (C(n+17,17) + 16*C(n+16,16) + 56*C(n+15,15))`.
pub fn formula(n: u64) -> u64 {
    (n + 1) * (binomial(n + 17, 17) + 16 * binomial(n + 16, 16) + 56 * binomial(n + 15, 15))
}

/// Every distribution of `n` stones over `free` holes, appended to `out`.
fn distributions(n: u8, free: &[usize], board: &mut [u8; CYCLE], out: &mut Vec<[u8; CYCLE]>) {
    match free {
        [] => {}
        [last] => {
            board[*last] = n;
            out.push(*board);
            board[*last] = 0;
        }
        [first, rest @ ..] => {
            for k in 0..=n {
                board[*first] = k;
                distributions(n - k, rest, board, out);
            }
            board[*first] = 0;
        }
    }
}

/// Every live position with `n` stones on the board and South to move:
/// every tuzdyk placement, every board, every kazan split with both kazans at
/// most 81.
pub fn enumerate(n: u8) -> Vec<Position> {
    let mut out = Vec::new();
    // South's tuzdyk sits in North's row, North's in South's; no 9th holes,
    // never both on the same number.
    // Hole numbers 1..=8.
    let options: Vec<Option<u8>> = std::iter::once(None).chain((1..=8).map(Some)).collect();
    for &south_tz in &options {
        for &north_tz in &options {
            if south_tz.is_some() && south_tz == north_tz {
                continue;
            }
            let free: Vec<usize> = (0..CYCLE)
                .filter(|&i| {
                    let num = Some((i % ROW) as u8 + 1);
                    // The tuzdyk in this hole's row, if any.
                    let tuzdyk_here = if i >= ROW { south_tz } else { north_tz };
                    tuzdyk_here != num
                })
                .collect();
            let mut boards = Vec::new();
            distributions(n, &free, &mut [0; CYCLE], &mut boards);
            for board in boards {
                for south in (81 - n)..=81 {
                    let north = 162 - n - south;
                    let pos =
                        Position::new(board, [south, north], [south_tz, north_tz], Side::South, 1)
                            .expect("enumerated positions are valid");
                    out.push(pos);
                }
            }
        }
    }
    out
}

/// The value of a position where the game is already over, for the side
/// to move (`None` while it goes on).
pub fn over_value(p: &Position) -> Option<Value> {
    p.outcome().map(|o| match o.winner {
        None => Value::Draw,
        Some(w) if w == p.side_to_move() => Value::Win(0),
        Some(_) => Value::Loss(0),
    })
}

/// What one node knows about its moves.
struct Node {
    /// The game is over in this position already: its value.
    over: Option<Value>,
    /// A move ends the game with the mover winning.
    ends_in_win: bool,
    /// A move ends the game 81:81.
    ends_in_draw: bool,
    /// A move ends the game with the mover losing.
    ends_in_loss: bool,
    /// Children that are still live, as node numbers (CSR range).
    children: std::ops::Range<usize>,
}

/// The solved positions with 1..=max stones, South to move.
pub struct Brute {
    /// Node number of each key.
    pub ids: HashMap<Key, u32>,
    /// The positions, in enumeration order (by stone count, ascending).
    pub positions: Vec<Position>,
    /// Their values.
    pub values: Vec<Value>,
    /// Positions enumerated per stone count (`count[n]`).
    pub counts: Vec<u64>,
    /// Rounds of value iteration run.
    pub rounds: u32,
}

impl Brute {
    /// Enumerates and solves every live position with 1..=max stones.
    pub fn solve(max: u8) -> Brute {
        let mut positions = Vec::new();
        let mut counts = vec![0u64];
        for n in 1..=max {
            let level = enumerate(n);
            counts.push(level.len() as u64);
            positions.extend(level);
        }
        let mut ids = HashMap::with_capacity(positions.len());
        for (i, p) in positions.iter().enumerate() {
            let prev = ids.insert(Key::of(p), i as u32);
            assert!(prev.is_none(), "position enumerated twice: {p}");
        }

        // Forward move generation, once.
        let mut nodes = Vec::with_capacity(positions.len());
        let mut edges: Vec<u32> = Vec::new();
        for p in &positions {
            let start = edges.len();
            let mut node = Node {
                over: None,
                ends_in_win: false,
                ends_in_draw: false,
                ends_in_loss: false,
                children: 0..0,
            };
            node.over = over_value(p);
            if node.over.is_none() {
                let moves: Vec<Move> = p.legal_moves().collect();
                assert!(!moves.is_empty(), "a live position has a move: {p}");
                for mv in moves {
                    let mut child = *p;
                    let report = child.play(mv).unwrap();
                    match report.outcome {
                        Some(o) => match o.winner {
                            None => node.ends_in_draw = true,
                            Some(w) if w == report.mover => node.ends_in_win = true,
                            Some(_) => node.ends_in_loss = true,
                        },
                        None => {
                            let id = ids.get(&Key::canonical(&child)).unwrap_or_else(|| {
                                panic!("successor of {p} not enumerated: {child}")
                            });
                            edges.push(*id);
                        }
                    }
                }
            }
            node.children = start..edges.len();
            nodes.push(node);
        }

        // Value iteration: round i settles distance i, reading only what
        // earlier rounds settled.
        let mut values: Vec<Option<Value>> = nodes.iter().map(|n| n.over).collect();
        let mut rounds = 0;
        for i in 1u32.. {
            rounds = i;
            let mut settled = Vec::new();
            for (id, node) in nodes.iter().enumerate() {
                if values[id].is_some() {
                    continue;
                }
                let kids = &edges[node.children.clone()];
                let known =
                    |c: u32| values[c as usize].filter(|v| v.distance().is_some_and(|d| d < i));
                let wins_now = (i == 1 && node.ends_in_win)
                    || kids.iter().any(|&c| known(c) == Some(Value::Loss(i - 1)));
                if wins_now {
                    settled.push((id, Value::Win(i)));
                    continue;
                }
                if node.ends_in_win || node.ends_in_draw {
                    continue;
                }
                // Lost once every move is a known loss; the loser takes the
                // slowest.
                let mut slowest = if node.ends_in_loss { Some(1) } else { None };
                let mut all_lose = true;
                for &c in kids {
                    match known(c) {
                        Some(Value::Win(d)) => slowest = slowest.max(Some(d + 1)),
                        _ => {
                            all_lose = false;
                            break;
                        }
                    }
                }
                if all_lose {
                    assert_eq!(
                        slowest,
                        Some(i),
                        "a loss settles in the round of its distance"
                    );
                    settled.push((id, Value::Loss(i)));
                }
            }
            if settled.is_empty() {
                // Round i + 1 needs a distance-i result: nothing more settles.
                break;
            }
            for (id, v) in settled {
                values[id] = Some(v);
            }
        }
        Brute {
            ids,
            positions,
            values: values
                .into_iter()
                .map(|v| v.unwrap_or(Value::Draw))
                .collect(),
            counts,
            rounds,
        }
    }

    /// The value of any live position with at most `max` stones (either side
    /// to move).
    pub fn value(&self, pos: &Position) -> Option<Value> {
        self.ids
            .get(&Key::canonical(pos))
            .map(|&id| self.values[id as usize])
    }
}
