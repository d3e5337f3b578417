//! A warm WDL probe through the C ABI (`togyz_tb_wdl`, called as C calls
//! it: a `TogyzPosition` struct in, a status and a `TogyzWdl` out) against
//! the Rust call (`Tablebase::wdl`) on the same positions, side by side.
//!
//! Uses the tables in `$TOGYZ_TABLES`, else the workspace's `tables/`;
//! without any table there it solves tables up to 5 stones into a
//! temporary folder and says so. Every block is in the cache before timing.

// `criterion_group!` generates undocumented public functions.
#![allow(missing_docs)]

use std::ffi::CString;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use togyz_tb::Tablebase;
use togyz_tb_capi::{
    togyz_position_from_fen, togyz_tb_close, togyz_tb_open, togyz_tb_wdl, TogyzPosition,
    TogyzStatus, TogyzWdl, TOGYZ_DEFAULT_CACHE_BYTES,
};

#[path = "../../probe/benches/sample/mod.rs"]
mod sample;
use sample::{positions, tables};

fn bench(c: &mut Criterion) {
    let (dir, n, _keep) = tables();
    let ps = positions(n, 1000);
    // The C caller's structs, made through the C ABI's own FEN reader.
    let cs: Vec<TogyzPosition> = ps
        .iter()
        .map(|p| {
            let fen = CString::new(p.fen()).unwrap();
            let mut out = std::mem::MaybeUninit::uninit();
            // SAFETY: a NUL-terminated string and a writable struct.
            let s = unsafe { togyz_position_from_fen(fen.as_ptr(), out.as_mut_ptr()) };
            assert_eq!(s, TogyzStatus::Ok);
            // SAFETY: written on success.
            unsafe { out.assume_init() }
        })
        .collect();

    let tb = Tablebase::open([&dir]).unwrap();
    let path = CString::new(dir.to_str().unwrap()).unwrap();
    let mut handle = std::ptr::null_mut();
    // SAFETY: one valid path, a writable handle.
    let s = unsafe { togyz_tb_open(&path.as_ptr(), 1, TOGYZ_DEFAULT_CACHE_BYTES, &mut handle) };
    assert_eq!(s, TogyzStatus::Ok);
    for (p, cp) in ps.iter().zip(&cs) {
        let mut w = TogyzWdl::Draw;
        // SAFETY: a live handle, a valid struct, a writable output.
        assert_eq!(unsafe { togyz_tb_wdl(handle, cp, &mut w) }, TogyzStatus::Ok);
        assert_eq!(
            w as i32,
            tb.wdl(p).unwrap() as i32 - 1,
            "the C ABI answers as Rust"
        );
    }

    let mut g = c.benchmark_group(format!("wdl_warm_{n}_stones"));
    g.measurement_time(Duration::from_secs(5));
    let mut i = 0;
    g.bench_function("rust", |b| {
        b.iter(|| {
            i = (i + 1) % ps.len();
            tb.wdl(black_box(&ps[i])).unwrap()
        })
    });
    g.bench_function("c_abi", |b| {
        b.iter(|| {
            i = (i + 1) % cs.len();
            let mut w = TogyzWdl::Draw;
            // SAFETY: as above.
            let s = unsafe { togyz_tb_wdl(handle, black_box(&cs[i]), &mut w) };
            (s, w)
        })
    });
    g.finish();
    // SAFETY: the handle from togyz_tb_open, closed once.
    unsafe { togyz_tb_close(handle) };
}

criterion_group!(benches, bench);
criterion_main!(benches);
