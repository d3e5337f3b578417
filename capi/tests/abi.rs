//! The C ABI's probe calls on real tables for up to 4 stones, checked
//! against the Rust library: values, metrics, ranked moves, buffer sizes,
//! several folders, and the error codes of each failure.

use std::ffi::{c_char, CStr, CString};
use std::ptr::{null, null_mut};

use togyz_tb::notation::parse_fen;
use togyz_tb::{Tablebase, Value};
use togyz_tb_capi::*;

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
                togyz_tb::notation::traditional(&pos, e.mv).unwrap()
            );
            assert_eq!(text(&m.uci), togyz_tb::notation::uci(&pos, e.mv).unwrap());
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

/// Every `stride`-th live position with `n` stones.
fn live_positions(n: u32, count: u64) -> Vec<togyz_tb::Position> {
    let layout = togyz_tb::raw::index::Layout::new(n);
    let stride = layout.positions() / count + 1;
    (0..layout.positions())
        .step_by(stride as usize)
        .map(|i| layout.slot(i).position())
        .filter(|p| togyz_tb::terminal_value(p).is_none())
        .collect()
}

fn solve(tb: *const TogyzTb, fen: &str, seconds: f64, nodes: u64) -> TogyzSearchResult {
    let mut r = std::mem::MaybeUninit::uninit();
    // SAFETY: a live handle, a position, a writable output.
    let s = unsafe { togyz_tb_solve(tb, &position(fen), seconds, nodes, r.as_mut_ptr()) };
    assert_eq!(s, TogyzStatus::Ok, "{fen}: {}", last_error());
    // SAFETY: written on success.
    unsafe { r.assume_init() }
}

#[test]
fn solve_above_the_tables_matches_the_generator() {
    // The truth for 5 and 6 stones, with the tables for 1..=4 on disk.
    let levels = togyz_gen::solve::dtm::solve_all(6).expect("levels solve");
    let (s, tb) = open(&[common::tables()]);
    assert_eq!(s, TogyzStatus::Ok);
    let rank = |w: TogyzWdl| w as i32;
    let mut proven = 0;
    for n in [5, 6] {
        for pos in live_positions(n, 30) {
            let fen = pos.fen();
            let truth = c_value(levels.value(&pos).unwrap()).wdl;
            let r = solve(tb, &fen, 30.0, 0);
            assert_eq!(r.proven, 1, "{fen}");
            assert_eq!((r.lower, r.upper), (truth, truth), "{fen}");
            assert_eq!(r.source, TogyzSource::Search);
            assert_eq!(r.table_stones, 4);
            // The move named achieves the value.
            let mv = pos
                .legal_moves()
                .find(|m| m.hole() == r.best_hole)
                .unwrap_or_else(|| panic!("{fen}: hole {}", r.best_hole));
            assert_eq!(
                text(&r.best_traditional),
                togyz_tb::notation::traditional(&pos, mv).unwrap()
            );
            let after = pos.after_unchecked(mv);
            let reply = togyz_tb::terminal_value(&after)
                .or_else(|| levels.value(&after))
                .unwrap();
            assert_eq!(-rank(c_value(reply).wdl), rank(truth), "{fen}");
            proven += 1;
            // A budget of a few nodes: whatever it shows holds.
            let r = solve(tb, &fen, 0.0, 3);
            assert!(rank(r.lower) <= rank(truth) && rank(truth) <= rank(r.upper));
            assert_eq!(r.proven, u8::from(r.lower == r.upper));
        }
    }
    assert!(proven >= 50, "{proven}");
    // Twelve stones over the tables for 4, in 3 nodes: open, and no move.
    let r = solve(tb, "1,1S,1S,1S,1,2S,1,3S,1/2,3S,1,1S,4 74 76 S 109", 0.0, 3);
    assert_eq!(
        (r.proven, r.lower, r.upper),
        (0, TogyzWdl::Loss, TogyzWdl::Win)
    );
    assert_eq!((r.best_hole, text(&r.best_traditional)), (0, String::new()));
    // Within the tables and at the end of the game, no search.
    let r = solve(tb, SEED, 1.0, 0);
    assert_eq!(
        (r.source, r.lower, r.proven),
        (TogyzSource::Tables, TogyzWdl::Loss, 1)
    );
    assert_eq!(r.nodes, 0);
    // SAFETY: the handle, closed once.
    unsafe { togyz_tb_close(tb) };
}

#[test]
fn solve_refuses_a_search_without_limits() {
    let (s, tb) = open(&[common::tables()]);
    assert_eq!(s, TogyzStatus::Ok);
    let pos = position(SEED);
    let mut r = std::mem::MaybeUninit::uninit();
    for (seconds, nodes) in [
        (0.0, 0),
        (-1.0, 10),
        (f64::NAN, 10),
        (f64::INFINITY, 0),
        (1e10, 0),
    ] {
        // SAFETY: a live handle, a position, a writable output.
        let s = unsafe { togyz_tb_solve(tb, &pos, seconds, nodes, r.as_mut_ptr()) };
        assert_eq!(s, TogyzStatus::BadArgument, "{seconds} {nodes}");
        assert!(last_error().contains("max_seconds"), "{}", last_error());
    }
    // SAFETY: null pointers only where the contract allows them.
    unsafe {
        assert_eq!(
            togyz_tb_solve(tb, &pos, 1.0, 0, null_mut()),
            TogyzStatus::NullPointer
        );
        assert_eq!(
            togyz_tb_solve(null(), &pos, 1.0, 0, r.as_mut_ptr()),
            TogyzStatus::NullPointer
        );
        togyz_tb_close(tb);
    }
}

#[test]
fn a_solver_solves_position_after_position() {
    let levels = togyz_gen::solve::dtm::solve_all(6).expect("levels solve");
    let (s, tb) = open(&[common::tables()]);
    assert_eq!(s, TogyzStatus::Ok);
    let mut solver = null_mut();
    // SAFETY: a live handle (open until the solver is freed), a writable
    // output.
    let s = unsafe { togyz_solver_new(tb, 30.0, 0, &mut solver) };
    assert_eq!(s, TogyzStatus::Ok);
    let rank = |w: TogyzWdl| w as i32;
    for (i, pos) in live_positions(6, 20).into_iter().enumerate() {
        if i == 10 {
            // The smallest bound: the rest are still proven.
            // SAFETY: a live solver on this thread only.
            let s = unsafe { togyz_solver_set_memory(solver, 1_000_000) };
            assert_eq!(s, TogyzStatus::Ok, "{}", last_error());
        }
        let c = position(&pos.fen());
        let truth = c_value(levels.value(&pos).unwrap()).wdl;
        // Twice: the second search starts from the first one's tables.
        for _ in 0..2 {
            let mut r = std::mem::MaybeUninit::uninit();
            // SAFETY: a live solver on this thread only, a position, an
            // output.
            let s = unsafe { togyz_solver_solve(solver, &c, r.as_mut_ptr()) };
            assert_eq!(s, TogyzStatus::Ok, "{}", last_error());
            // SAFETY: written on success.
            let r = unsafe { r.assume_init() };
            assert_eq!((r.proven, rank(r.lower)), (1, rank(truth)), "{pos}");
        }
    }
    // SAFETY: null pointers where the contract allows them; the solver
    // freed once, before its handle is closed.
    unsafe {
        let mut r = std::mem::MaybeUninit::uninit();
        assert_eq!(
            togyz_solver_solve(null_mut(), &position(SEED), r.as_mut_ptr()),
            TogyzStatus::NullPointer
        );
        let mut other = null_mut();
        assert_eq!(
            togyz_solver_new(tb, -1.0, 0, &mut other),
            TogyzStatus::BadArgument
        );
        assert!(other.is_null());
        assert_eq!(
            togyz_solver_set_memory(solver, 999_999),
            TogyzStatus::BadArgument
        );
        assert!(
            last_error().contains("max_bytes 999999"),
            "{}",
            last_error()
        );
        // More than the machine has: refused, not an abort at the next
        // search.
        assert_eq!(
            togyz_solver_set_memory(solver, u64::MAX),
            TogyzStatus::BadArgument
        );
        assert!(
            last_error().contains("more than this machine's"),
            "{}",
            last_error()
        );
        assert_eq!(
            togyz_solver_set_memory(null_mut(), 1 << 30),
            TogyzStatus::NullPointer
        );
        togyz_solver_free(solver);
        togyz_solver_free(null_mut());
        togyz_tb_close(tb);
    }
}
