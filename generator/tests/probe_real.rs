//! The tablebase on real tables: the retrograde solver's values for up to 4
//! stones, written with the writer and probed through `togyz_tb`.

use std::sync::OnceLock;

use togyz_gen::below::DtmLevels;
use togyz_gen::files::write::write_table;
use togyz_gen::solve::dtm::solve_all;
use togyz_tb::notation::parse_fen;
use togyz_tb::notation::traditional;
use togyz_tb::raw::index::Layout;
use togyz_tb::Metric;
use togyz_tb::{terminal_value, Tablebase, DRAW_LINE_PLIES};
use togyz_tb::{Position, Value};

const MAX: u32 = 4;

/// The solved levels and a folder with their tables.
fn setup() -> &'static (DtmLevels, tempfile::TempDir) {
    static S: OnceLock<(DtmLevels, tempfile::TempDir)> = OnceLock::new();
    S.get_or_init(|| {
        let levels = solve_all(MAX).expect("levels solve");
        let dir = tempfile::tempdir().unwrap();
        for n in 1..=MAX {
            write_table(dir.path(), Metric::Dtm, n, &levels.table(n)).unwrap();
        }
        (levels, dir)
    })
}

fn tablebase() -> Tablebase {
    Tablebase::open([setup().1.path()]).unwrap()
}

/// The line in traditional notation, replayed from `pos`.
fn notation(pos: &Position, line: &[togyz_tb::Move]) -> Vec<String> {
    let mut p = *pos;
    line.iter()
        .map(|&mv| {
            let text = traditional(&p, mv).unwrap();
            p.play(mv).unwrap();
            text
        })
        .collect()
}

#[test]
fn rules_example_three_loses_in_four() {
    let tb = tablebase();
    let p = parse_fen("7,2S,1/8,2S 79 79 S 1").unwrap();
    assert_eq!(tb.value(&p).unwrap(), Value::Loss(4));
    let moves = tb.moves(&p).unwrap();
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0].value, Value::Loss(4));
    let pv = tb.principal_variation(&p).unwrap();
    assert_eq!(notation(&p, &pv), ["91", "12", "91", "12"]);
    // North, to move after 91, wins in 3.
    let after = p.after(pv[0]).unwrap();
    assert_eq!(tb.value(&after).unwrap(), Value::Win(3));
}

#[test]
fn probes_agree_with_the_solver_and_with_the_successors() {
    let (levels, _) = setup();
    let tb = tablebase();
    for n in 1..=MAX {
        let layout = Layout::new(n);
        let table = levels.table(n);
        // Every position up to 3 stones, a sample of the 4-stone table.
        let step = if n < 4 { 1 } else { 7 };
        for i in (0..layout.positions()).step_by(step) {
            let p = layout.slot(i).position();
            let value = tb.value(&p).unwrap();
            assert_eq!(tb.wdl(&p).unwrap(), value.wdl());
            if let Some(t) = terminal_value(&p) {
                assert_eq!(value, t);
                assert!(tb.moves(&p).unwrap().is_empty());
                continue;
            }
            assert_eq!(value, Value::unpack(table[i as usize]), "{}", p.fen());
            // The stored value is the best of the moves, which come sorted.
            let moves = tb.moves(&p).unwrap();
            assert_eq!(moves[0].value, value, "{}", p.fen());
            assert!(moves.windows(2).all(|w| w[0].value >= w[1].value));
            assert_eq!(tb.best_move(&p).unwrap(), Some(moves[0]));
        }
    }
}

#[test]
fn principal_variations_end_the_game_in_exactly_the_distance() {
    let tb = tablebase();
    let layout = Layout::new(MAX);
    let (mut decisive, mut drawn) = (0, 0);
    for i in (0..layout.positions()).step_by(37) {
        let p = layout.slot(i).position();
        let value = tb.value(&p).unwrap();
        let pv = tb.principal_variation(&p).unwrap();
        let mut end = p;
        for &mv in &pv {
            assert!(end.is_legal(mv));
            end.play(mv).unwrap();
        }
        match value {
            Value::Win(d) | Value::Loss(d) => {
                decisive += 1;
                assert_eq!(pv.len() as u32, d, "{}", p.fen());
                let winner = end.outcome().expect("the line ends the game").winner;
                let mover_won = winner == Some(p.side_to_move());
                assert_eq!(mover_won, matches!(value, Value::Win(_)), "{}", p.fen());
            }
            Value::Draw => {
                drawn += 1;
                assert!(pv.len() <= DRAW_LINE_PLIES);
                // Every position along the line is still a draw.
                assert_eq!(tb.value(&end).unwrap(), Value::Draw, "{}", p.fen());
                if let Some(o) = end.outcome() {
                    assert_eq!(o.winner, None);
                }
            }
        }
    }
    assert!(
        decisive > 0 && drawn > 0,
        "{decisive} decisive, {drawn} drawn"
    );
}
