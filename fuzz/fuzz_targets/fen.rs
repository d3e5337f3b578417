//! The FEN parser: never a panic, and any FEN it accepts prints back as
//! itself (whitespace normalised) and parses to the same position.
#![no_main]

use libfuzzer_sys::fuzz_target;
use togyz_probe::notation::parse_fen;
use togyz_probe::Position;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_fen(text) {
        Ok(pos) => {
            let fen = pos.fen();
            // Documented: the canonical form is the only one accepted.
            let normalised = text.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(fen, normalised, "accepted {text:?}");
            let back: Position = fen.parse().expect("a printed FEN parses");
            assert_eq!(back, pos, "{text:?} -> {fen:?}");
            assert_eq!(back.fen(), fen);
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
