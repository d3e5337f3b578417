//! Proof search checked against the tables: the generator solves every
//! position with up to 6 stones, only the tables for 1..=4 stones are
//! written, and positions with 5 and 6 stones are searched. Every proven
//! result must equal the solver's value, the proving move must achieve it,
//! and every unproven interval must contain the truth.

use std::sync::OnceLock;

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::time::Duration;

use togyz_gen::below::DtmLevels;
use togyz_gen::files::write::write_table;
use togyz_gen::solve::dtm::solve_all;
use togyz_tb::raw::index::Layout;
use togyz_tb::search::{kazan_bounds, Source};
use togyz_tb::search::{Budget, SearchResult, Solver};
use togyz_tb::terminal_value;
use togyz_tb::Metric;
use togyz_tb::{Position, Tablebase, Wdl};

/// Stones the written tables hold.
const TABLES: u32 = 4;
/// Stones the solver solves (the truth for the searched positions).
const TRUTH: u32 = 6;

fn setup() -> &'static (DtmLevels, tempfile::TempDir) {
    static S: OnceLock<(DtmLevels, tempfile::TempDir)> = OnceLock::new();
    S.get_or_init(|| {
        let levels = solve_all(TRUTH).expect("levels solve");
        let dir = tempfile::tempdir().unwrap();
        for n in 1..=TABLES {
            write_table(dir.path(), Metric::Dtm, n, &levels.table(n)).unwrap();
        }
        (levels, dir)
    })
}

/// Live positions with `n` stones, half of them with North to move.
fn sample(n: u32, count: usize, seed: u64) -> Vec<Position> {
    let layout = Layout::new(n);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let p = layout
            .slot(rng.random_range(0..layout.positions()))
            .position();
        let p = if rng.random_range(0..2) == 0 {
            p
        } else {
            p.mirrored()
        };
        if terminal_value(&p).is_none() {
            out.push(p);
        }
    }
    out
}

fn truth(levels: &DtmLevels, pos: &Position) -> Wdl {
    levels.value(pos).expect("within the solved levels").wdl()
}

/// Checks one result against the truth; returns the proven value.
fn check(levels: &DtmLevels, pos: &Position, r: &SearchResult) -> Option<Wdl> {
    let t = truth(levels, pos);
    assert!(
        r.lower <= t && t <= r.upper,
        "{pos}: truth {t} outside [{}, {}]",
        r.lower,
        r.upper
    );
    let v = r.proven()?;
    assert_eq!(v, t, "{pos}: proven {v}, the tables say {t}");
    let mv = r
        .best_move
        .unwrap_or_else(|| panic!("{pos}: no move in {r:?}"));
    let after = pos.after(mv).expect("the proving move is legal");
    let achieved = match terminal_value(&after) {
        Some(x) => x.wdl().flip(),
        None => truth(levels, &after).flip(),
    };
    assert_eq!(
        achieved,
        v,
        "{pos}: move {} gives {achieved}",
        mv.hole() + 1
    );
    Some(v)
}

/// Runs `budget` over samples of 5 and 6 stones; returns how many of each
/// value were proven and how many were left open.
fn run(budget: Budget, per_level: usize, seed: u64) -> ([usize; 3], usize) {
    let (levels, dir) = setup();
    let tb = Tablebase::open([dir.path()]).unwrap();
    assert_eq!(tb.complete_up_to(), TABLES);
    let mut solver = Solver::new(&tb, budget);
    let mut proven = [0usize; 3];
    let mut open = 0;
    for n in TABLES + 1..=TRUTH {
        for pos in sample(n, per_level, seed + n as u64) {
            let r = solver.solve(&pos).unwrap();
            assert_eq!(r.table_stones, TABLES);
            match check(levels, &pos, &r) {
                Some(v) => proven[v as usize] += 1,
                None => open += 1,
            }
        }
    }
    (proven, open)
}

#[test]
fn both_provers_agree_with_the_tables_draws_included() {
    let budget = Budget {
        time: Some(Duration::from_secs(20)),
        nodes: Some(200_000),
        tt_entries: 1 << 16,
        graph_positions: 1 << 18,
        dfs: true,
        dfpn: true,
        dfpn_threads: 2,
    };
    let (proven, open) = run(budget, 150, 1);
    // Above 4-stone tables, 5 and 6 stones are small graphs: the retrograde
    // solve closes, so everything is proven, draws included.
    assert_eq!(open, 0, "proven {proven:?}");
    assert!(proven.iter().all(|&c| c > 10), "proven {proven:?}");
}

#[test]
fn depth_first_alone_is_sound_and_proves_all_three_values() {
    let budget = Budget {
        time: None,
        nodes: Some(20_000),
        tt_entries: 1 << 14,
        graph_positions: 0,
        dfs: true,
        dfpn: false,
        dfpn_threads: 1,
    };
    let (proven, open) = run(budget, 150, 2);
    assert!(proven[Wdl::Win as usize] > 20, "proven {proven:?}");
    assert!(proven[Wdl::Loss as usize] > 20, "proven {proven:?}");
    // A draw, where neither side's question meets the horizon on any line.
    assert!(
        proven[Wdl::Draw as usize] > 0,
        "proven {proven:?}, open {open}"
    );
}

#[test]
fn proof_numbers_alone_are_sound_and_prove_all_three_values() {
    let budget = Budget {
        time: None,
        nodes: Some(50_000),
        tt_entries: 1 << 14,
        graph_positions: 0,
        dfs: false,
        dfpn: true,
        dfpn_threads: 1,
    };
    let (proven, open) = run(budget, 150, 6);
    // Draws too: both "does the mover win?" and "does the opponent win?"
    // refuted without a cycle.
    assert!(
        proven.iter().all(|&c| c > 5),
        "proven {proven:?}, open {open}"
    );
}

#[test]
fn two_threads_under_a_time_limit_stay_sound() {
    // No graph and no node limit: each df-pn thread has one question and
    // its own table, and ends by the clock or when the root closes.
    let budget = Budget {
        time: Some(Duration::from_millis(300)),
        nodes: None,
        tt_entries: 1 << 14,
        graph_positions: 0,
        dfs: false,
        dfpn: true,
        dfpn_threads: 2,
    };
    let (proven, open) = run(budget, 60, 8);
    assert!(
        proven.iter().all(|&c| c > 3),
        "proven {proven:?}, open {open}"
    );
}

#[test]
fn proof_numbers_with_a_tiny_table_over_many_slices_stay_sound() {
    // Far more nodes than the first slice, in a table that keeps almost
    // nothing: the two questions take turns many times, and entries are
    // replaced all the time.
    let budget = Budget {
        time: None,
        nodes: Some(1_000_000),
        tt_entries: 1 << 8,
        graph_positions: 0,
        dfs: false,
        dfpn: true,
        dfpn_threads: 1,
    };
    let (proven, open) = run(budget, 40, 7);
    assert!(
        proven.iter().sum::<usize>() > 20,
        "proven {proven:?}, open {open}"
    );
}

#[test]
fn graph_alone_with_a_small_limit_gives_sound_bounds() {
    // No depth-first prover: every bound comes from the (mostly unclosed)
    // retrograde solve.
    let budget = Budget {
        time: None,
        nodes: Some(1),
        tt_entries: 16,
        graph_positions: 300,
        dfs: false,
        dfpn: false,
        dfpn_threads: 1,
    };
    let (proven, open) = run(budget, 150, 3);
    assert!(
        open > 0 && proven.iter().sum::<usize>() > 0,
        "{proven:?} {open}"
    );
}

#[test]
fn table_covered_and_finished_positions_need_no_search() {
    let (levels, dir) = setup();
    let tb = Tablebase::open([dir.path()]).unwrap();
    for pos in sample(TABLES, 50, 4) {
        let r = tb.solve(&pos, Budget::nodes(10)).unwrap();
        assert_eq!(r.source, Source::Tables);
        assert_eq!(r.nodes, 0);
        check(levels, &pos, &r);
    }
    let over: Position = "7,2S,1/9 82 78 N 1".parse().unwrap();
    let r = tb.solve(&over, Budget::nodes(10)).unwrap();
    assert_eq!(
        (r.source, r.proven(), r.best_move),
        (Source::Rules, Some(Wdl::Loss), None)
    );
}

#[test]
fn kazan_bounds_hold_the_truth() {
    let (levels, _) = setup();
    let mut narrowed = 0;
    for n in 1..=TRUTH {
        for pos in sample(n, 400, 5 + n as u64) {
            let (lo, hi) = kazan_bounds(&pos);
            let t = truth(levels, &pos);
            assert!(lo <= t && t <= hi, "{pos}: {t} outside [{lo}, {hi}]");
            narrowed += usize::from((lo, hi) != (Wdl::Loss, Wdl::Win));
        }
    }
    assert!(narrowed > 100);
}

#[test]
fn limits_from_other_languages() {
    use togyz_tb::search::LimitError;
    let b = Budget::limits(1.5, 0).unwrap();
    assert_eq!((b.time, b.nodes), (Some(Duration::from_millis(1500)), None));
    assert_eq!(b.tt_entries, Budget::default().tt_entries);
    let b = Budget::limits(0.0, 7).unwrap();
    assert_eq!((b.time, b.nodes), (None, Some(7)));
    assert_eq!(Budget::limits(0.0, 0), Err(LimitError::Unlimited));
    for bad in [-1.0, f64::INFINITY, 1e10] {
        assert_eq!(Budget::limits(bad, 5), Err(LimitError::Seconds(bad)));
    }
    assert!(matches!(
        Budget::limits(f64::NAN, 5),
        Err(LimitError::Seconds(_))
    ));
}

#[test]
fn a_memory_bound_sizes_the_tables_to_fit() {
    use togyz_tb::search::{LimitError, MIN_SEARCH_MEMORY};
    // Two df-pn tables of 2^22 entries of 32 bytes with a split record of
    // 24 bytes for every 4, the depth-first table of 2^20 entries of 28
    // bytes, 2^18 graph positions of 150.
    assert_eq!(
        Budget::default().memory(),
        2 * (38 << 22) + (28 << 20) + (150 << 18)
    );
    let dfpn_alone = Budget {
        dfs: false,
        dfpn_threads: 1,
        ..Budget::default()
    };
    for base in [Budget::default(), dfpn_alone] {
        for bytes in [MIN_SEARCH_MEMORY, 3_000_000, 64 << 20, 500_000_000, 4 << 30] {
            let b = base.with_memory(bytes).unwrap();
            assert!(b.memory() <= bytes, "{bytes}: {}", b.memory());
            // Powers of two: the tables get at least half of what is left.
            assert!(b.memory() * 2 > bytes, "{bytes}: {}", b.memory());
            assert!(b.graph_positions <= Budget::default().graph_positions);
            assert_eq!((b.time, b.dfpn_threads), (base.time, base.dfpn_threads));
        }
    }
    assert_eq!(
        Budget::default().with_memory(MIN_SEARCH_MEMORY - 1),
        Err(LimitError::Memory(MIN_SEARCH_MEMORY - 1))
    );
    let no_graph = Budget {
        graph_positions: 0,
        ..Budget::default()
    };
    assert_eq!(no_graph.with_memory(1 << 30).unwrap().graph_positions, 0);

    // The smallest bound still searches soundly, and a solver takes a new
    // bound between searches.
    let (levels, dir) = setup();
    let tb = Tablebase::open([dir.path()]).unwrap();
    let small = Budget::nodes(50_000)
        .with_memory(MIN_SEARCH_MEMORY)
        .unwrap();
    let mut solver = Solver::new(&tb, Budget::nodes(50_000));
    let mut proven = 0;
    for (i, pos) in sample(TRUTH, 40, 21).iter().enumerate() {
        if i == 20 {
            solver.set_budget(small);
            assert_eq!(solver.budget(), small);
        }
        proven += usize::from(check(levels, pos, &solver.solve(pos).unwrap()).is_some());
    }
    assert!(proven >= 30, "{proven}");
}

#[test]
fn a_solver_keeps_what_df_pn_found_for_the_next_search() {
    let (levels, dir) = setup();
    let tb = Tablebase::open([dir.path()]).unwrap();
    let budget = Budget {
        time: None,
        nodes: Some(100_000),
        tt_entries: 1 << 16,
        graph_positions: 0,
        dfs: false,
        dfpn: true,
        dfpn_threads: 1,
    };
    let mut solver = Solver::new(&tb, budget);
    let mut searched = 0;
    for pos in sample(TRUTH, 60, 11) {
        let first = solver.solve(&pos).unwrap();
        if first.source != Source::Search || first.nodes < 100 {
            continue;
        }
        searched += 1;
        let again = solver.solve(&pos).unwrap();
        assert_eq!(check(levels, &pos, &again), check(levels, &pos, &first));
        // The root's children are settled in the table now.
        assert!(
            again.nodes * 4 <= first.nodes,
            "{pos}: {} then {}",
            first.nodes,
            again.nodes
        );
        // A fresh solver starts over.
        let fresh = Solver::new(&tb, budget).solve(&pos).unwrap();
        assert!(fresh.nodes > again.nodes, "{pos}");
    }
    assert!(searched >= 5, "{searched}");
}

#[test]
fn a_memory_bound_is_a_ceiling_not_a_cost() {
    // The same node-limited searches under a small and a large bound: the
    // same answers, and the large bound takes no more memory, since the
    // tables grow with what they hold rather than with the bound.
    let (levels, dir) = setup();
    let tb = Tablebase::open([dir.path()]).unwrap();
    // One df-pn thread and no other prover: two would stop each other at
    // times of their own.
    let base = Budget {
        graph_positions: 0,
        dfs: false,
        dfpn_threads: 1,
        ..Budget::nodes(20_000)
    };
    let small = base.with_memory(16 << 20).unwrap();
    let large = base.with_memory(4 << 30).unwrap();
    assert!(large.tt_entries >= 1 << 24);
    let mut searched = 0;
    for pos in sample(TRUTH, 40, 31) {
        let (mut a, mut b) = (Solver::new(&tb, small), Solver::new(&tb, large));
        let (ra, rb) = (a.solve(&pos).unwrap(), b.solve(&pos).unwrap());
        check(levels, &pos, &rb);
        assert_eq!(
            (ra.lower, ra.upper, ra.best_move, ra.nodes),
            (rb.lower, rb.upper, rb.best_move, rb.nodes),
            "{pos}"
        );
        if ra.source != Source::Search {
            continue;
        }
        searched += 1;
        assert_eq!(a.table_bytes(), b.table_bytes(), "{pos}");
        // 20,000 nodes a question, in one table, store at most 40,000
        // entries of 32 bytes and as many split records of 24, each in a
        // table at most four times larger.
        assert!(
            b.table_bytes() <= 4 * 40_000 * (32 + 24),
            "{pos}: {}",
            b.table_bytes()
        );
    }
    assert!(searched >= 10, "{searched}");
}

#[test]
fn a_memory_bound_above_the_machine_is_refused() {
    use togyz_tb::search::{machine_memory, LimitError};
    let Some(machine) = machine_memory() else {
        return;
    };
    assert_eq!(
        Budget::default().with_memory(u64::MAX),
        Err(LimitError::MemoryAboveMachine {
            bytes: u64::MAX,
            machine
        })
    );
    assert!(Budget::default().with_memory(machine).is_ok());
}

/// `pos` with `k` stones in South's kazan and the rest of what is off the
/// board in North's.
fn with_south_kazan(pos: &Position, k: u32) -> Position {
    let fen = pos.fen();
    let f: Vec<&str> = fen.split(' ').collect();
    let off = 162 - pos.stones_on_board();
    let text = format!("{} {k} {} {} {}", f[0], off - k, f[3], f[4]);
    togyz_tb::notation::parse_fen(&text).unwrap()
}

#[test]
fn proofs_carry_across_kazan_splits_and_stay_true() {
    // Every live kazan split of each board, searched by one solver in a
    // shuffled order: a proof at one split settles those with more for the
    // winner, a refutation those with less, and every answer must still be
    // the solver's.
    let (levels, dir) = setup();
    let tb = Tablebase::open([dir.path()]).unwrap();
    // df-pn alone: a root settled by its split table takes no node of it.
    let budget = Budget {
        dfpn_threads: 1,
        graph_positions: 0,
        dfs: false,
        ..Budget::nodes(200_000)
    };
    let mut rng = SmallRng::seed_from_u64(17);
    let (mut carried, mut proven) = (0, 0);
    for board in sample(TRUTH, 40, 23) {
        let mut solver = Solver::new(&tb, budget);
        let n = board.stones_on_board();
        let mut splits: Vec<u32> = (81 - n..=81).collect();
        for i in (1..splits.len()).rev() {
            splits.swap(i, rng.random_range(0..=i as u64) as usize);
        }
        for k in splits {
            let pos = with_south_kazan(&board, k);
            if terminal_value(&pos).is_some() {
                continue;
            }
            let r = solver.solve(&pos).unwrap();
            if check(levels, &pos, &r).is_some() {
                proven += 1;
                // Settled at the root by what an earlier split proved.
                carried += usize::from(r.nodes == 0 && r.source == Source::Search);
            }
        }
    }
    assert!(proven >= 200, "{proven}");
    assert!(carried >= 20, "{carried} of {proven}");
}
