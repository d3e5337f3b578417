//! The move parsers (bare hole, traditional, UCI, and `parse_move` which
//! picks one) on a position made from the first bytes and a text from the
//! rest: never a panic; a move accepted is legal and writes back, in each
//! notation, to a text that reads as the same move; every legal move's
//! notations read back as it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use togyz_tb::notation::NotationError;
use togyz_tb::notation::{parse_hole, parse_move, parse_traditional, parse_uci, traditional, uci};
use togyz_tb::{Move, Position};

fn check_accepted(pos: &Position, text: &str, parsed: Result<Move, NotationError>) {
    match parsed {
        Ok(mv) => {
            assert!(pos.is_legal(mv), "{pos}: `{text}` read as illegal {mv}");
            let t = traditional(pos, mv).expect("a legal move writes");
            let u = uci(pos, mv).expect("a legal move writes");
            assert_eq!(parse_traditional(pos, &t), Ok(mv), "{pos}: {t}");
            assert_eq!(parse_uci(pos, &u), Ok(mv), "{pos}: {u}");
            assert_eq!(parse_move(pos, &t), Ok(mv), "{pos}: {t}");
            assert_eq!(parse_move(pos, &u), Ok(mv), "{pos}: {u}");
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((pos, rest)) = togyz_fuzz::position(data) else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let any = parse_move(&pos, &text);
    check_accepted(&pos, &text, any.clone());
    for parsed in [
        parse_hole(&pos, &text),
        parse_traditional(&pos, &text),
        parse_uci(&pos, &text),
    ] {
        // Whatever a specific parser accepts, parse_move reads the same
        // way or refuses as another notation; never a different move.
        if let (Ok(a), Ok(b)) = (&parsed, &any) {
            assert_eq!(a, b, "{pos}: `{text}`");
        }
        check_accepted(&pos, &text, parsed);
    }
    for mv in pos.legal_moves() {
        let t = traditional(&pos, mv).expect("a legal move writes");
        assert_eq!(parse_move(&pos, &t), Ok(mv), "{pos}: {t}");
        assert_eq!(parse_move(&pos, &mv.to_string()), Ok(mv), "{pos}: {mv}");
        let u = uci(&pos, mv).expect("a legal move writes");
        assert_eq!(parse_move(&pos, &u), Ok(mv), "{pos}: {u}");
    }
});
