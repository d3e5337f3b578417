//! The C ABI's probe calls on real tables for up to 4 stones, checked
//! against the Rust library: values, metrics, ranked moves, buffer sizes,
//! several folders, and the error codes of each failure.

use std::ffi::{c_char, CStr, CString};
use std::ptr::{null, null_mut};

use togyz_probe::{parse_fen, Tablebase, Value};
use togyz_tb::*;

mod common;

const SEED: &str = "7,2S,1/8,2S 79 79 S 1";

fn open(dirs: &[&std::path::Path]) -> (TogyzStatus, *mut TogyzTb) {
    let paths: Vec<CString> = dirs
        .iter()
        .map(|d| CString::new(d.to_str().unwrap()).unwrap())
        .collect();
    let ptrs: Vec<*const c_char> = paths.iter().map(|p| p.as_ptr()).collect();
    let mut tb = null_mut();
    // SAFETY: `ptrs` holds live NUL-terminated paths; `tb` is writable.
    let s = unsafe { togyz_tb_open(ptrs.as_ptr(), ptrs.len(), 1 << 20, &mut tb) };
    (s, tb)
}

fn position(fen: &str) -> TogyzPosition {
    let fen = CString::new(fen).unwrap();
    let mut p = std::mem::MaybeUninit::uninit();
    // SAFETY: valid pointers.
    let s = unsafe { togyz_position_from_fen(fen.as_ptr(), p.as_mut_ptr()) };
    assert_eq!(s, TogyzStatus::Ok);
    // SAFETY: written on success.
    unsafe { p.assume_init() }
}

fn last_error() -> String {
    // SAFETY: never null, NUL-terminated.
    unsafe { CStr::from_ptr(togyz_tb_last_error()) }
        .to_string_lossy()
        .into_owned()
}

fn c_value(v: Value) -> TogyzValue {
    match v {
        Value::Win(d) => TogyzValue {
            wdl: TogyzWdl::Win,
            metric: TogyzMetric::Dtm,
            distance: d,
        },
        Value::Loss(d) => TogyzValue {
            wdl: TogyzWdl::Loss,
            metric: TogyzMetric::Dtm,
            distance: d,
        },
        Value::Draw => TogyzValue {
            wdl: TogyzWdl::Draw,
            metric: TogyzMetric::None,
            distance: 0,
        },
    }
}

fn text(chars: &[c_char]) -> String {
    // SAFETY: the library NUL-terminates every fixed string.
    unsafe { CStr::from_ptr(chars.as_ptr()) }
        .to_str()
        .unwrap()
        .to_owned()
}

#[test]
fn values_and_ranked_moves_match_the_rust_library() {
    let dir = common::tables();
    let rust = Tablebase::open([dir]).unwrap();
    let (s, tb) = open(&[dir]);
    assert_eq!(s, TogyzStatus::Ok, "{}", last_error());
    let mut complete = 0;
    // SAFETY: a live handle and a writable output.
    let s = unsafe { togyz_tb_complete_up_to(tb, &mut complete) };
    assert_eq!(s, TogyzStatus::Ok);
    assert_eq!(complete, 4);
    for fen in common::FENS {
        let pos = parse_fen(fen).unwrap();
        let c = position(fen);
        let mut v = c_value(Value::Win(99));
        // SAFETY: a live handle, a position, a writable output.
        assert_eq!(unsafe { togyz_tb_value(tb, &c, &mut v) }, TogyzStatus::Ok);
        assert_eq!(v, c_value(rust.value(&pos).unwrap()), "{fen}");
        let mut w = TogyzWdl::Draw;
        // SAFETY: as above.
        assert_eq!(unsafe { togyz_tb_wdl(tb, &c, &mut w) }, TogyzStatus::Ok);
        assert_eq!(w, v.wdl);

        let expected = rust.moves(&pos).unwrap();
        let mut n = usize::MAX;
        // SAFETY: no buffer, capacity 0: only the count is written.
        let s = unsafe { togyz_tb_root(tb, &c, null_mut(), 0, &mut n) };
        assert_eq!(n, expected.len(), "{fen}");
        let want = if expected.is_empty() {
            TogyzStatus::Ok
        } else {
            TogyzStatus::BufferTooSmall
        };
        assert_eq!(s, want, "{fen}");
        let mut moves = [std::mem::MaybeUninit::<TogyzRootMove>::uninit(); TOGYZ_MAX_MOVES];
        // SAFETY: room for TOGYZ_MAX_MOVES moves.
        let s = unsafe { togyz_tb_root(tb, &c, moves.as_mut_ptr().cast(), moves.len(), &mut n) };
        assert_eq!(s, TogyzStatus::Ok);
        assert_eq!(n, expected.len());
        for (m, e) in moves[..n].iter().zip(&expected) {
            // SAFETY: the first `n` moves are written.
            let m = unsafe { m.assume_init() };
            assert_eq!(m.hole, e.mv.hole());
            assert_eq!(
                text(&m.traditional),
                togyz_probe::notation::traditional(&pos, e.mv).unwrap()
            );
            assert_eq!(
                text(&m.uci),
                togyz_probe::notation::uci(&pos, e.mv).unwrap()
            );
            assert_eq!(m.value, c_value(e.value));
        }
    }
    // SAFETY: the handle, closed once.
    unsafe { togyz_tb_close(tb) };
}

#[test]
fn the_seed_is_a_loss_in_4_plies_of_dtm() {
    let (s, tb) = open(&[common::tables()]);
    assert_eq!(s, TogyzStatus::Ok);
    let mut v = c_value(Value::Draw);
    // SAFETY: a live handle, a position, a writable output.
    let s = unsafe { togyz_tb_value(tb, &position(SEED), &mut v) };
    assert_eq!(s, TogyzStatus::Ok);
    assert_eq!(
        v,
        TogyzValue {
            wdl: TogyzWdl::Loss,
            metric: TogyzMetric::Dtm,
            distance: 4
        }
    );
    // SAFETY: the handle, closed once.
    unsafe { togyz_tb_close(tb) };
}

#[test]
fn several_folders_and_their_failures() {
    let dir = common::tables();
    let small = tempfile::tempdir().unwrap();
    std::fs::copy(dir.join("togyz-01.tkb"), small.path().join("togyz-01.tkb")).unwrap();
    let (s, tb) = open(&[small.path(), dir]);
    assert_eq!(s, TogyzStatus::Ok);
    let mut complete = 0;
    // SAFETY: a live handle and a writable output.
    unsafe { togyz_tb_complete_up_to(tb, &mut complete) };
    assert_eq!(complete, 4);
    // SAFETY: the handle, closed once.
    unsafe { togyz_tb_close(tb) };

    let (s, tb) = open(&[small.path()]);
    assert_eq!(s, TogyzStatus::Ok);
    let mut w = TogyzWdl::Draw;
    // SAFETY: a live handle, a position, a writable output.
    let status = unsafe { togyz_tb_wdl(tb, &position(SEED), &mut w) };
    assert_eq!(status, TogyzStatus::MissingTable);
    assert!(
        last_error().contains("no table for 4 stones"),
        "{}",
        last_error()
    );
    // SAFETY: the handle, closed once.
    unsafe { togyz_tb_close(tb) };

    let missing = small.path().join("nowhere");
    let (s, tb) = open(&[missing.as_path()]);
    assert_eq!(s, TogyzStatus::Io);
    assert!(tb.is_null());
    assert!(last_error().contains("nowhere"), "{}", last_error());

    let damaged = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(dir.join("togyz-04.tkb")).unwrap();
    std::fs::write(
        damaged.path().join("togyz-04.tkb"),
        &bytes[..bytes.len() - 100],
    )
    .unwrap();
    let (s, tb) = open(&[damaged.path()]);
    let status = if s == TogyzStatus::Ok {
        let mut w = TogyzWdl::Draw;
        // SAFETY: a live handle, a position, a writable output.
        let status = unsafe { togyz_tb_wdl(tb, &position(SEED), &mut w) };
        // SAFETY: the handle, closed once.
        unsafe { togyz_tb_close(tb) };
        status
    } else {
        s
    };
    assert_eq!(status, TogyzStatus::DamagedTable, "{}", last_error());

    let dirs = [null::<c_char>()];
    let mut out = null_mut();
    // SAFETY: one (null) entry, which the call refuses.
    let s = unsafe { togyz_tb_open(dirs.as_ptr(), 1, 0, &mut out) };
    assert_eq!(s, TogyzStatus::NullPointer);
    assert_eq!(last_error(), "dirs[0] is a null pointer");
}
