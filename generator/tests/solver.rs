//! Properties of the solved tables that the format and the rules rely on.

use togyz_gen::solve::dtm::solve_all;
use togyz_tb::raw::index::Layout;
use togyz_tb::raw::index::Slot;
use togyz_tb::{Position, Value, Wdl};

/// More kazan never hurts the side to move: along the kazan axis a board's
/// results run losses, draws, wins.
#[test]
fn results_are_monotone_along_the_kazan_axis() {
    let levels = solve_all(6).unwrap();
    for n in 1..=6 {
        let k = n as usize + 1;
        for (board, values) in levels.table(n).chunks(k).enumerate() {
            let wdl: Vec<Wdl> = values.iter().map(|&v| Value::unpack(v).wdl()).collect();
            assert!(
                wdl.windows(2).all(|w| w[0] <= w[1]),
                "n={n} board {board}: {wdl:?}"
            );
        }
    }
}

/// Every value agrees with a one-ply search over the stored values of its
/// successors (the retrograde pass and a forward pass agree everywhere).
#[test]
fn every_value_is_the_best_of_its_moves() {
    let levels = solve_all(5).unwrap();
    for n in 1..=5 {
        let layout = Layout::new(n);
        let table = levels.table(n);
        for index in 0..layout.positions() {
            let pos = layout.slot(index).position();
            let stored = Value::unpack(table[index as usize]);
            let expect = search_one_ply(&pos, &levels);
            assert_eq!(stored, expect, "n={n} index {index}");
        }
    }
}

fn search_one_ply(pos: &Position, levels: &togyz_gen::below::DtmLevels) -> Value {
    if let Some(v) = togyz_tb::terminal_value(pos) {
        return v;
    }
    let mut best: Option<Value> = None;
    for mv in pos.legal_moves() {
        let child = pos.after(mv).unwrap();
        let v = match child.outcome() {
            Some(_) => search_one_ply(&child, levels).back(),
            None => levels.value(&child).expect("live child").back(),
        };
        best = Some(best.map_or(v, |b| b.max(v)));
    }
    best.expect("a live position has a move")
}

/// docs/rules.md example 3: `7,2S,1/8,2S 79 79 S 1` is lost in 4 plies.
#[test]
fn one_extra_move_loses() {
    let levels = solve_all(4).unwrap();
    let mut holes = [0u8; 18];
    holes[8] = 2;
    holes[10] = 2;
    let pos = Position::new(holes, [79, 79], [None, None], togyz_tb::Side::South, 1).unwrap();
    assert_eq!(levels.value(&pos), Some(Value::Loss(4)));
    assert_eq!(levels.value(&pos.mirrored()), Some(Value::Loss(4)));
    let slot = Slot::of(&pos).unwrap();
    assert_eq!(slot.stones, 4);
}
