//! The exported calls: opening and closing tables, FEN in and out, probes,
//! and proof search with or without a kept solver.

use std::ffi::{c_char, CStr};
use std::path::PathBuf;

use togyz_tb::notation;
use togyz_tb::search::{SearchResult, Solver};
use togyz_tb::{Position, ProbeError, Tablebase};

use crate::convert::{budget_of, position_from_c, position_to_c, root_move_to_c};
use crate::convert::{search_result_to_c, value_to_c, wdl_to_c, with_position};
use crate::error::{deref, guard, put, text, Failure, LAST_ERROR};
use crate::*;

/// The version of togyz-tb, as a static NUL-terminated string.
#[no_mangle]
pub extern "C" fn togyz_tb_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The message of the last failed call on the calling thread (an empty
/// string if none failed yet). Never null. The text stays valid until the
/// next failing call on the same thread; copy it to keep it.
#[no_mangle]
pub extern "C" fn togyz_tb_last_error() -> *const c_char {
    LAST_ERROR
        .try_with(|e| e.try_borrow().map(|m| m.as_ptr()).ok())
        .ok()
        .flatten()
        .unwrap_or(c"".as_ptr())
}

/// The most folders [`togyz_tb_open`] takes.
const MAX_DIRS: usize = 4096;

/// Opens the tables (`togyz-NN.tkb` files) in the folders `dirs[0..ndirs]`,
/// with a cache of up to `cache_bytes` of decompressed blocks
/// ([`TOGYZ_DEFAULT_CACHE_BYTES`] is a good start; 0 disables the cache).
/// When two folders hold a table for the same stone count, the first
/// wins. Every table header is checked now; the files are mapped when a
/// probe first needs them. Finding no table is not an error: probes then
/// answer `TOGYZ_STATUS_MISSING_TABLE`.
///
/// On success `*out` is a handle for [`togyz_tb_close`]; on failure it is
/// set to null (when `out` is not null).
///
/// Errors: `NULL_POINTER` (`out`, `dirs` with `ndirs > 0`, or an entry of
/// `dirs`), `BAD_ARGUMENT` (`ndirs` above 4096, a path not UTF-8 off Unix),
/// `IO` (a folder cannot be listed), `DAMAGED_TABLE` (a bad table header).
///
/// # Safety
/// `dirs` is null or points to `ndirs` pointers, each null or a
/// NUL-terminated path; `out` is null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn togyz_tb_open(
    dirs: *const *const c_char,
    ndirs: usize,
    cache_bytes: u64,
    out: *mut *mut TogyzTb,
) -> TogyzStatus {
    guard(|| {
        // SAFETY: the contract: null (refused) or valid for writes.
        unsafe { put(out, std::ptr::null_mut(), "out") }?;
        // Before any allocation sized by it: a huge count would abort.
        if ndirs > MAX_DIRS {
            return Err(Failure::new(
                TogyzStatus::BadArgument,
                format!("ndirs = {ndirs}: at most {MAX_DIRS} folders"),
            ));
        }
        let dirs: &[*const c_char] = match ndirs {
            0 => &[],
            _ if dirs.is_null() => return Err(Failure::null("dirs")),
            // SAFETY: `dirs` holds `ndirs` pointers by the contract, and
            // `MAX_DIRS` keeps the slice within isize::MAX bytes.
            _ => unsafe { std::slice::from_raw_parts(dirs, ndirs) },
        };
        let mut paths = Vec::with_capacity(dirs.len());
        for (i, &d) in dirs.iter().enumerate() {
            if d.is_null() {
                return Err(Failure::null(&format!("dirs[{i}]")));
            }
            // SAFETY: a NUL-terminated string by the contract.
            let bytes = unsafe { CStr::from_ptr(d) }.to_bytes();
            paths.push(path_of(bytes, i)?);
        }
        let tb = Tablebase::open_with_cache(&paths, cache_bytes)?;
        // SAFETY: not null (`put` checked it) and valid for writes by the contract.
        unsafe { out.write(Box::into_raw(Box::new(TogyzTb { tb }))) };
        Ok(())
    })
}

/// A path from the bytes C passed: any bytes on Unix, UTF-8 elsewhere.
fn path_of(bytes: &[u8], i: usize) -> Result<PathBuf, Failure> {
    #[cfg(unix)]
    {
        let _ = i;
        use std::os::unix::ffi::OsStrExt;
        Ok(PathBuf::from(std::ffi::OsStr::from_bytes(bytes)))
    }
    #[cfg(not(unix))]
    {
        std::str::from_utf8(bytes)
            .map(PathBuf::from)
            .map_err(|_| Failure::new(TogyzStatus::BadArgument, format!("dirs[{i}] is not UTF-8")))
    }
}

/// Closes tables opened by [`togyz_tb_open`] and frees the handle. Null is
/// allowed and does nothing. No probe on `tb` may run during or after this
/// call, and its solvers ([`togyz_solver_new`]) must be freed before.
///
/// # Safety
/// `tb` is null or a handle from [`togyz_tb_open`] not closed yet.
#[no_mangle]
pub unsafe extern "C" fn togyz_tb_close(tb: *mut TogyzTb) {
    let _ = guard(|| {
        if !tb.is_null() {
            // SAFETY: made by `Box::into_raw` in `togyz_tb_open` and not
            // freed yet, by the contract.
            drop(unsafe { Box::from_raw(tb) });
        }
        Ok(())
    });
}

/// Writes to `*out` the largest N such that tables for 1..N stones on the
/// board are all open (0 if the 1-stone table is missing): every position
/// with at most N stones on the board can be probed.
///
/// Errors: `NULL_POINTER`.
///
/// # Safety
/// `tb` is null or a live handle; `out` is null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn togyz_tb_complete_up_to(tb: *const TogyzTb, out: *mut u32) -> TogyzStatus {
    guard(|| {
        // SAFETY: the contract.
        let tb = unsafe { deref(tb, "tb") }?;
        // SAFETY: the contract.
        unsafe { put(out, tb.tb.complete_up_to(), "out") }
    })
}

/// Reads a PlayStrategy FEN (`7,2S,1/8,2S 79 79 S 1`) into `*out`.
///
/// Errors: `NULL_POINTER`, `BAD_ARGUMENT` (not UTF-8), `BAD_FEN`.
///
/// # Safety
/// `fen` is null or NUL-terminated; `out` is null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn togyz_position_from_fen(
    fen: *const c_char,
    out: *mut TogyzPosition,
) -> TogyzStatus {
    guard(|| {
        // SAFETY: the contract.
        let fen = unsafe { text(fen, "fen") }?;
        let pos = notation::parse_fen(fen)
            .map_err(|e| Failure::new(TogyzStatus::BadFen, e.to_string()))?;
        // SAFETY: the contract.
        unsafe { put(out, position_to_c(&pos), "out") }
    })
}

/// Writes the position as a NUL-terminated PlayStrategy FEN into
/// `buf[0..len]` ([`TOGYZ_FEN_MAX`] bytes always suffice).
///
/// Errors: `NULL_POINTER`, `BAD_ARGUMENT` (`side_to_move` not 0 or 1),
/// `BAD_POSITION`, `BUFFER_TOO_SMALL` (the message gives the size needed;
/// `buf` is left as it was).
///
/// # Safety
/// `pos` is null or points to a position; `buf` is null or valid for
/// writing `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn togyz_position_to_fen(
    pos: *const TogyzPosition,
    buf: *mut c_char,
    len: usize,
) -> TogyzStatus {
    guard(|| {
        // SAFETY: the contract.
        let pos = position_from_c(unsafe { deref(pos, "pos") }?)?;
        if buf.is_null() {
            return Err(Failure::null("buf"));
        }
        let fen = pos.fen();
        if fen.len() + 1 > len {
            return Err(Failure::new(
                TogyzStatus::BufferTooSmall,
                format!(
                    "the FEN needs {} bytes, the buffer has {len}",
                    fen.len() + 1
                ),
            ));
        }
        // SAFETY: `buf` is valid for `len >= fen.len() + 1` bytes by the
        // contract, and a fresh String cannot overlap it.
        unsafe {
            std::ptr::copy_nonoverlapping(fen.as_ptr(), buf.cast::<u8>(), fen.len());
            buf.add(fen.len()).write(0);
        }
        Ok(())
    })
}

/// Win, draw or loss for the side to move. A finished game is answered
/// without tables. On a warm cache this allocates nothing.
///
/// Errors: `NULL_POINTER`, `BAD_ARGUMENT`, `BAD_POSITION`,
/// `MISSING_TABLE`, `DAMAGED_TABLE`, `IO`.
///
/// # Safety
/// `tb` is null or a live handle; `pos` is null or points to a position;
/// `out` is null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn togyz_tb_wdl(
    tb: *const TogyzTb,
    pos: *const TogyzPosition,
    out: *mut TogyzWdl,
) -> TogyzStatus {
    guard(|| {
        // SAFETY: the contract.
        let tb = unsafe { deref(tb, "tb") }?;
        // SAFETY: the contract.
        let wdl = with_position(unsafe { deref(pos, "pos") }?, |pos| Ok(tb.tb.wdl(pos)?))?;
        // SAFETY: the contract.
        unsafe { put(out, wdl_to_c(wdl), "out") }
    })
}

/// The exact value for the side to move: result, distance and metric.
///
/// Errors: as [`togyz_tb_wdl`].
///
/// # Safety
/// As [`togyz_tb_wdl`].
#[no_mangle]
pub unsafe extern "C" fn togyz_tb_value(
    tb: *const TogyzTb,
    pos: *const TogyzPosition,
    out: *mut TogyzValue,
) -> TogyzStatus {
    guard(|| {
        // SAFETY: the contract.
        let tb = unsafe { deref(tb, "tb") }?;
        // SAFETY: the contract.
        let (value, metric) = with_position(unsafe { deref(pos, "pos") }?, |pos| {
            Ok(tb.tb.value_with_metric(pos)?)
        })?;
        // SAFETY: the contract.
        unsafe { put(out, value_to_c(value, metric), "out") }
    })
}

/// Ranks every legal move, best first for the side to move: faster wins,
/// then draws, then slower losses (equal values in hole order). Writes the
/// moves to `moves[0..*count]`; `*count` is 0 when the game is over.
///
/// `capacity` is the length of `moves` ([`TOGYZ_MAX_MOVES`] always
/// suffices; `moves` may be null when it is 0). When it is too small,
/// nothing is written to `moves`, `*count` is the number needed and the
/// status is `BUFFER_TOO_SMALL`.
///
/// Errors: as [`togyz_tb_wdl`], and `BUFFER_TOO_SMALL`.
///
/// # Safety
/// `tb` is null or a live handle; `pos` is null or points to a position;
/// `moves` is null or valid for writing `capacity` moves; `count` is null
/// or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn togyz_tb_root(
    tb: *const TogyzTb,
    pos: *const TogyzPosition,
    moves: *mut TogyzRootMove,
    capacity: usize,
    count: *mut usize,
) -> TogyzStatus {
    guard(|| {
        // SAFETY: the contract.
        let tb = unsafe { deref(tb, "tb") }?;
        // SAFETY: the contract.
        let pos = position_from_c(unsafe { deref(pos, "pos") }?)?;
        if count.is_null() {
            return Err(Failure::null("count"));
        }
        let ranked = tb.tb.moves(&pos)?;
        let answer = ranked
            .iter()
            .map(|m| root_move_to_c(&pos, m))
            .collect::<Result<Vec<_>, _>>()?;
        // SAFETY: checked not null above; valid for writes by the contract.
        unsafe { count.write(answer.len()) };
        if answer.len() > capacity {
            return Err(Failure::new(
                TogyzStatus::BufferTooSmall,
                format!(
                    "{} legal moves, room for {capacity}; TOGYZ_MAX_MOVES always suffices",
                    answer.len()
                ),
            ));
        }
        if !answer.is_empty() {
            if moves.is_null() {
                return Err(Failure::null("moves"));
            }
            // SAFETY: `moves` is valid for `capacity >= answer.len()` moves
            // by the contract; `answer` is a fresh Vec, so no overlap.
            unsafe { std::ptr::copy_nonoverlapping(answer.as_ptr(), moves, answer.len()) };
        }
        Ok(())
    })
}

/// Proves the value of a position, by the tables when they cover it and
/// else by proof search whose leaves are table probes (df-pn on two
/// threads, iterative deepening and a retrograde solve of the positions
/// reachable above the tables), within `max_seconds` of wall time and `max_nodes` nodes per
/// question; 0 lifts either limit, but not both. The answer is *proven*
/// only when `lower == upper`, never a guess. Memory: up to about 387 MB
/// (two df-pn tables of 152 MiB, the iterative deepening's 28 MiB and the
/// graph's 39 MB) while a hard search
/// fills them, freed on return; a [`TogyzSolver`] takes a smaller bound
/// ([`togyz_solver_set_memory`]). Time: a node limit bounds df-pn and the
/// iterative deepening, not the retrograde solve beside it, which enumerates up to 2^18 positions
/// (about 0.1 s when they do not close) unless the time limit stops it.
///
/// Several threads may solve on one handle at once; each call searches on
/// its own.
///
/// Errors: `NULL_POINTER`, `BAD_ARGUMENT` (`max_seconds` negative, not
/// finite or above a year; both limits 0), `BAD_POSITION`,
/// `DAMAGED_TABLE`, `IO`.
///
/// # Safety
/// `tb` is null or a live handle; `pos` is null or points to a position;
/// `out` is null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn togyz_tb_solve(
    tb: *const TogyzTb,
    pos: *const TogyzPosition,
    max_seconds: f64,
    max_nodes: u64,
    out: *mut TogyzSearchResult,
) -> TogyzStatus {
    guard(|| {
        // SAFETY: the contract.
        let tb = unsafe { deref(tb, "tb") }?;
        let budget = budget_of(max_seconds, max_nodes)?;
        // SAFETY: the contract.
        unsafe { solve_into(pos, out, |p| tb.tb.solve(p, budget)) }
    })
}

/// Reads `pos`, solves it with `solve` and writes the result to `out`: the
/// common part of [`togyz_tb_solve`] and [`togyz_solver_solve`].
///
/// # Safety
/// `pos` is null or points to a position; `out` is null or valid for
/// writing.
unsafe fn solve_into(
    pos: *const TogyzPosition,
    out: *mut TogyzSearchResult,
    solve: impl FnOnce(&Position) -> Result<SearchResult, ProbeError>,
) -> Result<(), Failure> {
    // SAFETY: the caller's contract.
    let pos = position_from_c(unsafe { deref(pos, "pos") }?)?;
    if out.is_null() {
        return Err(Failure::null("out"));
    }
    let r = solve(&pos)?;
    let result = search_result_to_c(&pos, &r)?;
    // SAFETY: the caller's contract.
    unsafe { put(out, result, "out") }
}

/// Makes a solver over the tables of `tb`: it keeps its search tables from
/// one [`togyz_solver_solve`] to the next, so the positions of one game help
/// each other (walking a game backwards, each search starts from what the
/// later ones proved). Each search gets `max_seconds` and `max_nodes` as in
/// [`togyz_tb_solve`]. The tables fill up to about 387 MB (less with
/// [`togyz_solver_set_memory`]) and stay allocated until
/// [`togyz_solver_free`].
///
/// On success `*out` is the solver; on failure it is set to null (when
/// `out` is not null).
///
/// Errors: `NULL_POINTER`, `BAD_ARGUMENT` (the limits, as
/// [`togyz_tb_solve`]).
///
/// # Safety
/// `tb` is null or a live handle, which must stay open until the solver is
/// freed; `out` is null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn togyz_solver_new(
    tb: *const TogyzTb,
    max_seconds: f64,
    max_nodes: u64,
    out: *mut *mut TogyzSolver,
) -> TogyzStatus {
    guard(|| {
        // SAFETY: the contract: null (refused) or valid for writes.
        unsafe { put(out, std::ptr::null_mut(), "out") }?;
        // SAFETY: the contract: live, and open until the solver is freed,
        // so the borrow may outlive this call.
        let tb: &'static TogyzTb = unsafe { deref(tb, "tb") }?;
        let solver = Solver::new(&tb.tb, budget_of(max_seconds, max_nodes)?);
        // SAFETY: not null (`put` checked it) and valid for writes by the contract.
        unsafe { out.write(Box::into_raw(Box::new(TogyzSolver { solver }))) };
        Ok(())
    })
}

/// Solves `pos` as [`togyz_tb_solve`] does, with the solver's limits and
/// tables. One thread at a time may use a solver; different solvers, and
/// any probe, may run at once on one handle.
///
/// Errors: as [`togyz_tb_solve`].
///
/// # Safety
/// `solver` is null or a live solver, used by no other thread during the
/// call; `pos` is null or points to a position; `out` is null or valid for
/// writing.
#[no_mangle]
pub unsafe extern "C" fn togyz_solver_solve(
    solver: *mut TogyzSolver,
    pos: *const TogyzPosition,
    out: *mut TogyzSearchResult,
) -> TogyzStatus {
    guard(|| {
        // SAFETY: live and not used elsewhere, by the contract; null is
        // refused by `as_mut`.
        let solver = unsafe { solver.as_mut() }.ok_or_else(|| Failure::null("solver"))?;
        // SAFETY: the contract.
        unsafe { solve_into(pos, out, |p| solver.solver.solve(p)) }
    })
}

/// Bounds the memory of the solver's search tables to `max_bytes` (at
/// least 1,000,000): the transposition tables get the largest power of two
/// of entries that fits beside the retrograde solve (a sixteenth of the
/// bound, at most its default 2^18 positions). What the tables held is
/// dropped when their size changes. Without this call a solver takes up to
/// about 387 MB.
///
/// Errors: `NULL_POINTER`, `BAD_ARGUMENT` (`max_bytes` below 1,000,000).
///
/// # Safety
/// `solver` is null or a live solver, used by no other thread during the
/// call.
#[no_mangle]
pub unsafe extern "C" fn togyz_solver_set_memory(
    solver: *mut TogyzSolver,
    max_bytes: u64,
) -> TogyzStatus {
    guard(|| {
        // SAFETY: live and not used elsewhere, by the contract; null is
        // refused by `as_mut`.
        let solver = unsafe { solver.as_mut() }.ok_or_else(|| Failure::null("solver"))?;
        let budget = solver.solver.budget().with_memory(max_bytes).map_err(|e| {
            Failure::new(
                TogyzStatus::BadArgument,
                format!("max_bytes {max_bytes}: {e}"),
            )
        })?;
        solver.solver.set_budget(budget);
        Ok(())
    })
}

/// Frees a solver and its tables. Null is allowed and does nothing.
///
/// # Safety
/// `solver` is null or a solver from [`togyz_solver_new`] not freed yet and
/// in use by no thread.
#[no_mangle]
pub unsafe extern "C" fn togyz_solver_free(solver: *mut TogyzSolver) {
    let _ = guard(|| {
        if !solver.is_null() {
            // SAFETY: made by `Box::into_raw` in `togyz_solver_new` and
            // not freed yet, by the contract.
            drop(unsafe { Box::from_raw(solver) });
        }
        Ok(())
    });
}
