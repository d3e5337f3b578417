//! # togyz-tb C ABI
//!
//! The functions C, C++, JNA and other foreign callers use to probe togyz-tb
//! tables. The header `include/togyz_tb.h` is generated from this crate by
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

mod calls;
mod convert;
mod error;
mod types;

pub use calls::*;
pub use types::*;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::{position_from_c, position_to_c};
    use crate::error::guard;
    use std::ffi::{c_char, CStr, CString};
    use togyz_tb::{notation, Position, Side};
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
