//! What a `generate` run will take, stated before any work: positions,
//! disk, peak memory and time, checked against what the machine has.
//!
//! The model (docs/performance.md has the measurements behind each
//! constant): while level `n` is solved, the small levels below it are held
//! whole, one byte a position ([`crate::below::dtm`]), and each worker thread
//! holds one unit in flight (a state word per position, its quiet
//! predecessor lists and frontier, its solved values, and what it decoded
//! of the larger levels below for its exits); the level itself goes to disk
//! unit by unit. When a level that is held whole is assembled into its
//! table file, it is read into memory as the file is written.
//!
//! A DTC solve ([`crate::solve::dtc`]) holds the draw splits of every level below
//! (one byte a board) and, per unit in flight, a one-byte state and value
//! a position. `verify` checks one unit at a time (in parallel within
//! it): the unit decoded from its file, beside what its exits read of the
//! levels below ([`crate::below::dtm`] for DTM, [`crate::below::dtc`] for DTC).
//! `togyz-gen plan` prints both plans without running anything.

mod machine;
mod model;
mod text;

pub use machine::{
    disk_available, disk_free, memory_available, memory_limit, nearest_existing, resident_bytes,
    units_budget,
};
pub use model::{
    default_hold_whole, forward_memory, graph_bytes_per_board, level_memory, pick_cut, plan,
    seed_groups, seeds_apart, solved_forward, splits_memory, splits_only, table_bytes, unit_memory,
    units_seconds, verify_groups, verify_level_memory, verify_plan, verify_unit_memory, Entries,
    Fitted, Plan, UnitBudget, BASE_BYTES, CUT_TIME, NO_GRAPH_TIME, SEED_FILE_BYTES_PER_POSITION,
    UNIT_BYTES_PER_BOARD, UNIT_FILE_BYTES_PER_POSITION,
};
pub use text::{disk_free_text, held_line, plan_lines, PlanError, PlanOptions};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::below;
    use crate::solve::unit::{exit_configs, held_units, level_units, KazanCut, Reach, UnitId};
    use std::sync::Arc;
    use togyz_answer::text::{human_bytes, human_seconds};
    use togyz_tb::raw::format::TuzdykPairs;
    use togyz_tb::raw::index::Layout;
    use togyz_tb::{Contents, Metric};

    const W: u64 = below::WHOLE_POSITIONS;

    /// What `generate` holds whole by default when it fits: DTM's
    /// [`W`] positions, DTC's every level.
    fn solve_hold(metric: Metric) -> u64 {
        match metric {
            Metric::Dtm => W,
            Metric::Dtc => u64::MAX,
        }
    }

    /// The DTM plan of `todo` from nothing.
    fn dtm(todo: &[u32], max: u32, threads: usize, shards: u32) -> Plan {
        plan(
            Metric::Dtm,
            todo,
            None,
            max,
            threads,
            shards,
            W,
            None,
            |_| 0,
        )
    }

    /// WDL levels plan neither the unit without a tuzdyk nor distances:
    /// fewer positions by exactly that unit's, a smaller disk, and no more
    /// memory.
    #[test]
    fn wdl_levels_plan_their_units_and_their_bytes() {
        let all: Vec<u32> = (1..=12).collect();
        let bound = Some(16_000_000_000);
        let of = |wdl_from| {
            plan(
                Metric::Dtc,
                &all,
                wdl_from,
                12,
                2,
                1,
                u64::MAX,
                bound,
                |_| 0,
            )
        };
        let wdl_from = |n| Some((n, Contents::Wdl));
        let (full, wdl) = (of(None), of(wdl_from(11)));
        let none = UnitId::of(0);
        assert_eq!(
            full.positions - wdl.positions,
            none.positions(11) + none.positions(12)
        );
        assert!(wdl.disk < full.disk, "{} {}", wdl.disk, full.disk);
        assert!(wdl.memory <= full.memory);
        assert!(wdl.seconds < full.seconds);
        // From past the top: the same plan.
        assert_eq!(of(wdl_from(13)).positions, full.positions);
        // One tuzdyk pair: its two configurations' positions, a 28th of
        // the disk of the positions with two tuzdyks.
        let one_pair = Contents::Pairs("3-6".parse().unwrap());
        let pair = of(Some((11, one_pair)));
        let unit = held_units(11, one_pair)[0];
        let others = |n| -> u64 {
            let all: u64 = level_units(n).iter().map(|u| u.positions(n)).sum();
            all - unit.positions(n)
        };
        assert_eq!(full.positions - pair.positions, others(11) + others(12));
        assert!(pair.disk < wdl.disk, "{} {}", pair.disk, wdl.disk);
        let bytes = |c| model::table_bytes(Metric::Dtc, 12, c);
        let (one, all) = (bytes(one_pair), bytes(Contents::Wdl));
        assert!(one * 20 < all && one > all / 100, "{one} {all}");
    }

    /// A WDL level's units are solved on draw splits alone: never cut,
    /// a byte a board and their exits; so one tuzdyk pair's tables from
    /// one stone to 17 plan under 3 GB and uncut, timed by boards, where
    /// the same positions with distances are cut into kazan parts.
    #[test]
    fn wdl_levels_are_solved_on_draw_splits_alone() {
        let pair = Contents::Pairs("1-6".parse().unwrap());
        let todo: Vec<u32> = (1..=17).collect();
        let bound = Some(16_000_000_000);
        let tower = plan(
            Metric::Dtc,
            &todo,
            Some((1, pair)),
            17,
            2,
            1,
            0,
            bound,
            |_| 0,
        );
        assert!(tower.memory < 3_000_000_000, "{}", tower.memory);
        assert_eq!(tower.parts, (1, 0));
        let boards: u64 = todo.iter().map(|&n| held_units(n, pair)[0].boards(n)).sum();
        // A pair is one unit a level: one thread, then the assembly.
        let seconds =
            boards as f64 / model::SPLITS_BOARD_RATE + boards as f64 / model::SPLITS_ASSEMBLY_RATE;
        assert!((tower.seconds - seconds).abs() < 1.0, "{}", tower.seconds);
        // Every pair: 28 units a level, in 14 rounds on 2 threads, 10
        // on 3, half as many again on 2 shards; a resumed level counts what is left.
        let all = Contents::Pairs(TuzdykPairs::ALL);
        let units = held_units(15, all);
        assert_eq!(units.len(), 28);
        let whole: u64 = units.iter().map(|u| u.positions(15)).sum();
        let assembly = (whole / 16) as f64 / model::SPLITS_ASSEMBLY_RATE;
        let round = units[0].boards(15) as f64 / model::SPLITS_BOARD_RATE;
        let level = |left, threads, shards| {
            model::splits_level_seconds(15, &units, left, threads, shards) - assembly
        };
        assert!((level(whole, 2, 1) - 14.0 * round).abs() < 1e-6);
        assert!((level(whole, 3, 1) - 10.0 * round).abs() < 1e-6);
        assert!((level(whole, 2, 2) - 7.0 * round).abs() < 1e-6);
        assert!((level(whole / 28 * 3, 2, 1) - 2.0 * round).abs() < 1e-6);
        assert_eq!(model::splits_level_seconds(15, &units, 0, 2, 1), 0.0);
        let u = held_units(17, pair)[0];
        assert!(splits_only(pair, u) && !splits_only(Contents::Full, u));
        assert!(!splits_only(Contents::Wdl, UnitId::of(0)));
        assert_eq!(
            splits_memory(17, u, u64::MAX),
            u.boards(17),
            "the levels below held whole: nothing to decode"
        );
        let with_distances = unit_memory(Metric::Dtc, 17, u, 0, KazanCut::WHOLE);
        assert!(with_distances > 10 * splits_memory(17, u, 0));
        assert!(
            pick_cut(Metric::Dtc, 17, u, 0, 16_000_000_000, 2)
                .parts(17)
                .len()
                > 1
        );
    }

    /// A level's time is its units', scheduled as `generate` runs them
    /// (as many side by side as fit the memory), and its assembly; the
    /// DTC plans stay on the safe side of the runs measured
    /// (docs/performance.md, "What `togyz-gen plan` is fitted to")
    /// without passing twice the quiet ones.
    #[test]
    fn a_level_takes_its_units_side_by_side_as_they_fit_and_its_assembly() {
        // Three units of 10 s and 6 bytes: one at a time in 10 bytes, two
        // side by side in 12, and a small one beside a big one.
        let three = [(10.0, 6), (10.0, 6), (10.0, 6)];
        assert_eq!(model::schedule(&three, 2, Some(10)), 30.0);
        assert_eq!(model::schedule(&three, 2, Some(12)), 20.0);
        assert_eq!(model::schedule(&three, 1, None), 30.0);
        assert_eq!(model::schedule(&three, 3, None), 10.0);
        assert_eq!(
            model::schedule(&[(10.0, 8), (5.0, 2), (5.0, 2)], 2, Some(10)),
            10.0
        );
        assert_eq!(model::schedule(&[], 2, None), 0.0);
        let dtc = |todo: &[u32], max, bound| {
            plan(Metric::Dtc, todo, None, max, 2, 1, u64::MAX, bound, |_| 0)
        };
        let all = |max: u32| (1..=max).collect::<Vec<_>>();
        let sixteen = Some(16_000_000_000);
        let f = Fitted::of(Metric::Dtc);
        // One level without a bound: its units on both threads, biggest
        // first, then its assembly.
        let n = 10;
        let positions = Layout::new(n).positions() as f64;
        let biggest = level_units(n).iter().map(|u| u.positions(n)).max().unwrap() as f64;
        let assembly = positions / (2.0 * f.assembly_rate);
        let units = units_seconds(Metric::Dtc, n, Contents::Full, 2, 1, u64::MAX, None);
        assert!(units >= positions / (2.0 * f.solve_rate), "{units}");
        assert!(
            units <= (positions / 2.0 + biggest) / f.solve_rate,
            "{units}"
        );
        let ten = dtc(&[n], n, None);
        assert!(
            (ten.seconds - units - assembly).abs() < 1e-6,
            "{}",
            ten.seconds
        );
        // A level already solved takes no time; one half solved, half its
        // units' time and all of its assembly.
        let solved = Layout::new(n).positions();
        let done = plan(Metric::Dtc, &[n], None, n, 2, 1, u64::MAX, None, |_| solved);
        assert_eq!(done.seconds, 0.0);
        let half = plan(Metric::Dtc, &[n], None, n, 2, 1, u64::MAX, None, |_| {
            solved / 2
        });
        assert!(
            (half.seconds - units / 2.0 - assembly).abs() < 1.0,
            "{}",
            half.seconds
        );
        // Two shards: each about half the units, all of the assembly.
        let shard = units_seconds(Metric::Dtc, n, Contents::Full, 2, 2, u64::MAX, None);
        assert!(
            shard < 0.6 * units && shard > 0.4 * units,
            "{shard} {units}"
        );
        // Levels 1 to 10 took 217 s on this machine's two quiet threads,
        // levels 11 and 12 on top of them 1,399 s.
        let t10 = dtc(&all(10), 10, None).seconds;
        assert!((217.0..434.0).contains(&t10), "{t10}");
        let t12 = dtc(&[11, 12], 12, None).seconds;
        assert!((1399.0..2798.0).contains(&t12), "{t12}");
        // Level 14 in 16 GB: every unit takes 9.3 to 9.9 GB of the 10 GB
        // left beside the levels below, so they run one at a time, the 9
        // biggest cut into parts: more than twice as long as on two
        // threads whole.
        let fourteen = dtc(&[14], 14, sixteen).seconds;
        let alone = units_seconds(Metric::Dtc, 14, Contents::Full, 2, 1, u64::MAX, sixteen);
        let free = units_seconds(Metric::Dtc, 14, Contents::Full, 2, 1, u64::MAX, None);
        assert!(alone > 2.0 * free, "{alone} {free}");
        let positions = Layout::new(14).positions() as f64;
        assert!((fourteen - alone - positions / (2.0 * f.assembly_rate)).abs() < 1e-6);
    }

    #[test]
    fn a_given_limit_below_what_is_available_is_the_limit() {
        assert_eq!(memory_limit(Some(1000)), Some(1000));
    }

    #[test]
    fn the_plan_grows_with_the_stones_and_the_memory_peaks_at_the_top() {
        let p8 = dtm(&(1..=8).collect::<Vec<_>>(), 8, 2, 1);
        let p10 = dtm(&(1..=10).collect::<Vec<_>>(), 10, 2, 1);
        assert_eq!(p8.positions, 512_753_762);
        assert_eq!(p10.positions, 4_644_298_157);
        assert_eq!(p10.memory_at, 10);
        assert!(p8.memory < p10.memory && p8.disk < p10.disk && p8.seconds < p10.seconds);
        // At most 25% above the measured peaks (docs/performance.md), never
        // below.
        assert!(
            (2.32e9..2.90e9).contains(&(p10.memory as f64)),
            "{}",
            p10.memory
        );
        let p12 = dtm(&[12], 12, 2, 1);
        assert!(
            (12.04e9..15.05e9).contains(&(p12.memory as f64)),
            "{}",
            p12.memory
        );
        // Shards split the positions, not the memory.
        let half = dtm(&[10], 10, 2, 2);
        assert_eq!(half.positions, Layout::new(10).positions() / 2);
        assert_eq!(half.memory, dtm(&[10], 10, 2, 1).memory);
        assert_eq!(human_bytes(2_500_000_000), "2.50 GB");
        // Units over the budget run one at a time.
        let budget = Arc::new(UnitBudget::new(10));
        let running = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let most = Arc::new(std::sync::atomic::AtomicU64::new(0));
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    budget.run(6, || {
                        let now = running.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                        most.fetch_max(now, std::sync::atomic::Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        running.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                    })
                });
            }
        });
        assert_eq!(most.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert_eq!(human_seconds(7200.0), "2.0 h");
    }

    #[test]
    fn units_are_cut_along_the_kazan_axis_to_fit_the_bound() {
        let all = |max: u32| (1..=max).collect::<Vec<_>>();
        for metric in [Metric::Dtm, Metric::Dtc] {
            let w = solve_hold(metric);
            let uncut = plan(metric, &all(14), None, 14, 2, 1, w, None, |_| 0);
            assert_eq!(uncut.parts, (1, 0));
            // A bound with room for whole units changes nothing.
            let roomy = plan(
                metric,
                &all(14),
                None,
                14,
                2,
                1,
                w,
                Some(u64::MAX / 4),
                |_| 0,
            );
            assert_eq!(roomy, uncut);
            let cut = plan(
                metric,
                &all(14),
                None,
                14,
                2,
                1,
                w,
                Some(16_000_000_000),
                |_| 0,
            );
            assert!(cut.memory < uncut.memory, "{metric:?}");
            assert!(
                cut.parts.0 > 1 && cut.parts.1 > 0,
                "{metric:?} {:?}",
                cut.parts
            );
            // Positions and time do not depend on the cut; the disk
            // also counts the part files of the cut units in flight.
            assert_eq!(cut.positions, uncut.positions);
            assert!(cut.disk > uncut.disk, "{metric:?}");
        }
        // The 14-stone DTC level's biggest unit: fewer pairs, less memory;
        // whole when the budget allows, one pair when nothing fits.
        let (u, w) = (UnitId::of(1), u64::MAX);
        let memory = |pairs| unit_memory(Metric::Dtc, 14, u, w, KazanCut::pairs(pairs).unwrap());
        assert!((1..8).all(|p| memory(p) < memory(p + 1)));
        assert_eq!(
            memory(8),
            unit_memory(Metric::Dtc, 14, u, w, KazanCut::WHOLE)
        );
        let pick = |budget| pick_cut(Metric::Dtc, 14, u, w, budget, 1);
        assert_eq!(pick(memory(8)), KazanCut::WHOLE);
        assert_eq!(pick(memory(3)), KazanCut::pairs(3).unwrap());
        assert_eq!(pick(memory(3) - 1), KazanCut::pairs(2).unwrap());
        // Then the graph goes: parts of one pair without it, the last
        // resort.
        let one = KazanCut::pairs(1).unwrap();
        let lean = |pairs| {
            let c = KazanCut::pairs(pairs).unwrap().without_graph();
            (c, unit_memory(Metric::Dtc, 14, u, W, c))
        };
        assert!(lean(1).1 < memory(1) && lean(3).1 < memory(1));
        let fewest = (1..=8).rev().find(|&p| lean(p).1 < memory(1)).unwrap();
        assert_eq!(pick(memory(1) - 1), lean(fewest).0);
        assert_eq!(pick(lean(1).1), lean(1).0);
        assert_eq!(pick(0), one.without_graph());
        // Two threads share the budget, else the unit runs alone.
        assert_eq!(
            pick_cut(Metric::Dtc, 14, u, w, 2 * memory(3), 2),
            KazanCut::pairs(3).unwrap()
        );
        assert_eq!(
            pick_cut(Metric::Dtc, 14, u, w, memory(3), 2),
            KazanCut::pairs(3).unwrap()
        );
    }

    /// Issue 37's bound: 14 stones in 16 GB, generating and verifying,
    /// in both metrics, with two threads.
    #[test]
    fn fourteen_stones_fit_sixteen_gigabytes_in_both_metrics() {
        let all: Vec<u32> = (1..=14).collect();
        let bound = 16_000_000_000;
        for metric in [Metric::Dtm, Metric::Dtc] {
            let g = plan(
                metric,
                &all,
                None,
                14,
                2,
                1,
                solve_hold(metric),
                Some(bound),
                |_| 0,
            );
            assert!(g.memory <= bound, "{metric:?} generate {}", g.memory);
            let v = verify_plan(metric, 14, None, 2, true, W, Some(bound));
            assert!(v.memory <= bound, "{metric:?} verify {}", v.memory);
            // Without a bound, verify checks every unit in one pass.
            let free = verify_plan(metric, 14, None, 2, true, W, None);
            assert!(
                free.memory > v.memory || metric == Metric::Dtc,
                "{metric:?}"
            );
        }
    }

    /// Issue 37's cluster bound: 16 stones in 32 GB a node, generating
    /// and verifying (one-byte cells), in both metrics, with 8 threads;
    /// the biggest units then go without their stored graphs.
    #[test]
    fn sixteen_stones_fit_thirty_two_gigabytes_a_node_in_both_metrics() {
        let all: Vec<u32> = (1..=16).collect();
        let bound = 32_000_000_000;
        for metric in [Metric::Dtm, Metric::Dtc] {
            let memory = |hold| plan(metric, &all, None, 16, 8, 1, hold, Some(bound), |_| 0).memory;
            let hold = default_hold_whole(metric, 16, None, Some(bound), memory);
            let g = plan(metric, &all, None, 16, 8, 1, hold, Some(bound), |_| 0);
            assert!(g.memory <= bound, "{metric:?} generate {}", g.memory);
            assert!(g.graph_from >= 14, "{metric:?} {}", g.graph_from);
            let v = verify_plan(metric, 16, None, 8, true, W, Some(bound));
            assert!(v.memory <= bound, "{metric:?} verify {}", v.memory);
        }
    }

    /// Every configuration a unit's exits reach of every level below is
    /// in exactly one pass, the empty board and the levels held whole in
    /// the first; a DTM unit cut into parts at 14 stones holds its exits
    /// and its graph apart; at 16 stones a level too big for a pass is
    /// read in passes by configuration.
    #[test]
    fn passes_cover_the_levels_below_once() {
        let u = UnitId::of(0);
        let covers = |groups: &[Reach], n: u32| {
            assert!(groups.iter().filter(|g| g.reads_level(0)).count() == 1);
            for m in 1..n {
                for c in exit_configs(u) {
                    let readers = groups.iter().filter(|g| g.reads(m, c)).count();
                    assert_eq!(readers, 1, "level {m} configuration {c}: {groups:x?}");
                }
            }
        };
        let cut = KazanCut::pairs(3).unwrap();
        let seeds = seed_groups(14, u, W, cut);
        covers(&seeds, 14);
        assert!(seeds.len() > 1, "{seeds:x?}");
        assert!(
            seeds[0].whole_levels() && (0..=8).all(|m| seeds[0].reads_level(m)),
            "levels 0 to 8 held whole: {seeds:x?}"
        );
        let whole = unit_memory(Metric::Dtm, 14, u, W, KazanCut::WHOLE);
        assert!(unit_memory(Metric::Dtm, 14, u, W, cut) < whole / 2);
        let lean = KazanCut::pairs(1).unwrap().without_graph();
        let big = seed_groups(16, u, W, lean);
        covers(&big, 16);
        assert!(big.iter().any(|g| !g.whole_levels()), "{big:x?}");
        assert!(unit_memory(Metric::Dtm, 16, u, W, lean) < 32_000_000_000);
        // verify: one pass without a bound or when it fits; else passes,
        // down to a configuration a pass (here every level is read from
        // files).
        assert_eq!(
            verify_groups(Metric::Dtm, 14, u, W, Entries::Cells(1), None),
            [Reach::ALL]
        );
        assert_eq!(
            verify_groups(Metric::Dtm, 14, u, W, Entries::Cells(1), Some(u64::MAX)),
            [Reach::ALL]
        );
        // The small tables of the verify tests are checked in passes.
        for metric in [Metric::Dtm, Metric::Dtc] {
            for n in [4, 5] {
                let tight = verify_groups(metric, n, u, 0, Entries::Cells(1), Some(0));
                covers(&tight, n);
                assert!(tight.len() >= 2, "{metric:?} {tight:x?}");
            }
        }
        let fits = verify_groups(
            Metric::Dtm,
            14,
            u,
            W,
            Entries::Cells(1),
            Some(16_000_000_000),
        );
        covers(&fits, 14);
        assert!(fits.len() > 1);
    }

    #[test]
    fn the_dtc_plans_use_the_dtc_model() {
        let all = |max: u32| (1..=max).collect::<Vec<_>>();
        let held = |max, hold| plan(Metric::Dtc, &all(max), None, max, 2, 1, hold, None, |_| 0);
        let dtc = |max| held(max, u64::MAX);
        // DTC solves faster than DTM and holds a byte a board below.
        assert!(dtc(12).seconds < dtm(&all(12), 12, 2, 1).seconds);
        assert!(dtc(12).memory < dtm(&all(12), 12, 2, 1).memory);
        // A DTC solve, as its verify, holds the levels below whole up to
        // --hold-whole and decodes a unit's share of the others: less
        // memory. A limit past the levels below is every level.
        assert!(held(12, 0).memory < dtc(12).memory);
        assert_eq!(held(12, below::whole_limit(Metric::Dtc, 11)), dtc(12));
        assert_ne!(
            verify_plan(Metric::Dtc, 13, None, 2, true, W, None),
            verify_plan(Metric::Dtc, 13, None, 2, true, 0, None)
        );
        // The measured verify of the DTC tables up to 10 stones peaked at
        // 384 MB (docs/performance.md): the model stays above it, within
        // twice.
        let v10 = verify_plan(Metric::Dtc, 10, None, 2, true, W, None);
        assert!(
            (384e6..768e6).contains(&(v10.memory as f64)),
            "{}",
            v10.memory
        );
        // Unit by unit: verifying 13 stones needs far less than the level
        // (two bytes a position decoded whole: 98 GB), also with the levels
        // below read per unit.
        let v13 = verify_plan(Metric::Dtc, 13, None, 2, true, W, None);
        assert!(
            v13.memory < Layout::new(13).positions() / 4,
            "{}",
            v13.memory
        );
        let read = verify_plan(Metric::Dtc, 13, None, 2, true, 0, None);
        assert!(
            read.memory < Layout::new(13).positions() / 4,
            "{}",
            read.memory
        );
        assert_eq!(v13.positions, 78_487_874_252);
        assert!(v13.seconds > 0.0 && v13.memory_at == 13);
        let args = PlanOptions {
            max_stones: 13,
            metric: Metric::Dtc,
            threads: Some(2),
            hold_whole: None,
            out: None,
            max_memory: Some(64_000_000_000),
            wdl_from: None,
            wdl_pairs: None,
            shards: 1,
        };
        let lines = plan_lines(&args).unwrap();
        // One of 4 shards: a quarter of the positions, less time.
        let sharded = PlanOptions {
            shards: 4,
            out: None,
            ..args
        };
        let quarter = plan_lines(&sharded).unwrap();
        assert!(
            quarter[0].starts_with("generate --metric dtc --max-stones 13: 19621968560 positions")
                && quarter[0].ends_with("(one of 4 shards: its units and every level's assembly)"),
            "{}",
            quarter[0]
        );
        assert!(
            lines[0].starts_with("generate --metric dtc --max-stones 13: 78487874252 positions")
        );
        assert!(
            lines[2].starts_with("levels below: every level below 13 stones held whole"),
            "{}",
            lines[2]
        );
        assert!(lines[3].starts_with("verify: a peak of about"));
        let bad = PlanOptions {
            max_stones: 0,
            ..args
        };
        assert!(matches!(plan_lines(&bad), Err(PlanError::Stones(0))));
    }

    /// Issue 37: the DTC solve holds every level below whole when that
    /// fits, else as many as fit; at 16 stones on 32 GB nodes levels 1 to
    /// 14, a cut unit holding its share of the others and its graph one
    /// after the other.
    #[test]
    fn the_dtc_solve_holds_as_many_levels_whole_as_fit() {
        let all = |max: u32| (1..=max).collect::<Vec<_>>();
        let peak =
            |max, bound, hold| plan(Metric::Dtc, &all(max), None, max, 1, 1, hold, bound, |_| 0);
        let pick = |max, bound: u64| {
            default_hold_whole(Metric::Dtc, max, None, Some(bound), |h| {
                peak(max, Some(bound), h).memory
            })
        };
        let every = |max: u32| below::whole_limit(Metric::Dtc, max - 1);
        // Room for every level below: all held, as before.
        assert_eq!(pick(14, 16_000_000_000), every(14));
        assert_eq!(
            default_hold_whole(Metric::Dtc, 14, None, None, |_| u64::MAX),
            every(14)
        );
        // Tables of tuzdyk pairs from 13 up: those levels never whole,
        // whatever the room (a unit reads its own pair's share); a WDL
        // table of every position with a tuzdyk may be.
        let pairs = Some((13, Contents::Pairs("1-6".parse().unwrap())));
        assert_eq!(
            default_hold_whole(Metric::Dtc, 16, pairs, None, |_| u64::MAX),
            every(13)
        );
        assert_eq!(
            default_hold_whole(Metric::Dtc, 16, Some((13, Contents::Wdl)), None, |_| 0),
            every(16)
        );
        // Not at 16 stones in 32 GB: levels 1 to 14 (12.9 GB), with the
        // biggest units' graphs not stored; every level below (26.9 GB)
        // would not fit, and none held whole takes the least there is.
        let bound = 32_000_000_000;
        assert_eq!(pick(16, bound), below::whole_limit(Metric::Dtc, 14));
        let before = peak(16, Some(bound), every(16)).memory;
        let after = peak(16, Some(bound), pick(16, bound)).memory;
        let least = peak(16, Some(bound), 0).memory;
        assert!(
            before > bound && after <= bound && least <= after,
            "{before} {after} {least}"
        );
        // 9 stones in 250 MB: levels 1 to 7 held whole; in 220 MB, 1 to 6,
        // and units cut, the biggest without their graphs.
        let mb250 = 250_000_000;
        assert_eq!(pick(9, mb250), below::whole_limit(Metric::Dtc, 7));
        let mb220 = 220_000_000;
        assert_eq!(pick(9, mb220), below::whole_limit(Metric::Dtc, 6));
        let tight = peak(9, Some(mb220), pick(9, mb220));
        assert!(tight.parts.0 > 1 && tight.graph_from == 9, "{tight:?}");
        assert!(tight.memory <= mb220, "{tight:?}");
        // DTM keeps its limit.
        assert_eq!(default_hold_whole(Metric::Dtm, 16, None, Some(0), |_| 0), W);
        // What the plans say of it.
        assert_eq!(held_line(Metric::Dtc, 14, every(14)), None);
        assert_eq!(
            held_line(Metric::Dtc, 16, 0).unwrap(),
            "none held whole, each unit's share of levels 1 to 15 decoded from their table files (--hold-whole 0 boards)"
        );
        let six = held_line(Metric::Dtc, 9, below::whole_limit(Metric::Dtc, 6)).unwrap();
        assert!(six.starts_with("levels 1 to 6 held whole ("), "{six}");
    }
}
