//! The C ABI's FEN and probe calls on fuzzed bytes: the input up to its
//! first NUL as a C string for `togyz_position_from_fen`, and the raw
//! bytes as a `TogyzPosition` for the FEN writer and the probes, over the
//! tables for 1..=4 stones. Never a panic (caught, it would be the status
//! INTERNAL, which is refused here too) and never an out-of-bounds write.
#![no_main]

use std::ffi::CString;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use togyz_tb_capi::*;

struct Tb(*mut TogyzTb);
// SAFETY: the handle is shared read-only; the C ABI allows probes from
// any thread on one handle.
unsafe impl Send for Tb {}
// SAFETY: as above.
unsafe impl Sync for Tb {}

fn tables() -> *const TogyzTb {
    static TB: OnceLock<Tb> = OnceLock::new();
    TB.get_or_init(|| {
        let dir = togyz_gen::fixture::small_tables();
        let path = CString::new(dir.as_os_str().as_encoded_bytes()).unwrap();
        let dirs = [path.as_ptr()];
        let mut tb = std::ptr::null_mut();
        // SAFETY: one valid NUL-terminated path, `tb` valid for writing.
        let status = unsafe { togyz_tb_open(dirs.as_ptr(), 1, 1 << 20, &mut tb) };
        assert_eq!(status, TogyzStatus::Ok);
        Tb(tb)
    })
    .0
}

fn empty() -> TogyzPosition {
    TogyzPosition {
        holes: [0; 18],
        kazans: [0; 2],
        tuzdyks: [0; 2],
        side_to_move: 0,
        move_number: 0,
    }
}

fn ok_or_refused(status: TogyzStatus) {
    assert_ne!(status, TogyzStatus::Internal, "{}", last_error());
    if status != TogyzStatus::Ok {
        assert!(!last_error().is_empty());
    }
}

fn last_error() -> String {
    // SAFETY: never null, NUL-terminated, valid until the next failure.
    unsafe { std::ffi::CStr::from_ptr(togyz_tb_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// The FEN writer into a buffer of every short length and of the full
/// size, with guard bytes after it; the FEN read back is the position.
fn fen_round_trip(pos: &TogyzPosition) {
    let mut buf = [0x55u8; TOGYZ_FEN_MAX + 8];
    for len in [0, 1, 20, TOGYZ_FEN_MAX] {
        buf.fill(0x55);
        // SAFETY: `buf` is valid for `len <= buf.len()` bytes.
        let status = unsafe { togyz_position_to_fen(pos, buf.as_mut_ptr().cast(), len) };
        ok_or_refused(status);
        assert!(buf[len..].iter().all(|&b| b == 0x55), "wrote past {len}");
        if status == TogyzStatus::Ok {
            let nul = buf[..len]
                .iter()
                .position(|&b| b == 0)
                .expect("NUL-terminated");
            let mut back = empty();
            // SAFETY: NUL-terminated, `back` valid for writing.
            let status = unsafe { togyz_position_from_fen(buf.as_ptr().cast(), &mut back) };
            assert_eq!(
                status,
                TogyzStatus::Ok,
                "{}: {}",
                String::from_utf8_lossy(&buf[..nul]),
                last_error()
            );
            assert_eq!(back, *pos);
        }
    }
}

fn probes(pos: &TogyzPosition) {
    let tb = tables();
    let mut wdl = TogyzWdl::Draw;
    // SAFETY: live handle, valid position and output.
    ok_or_refused(unsafe { togyz_tb_wdl(tb, pos, &mut wdl) });
    let mut value = std::mem::MaybeUninit::<TogyzValue>::uninit();
    // SAFETY: as above.
    ok_or_refused(unsafe { togyz_tb_value(tb, pos, value.as_mut_ptr()) });
    let mut moves = [std::mem::MaybeUninit::<TogyzRootMove>::uninit(); TOGYZ_MAX_MOVES];
    let mut count = 0usize;
    for capacity in [0, 1, TOGYZ_MAX_MOVES] {
        // SAFETY: `moves` holds `capacity` moves; `count` valid for writing.
        let status =
            unsafe { togyz_tb_root(tb, pos, moves.as_mut_ptr().cast(), capacity, &mut count) };
        ok_or_refused(status);
        if status == TogyzStatus::Ok {
            assert!(count <= capacity);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    // The bytes as a FEN, up to the first NUL.
    let text: Vec<u8> = data.iter().copied().take_while(|&b| b != 0).collect();
    let fen = CString::new(text).unwrap();
    let mut pos = empty();
    // SAFETY: NUL-terminated, `pos` valid for writing.
    let status = unsafe { togyz_position_from_fen(fen.as_ptr(), &mut pos) };
    ok_or_refused(status);
    if status == TogyzStatus::Ok {
        fen_round_trip(&pos);
        probes(&pos);
    }
    // The bytes as a position, field by field, whatever they hold.
    if let Some(b) = data.get(..27) {
        let raw = TogyzPosition {
            holes: b[..18].try_into().unwrap(),
            kazans: [b[18], b[19]],
            tuzdyks: [b[20], b[21]],
            side_to_move: b[22],
            move_number: u32::from_le_bytes(b[23..27].try_into().unwrap()),
        };
        fen_round_trip(&raw);
        probes(&raw);
    }
});
