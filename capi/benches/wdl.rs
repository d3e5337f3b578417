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
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use togyz_probe::rules::{Position, Side, CYCLE};
use togyz_probe::tablebase::{terminal_value, Tablebase};
use togyz_tb::{
    togyz_position_from_fen, togyz_tb_close, togyz_tb_open, togyz_tb_wdl, TogyzPosition,
    TogyzStatus, TogyzWdl, TOGYZ_DEFAULT_CACHE_BYTES,
};

/// splitmix64.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The tables folder and its complete stone count, and a temporary folder
/// to keep alive if the tables had to be made.
fn tables() -> (PathBuf, u32, Option<tempfile::TempDir>) {
    let dir = std::env::var_os("TOGYZ_TABLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tables"));
    if let Ok(tb) = Tablebase::open([&dir]) {
        let n = tb.complete_up_to();
        if n > 0 {
            eprintln!("probing the {n}-stone table in {}", dir.display());
            return (dir, n, None);
        }
    }
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let levels = togyz_gen::retro::solve_all(5).expect("levels solve");
    for n in 1..=5 {
        togyz_gen::write::write_table(tmp.path(), n, &levels.table(n)).expect("table written");
    }
    eprintln!(
        "no tables in {}: probing a 5-stone table solved into {}",
        dir.display(),
        tmp.path().display()
    );
    (tmp.path().to_path_buf(), 5, Some(tmp))
}

/// `count` random live positions with `n` stones on the board and no
/// tuzdyk, either side to move.
fn positions(n: u32, count: usize) -> Vec<Position> {
    let mut out = Vec::with_capacity(count);
    let mut r = 0u64;
    while out.len() < count {
        let mut holes = [0u8; CYCLE];
        for _ in 0..n {
            r = mix(r);
            holes[(r % CYCLE as u64) as usize] += 1;
        }
        let kazans = 162 - n as u8;
        let south = kazans / 2 - (mix(r) % 3) as u8;
        let side = if r >> 63 == 1 {
            Side::North
        } else {
            Side::South
        };
        let p = Position::new(holes, [south, kazans - south], [None, None], side, 1).unwrap();
        if terminal_value(&p).is_none() {
            out.push(p);
        }
    }
    out
}

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
