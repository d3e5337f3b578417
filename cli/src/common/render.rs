//! Text for people: the board, values in words, move lists (the counts
//! with their nouns are `togyz_answer::text`'s, shared with `togyz-gen`).
//! `query` and `play` both print through these.

use std::fmt::Write as _;

use togyz_answer::text::plies;
use togyz_tb::notation::result_text;
use togyz_tb::MoveValue;
use togyz_tb::{Metric, Value};
use togyz_tb::{Move, MoveReport, Position, Side, ROW};

/// A value in words, its distance in `metric`: "wins in 7 plies", "draws",
/// "loses in 1 ply"; for DTC "wins; converts in 7 plies".
pub fn in_words(v: Value, metric: Metric) -> String {
    match (v, metric) {
        (Value::Win(d), Metric::Dtm) => format!("wins in {}", plies(d)),
        (Value::Loss(d), Metric::Dtm) => format!("loses in {}", plies(d)),
        (Value::Win(d), Metric::Dtc) => format!("wins; converts in {}", plies(d)),
        (Value::Loss(d), Metric::Dtc) => format!("loses; converts in {}", plies(d)),
        (Value::Draw, _) => "draws".to_string(),
    }
}

/// The side to move's value as a sentence, its distance in `metric`:
/// "South to move wins in 11 plies.", "South to move wins; converts in 7
/// plies.", "North to move: a draw with best play.".
pub fn verdict(pos: &Position, v: Value, metric: Metric) -> String {
    let side = pos.side_to_move();
    match v {
        Value::Draw => format!("{side} to move: a draw with best play."),
        v => format!("{side} to move {}.", in_words(v, metric)),
    }
}

/// How a finished game ended, to follow "then": "North wins 83:79 (...)",
/// "a draw 81:81 (...)"; `None` while the game goes on.
pub fn ending(pos: &Position) -> Option<String> {
    let text = result_text(pos)?;
    Some(match text.strip_prefix("Draw ") {
        Some(rest) => format!("a draw {rest}"),
        None => text,
    })
}

/// A move of `pos` in traditional and UCI notation.
pub fn names(pos: &Position, mv: Move) -> (String, String) {
    let report = report_of(pos, mv);
    (report.traditional(), report.uci())
}

/// What the legal move `mv` (from the rules or the tables) does in `pos`,
/// leaving `pos` unchanged.
pub fn report_of(pos: &Position, mv: Move) -> MoveReport {
    let mut p = *pos;
    p.play_unchecked(mv)
}

/// One line per move with its value: `  91x  i1i2  wins in 11 plies`.
pub fn valued_moves(pos: &Position, moves: &[MoveValue]) -> String {
    let mut s = String::new();
    for m in moves {
        let (t, u) = names(pos, m.mv);
        let _ = writeln!(s, "  {t:<4} {u:<5} {}", in_words(m.value, m.metric));
    }
    s
}

/// The legal moves on one line, traditional and UCI: `19 (a1i1), 21 (b1i2)`.
pub fn legal_moves(pos: &Position) -> String {
    pos.legal_moves()
        .map(|mv| {
            let (t, u) = names(pos, mv);
            format!("{t} ({u})")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The board as South sees it: North's holes 9..1 on top, South's 1..9
/// below, each hole's stones (`.` empty, `X` a tuzdyk), and the kazans.
pub fn diagram(pos: &Position) -> String {
    let cell = |side: Side, number: usize| {
        let idx = side.row_start() + number;
        if pos.is_tuzdyk(idx) {
            "X".to_string()
        } else {
            match pos.holes()[idx] {
                0 => ".".to_string(),
                c => c.to_string(),
            }
        }
    };
    let row = |side: Side, numbers: &mut dyn Iterator<Item = usize>| {
        numbers
            .map(|i| format!("{:>4}", cell(side, i)))
            .collect::<String>()
    };
    let labels = |numbers: &mut dyn Iterator<Item = usize>| {
        numbers.map(|i| format!("{:>4}", i + 1)).collect::<String>()
    };
    let [south_kazan, north_kazan] = pos.kazans();
    let mut s = String::new();
    let _ = writeln!(s, "       {}", labels(&mut (0..ROW).rev()));
    let _ = writeln!(
        s,
        "North  {}   kazan {north_kazan}",
        row(Side::North, &mut (0..ROW).rev())
    );
    let _ = writeln!(
        s,
        "South  {}   kazan {south_kazan}",
        row(Side::South, &mut (0..ROW))
    );
    let _ = writeln!(s, "       {}", labels(&mut (0..ROW)));
    for owner in [Side::South, Side::North] {
        if let Some(number) = pos.tuzdyk(owner) {
            let _ = writeln!(
                s,
                "X: {owner}'s tuzdyk in {}'s hole {number}",
                owner.opponent()
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endings_follow_then() {
        let draw: Position = "9/9 81 81 S 1".parse().unwrap();
        assert!(ending(&draw).unwrap().starts_with("a draw 81:81"));
        let won: Position = "9/4S,8 79 79 N 1".parse().unwrap();
        assert!(ending(&won).unwrap().starts_with("South wins 83:79"));
        assert_eq!(ending(&Position::start()), None);
    }
}
