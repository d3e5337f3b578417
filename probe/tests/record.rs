//! The sample PlayOK records replay with every landing and kazan checked,
//! and end where their results say; damaged copies are caught.

use togyz_tb::record::{parse_records, RecordedResult, ReplayError};
use togyz_tb::Side;

const SAMPLE: &str = include_str!("data/sample-playok.txt");

#[test]
fn the_three_samples_replay_to_their_results() {
    for text in [SAMPLE.to_owned(), SAMPLE.replace('\n', "\r\n")] {
        let games = parse_records(&text);
        assert_eq!(games.len(), 3);
        let expected = [
            (RecordedResult::SouthWins, 79),
            (RecordedResult::NorthWins, 90),
            (RecordedResult::SouthWins, 102),
        ];
        for (g, (result, plies)) in games.iter().zip(expected) {
            let g = g.as_ref().unwrap();
            assert_eq!(
                (g.tag("White"), g.tag("Black")),
                (Some("south"), Some("north"))
            );
            assert_eq!(g.result, Some(result));
            let replay = g
                .replay()
                .unwrap_or_else(|e| panic!("game at line {}: {e}", g.line));
            assert_eq!(replay.moves.len(), plies);
            // White is South: the first two games end with the recorded
            // winner's kazan over 81. The third ends with South to move and
            // no stones: by docs/rules.md North collects the 5 left and wins
            // 83:79, though the record says 1-0 (annotate reports this).
            let o = replay.positions.last().unwrap().outcome().unwrap();
            if plies == 102 {
                assert_eq!((o.winner, o.score), (Some(Side::North), [79, 83]));
            } else {
                assert_eq!(o.winner, result.winner());
            }
        }
    }
}

#[test]
fn a_wrong_kazan_or_landing_names_the_ply_and_the_next_game_goes_on() {
    // Game 1, ply 3 is `23`, ply 4 `33(22)`.
    let bad_kazan = SAMPLE.replacen("33(22)", "33(24)", 1);
    let games = parse_records(&bad_kazan);
    let err = games[0].as_ref().unwrap().replay().unwrap_err();
    assert!(
        matches!(
            err,
            ReplayError::Kazan {
                ply: 4,
                recorded: 24,
                actual: 22,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        err.to_string().split(':').next(),
        Some("ply 4 (2... 33 on line 8)")
    );
    assert!(games[1].as_ref().unwrap().replay().is_ok());
    let bad_landing = SAMPLE.replacen("2. 23 ", "2. 24 ", 1);
    let err = parse_records(&bad_landing)[0]
        .as_ref()
        .unwrap()
        .replay()
        .unwrap_err();
    assert!(matches!(err, ReplayError::Move { ply: 3, .. }), "{err}");
}
