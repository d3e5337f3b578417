//! The FEN parser: never a panic, and any FEN it accepts prints back as
//! itself (white space and the side's case normalised) and parses to the
//! same position.
#![no_main]

use libfuzzer_sys::fuzz_target;
use togyz_tb::notation::parse_fen;
use togyz_tb::Position;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_fen(text) {
        Ok(pos) => {
            let fen = pos.fen();
            // Documented: the canonical form is the only one accepted, but
            // for white space and the side to move's case (`s`, `n`).
            let mut fields: Vec<String> = text.split_whitespace().map(str::to_string).collect();
            if let Some(side) = fields.get_mut(3) {
                *side = side.to_uppercase();
            }
            let normalised = fields.join(" ");
            assert_eq!(fen, normalised, "accepted {text:?}");
            let back: Position = fen.parse().expect("a printed FEN parses");
            assert_eq!(back, pos, "{text:?} -> {fen:?}");
            assert_eq!(back.fen(), fen);
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
