//! Positioned reads (`pread`) against a memory map, on cold and warm probes.
//!
//! ```text
//! cargo run --release -p togyz-tb --example backends -- TABLES_DIR [N] [RUNS]
//! ```
//!
//! Probes `value` of 2000 fixed random positions of the N-stone table
//! (default: the largest complete one) with the block cache disabled, so
//! every probe reads and decompresses its blocks:
//!
//! * **cold**: before each run the table file's pages are dropped from the
//!   operating system's cache (`sync`, then `dd iflag=nocache count=0`,
//!   which is `posix_fadvise(DONTNEED)` on the file), and a fresh tablebase
//!   is opened: every block comes from the disk.
//! * **warm**: the same probes again, the file's pages in memory.
//!
//! Prints the median over RUNS (default 7) runs of the mean time per probe,
//! and the smallest and largest.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use togyz_tb::Tablebase;
use togyz_tb::{Backend, Position};

#[path = "../benches/sample/mod.rs"]
mod sample;
use sample::positions;

/// Drops `file`'s pages from the page cache.
fn evict(file: &Path) {
    let succeeded = |c: &mut Command| c.status().is_ok_and(|s| s.success());
    let ok = succeeded(&mut Command::new("sync"))
        && succeeded(
            Command::new("dd")
                .arg(format!("if={}", file.display()))
                .args(["iflag=nocache", "count=0", "status=none"]),
        );
    assert!(ok, "could not drop {} from the page cache", file.display());
}

/// Mean nanoseconds per probe over `ps`.
fn run(tb: &Tablebase, ps: &[Position]) -> f64 {
    let t = Instant::now();
    for p in ps {
        std::hint::black_box(tb.value(p).expect("probe"));
    }
    t.elapsed().as_nanos() as f64 / ps.len() as f64
}

fn summary(mut v: Vec<f64>) -> String {
    v.sort_by(f64::total_cmp);
    format!(
        "median {:>8.1} µs  (min {:.1}, max {:.1})",
        v[v.len() / 2] / 1e3,
        v[0] / 1e3,
        v[v.len() - 1] / 1e3
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = PathBuf::from(args.first().expect("usage: backends TABLES_DIR [N] [RUNS]"));
    let probe = Tablebase::open([&dir]).expect("tables open");
    let n = args
        .get(1)
        .map(|s| s.parse().expect("N"))
        .unwrap_or(probe.complete_up_to());
    let runs: usize = args.get(2).map(|s| s.parse().expect("RUNS")).unwrap_or(7);
    let file = probe.path(n).expect("the N-stone table").to_path_buf();
    let ps = positions(n, 2000);
    println!(
        "{n} stones, {} ({} bytes), {} probes of `value`, block cache off, {runs} runs",
        file.display(),
        std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0),
        ps.len()
    );
    // Runs alternate the order of the backends, so neither always goes
    // first on a machine whose load changes.
    let backends = [Backend::Pread, Backend::Mmap];
    let mut cold = [Vec::new(), Vec::new()];
    let mut warm = [Vec::new(), Vec::new()];
    for r in 0..runs {
        for k in [r % 2, 1 - r % 2] {
            evict(&file);
            let tb = Tablebase::open_with([&dir], 0, backends[k]).expect("tables open");
            cold[k].push(run(&tb, &ps));
            warm[k].push(run(&tb, &ps));
        }
    }
    for (k, backend) in backends.iter().enumerate() {
        println!("{backend:?}\tcold {}", summary(cold[k].clone()));
        println!("{backend:?}\twarm {}", summary(warm[k].clone()));
    }
}
