//! The forward solve (`togyz_gen::solve::forward`) of one level against its
//! written table: `cargo run --release -p togyz-gen --example forward_check
//! -- <tables folder> <stones> [--dtc] [unit's first configuration ...]`.
//!
//! Reads the draw splits of the levels below from the folder's tables
//! (held whole), solves each unit named (every unit with a tuzdyk if none
//! is) forward, times it, and compares every board's draw split with the
//! level's table; with `--dtc`, a DTC table's, it solves the distances to
//! conversion too and compares every position's value. Exits non-zero if
//! anything differs.
use rayon::prelude::*;
use std::process::ExitCode;
use std::sync::atomic::AtomicU64;
use std::time::Instant;
use togyz_gen::below::DtcBelow;
use togyz_gen::files::decode::DecodeAll;
use togyz_gen::files::splits::config_splits;
use togyz_gen::solve::forward;
use togyz_gen::solve::unit::{level_units, UnitId};
use togyz_tb::raw::format::{file_name, TableFile};
use togyz_tb::Backend;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(dir), Some(n)) = (args.get(1), args.get(2).and_then(|a| a.parse::<u32>().ok()))
    else {
        eprintln!("usage: forward_check <tables folder> <stones> [unit ...]");
        return ExitCode::from(2);
    };
    let dir = std::path::Path::new(dir);
    let open = |m: u32| TableFile::open_with(dir.join(file_name(m)), Backend::Pread);
    let t = Instant::now();
    let mut below = DtcBelow::new(u64::MAX);
    for m in 1..n {
        let file = match open(m) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        if let Err(e) = below.push(file, None) {
            eprintln!("error: level {m}: {e}");
            return ExitCode::FAILURE;
        }
    }
    println!(
        "levels 1 to {} read in {:.1} s ({} bytes)",
        n - 1,
        t.elapsed().as_secs_f64(),
        below.whole().bytes()
    );
    let table = match open(n) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let dtc = args.iter().any(|a| a == "--dtc");
    let units: Vec<UnitId> = if args.len() > 3 + dtc as usize {
        args[3..]
            .iter()
            .filter_map(|a| a.parse::<usize>().ok())
            .map(UnitId::of)
            .collect()
    } else {
        level_units(n)
            .into_iter()
            .filter(|u| u.first != 0)
            .collect()
    };
    let progress = AtomicU64::new(0);
    let t = Instant::now();
    let results: Vec<(UnitId, f64, u64, u64)> = units
        .par_iter()
        .map(|&unit| {
            let t = Instant::now();
            let (mut boards, mut differ) = (0u64, 0u64);
            if dtc {
                let solved = forward::solve_dtc_unit(n, below.whole(), unit, &progress)
                    .unwrap_or_else(|e| panic!("unit {unit:?}: {e}"));
                let secs = t.elapsed().as_secs_f64();
                let want = table.decode_unit(unit).expect("the level's table reads");
                for ((id, got), (id2, want)) in solved.values.iter().zip(&want) {
                    assert_eq!(id, id2);
                    boards += got.len() as u64 / (n as u64 + 1);
                    differ += (0..got.len())
                        .filter(|&i| got.get(i) != want.get(i))
                        .count() as u64;
                }
                return (unit, secs, boards, differ);
            }
            let solved = forward::solve_unit(n, below.whole(), unit, &progress)
                .unwrap_or_else(|e| panic!("unit {unit:?}: {e}"));
            let secs = t.elapsed().as_secs_f64();
            for (id, got) in solved {
                let want = config_splits(&table, id).expect("the level's table reads");
                boards += got.len() as u64;
                differ += got.iter().zip(&want).filter(|(a, b)| a != b).count() as u64;
            }
            (unit, secs, boards, differ)
        })
        .collect();
    let wall = t.elapsed().as_secs_f64();
    let (mut boards, mut differ) = (0u64, 0u64);
    for (unit, secs, b, d) in &results {
        println!(
            "unit {:2}-{:2}: {b} boards in {secs:.1} s ({:.0} ns a board), {d} differ",
            unit.first,
            unit.second,
            secs * 1e9 / *b as f64
        );
        boards += b;
        differ += d;
    }
    println!(
        "level {n}: {boards} boards of {} units solved forward in {wall:.1} s, {differ} differ from the table",
        results.len()
    );
    if differ == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
