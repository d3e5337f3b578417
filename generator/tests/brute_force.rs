//! The proof of correctness of issue 3: an independent brute-force solver
//! (`common`, forward value iteration sharing nothing with the retrograde
//! code but the rules) agrees with `togyz_gen::retro::solve_all` on every
//! position with up to 4 stones, and its census agrees with `togyz-gen
//! stats` on tables written from the solver.

mod common;

use common::{formula, Brute, Key};
use std::sync::OnceLock;
use togyz_gen::retro::{solve_all, Levels};
use togyz_probe::rules::Side;
use togyz_probe::{parse_fen, Value};

const MAX: u8 = 4;

fn brute() -> &'static Brute {
    static B: OnceLock<Brute> = OnceLock::new();
    B.get_or_init(|| Brute::solve(MAX))
}

fn levels() -> &'static Levels {
    static L: OnceLock<Levels> = OnceLock::new();
    L.get_or_init(|| solve_all(MAX as u32).expect("levels 1..=4 solve"))
}

#[test]
fn position_counts_match_the_formula() {
    let b = brute();
    for n in 1..=MAX as u64 {
        assert_eq!(
            b.counts[n as usize],
            formula(n),
            "enumerated positions for n = {n}"
        );
        assert_eq!(
            levels().table(n as u32).len() as u64,
            formula(n),
            "solver table for n = {n}"
        );
    }
    // Issue 3's totals, from the same formula.
    assert_eq!((1..=8).map(formula).sum::<u64>(), 512_753_762);
    assert_eq!((1..=10).map(formula).sum::<u64>(), 4_644_298_157);
}

#[test]
fn brute_force_agrees_with_the_retrograde_solver() {
    let (b, l) = (brute(), levels());
    let mut seen = [0u64; 3];
    for (p, &v) in b.positions.iter().zip(&b.values) {
        let solved = l
            .value(p)
            .unwrap_or_else(|| panic!("solver has no value for {p}"));
        assert_eq!(solved, v, "{p}: brute force says {v}, the solver {solved}");
        seen[v.wdl() as usize] += 1;
    }
    // All three results occur, and distances go past the trivial ones.
    assert!(seen.iter().all(|&c| c > 0), "results seen: {seen:?}");
    assert!(b.rounds > 10, "value iteration ran {} rounds", b.rounds);
}

#[test]
fn north_to_move_mirrors_agree() {
    // The index seats the side to move South; every North-to-move position
    // must read the value of its South-to-move mirror.
    let (b, l) = (brute(), levels());
    for (p, &v) in b.positions.iter().zip(&b.values) {
        let m = p.mirrored();
        assert_eq!(m.side_to_move(), Side::North);
        assert_eq!(l.value(&m), Some(v), "mirror {m} of {p}");
        assert_eq!(b.value(&m), Some(v));
    }
}

#[test]
fn values_satisfy_the_rules_locally() {
    // A sanity check of the brute force itself: each value is the best of
    // its moves, each move scored by the rules' outcome or the child value.
    let b = brute();
    for (p, &v) in b.positions.iter().zip(&b.values) {
        let best = p
            .legal_moves()
            .map(|mv| {
                let mut c = *p;
                let r = c.play(mv);
                match r.outcome {
                    Some(o) if o.winner == Some(r.mover) => Value::Win(1),
                    Some(o) if o.winner.is_none() => Value::Draw,
                    Some(_) => Value::Loss(1),
                    None => b.value(&c).expect("child enumerated").back(),
                }
            })
            .max();
        let expected = match (best, p.outcome()) {
            (Some(best), None) => best,
            (None, Some(o)) if o.winner.is_none() => Value::Draw,
            (None, Some(_)) => Value::Loss(0),
            _ => unreachable!("a position either has moves or is over"),
        };
        assert_eq!(v, expected, "{p}");
    }
}

#[test]
fn one_extra_move_is_lost_in_four() {
    // RULES.md example 3.
    let pos = parse_fen("7,2S,1/8,2S 79 79 S 1").unwrap();
    assert_eq!(brute().value(&pos), Some(Value::Loss(4)));
    assert_eq!(levels().value(&pos), Some(Value::Loss(4)));
    assert!(brute().ids.contains_key(&Key::of(&pos)));
}
