//! What DTC tables would take on disk, level by level, compressed as the
//! writer compresses DTM tables (zstd, the same levels and block sizes):
//! `cargo run --release -p togyz-gen --example dtc_sizes -- 8`.
//!
//! Columns: the WDL section as one draw split (a byte) per board; the DTC
//! section as one distance per position (0 for draws); the same with the
//! distances that one ply of search recovers left out (a win or loss in 1
//! stored as 0); in bits per position. Nothing is written.
use rayon::prelude::*;
use std::sync::atomic::AtomicU64;
use togyz_gen::files::write::dtm::{DISTANCE_LEVEL, WDL_LEVEL};
use togyz_gen::solve::dtc;
use togyz_tb::raw::format::{DISTANCE_BLOCK_POSITIONS, WDL_BLOCK_BOARDS};
use togyz_tb::Value;

/// Compressed bytes of `data` cut into blocks of `block` bytes.
fn compressed(data: &[u8], block: usize, level: i32) -> u64 {
    data.par_chunks(block)
        .map(|c| zstd::bulk::compress(c, level).expect("zstd").len() as u64)
        .sum()
}

fn main() {
    let max: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(6);
    let mut wdl = togyz_gen::below::DtcLevels::new();
    let progress = AtomicU64::new(0);
    println!("| n | positions | WDL bits | DTC bits | DTC bits, 1-ply values left out | mean DTC | longest DTC |");
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for n in 1..=max {
        let level = dtc::solve_level(n, &wdl, &progress).expect("solve");
        let values = level.values.widened();
        let positions = values.len() as f64;
        let dist = |v: &u16| Value::unpack(*v).distance().unwrap_or(0);
        let longest = values.iter().map(dist).max().unwrap_or(0);
        assert!(longest <= 255, "two-byte DTC entries are not measured here");
        let full: Vec<u8> = values.iter().map(|v| dist(v) as u8).collect();
        let blanked: Vec<u8> = full.iter().map(|&d| if d == 1 { 0 } else { d }).collect();
        let decisive = values.iter().filter(|&&v| v != 0).count().max(1);
        let mean = full.iter().map(|&d| d as f64).sum::<f64>() / decisive as f64;
        let bits = |bytes: u64| bytes as f64 * 8.0 / positions;
        let w = compressed(level.wdl.splits(), WDL_BLOCK_BOARDS as usize, WDL_LEVEL);
        let p = DISTANCE_BLOCK_POSITIONS as usize;
        let d = compressed(&full, p, DISTANCE_LEVEL);
        let b = compressed(&blanked, p, DISTANCE_LEVEL);
        println!(
            "| {n} | {} | {:.3} | {:.3} | {:.3} | {mean:.2} | {longest} |",
            values.len(),
            bits(w),
            bits(d),
            bits(b)
        );
        wdl.push(level.wdl).expect("levels in order");
    }
}
