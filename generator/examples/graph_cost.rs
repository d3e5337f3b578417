//! What a unit's quiet-move graph saves in time: the biggest units of one
//! DTM level solved with the graph stored and without it (made again as
//! each board is propagated), whole and in kazan parts of one pair, in
//! turn, so that a busy machine slows each alike:
//! `cargo run --release -p togyz-gen --example graph_cost -- [stones] [units] [rounds]`
//! (default 8 stones, its 3 biggest units, 3 rounds). Also checks that
//! each way gives the same values.
use std::sync::atomic::AtomicU64;
use std::time::Instant;
use togyz_gen::below::DtmExits;
use togyz_gen::solve::dtm::{solve_all, solve_unit};
use togyz_gen::solve::unit::{level_units, KazanCut};

fn main() {
    let arg = |i: usize, default: u32| {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(default)
    };
    let (n, count, rounds) = (arg(1, 8), arg(2, 3) as usize, arg(3, 3));
    let levels = solve_all(n - 1).expect("the levels below solve");
    let exits = DtmExits::whole(&levels);
    let mut units = level_units(n);
    units.sort_by_key(|u| std::cmp::Reverse(u.positions(n)));
    units.truncate(count);
    let one = KazanCut::pairs(1).expect("one pair");
    let ways = [
        ("whole, graph stored", KazanCut::WHOLE),
        ("whole, no graph", KazanCut::WHOLE.without_graph()),
        ("one pair a part, graph stored", one),
        ("one pair a part, no graph", one.without_graph()),
    ];
    let progress = AtomicU64::new(0);
    let mut seconds = [0f64; 4];
    for round in 0..rounds {
        for &u in &units {
            let mut first = None;
            for (i, (_, cut)) in ways.iter().enumerate() {
                let t = Instant::now();
                let values = solve_unit(n, &exits, u, *cut, &progress).expect("solves");
                seconds[i] += t.elapsed().as_secs_f64();
                match &first {
                    None => first = Some(values),
                    Some(f) => assert_eq!(f, &values, "{u:?} {cut}"),
                }
            }
        }
        eprintln!("round {} of {rounds} done", round + 1);
    }
    let positions: u64 = units.iter().map(|u| u.positions(n)).sum::<u64>() * rounds as u64;
    println!("{n} stones, the {count} biggest units ({positions} positions over {rounds} rounds):");
    for (i, (name, _)) in ways.iter().enumerate() {
        println!(
            "{name:32} {:8.2} s  {:6.2} M positions/s  x{:.2}",
            seconds[i],
            positions as f64 / seconds[i] / 1e6,
            seconds[i] / seconds[if i < 2 { 0 } else { 2 }]
        );
    }
}
