//! Times the in-memory solver level by level: `cargo run --release -p togyz-gen --example solve_timing -- 8`.
use std::sync::atomic::AtomicU64;
use std::time::Instant;
use togyz_gen::retro::{solve_level, Levels};

fn main() {
    let max: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(6);
    let mut levels = Levels::new();
    let progress = AtomicU64::new(0);
    let t0 = Instant::now();
    for n in 1..=max {
        let t = Instant::now();
        let v = solve_level(n, &levels, &progress).expect("solve");
        let secs = t.elapsed().as_secs_f64();
        println!(
            "n={n:2} positions={:>12} {:8.2}s {:10.0} pos/s",
            v.len(),
            secs,
            v.len() as f64 / secs
        );
        levels.push(v);
    }
    println!("total {:.2}s", t0.elapsed().as_secs_f64());
}
