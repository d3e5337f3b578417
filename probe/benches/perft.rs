//! perft(6) from the start: our move generator against a deliberately
//! straightforward reference (a board copy per move, a `Vec` of moves per
//! node, stone-by-stone sowing, recursion down to depth 0, no bulk count at
//! the last ply). The reference is `tests/reference/mod.rs`, shared with the
//! rules tests that check it against the engine move by move.
//!
//! Run with `cargo bench -p togyz-tb --bench perft`; both appear in one
//! criterion group, so the report shows them side by side.

// `criterion_group!` generates undocumented public functions.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use togyz_tb::{perft, Position};

#[path = "../tests/reference/mod.rs"]
mod reference;

fn perft6(c: &mut Criterion) {
    let start = Position::start();
    let ref_start = reference::Board::start();
    // Both must count the table of docs/rules.md before their speed means anything.
    assert_eq!(perft(&start, 6), 360_035);
    assert_eq!(ref_start.perft(6), 360_035);

    let mut group = c.benchmark_group("perft6");
    group.sample_size(20);
    group.bench_function("ours", |b| b.iter(|| perft(black_box(&start), 6)));
    group.bench_function("straightforward", |b| {
        b.iter(|| black_box(&ref_start).perft(6))
    });
    group.finish();
}

criterion_group!(benches, perft6);
criterion_main!(benches);
