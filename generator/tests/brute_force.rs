//! The proof of correctness of issue 3: an independent brute-force solver
//! (`common`, forward value iteration sharing nothing with the retrograde
//! code but the rules) agrees with `togyz_gen::solve::dtm::solve_all` on every
//! position with up to 4 stones, and its census agrees with `togyz-gen
//! stats` on tables written from the solver.

mod common;

use common::{formula, Brute, Key};
use std::sync::OnceLock;
use togyz_gen::below::DtmLevels;
use togyz_gen::solve::dtm::solve_all;
use togyz_tb::notation::parse_fen;
use togyz_tb::Side;
use togyz_tb::Value;

const MAX: u8 = 4;

fn brute() -> &'static Brute {
    static B: OnceLock<Brute> = OnceLock::new();
    B.get_or_init(|| Brute::solve(MAX))
}

fn levels() -> &'static DtmLevels {
    static L: OnceLock<DtmLevels> = OnceLock::new();
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
                let r = c.play(mv).unwrap();
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
    // docs/rules.md example 3.
    let pos = parse_fen("7,2S,1/8,2S 79 79 S 1").unwrap();
    assert_eq!(brute().value(&pos), Some(Value::Loss(4)));
    assert_eq!(levels().value(&pos), Some(Value::Loss(4)));
    assert!(brute().ids.contains_key(&Key::of(&pos)));
}

/// The brute force's census of one class (or a whole stone count).
#[derive(Default, Debug, PartialEq, Eq)]
struct BruteCensus {
    positions: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    longest_win: u32,
    win_distances: Vec<u64>,
    mutual_zugzwangs: u64,
    boards_by_draws: Vec<u64>,
}

impl BruteCensus {
    fn add(&mut self, v: Value) {
        self.positions += 1;
        match v {
            Value::Win(d) => {
                self.wins += 1;
                self.longest_win = self.longest_win.max(d);
                if self.win_distances.len() <= d as usize {
                    self.win_distances.resize(d as usize + 1, 0);
                }
                self.win_distances[d as usize] += 1;
            }
            Value::Draw => self.draws += 1,
            Value::Loss(_) => self.losses += 1,
        }
    }
}

/// Census by stone count: `[none, mover only, opponent only, both, all]`,
/// the classes read off South's (the mover's) and North's tuzdyks.
fn brute_census(b: &Brute) -> Vec<[BruteCensus; 5]> {
    let mut out: Vec<[BruteCensus; 5]> = (0..=MAX).map(|_| Default::default()).collect();
    // Drawn kazan splits of each board (stones and tuzdyks, South to move).
    let mut boards: std::collections::HashMap<_, (usize, usize, usize)> = Default::default();
    let class = |p: &togyz_tb::Position| match (p.tuzdyk(Side::South), p.tuzdyk(Side::North)) {
        (None, None) => 0,
        (Some(_), None) => 1,
        (None, Some(_)) => 2,
        (Some(_), Some(_)) => 3,
    };
    for (id, (p, &v)) in b.positions.iter().zip(&b.values).enumerate() {
        let n = p.stones_on_board() as usize;
        let c = class(p);
        out[n][c].add(v);
        out[n][4].add(v);
        let board = boards
            .entry((*p.holes(), p.tuzdyk_indices()))
            .or_insert((n, c, 0));
        board.2 += (v == Value::Draw) as usize;
        // A mutual zugzwang: lost with South to move and with North to move
        // in the same physical position; each pair {view, twin view} once.
        let twin = p.with_side_to_move(Side::North);
        let twin_id = b.ids[&Key::canonical(&twin)];
        if matches!(v, Value::Loss(_))
            && matches!(b.values[twin_id as usize], Value::Loss(_))
            && id as u32 <= twin_id
        {
            let tc = class(&b.positions[twin_id as usize]);
            out[n][c].mutual_zugzwangs += 1;
            if tc != c {
                out[n][tc].mutual_zugzwangs += 1;
            }
            out[n][4].mutual_zugzwangs += 1;
        }
    }
    for (n, c, draws) in boards.into_values() {
        for census in [c, 4] {
            let h = &mut out[n][census].boards_by_draws;
            if h.len() <= draws {
                h.resize(draws + 1, 0);
            }
            h[draws] += 1;
        }
    }
    out
}

#[test]
fn stats_census_agrees_with_brute_force() {
    use togyz_gen::stats;
    use togyz_tb::raw::index::Layout;

    let dir = tempfile::tempdir().unwrap();
    for n in 1..=MAX as u32 {
        togyz_gen::files::write::write_table(
            dir.path(),
            togyz_tb::Metric::Dtm,
            n,
            &levels().table(n),
        )
        .unwrap();
    }
    let examples = 4;
    let got = stats::collect(dir.path(), examples, &togyz_gen::event::silent).unwrap();
    let b = brute();
    let want = brute_census(b);
    assert_eq!(got.len(), MAX as usize);
    let mut zugzwangs = 0;
    for s in &got {
        let n = s.stones as usize;
        let layout = Layout::new(s.stones);
        for (c, census) in s.by_class.iter().chain([&s.all]).enumerate() {
            let w = &want[n][c];
            let mine = BruteCensus {
                positions: census.positions,
                wins: census.wins,
                draws: census.draws,
                losses: census.losses,
                longest_win: census.longest_win,
                win_distances: census.win_distances.clone(),
                mutual_zugzwangs: census.mutual_zugzwangs,
                boards_by_draws: census.boards_by_draws.clone(),
            };
            assert_eq!(&mine, w, "n = {n}, class {c}");
            // The example of the longest win is one, by the brute force.
            if let Some(i) = census.longest_win_index {
                let pos = layout.slot(i).position();
                assert_eq!(b.value(&pos), Some(Value::Win(census.longest_win)), "{pos}");
            }
            for limit in [0, 5, 20] {
                let over: u64 = w.win_distances.iter().skip(limit as usize + 1).sum();
                assert_eq!(census.over_limit(limit), over);
            }
        }
        assert_eq!(s.all.positions, formula(n as u64));
        // Examples are real mutual zugzwangs with the stated distances.
        assert!(s.zugzwang_examples.len() <= examples);
        assert_eq!(s.zugzwang_examples.is_empty(), s.all.mutual_zugzwangs == 0);
        // On distinct boards, the longest fights first.
        let boards: std::collections::HashSet<u64> =
            s.zugzwang_examples.iter().map(|z| z.board).collect();
        assert_eq!(boards.len(), s.zugzwang_examples.len());
        let fights: Vec<u32> = s
            .zugzwang_examples
            .iter()
            .map(|z| z.distance + z.twin_distance)
            .collect();
        assert!(fights.windows(2).all(|w| w[0] >= w[1]), "{fights:?}");
        for z in &s.zugzwang_examples {
            let pos = layout.slot(z.index).position();
            assert_eq!(b.value(&pos), Some(Value::Loss(z.distance)), "{pos}");
            let twin = pos.with_side_to_move(Side::North);
            assert_eq!(b.value(&twin), Some(Value::Loss(z.twin_distance)), "{twin}");
        }
        zugzwangs += s.all.mutual_zugzwangs;
    }
    assert!(zugzwangs > 0, "mutual zugzwangs exist with up to 4 stones");

    // The report reads lines of best play through the library: each as
    // long as its distance.
    let report = stats::report(
        dir.path(),
        &[10, 5, 10],
        examples,
        &togyz_gen::event::silent,
    )
    .unwrap();
    assert_eq!(report.limits, [5, 10]);
    for l in &report.per_stones {
        let w = l.all.longest_win.as_ref().expect("every count has wins");
        assert_eq!(w.pv.len() as u32, w.dtm);
        assert_eq!(
            b.value(&parse_fen(&w.fen).unwrap()),
            Some(Value::Win(w.dtm))
        );
        for z in &l.mutual_zugzwang_examples {
            assert_eq!(z.south_to_move.pv.len() as u32, z.south_to_move.dtm);
            assert_eq!(z.north_to_move.pv.len() as u32, z.north_to_move.dtm);
        }
    }
    let json = serde_json::to_value(&report).unwrap();
    let first = &json["per_stones"][0];
    for key in [
        "stones",
        "positions",
        "wins",
        "draws",
        "losses",
        "longest_win",
        "mutual_zugzwangs",
        "over_limit",
        "by_tuzdyk_class",
    ] {
        assert!(first.get(key).is_some(), "JSON lacks {key}");
    }
    assert!(first["longest_win"].get("dtm").is_some() && first["longest_win"].get("pv").is_some());
    assert!(first["by_tuzdyk_class"].get("opponent_only").is_some());

    // The command: JSON on stdout equal to the library's report, and a chart.
    let svg = dir.path().join("distances.svg");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_togyz-gen"))
        .args([
            "stats",
            "--quiet",
            "--json",
            "--limits",
            "5,10",
            "--examples",
            "4",
            "--tables",
        ])
        .arg(dir.path())
        .arg("--chart")
        .arg(&svg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed, json);
    let chart = std::fs::read_to_string(&svg).unwrap();
    assert!(
        chart.starts_with("<svg") && chart.contains("4 stones"),
        "{chart:.200}"
    );
    let md = stats::markdown(&report, Some(&svg));
    assert!(md.contains("](distances.svg)") && md.contains("## 4 stones"));
}
