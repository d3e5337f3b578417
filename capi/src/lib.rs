//! # togyz-tb C ABI
//!
//! The functions C, C++, JNA and other foreign callers use to probe togyz-tb
//! tables. The header `include/togyz_tb.h` is generated from this file by
//! cbindgen (see `cbindgen.toml`; a test fails when it is stale).
//!
//! The contract every function keeps:
//! - it returns a [`TogyzStatus`]; on failure the message of
//!   [`togyz_tb_last_error`] says why, per thread;
//! - a null pointer or an impossible length is [`TogyzStatus::NullPointer`]
//!   or [`TogyzStatus::BadArgument`], never undefined behaviour;
//! - no panic crosses the boundary: one is caught and reported as
//!   [`TogyzStatus::Internal`];
//! - a [`TogyzTb`] may be probed from any number of threads at once; there
//!   is no global state besides the per-thread error message.
//!
//! Positions cross the boundary as the plain struct [`TogyzPosition`];
//! holes and tuzdyks are numbered 1..9 in their owner's row, the way players
//! name them.

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use togyz_answer::Kind;
use togyz_tb::notation::{self, NotationError};
use togyz_tb::search::{Budget, SearchResult, Solver, Source};
use togyz_tb::{Metric, Value, Wdl};
use togyz_tb::{MoveValue, ProbeError, Tablebase, DEFAULT_CACHE_BYTES};
use togyz_tb::{Position, PositionError, Side};

/// Bytes a FEN written by [`togyz_position_to_fen`] can take, its closing
/// NUL included: a buffer of this size is always large enough.
pub const TOGYZ_FEN_MAX: usize = 128;

/// Most legal moves a position has: a buffer of this many
/// [`TogyzRootMove`]s always holds the answer of [`togyz_tb_root`].
pub const TOGYZ_MAX_MOVES: usize = 9;

/// The block cache [`togyz_tb_open`] users usually want: 256 MiB.
pub const TOGYZ_DEFAULT_CACHE_BYTES: u64 = 268_435_456;
// The header needs a literal; it must stay the Rust library's default.
const _: () = assert!(TOGYZ_DEFAULT_CACHE_BYTES == DEFAULT_CACHE_BYTES);

/// `side_to_move` of a [`TogyzPosition`]: South (P1, "white"), who moves
/// first.
pub const TOGYZ_SOUTH: u8 = 0;
/// `side_to_move` of a [`TogyzPosition`]: North (P2, "black").
pub const TOGYZ_NORTH: u8 = 1;

/// What a call did. Every value other than `TOGYZ_STATUS_OK` comes with a
/// message from [`togyz_tb_last_error`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TogyzStatus {
    /// Done.
    Ok = 0,
    /// A pointer argument that must not be null was null.
    NullPointer = 1,
    /// An argument is out of range: a length too large, a side that is
    /// neither 0 nor 1, a path or FEN that is not valid UTF-8.
    BadArgument = 2,
    /// The FEN text cannot be read.
    BadFen = 3,
    /// The position struct breaks a rule of the game (stones do not add up
    /// to 162, a tuzdyk in a 9th hole or holding stones, both tuzdyks with
    /// the same number).
    BadPosition = 4,
    /// No table holds the position's stone count.
    MissingTable = 5,
    /// A table file is damaged, or the tables contradict each other.
    DamagedTable = 6,
    /// A tables folder or file could not be read.
    Io = 7,
    /// The output buffer is too small; the call says how large it must be.
    BufferTooSmall = 8,
    /// A bug in togyz-tb (a caught panic). Please report the message.
    Internal = 9,
}

/// Win, draw or loss, for the side to move (or for the mover in a
/// [`TogyzRootMove`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TogyzWdl {
    /// A loss with best play.
    Loss = -1,
    /// Neither side can force a win.
    Draw = 0,
    /// A win with best play.
    Win = 1,
}

/// What the distance of a [`TogyzValue`] counts.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TogyzMetric {
    /// No distance: the value is a draw.
    None = 0,
    /// Distance to mate: plies to the end of the game, the winner hurrying
    /// and the loser delaying. The metric of today's tables.
    Dtm = 1,
    /// Distance to conversion: plies to the next capture, tuzdyk or end
    /// of the game, the winner heading for a conversion that keeps the win
    /// (the metric of tables written with `togyz-gen generate --metric
    /// dtc`).
    Dtc = 2,
}

/// A position, in the form players read it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TogyzPosition {
    /// Stones in each hole: `holes[0..9]` are South's holes 1..9,
    /// `holes[9..18]` North's holes 1..9 (the order of sowing). A tuzdyk
    /// holds 0.
    pub holes: [u8; 18],
    /// Kazans: `kazans[0]` South's, `kazans[1]` North's. Board and kazans
    /// hold 162 stones together.
    pub kazans: [u8; 2],
    /// `tuzdyks[0]`: South's tuzdyk, a hole number 1..8 in North's row, or
    /// 0 for none; `tuzdyks[1]`: North's, in South's row.
    pub tuzdyks: [u8; 2],
    /// [`TOGYZ_SOUTH`] or [`TOGYZ_NORTH`].
    pub side_to_move: u8,
    /// The move number of the FEN, kept for round trips; it must be at
    /// least 1. The rules ignore it.
    pub move_number: u32,
}

/// An exact value: who wins and how far away the end is.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TogyzValue {
    /// Win, draw or loss.
    pub wdl: TogyzWdl,
    /// What `distance` counts: the metric of the table holding the
    /// position ([`TogyzMetric::Dtm`] or [`TogyzMetric::Dtc`]) for a win or
    /// loss, [`TogyzMetric::None`] for a draw.
    pub metric: TogyzMetric,
    /// Plies to the end in `metric`; 0 for a draw and for a finished game.
    pub distance: u32,
}

/// One legal move of a root probe, with its value for the player making it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TogyzRootMove {
    /// The hole played, 1..9 in the mover's row.
    pub hole: u8,
    /// The move in traditional notation (`65`, `36x`), NUL-terminated.
    pub traditional: [c_char; 8],
    /// The move in PlayStrategy UCI notation (`f1e2`), NUL-terminated.
    pub uci: [c_char; 8],
    /// The value for the mover, counted from the position before the move
    /// (the move itself is ply 1).
    pub value: TogyzValue,
}

/// Where a [`TogyzSearchResult`] comes from.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TogyzSource {
    /// The game is over, or the kazans alone settle it.
    Rules = 0,
    /// The tables cover the position.
    Tables = 1,
    /// Proof search down to the tables.
    Search = 2,
}

/// What [`togyz_tb_solve`] showed about a position, for its side to move:
/// its value lies between `lower` and `upper` (loss < draw < win). It is
/// proven when the two are equal; a search that ran out of time or nodes
/// leaves them apart (`DRAW..WIN` is "at least a draw").
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TogyzSearchResult {
    /// The value is at least this.
    pub lower: TogyzWdl,
    /// The value is at most this.
    pub upper: TogyzWdl,
    /// 1 when `lower == upper`, else 0.
    pub proven: u8,
    /// When proven and the game is not over: the hole (1..9 in the
    /// mover's row) of a move that achieves the value; else 0.
    pub best_hole: u8,
    /// That move in traditional notation (`65`, `36x`), NUL-terminated;
    /// empty when `best_hole` is 0.
    pub best_traditional: [c_char; 8],
    /// Where the answer comes from.
    pub source: TogyzSource,
    /// The tables used: every position with at most this many stones.
    pub table_stones: u32,
    /// Nodes the depth-first provers visited.
    pub nodes: u64,
    /// Positions the retrograde solve above the tables enumerated.
    pub graph_positions: u64,
    /// Wall time spent, in seconds.
    pub seconds: f64,
}

/// Open tables: the handle [`togyz_tb_open`] returns. Opaque to C; free it
/// with [`togyz_tb_close`].
pub struct TogyzTb {
    tb: Tablebase,
}

// Probing from many threads at once is part of the contract.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<TogyzTb>();
};

/// A proof searcher over one handle's tables that keeps its search tables
/// between calls: made by [`togyz_solver_new`], freed by
/// [`togyz_solver_free`]. Opaque to C.
pub struct TogyzSolver {
    /// Borrows the handle's tables: `togyz_solver_new`'s contract keeps
    /// the handle open until the solver is freed.
    solver: Solver<'static>,
}

/// Why a call failed: its status and message.
struct Failure {
    status: TogyzStatus,
    message: String,
}

impl Failure {
    fn new(status: TogyzStatus, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }

    fn null(what: &str) -> Failure {
        Failure::new(
            TogyzStatus::NullPointer,
            format!("{what} is a null pointer"),
        )
    }
}

impl From<ProbeError> for Failure {
    fn from(e: ProbeError) -> Failure {
        let status = match Kind::of_probe(&e) {
            Kind::NoTable => TogyzStatus::MissingTable,
            Kind::UnreadableTable => TogyzStatus::Io,
            _ => TogyzStatus::DamagedTable,
        };
        Failure::new(status, e.to_string())
    }
}

thread_local! {
    /// The message of this thread's last failed call.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    // A NUL inside would cut the message short in C.
    let text = CString::new(message.replace('\0', "?")).unwrap_or_default();
    // `try_with`: a call from a thread-local destructor must not panic.
    let _ = LAST_ERROR.try_with(|e| {
        if let Ok(mut e) = e.try_borrow_mut() {
            *e = text;
        }
    });
}

/// Runs `f`, turning its failure or panic into a status and the thread's
/// last-error message.
fn guard(f: impl FnOnce() -> Result<(), Failure>) -> TogyzStatus {
    let failure = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => return TogyzStatus::Ok,
        Ok(Err(failure)) => failure,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Failure::new(
                TogyzStatus::Internal,
                format!("internal error in togyz-tb (please report it): {what}"),
            )
        }
    };
    set_last_error(&failure.message);
    failure.status
}

/// A reference from a pointer that must not be null.
///
/// # Safety
/// `p` is null or points to a live, aligned `T` for `'a`.
unsafe fn deref<'a, T>(p: *const T, what: &str) -> Result<&'a T, Failure> {
    // SAFETY: the caller's contract; null is refused by `as_ref`.
    unsafe { p.as_ref() }.ok_or_else(|| Failure::null(what))
}

/// Writes `value` through an output pointer that must not be null.
///
/// # Safety
/// `p` is null or valid for writing a `T`.
unsafe fn put<T>(p: *mut T, value: T, what: &str) -> Result<(), Failure> {
    if p.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: not null, and valid for writes by the caller's contract;
    // `write` does not read or drop the old (maybe uninitialised) value.
    unsafe { p.write(value) };
    Ok(())
}

/// The text of a NUL-terminated string that must be UTF-8.
///
/// # Safety
/// `s` is null or points to a NUL-terminated string live for `'a`.
unsafe fn text<'a>(s: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if s.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: not null and NUL-terminated by the caller's contract.
    let c = unsafe { CStr::from_ptr(s) };
    c.to_str()
        .map_err(|_| Failure::new(TogyzStatus::BadArgument, format!("{what} is not UTF-8")))
}

/// A NUL-terminated copy of `s` into a fixed array (`s` is short ASCII).
fn fixed_text<const N: usize>(s: &str) -> [c_char; N] {
    let mut out = [0 as c_char; N];
    for (o, b) in out.iter_mut().zip(s.bytes().take(N - 1)) {
        *o = b as c_char;
    }
    out
}

/// Converts the C struct to a checked [`Position`] and hands it to `f`.
// Inlined, with the failures out of line, and `f` borrows the position
// where `Position::new` wrote it: moving it into another `Result` cost a
// store-forwarding stall on every probe.
#[inline(always)]
fn with_position<T>(
    p: &TogyzPosition,
    f: impl FnOnce(&Position) -> Result<T, Failure>,
) -> Result<T, Failure> {
    let side = match p.side_to_move {
        TOGYZ_SOUTH => Side::South,
        TOGYZ_NORTH => Side::North,
        s => return Err(bad_side(s)),
    };
    // 0 is "none"; `Position::new` checks the other numbers.
    let tuzdyk = |number: u8| (number != 0).then_some(number);
    let tuzdyks = [tuzdyk(p.tuzdyks[0]), tuzdyk(p.tuzdyks[1])];
    match Position::new(p.holes, p.kazans, tuzdyks, side, p.move_number) {
        Ok(ref pos) => f(pos),
        Err(e) => Err(bad_position(e)),
    }
}

/// Converts the C struct to a checked [`Position`].
fn position_from_c(p: &TogyzPosition) -> Result<Position, Failure> {
    with_position(p, |pos| Ok(*pos))
}

#[cold]
fn bad_side(s: u8) -> Failure {
    Failure::new(
        TogyzStatus::BadArgument,
        format!("side_to_move is {s}: it must be 0 (South) or 1 (North)"),
    )
}

#[cold]
fn bad_position(e: PositionError) -> Failure {
    Failure::new(TogyzStatus::BadPosition, e.to_string())
}

/// Converts a [`Position`] to the C struct.
fn position_to_c(pos: &Position) -> TogyzPosition {
    let number = |side| pos.tuzdyk(side).unwrap_or(0);
    TogyzPosition {
        holes: *pos.holes(),
        kazans: pos.kazans(),
        tuzdyks: [number(Side::South), number(Side::North)],
        side_to_move: pos.side_to_move().index() as u8,
        move_number: pos.move_number(),
    }
}

fn wdl_to_c(wdl: Wdl) -> TogyzWdl {
    match wdl {
        Wdl::Loss => TogyzWdl::Loss,
        Wdl::Draw => TogyzWdl::Draw,
        Wdl::Win => TogyzWdl::Win,
    }
}

fn value_to_c(value: Value, metric: Metric) -> TogyzValue {
    match value.distance() {
        Some(d) => TogyzValue {
            wdl: wdl_to_c(value.wdl()),
            metric: match metric {
                Metric::Dtm => TogyzMetric::Dtm,
                Metric::Dtc => TogyzMetric::Dtc,
            },
            distance: d,
        },
        None => TogyzValue {
            wdl: wdl_to_c(value.wdl()),
            metric: TogyzMetric::None,
            distance: 0,
        },
    }
}

fn root_move_to_c(pos: &Position, m: &MoveValue) -> Result<TogyzRootMove, Failure> {
    let notation_failure = |e: NotationError| Failure::new(TogyzStatus::Internal, e.to_string());
    Ok(TogyzRootMove {
        hole: m.mv.hole(),
        traditional: fixed_text(&notation::traditional(pos, m.mv).map_err(notation_failure)?),
        uci: fixed_text(&notation::uci(pos, m.mv).map_err(notation_failure)?),
        value: value_to_c(m.value, m.metric),
    })
}

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
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        // SAFETY: not null and valid for writes by the contract.
        unsafe { out.write(std::ptr::null_mut()) };
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
        // SAFETY: as above.
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
/// threads and a retrograde solve of the positions reachable above the
/// tables), within `max_seconds` of wall time and `max_nodes` nodes per
/// question; 0 lifts either limit, but not both. The answer is *proven*
/// only when `lower == upper`, never a guess. Memory: up to about 509 MB
/// (two df-pn tables of 224 MiB and the graph's 39 MB) while a hard search
/// fills them, freed on return; a [`TogyzSolver`] takes a smaller bound
/// ([`togyz_solver_set_memory`]). Time: a node limit bounds df-pn, not the
/// retrograde solve beside it, which enumerates up to 2^18 positions
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

/// The budget a caller passed, checked.
fn budget_of(max_seconds: f64, max_nodes: u64) -> Result<Budget, Failure> {
    Budget::limits(max_seconds, max_nodes).map_err(|e| {
        Failure::new(
            TogyzStatus::BadArgument,
            format!("max_seconds {max_seconds}, max_nodes {max_nodes}: {e}"),
        )
    })
}

fn search_result_to_c(pos: &Position, r: &SearchResult) -> Result<TogyzSearchResult, Failure> {
    let best = r.proven().and(r.best_move);
    let best_text = match best {
        Some(mv) => notation::traditional(pos, mv)
            .map_err(|e| Failure::new(TogyzStatus::Internal, e.to_string()))?,
        None => String::new(),
    };
    Ok(TogyzSearchResult {
        lower: wdl_to_c(r.lower),
        upper: wdl_to_c(r.upper),
        proven: u8::from(r.proven().is_some()),
        best_hole: best.map_or(0, |mv| mv.hole()),
        best_traditional: fixed_text(&best_text),
        source: match r.source {
            Source::Rules => TogyzSource::Rules,
            Source::Tables => TogyzSource::Tables,
            Source::Search => TogyzSource::Search,
        },
        table_stones: r.table_stones,
        nodes: r.nodes,
        graph_positions: r.graph_positions,
        seconds: r.elapsed.as_secs_f64(),
    })
}

/// Makes a solver over the tables of `tb`: it keeps its search tables from
/// one [`togyz_solver_solve`] to the next, so the positions of one game help
/// each other (walking a game backwards, each search starts from what the
/// later ones proved). Each search gets `max_seconds` and `max_nodes` as in
/// [`togyz_tb_solve`]. The tables fill up to about 509 MB (less with
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
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        // SAFETY: not null and valid for writes by the contract.
        unsafe { out.write(std::ptr::null_mut()) };
        // SAFETY: the contract: live, and open until the solver is freed,
        // so the borrow may outlive this call.
        let tb: &'static TogyzTb = unsafe { deref(tb, "tb") }?;
        let solver = Solver::new(&tb.tb, budget_of(max_seconds, max_nodes)?);
        // SAFETY: as above.
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
/// about 509 MB.
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

#[cfg(test)]
mod tests {
    use super::*;
    use togyz_tb::{CYCLE, ROW};

    fn c(s: &str) -> CString {
        CString::new(s).unwrap()
    }

    fn last_error() -> String {
        // SAFETY: never null, NUL-terminated.
        unsafe { CStr::from_ptr(togyz_tb_last_error()) }
            .to_str()
            .unwrap()
            .to_owned()
    }

    #[test]
    fn fen_round_trip_through_the_struct() {
        for fen in [
            "7,2S,1/8,2S 79 79 S 1",
            "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1",
        ] {
            let mut p = std::mem::MaybeUninit::<TogyzPosition>::uninit();
            // SAFETY: valid pointers.
            let s = unsafe { togyz_position_from_fen(c(fen).as_ptr(), p.as_mut_ptr()) };
            assert_eq!(s, TogyzStatus::Ok, "{}", last_error());
            // SAFETY: written on success.
            let p = unsafe { p.assume_init() };
            let mut buf = [0 as c_char; TOGYZ_FEN_MAX];
            // SAFETY: valid pointers and length.
            let s = unsafe { togyz_position_to_fen(&p, buf.as_mut_ptr(), buf.len()) };
            assert_eq!(s, TogyzStatus::Ok, "{}", last_error());
            // SAFETY: NUL-terminated on success.
            let back = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap();
            assert_eq!(back, notation::parse_fen(fen).unwrap().fen());
        }
    }

    #[test]
    fn the_struct_reads_as_players_do() {
        // South's hole 2 and 3 ("1" run of empties, then 2S...): parse a FEN
        // with a tuzdyk and check the struct names it by hole number.
        let pos = Position::new(
            {
                let mut h = [0u8; CYCLE];
                h[0] = 5; // South's hole 1
                h[ROW + 8] = 4; // North's hole 9
                h
            },
            [80, 73],
            [Some(3), Some(7)], // South's tuzdyk: North's hole 3; North's: South's 7
            Side::North,
            12,
        )
        .unwrap();
        let c_pos = position_to_c(&pos);
        assert_eq!(c_pos.holes[0], 5);
        assert_eq!(c_pos.holes[17], 4);
        assert_eq!(c_pos.tuzdyks, [3, 7]);
        assert_eq!(c_pos.side_to_move, TOGYZ_NORTH);
        assert_eq!(c_pos.move_number, 12);
        assert_eq!(position_from_c(&c_pos).ok(), Some(pos));
    }

    #[test]
    fn bad_structs_and_pointers_are_errors() {
        let mut p = position_to_c(&Position::start());
        let mut buf = [0 as c_char; TOGYZ_FEN_MAX];
        // SAFETY: null and valid pointers only.
        unsafe {
            assert_eq!(
                togyz_position_to_fen(std::ptr::null(), buf.as_mut_ptr(), buf.len()),
                TogyzStatus::NullPointer
            );
            assert_eq!(last_error(), "pos is a null pointer");
            assert_eq!(
                togyz_position_to_fen(&p, std::ptr::null_mut(), 10),
                TogyzStatus::NullPointer
            );
            assert_eq!(
                togyz_position_to_fen(&p, buf.as_mut_ptr(), 10),
                TogyzStatus::BufferTooSmall
            );
            p.side_to_move = 2;
            assert_eq!(
                togyz_position_to_fen(&p, buf.as_mut_ptr(), buf.len()),
                TogyzStatus::BadArgument
            );
            p.side_to_move = TOGYZ_SOUTH;
            p.holes[0] += 1;
            assert_eq!(
                togyz_position_to_fen(&p, buf.as_mut_ptr(), buf.len()),
                TogyzStatus::BadPosition
            );
            assert!(last_error().contains("162"), "{}", last_error());
            p.holes[0] -= 1;
            p.tuzdyks[0] = 10;
            assert_eq!(
                togyz_position_to_fen(&p, buf.as_mut_ptr(), buf.len()),
                TogyzStatus::BadPosition
            );
            assert_eq!(
                togyz_position_from_fen(c("9S/9S 0 0 S 1").as_ptr(), &mut p),
                TogyzStatus::BadFen
            );
            let bad_utf8 = [0xffu8 as c_char, 0];
            assert_eq!(
                togyz_position_from_fen(bad_utf8.as_ptr(), &mut p),
                TogyzStatus::BadArgument
            );
            let mut out = std::ptr::null_mut();
            assert_eq!(
                togyz_tb_open(std::ptr::null(), 1, 0, &mut out),
                TogyzStatus::NullPointer
            );
            assert_eq!(
                togyz_tb_open(std::ptr::null(), usize::MAX, 0, &mut out),
                TogyzStatus::BadArgument
            );
            assert_eq!(
                togyz_tb_wdl(std::ptr::null(), &p, &mut TogyzWdl::Draw),
                TogyzStatus::NullPointer
            );
            togyz_tb_close(std::ptr::null_mut());
        }
    }

    #[test]
    fn messages_are_per_thread() {
        let mut p = position_to_c(&Position::start());
        // SAFETY: valid pointers.
        let s = unsafe { togyz_position_from_fen(c("nonsense").as_ptr(), &mut p) };
        assert_eq!(s, TogyzStatus::BadFen);
        let here = last_error();
        assert!(!here.is_empty());
        let there = std::thread::spawn(last_error).join().unwrap();
        assert_eq!(there, "");
        assert_eq!(last_error(), here);
    }

    #[test]
    fn a_panic_stays_on_this_side() {
        let s = guard(|| panic!("boom"));
        assert_eq!(s, TogyzStatus::Internal);
        assert!(last_error().contains("boom"), "{}", last_error());
    }
}
