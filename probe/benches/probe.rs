//! Probe speed on random positions of the largest table available.
//!
//! Uses the tables in `$TOGYZ_TABLES`, else the workspace's `tables/`
//! (`cargo run --release -p togyz-gen -- generate --max-stones 8` makes the
//! 8-stone tables of docs/performance.md). Without any table there, it
//! solves tables up to 5 stones into a temporary folder and says so.
//!
//! * `wdl_warm` / `value_warm`: one probe of 1000 fixed random positions in
//!   turn, every block already in the cache.
//! * `value_warm_won` / `value_warm_lost`: `value_warm` over the won and
//!   over the lost ones of those positions alone (a DTC table stores no
//!   loss: its DTC is one ply of search over the stored wins).
//! * `wdl_uncached` / `value_uncached`: the same with the cache disabled, so
//!   every probe checks and decompresses its block(s).
//! * `first_wdl_probe_cold_file`: a fresh tablebase's first probe: mapping
//!   the file, checking its block index, reading one block (the file's pages
//!   are in the operating system's cache).

// `criterion_group!` generates undocumented public functions.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use togyz_tb::Tablebase;
use togyz_tb::Wdl;

mod sample;
use sample::{positions, tables};

fn bench(c: &mut Criterion) {
    let (dir, n, _keep) = tables();
    let ps = positions(n, 1000);
    let mut g = c.benchmark_group(format!("{n}_stones"));
    g.measurement_time(Duration::from_secs(5));

    let tb = Tablebase::open([&dir]).unwrap();
    for p in &ps {
        tb.value(p).unwrap();
    }
    let mut i = 0;
    g.bench_function("wdl_warm", |b| {
        b.iter(|| {
            i = (i + 1) % ps.len();
            tb.wdl(black_box(&ps[i])).unwrap()
        })
    });
    g.bench_function("value_warm", |b| {
        b.iter(|| {
            i = (i + 1) % ps.len();
            tb.value(black_box(&ps[i])).unwrap()
        })
    });

    for (name, result) in [("value_warm_won", Wdl::Win), ("value_warm_lost", Wdl::Loss)] {
        let some: Vec<_> = ps
            .iter()
            .filter(|p| tb.wdl(p).unwrap() == result)
            .copied()
            .collect();
        let mut i = 0;
        g.bench_function(name, |b| {
            b.iter(|| {
                i = (i + 1) % some.len();
                tb.value(black_box(&some[i])).unwrap()
            })
        });
    }

    let uncached = Tablebase::open_with_cache([&dir], 0).unwrap();
    g.bench_function("wdl_uncached", |b| {
        b.iter(|| {
            i = (i + 1) % ps.len();
            uncached.wdl(black_box(&ps[i])).unwrap()
        })
    });
    g.bench_function("value_uncached", |b| {
        b.iter(|| {
            i = (i + 1) % ps.len();
            uncached.value(black_box(&ps[i])).unwrap()
        })
    });

    g.bench_function("first_wdl_probe_cold_file", |b| {
        b.iter_batched(
            || {
                i = (i + 1) % ps.len();
                (Tablebase::open([&dir]).unwrap(), ps[i])
            },
            // The tablebase is handed back so that unmapping is not timed.
            |(tb, p)| {
                let wdl = tb.wdl(&p).unwrap();
                (tb, wdl)
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
