//! The distance-to-conversion solver (`togyz_gen::solve::dtc`) against the DTM
//! solver, an independent brute-force DTC and games played out to the end.

mod common;

use common::{over_value, Brute, Key};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::collections::HashMap;
use togyz_gen::below::DtcLevels;
use togyz_gen::solve::cells::LevelValues;
use togyz_gen::solve::dtc;
use togyz_gen::solve::dtm;
use togyz_gen::solve::score::WdlLevel;
use togyz_tb::raw::index::{Layout, Slot};
use togyz_tb::{Move, Position};
use togyz_tb::{Value, Wdl};

/// The DTC value of a live position from the solved levels.
fn dtc_value(levels: &[LevelValues], pos: &Position) -> Value {
    let slot = Slot::of(pos).expect("a live position");
    let index = Layout::new(slot.stones).index(&slot);
    if slot.stones == 0 {
        return Value::Draw;
    }
    Value::unpack(levels[slot.stones as usize].get(index as usize))
}

/// (a) The WDL of every position up to 6 stones is the DTM solver's, the
/// per-board draw splits describe it, and no DTC exceeds the DTM (the
/// winner's fastest mate passes a conversion on the way).
#[test]
fn wdl_equals_the_dtm_solvers_up_to_6() {
    let max = 6;
    let dtm = dtm::solve_all(max).unwrap();
    let (dtc, wdl) = dtc::solve_all(max).unwrap();
    for n in 1..=max {
        let layout = Layout::new(n);
        let (a, b) = (dtm.level(n), &dtc[n as usize]);
        assert_eq!(a.len() as u64, layout.positions());
        assert_eq!(b.len(), a.len());
        // The DTM level's own draw splits are the DTC solver's.
        assert_eq!(
            &WdlLevel::from_packed(n, &dtm.table(n)).unwrap(),
            wdl.level(n),
            "n={n}"
        );
        let mut shorter = 0u64;
        for i in 0..a.len() {
            let (x, y) = (Value::unpack(a.get(i)), Value::unpack(b.get(i)));
            assert_eq!(
                x.wdl(),
                y.wdl(),
                "n={n} {}",
                layout.slot(i as u64).position().fen()
            );
            assert_eq!(wdl.level(n).wdl(i as u64), x.wdl());
            assert!(
                y.distance() <= x.distance(),
                "n={n} index {i}: DTC {y} over DTM {x}"
            );
            shorter += (y.distance() < x.distance()) as u64;
        }
        assert!(n < 3 || shorter > 0, "n={n}: DTC is DTM everywhere");
    }
}

/// What a brute-force node knows: the best conversion and its quiet
/// children.
struct Node {
    over: Option<Value>,
    /// Best result among conversions, if any.
    convert: Option<Wdl>,
    children: Vec<u32>,
}

/// Plain DTC by forward value iteration over the positions of 1..=max
/// stones, sharing nothing with the solver but the rules: conversions
/// (stone count left, or the game over) are scored by the brute-force DTM
/// solver's win/draw/loss of the position reached.
fn brute_dtc(brute: &Brute) -> HashMap<Key, Value> {
    let mut nodes = Vec::new();
    for p in &brute.positions {
        let mut node = Node {
            over: over_value(p),
            convert: None,
            children: Vec::new(),
        };
        if node.over.is_none() {
            for mv in p.legal_moves() {
                let mut child = *p;
                let report = child.play(mv).unwrap();
                let result = match report.outcome {
                    Some(o) => Some(match o.winner {
                        None => Wdl::Draw,
                        Some(w) if w == report.mover => Wdl::Win,
                        Some(_) => Wdl::Loss,
                    }),
                    None if child.stones_on_board() != p.stones_on_board() => {
                        Some(brute.value(&child).unwrap().wdl().flip())
                    }
                    None => None,
                };
                match result {
                    Some(r) => node.convert = node.convert.max(Some(r)),
                    None => node.children.push(brute.ids[&Key::canonical(&child)]),
                }
            }
        }
        nodes.push(node);
    }
    let mut values: Vec<Option<Value>> = nodes.iter().map(|n| n.over).collect();
    for i in 1u32.. {
        let mut settled = Vec::new();
        for (id, node) in nodes.iter().enumerate() {
            if values[id].is_some() {
                continue;
            }
            let known = |c: u32| values[c as usize].filter(|v| v.distance().is_some_and(|d| d < i));
            if (i == 1 && node.convert == Some(Wdl::Win))
                || node
                    .children
                    .iter()
                    .any(|&c| known(c) == Some(Value::Loss(i - 1)))
            {
                settled.push((id, Value::Win(i)));
                continue;
            }
            if node.convert > Some(Wdl::Loss) {
                continue;
            }
            let mut slowest = node.convert.map(|_| 1);
            let all_lose = node.children.iter().all(|&c| match known(c) {
                Some(Value::Win(d)) => {
                    slowest = slowest.max(Some(d + 1));
                    true
                }
                _ => false,
            });
            if all_lose && slowest == Some(i) {
                settled.push((id, Value::Loss(i)));
            }
        }
        if settled.is_empty() && i > 2 {
            break;
        }
        for (id, v) in settled {
            values[id] = Some(v);
        }
    }
    brute
        .positions
        .iter()
        .zip(values)
        .map(|(p, v)| (Key::of(p), v.unwrap_or(Value::Draw)))
        .collect()
}

/// (b) Every DTC value up to 4 stones equals the brute-force one.
#[test]
fn dtc_equals_brute_force_up_to_4() {
    let brute = Brute::solve(4);
    let reference = brute_dtc(&brute);
    let (dtc, _) = dtc::solve_all(4).unwrap();
    let mut nonzero = 0;
    for p in &brute.positions {
        let want = reference[&Key::of(p)];
        assert_eq!(dtc_value(&dtc, p), want, "{}", p.fen());
        nonzero += (want.distance().unwrap_or(0) > 1) as u32;
    }
    assert!(nonzero > 100, "too few DTC values over 1 to test");
}

/// The positions after the winner's moves that keep the win and lower the
/// DTC, or convert into a win.
fn good_moves(levels: &[LevelValues], pos: &Position, dtc: u32) -> Vec<Position> {
    let mut out = Vec::new();
    for mv in pos.legal_moves() {
        let mut child = *pos;
        let report = child.play(mv).unwrap();
        let keeps = match report.outcome {
            Some(o) => o.winner == Some(report.mover),
            None => match dtc_value(levels, &child) {
                Value::Loss(_) if child.stones_on_board() != pos.stones_on_board() => true,
                Value::Loss(d) => d < dtc,
                _ => false,
            },
        };
        if keeps {
            out.push(child);
        }
    }
    out
}

/// (c) From many won positions, the winner playing any move that keeps the
/// win and lowers the DTC (or converts into a win) and the loser playing
/// anything, the game ends won, through the lower levels; every loser's
/// move lowers the DTC too until a conversion.
#[test]
fn following_dtc_wins_the_game() {
    let max = 7;
    let (levels, _) = dtc::solve_all(max).unwrap();
    let mut rng = SmallRng::seed_from_u64(9);
    let mut games = 0;
    for n in 1..=max {
        let layout = Layout::new(n);
        let step = (layout.positions() / 3000).max(1);
        for start in (0..layout.positions()).step_by(step as usize) {
            let pos = layout.slot(start).position();
            if pos.outcome().is_some() || !matches!(dtc_value(&levels, &pos), Value::Win(_)) {
                continue;
            }
            play_out(&levels, pos, &mut rng);
            games += 1;
        }
    }
    assert!(games > 3000, "only {games} games");
}

fn play_out(levels: &[LevelValues], start: Position, rng: &mut SmallRng) {
    let winner = start.side_to_move();
    let mut pos = start;
    for _ in 0..10_000 {
        if let Some(o) = pos.outcome() {
            assert_eq!(
                o.winner,
                Some(winner),
                "from {}: lost at {}",
                start.fen(),
                pos.fen()
            );
            return;
        }
        let v = dtc_value(levels, &pos);
        if pos.side_to_move() == winner {
            let Value::Win(d) = v else {
                panic!("from {}: the winner's {} is {v}", start.fen(), pos.fen());
            };
            let good = good_moves(levels, &pos, d);
            assert!(
                !good.is_empty(),
                "from {}: no good move at {}",
                start.fen(),
                pos.fen()
            );
            pos = good[rng.random_range(0..good.len())];
        } else {
            let Value::Loss(d) = v else {
                panic!("from {}: the loser's {} is {v}", start.fen(), pos.fen());
            };
            let moves: Vec<Move> = pos.legal_moves().collect();
            let mut child = pos;
            let report = child.play(moves[rng.random_range(0..moves.len())]).unwrap();
            if report.outcome.is_none() && child.stones_on_board() == pos.stones_on_board() {
                match dtc_value(levels, &child) {
                    Value::Win(c) => assert!(c < d, "{} -> {}", pos.fen(), child.fen()),
                    other => panic!("{} -> {}: {other}", pos.fen(), child.fen()),
                }
            }
            pos = child;
        }
    }
    panic!("from {}: no end in 10000 plies", start.fen());
}

/// Levels must come in order, and the levels below are one byte a board.
#[test]
fn levels_come_in_order() {
    let (_, wdl) = dtc::solve_all(2).unwrap();
    let progress = std::sync::atomic::AtomicU64::new(0);
    assert!(dtc::solve_level(4, &wdl, &progress).is_err());
    assert!(dtc::solve_level(0, &wdl, &progress).is_err());
    let mut fresh = DtcLevels::new();
    assert!(fresh.push(wdl.level(2).clone()).is_err());
    assert_eq!(
        wdl.bytes(),
        (0..=2).map(|n| Layout::new(n).boards()).sum::<u64>()
    );
}
