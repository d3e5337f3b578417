//! The game record reader and the replay: never a panic; a game that
//! replays has one position more than moves, each the one before after
//! its move.
#![no_main]

use libfuzzer_sys::fuzz_target;
use togyz_tb::record::parse_records;

fuzz_target!(|data: &[u8]| {
    // Records come in several encodings; the reader takes text, so other
    // bytes reach it the way a lossy decoder passes them on.
    let text = String::from_utf8_lossy(data);
    for game in parse_records(&text) {
        let game = match game {
            Ok(g) => g,
            Err(e) => {
                assert!(!e.to_string().is_empty());
                continue;
            }
        };
        let _ = game.to_string();
        match game.replay() {
            Ok(r) => {
                assert_eq!(r.positions.len(), r.moves.len() + 1);
                assert_eq!(r.moves.len(), game.moves.len());
                assert_eq!(Ok(r.positions[0]), game.start());
                assert_eq!(r.positions[0].side_to_move(), game.first_mover());
                for (i, mv) in r.moves.iter().enumerate() {
                    assert_eq!(r.positions[i].after(*mv), Ok(r.positions[i + 1]));
                }
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
});
