//! Checks DTC against written DTM tables, level by level (the benchmark
//! side of issue 9's proof; the test suite does it up to 6 stones):
//! `cargo run --release -p togyz-gen --example dtc_check -- <tables> <max>`,
//! or `scripts/dtc-check.sh`.
//!
//! Each level is solved from the DTC levels' win/draw/loss below (one byte
//! a board), then compared with the DTM table of the folder, position by
//! position: the same win/draw/loss, the same draw split per board, and no
//! DTC longer than the DTM. Exits non-zero on the first difference.
use std::process::ExitCode;
use std::sync::atomic::AtomicU64;
use togyz_gen::files::decode::load_level;
use togyz_gen::solve::dtc;
use togyz_gen::solve::score::WdlLevel;
use togyz_tb::raw::format::{file_name, TableFile};
use togyz_tb::Value;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(dir), Some(max)) = (args.get(1), args.get(2).and_then(|a| a.parse::<u32>().ok()))
    else {
        eprintln!("usage: dtc_check <tables folder> <max stones>");
        return ExitCode::from(2);
    };
    let mut wdl = togyz_gen::below::DtcLevels::new();
    let progress = AtomicU64::new(0);
    println!("| n | positions | same WDL | same draw splits | DTC < DTM | mean DTM | mean DTC |");
    println!("|---:|---:|---|---|---:|---:|---:|");
    for n in 1..=max {
        let path = std::path::Path::new(dir).join(file_name(n));
        let dtm = match TableFile::open(&path).and_then(|t| load_level(&t)) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        };
        let level = match dtc::solve_level(n, &wdl, &progress) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("level {n}: {e}");
                return ExitCode::FAILURE;
            }
        };
        let dtm_splits = WdlLevel::from_packed(n, &dtm.widened());
        let same_splits = dtm_splits.as_ref() == Ok(&level.wdl);
        let (mut shorter, mut sum_dtm, mut sum_dtc, mut decisive) = (0u64, 0u64, 0u64, 0u64);
        for i in 0..dtm.len() {
            let (a, b) = (
                Value::unpack(dtm.get(i)),
                Value::unpack(level.values.get(i)),
            );
            if a.wdl() != b.wdl() || b.distance() > a.distance() {
                eprintln!("level {n}, index {i}: DTM {a}, DTC {b}");
                return ExitCode::FAILURE;
            }
            if let (Some(x), Some(y)) = (a.distance(), b.distance()) {
                shorter += (y < x) as u64;
                sum_dtm += x as u64;
                sum_dtc += y as u64;
                decisive += 1;
            }
        }
        let mean = |s: u64| s as f64 / decisive.max(1) as f64;
        println!(
            "| {n} | {} | yes | {} | {shorter} | {:.2} | {:.2} |",
            dtm.len(),
            if same_splits { "yes" } else { "NO" },
            mean(sum_dtm),
            mean(sum_dtc)
        );
        if !same_splits {
            eprintln!("level {n}: draw splits differ: {:?}", dtm_splits.err());
            return ExitCode::FAILURE;
        }
        wdl.push(level.wdl).expect("levels in order");
    }
    ExitCode::SUCCESS
}
