//! Times the in-memory solver level by level:
//! `cargo run --release -p togyz-gen --example solve_timing -- 8 [dtm|dtc]`.
//! With `dtc`, each level is solved from the win/draw/loss of the levels
//! below (one byte a board) and only that is kept.
use std::sync::atomic::AtomicU64;
use std::time::Instant;
use togyz_gen::below::DtmLevels;
use togyz_gen::solve::cells::LevelValues;
use togyz_gen::solve::dtc;
use togyz_gen::solve::dtm::solve_level;

fn main() {
    let max: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(6);
    let metric = std::env::args().nth(2).unwrap_or_else(|| "dtm".into());
    let mut levels = DtmLevels::new();
    let mut wdl = togyz_gen::below::DtcLevels::new();
    let progress = AtomicU64::new(0);
    let t0 = Instant::now();
    for n in 1..=max {
        let t = Instant::now();
        let v: LevelValues = match metric.as_str() {
            "dtm" => solve_level(n, &levels, &progress).expect("solve"),
            "dtc" => {
                let level = dtc::solve_level(n, &wdl, &progress).expect("solve");
                wdl.push(level.wdl).expect("levels in order");
                level.values
            }
            other => panic!("unknown metric {other}: dtm or dtc"),
        };
        let secs = t.elapsed().as_secs_f64();
        let longest = (0..v.len())
            .map(|i| v.get(i) as u32)
            .max()
            .unwrap_or(0)
            .div_ceil(2);
        println!(
            "n={n:2} positions={:>12} {:8.2}s {:10.0} pos/s longest={:3}",
            v.len(),
            secs,
            v.len() as f64 / secs,
            longest.saturating_sub(1)
        );
        if metric == "dtm" {
            levels.push(v);
        }
    }
    println!("total {:.2}s", t0.elapsed().as_secs_f64());
}
