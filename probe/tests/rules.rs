//! Every rule and every worked example of docs/rules.md, played through the
//! public API. Expected boards are worked
//! out by hand in the comments, not computed by the code under test.

use togyz_tb::notation::{
    parse_fen, parse_move, result_text, traditional, uci, IllegalReason, NotationError,
};
use togyz_tb::{
    perft, EndReason, IllegalMove, Move, MoveReport, Position, PositionError, Side, CYCLE, ROW,
};

const START: &str = "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1";

fn fen(s: &str) -> Position {
    parse_fen(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// Plays `text` (either notation) and checks the traditional form it prints.
fn play(pos: &mut Position, text: &str) -> MoveReport {
    let mv = parse_move(pos, text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let report = pos.play(mv).unwrap_or_else(|e| panic!("{text}: {e}"));
    if text.as_bytes()[0].is_ascii_digit() {
        assert_eq!(report.traditional(), text);
    } else {
        assert_eq!(report.uci(), text);
    }
    report
}

fn total(pos: &Position) -> u32 {
    pos.stones_on_board() + pos.kazan(Side::South) as u32 + pos.kazan(Side::North) as u32
}

// ---------------------------------------------------------------- examples

#[test]
fn example_1_south_six_captures_ten() {
    let mut p = Position::start();
    let r = play(&mut p, "65");
    assert_eq!(r.captured, 10);
    assert_eq!(r.uci(), "f1e2");
    assert_eq!(r.tuzdyk_made, None);
    assert_eq!(
        p.fen(),
        "9S,9S,9S,9S,1,10S,10S,10S,10S/9S,9S,9S,9S,9S,1S,10S,10S,10S 10 0 N 1"
    );
    assert_eq!(p.outcome(), None);
}

#[test]
fn example_2_nine_eight_both_sides() {
    let mut p = Position::start();
    let r = play(&mut p, "98");
    assert_eq!(r.captured, 10);
    assert_eq!(p.kazans(), [10, 0]);
    let r = play(&mut p, "98");
    assert_eq!(r.mover, Side::North);
    assert_eq!(r.captured, 10);
    assert_eq!(p.kazans(), [10, 10]);
    assert_eq!(p.stones_on_board(), 142);
    assert_eq!(total(&p), 162);
    // S9 and N9 keep 1; S8 and N8 were emptied; the rest got one stone.
    assert_eq!(
        p.fen(),
        "1S,1,10S,10S,10S,10S,10S,10S,10S/10S,10S,10S,10S,10S,10S,10S,1,1S 10 10 S 2"
    );
}

#[test]
fn example_3_one_extra_move() {
    let mut p = fen("7,2S,1/8,2S 79 79 S 1");
    let expected = [
        ("91", "7,2S,1S/8,1S 79 79 N 1"),
        ("12", "7,3S,1/8,1S 79 79 S 2"),
        ("91", "7,3S,1S/9 79 79 N 2"),
        ("12", "7,4S,1/9 79 79 S 3"),
    ];
    for (ply, (mv, after)) in expected.iter().enumerate() {
        assert_eq!(p.outcome(), None, "over before ply {}", ply + 1);
        let r = play(&mut p, mv);
        assert_eq!(r.captured, 0);
        assert_eq!(p.fen(), *after);
    }
    let o = p.outcome().expect("over after 4 plies");
    assert_eq!(o.winner, Some(Side::North));
    assert_eq!(o.score, [79, 83]);
    assert_eq!(o.reason, EndReason::NoStones);
    assert_eq!(
        result_text(&p).unwrap(),
        "North wins 83:79 (South has no stones; North collects 4)"
    );
    assert_eq!(p.legal_moves().count(), 0);
}

#[test]
fn example_4_mover_without_stones_ends_the_game() {
    let p = fen("9/4S,8 79 79 N 1");
    let o = p.outcome().expect("game over");
    assert_eq!(o.winner, Some(Side::South));
    assert_eq!(o.score, [83, 79]);
    assert_eq!(o.reason, EndReason::NoStones);
    assert_eq!(p.legal_mask(), 0);
    assert_eq!(
        result_text(&p).unwrap(),
        "South wins 83:79 (North has no stones; South collects 4)"
    );
    // The same board with South to move is not over.
    assert_eq!(fen("9/4S,8 79 79 S 1").outcome(), None);
}

#[test]
fn example_5_tuzdyk_deposit_on_opponents_move_ends_the_game() {
    // South owns N3 (`t` in North's row) and has 81. North plays hole 1 (3
    // stones): N1, N2, then N3 is South's tuzdyk: South reaches 82.
    let mut p = fen("5,10S,t,1,3S/10S,8 81 58 N 1");
    let r = play(&mut p, "13");
    assert_eq!(r.fed, [1, 0]);
    assert_eq!(r.captured, 0);
    assert_eq!(p.kazans(), [82, 58]);
    let o = r.outcome.expect("over at once");
    assert_eq!(o.winner, Some(Side::South));
    assert_eq!(o.reason, EndReason::KazanOver81);
    assert_eq!(o.score, [82, 58]);
    // South still has stones, yet cannot move: the game is over.
    assert!(p.row_stones(Side::South) > 0);
    assert_eq!(p.legal_moves().count(), 0);
    assert!(matches!(
        parse_move(&p, "11"),
        Err(NotationError::IllegalMove {
            reason: IllegalReason::Unplayable(IllegalMove::GameOver),
            ..
        })
    ));
    assert_eq!(
        result_text(&p).unwrap(),
        "South wins 82:58 (South's kazan holds more than 81)"
    );
}

// ------------------------------------------------------------------ sowing

#[test]
fn single_stone_moves_to_next_hole_and_wraps_from_north_nine() {
    // N9 holds 1: it goes to S1 (2 -> 3), which becomes North's tuzdyk.
    // North reaches 81; South then has no stones and the board is empty:
    // 81:81, a draw.
    let mut p = fen("1S,8/2S,8 81 78 N 1");
    let r = play(&mut p, "91x");
    assert_eq!(r.last, 0);
    assert_eq!(r.tuzdyk_made, Some(0));
    assert_eq!(p.fen(), "9/t,8 81 81 S 2");
    let o = p.outcome().unwrap();
    assert_eq!(o.winner, None);
    assert_eq!(o.score, [81, 81]);
    assert_eq!(
        result_text(&p).unwrap(),
        "Draw 81:81 (South has no stones; North collects 0)"
    );
}

#[test]
fn single_stone_does_not_stay() {
    // S4 holds 1: it moves to S5; S4 is left empty.
    let mut p = fen("9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,1S,9S,9S,9S,9S,9S 8 0 S 1");
    play(&mut p, "45");
    assert_eq!(
        p.fen(),
        "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,1,10S,9S,9S,9S,9S 8 0 N 1"
    );
}

#[test]
fn eighteen_stones_fill_one_lap_exactly() {
    // S1..N9 get one each, the origin included; the last lands in N9 (1, odd).
    let mut p = fen("9/18S,8 72 72 S 1");
    play(&mut p, "19");
    assert_eq!(
        p.fen(),
        "1S,1S,1S,1S,1S,1S,1S,1S,1S/1S,1S,1S,1S,1S,1S,1S,1S,1S 72 72 N 1"
    );
}

#[test]
fn nineteen_stones_lap_and_end_in_the_origin() {
    // Stone 1 stays in S1, 2..18 go round to N9, stone 19 lands in S1 again.
    let mut p = fen("9/19S,8 71 72 S 1");
    let r = play(&mut p, "11");
    assert_eq!(r.last, 0);
    assert_eq!(
        p.fen(),
        "1S,1S,1S,1S,1S,1S,1S,1S,1S/2S,1S,1S,1S,1S,1S,1S,1S,1S 71 72 N 1"
    );
}

#[test]
fn twenty_stones_origin_gets_a_stone_on_the_second_lap() {
    let mut p = fen("9/20S,8 71 71 S 1");
    play(&mut p, "12");
    assert_eq!(
        p.fen(),
        "1S,1S,1S,1S,1S,1S,1S,1S,1S/2S,2S,1S,1S,1S,1S,1S,1S,1S 71 71 N 1"
    );
}

#[test]
fn thirty_seven_stones_lap_twice() {
    // 37 = 2 * 18 + 1: every hole gets 2, the origin 3 (stones 1, 19, 37).
    let mut p = fen("9/37S,8 63 62 S 1");
    play(&mut p, "11");
    assert_eq!(
        p.fen(),
        "2S,2S,2S,2S,2S,2S,2S,2S,2S/3S,2S,2S,2S,2S,2S,2S,2S,2S 63 62 N 1"
    );
}

#[test]
fn lapping_sowing_can_capture() {
    // 26 stones from S5: S5..S9, N1..N9, S1..S4 (18), S5 again, S6..S9,
    // N1..N3. N3 had 0 and gets 2: even, captured.
    let mut p = fen("9/4,26S,4 68 68 S 1");
    let r = play(&mut p, "53");
    assert_eq!(r.captured, 2);
    assert_eq!(
        p.fen(),
        "1S,1S,1S,1S,1S,1S,1,2S,2S/1S,1S,1S,1S,2S,2S,2S,2S,2S 70 68 N 1"
    );
}

#[test]
fn north_sows_into_south_row() {
    // North's hole 9 with 9 stones: one stays, eight go to S1..S8.
    let mut p = fen("9S,8/1S,8 76 76 N 1");
    let r = play(&mut p, "98");
    // S8 goes 0 -> 1: odd, no capture; S1 (2) is not where it ended.
    assert_eq!(r.captured, 0);
    assert_eq!(p.fen(), "1S,8/2S,1S,1S,1S,1S,1S,1S,1S,1 76 76 S 2");
}

// ---------------------------------------------------------------- captures

#[test]
fn even_count_on_own_side_never_captures() {
    // S1 (2 stones): S1 keeps 1, S2 goes 1 -> 2: even but South's own hole.
    let mut p = fen("9/2S,1S,7 80 79 S 1");
    let r = play(&mut p, "12");
    assert_eq!(r.captured, 0);
    assert_eq!(p.kazans(), [80, 79]);
    // North now has no stones: South collects 3 and wins 83:79.
    let o = p.outcome().unwrap();
    assert_eq!(o.winner, Some(Side::South));
    assert_eq!(o.score, [83, 79]);
}

#[test]
fn odd_count_other_than_three_does_not_capture() {
    // N2 holds 4 and becomes 5.
    let mut p = fen("4,10S,2,4S,1/8,3S 74 71 S 1");
    let r = play(&mut p, "92");
    assert_eq!((r.captured, r.tuzdyk_made), (0, None));
    assert_eq!(p.fen(), "4,10S,2,5S,1S/8,1S 74 71 N 1");
    // N1 empty: the last stone makes 1.
    let mut p = fen("4,10S,4/8,2S 75 75 S 1");
    let r = play(&mut p, "91");
    assert_eq!((r.captured, r.tuzdyk_made), (0, None));
    assert_eq!(p.fen(), "4,10S,3,1S/8,1S 75 75 N 1");
}

#[test]
fn even_count_in_opponent_hole_is_captured() {
    // N2 holds 3 and becomes 4: captured.
    let mut p = fen("4,10S,2,3S,1/8,3S 74 72 S 1");
    let r = play(&mut p, "92");
    assert_eq!(r.captured, 4);
    assert_eq!(p.fen(), "4,10S,3,1S/8,1S 78 72 N 1");
}

// ----------------------------------------------------------------- tuzdyks

/// South plays 9 (3 stones): S9, N1, N2; N2 goes 2 -> 3.
const TUZDYK_BASE: &str = "4,10S,2,2S,1/8,3S 74 73 S 1";

#[test]
fn tuzdyk_is_made_automatically() {
    let mut p = fen(TUZDYK_BASE);
    // Writing it without `x` is an error that shows the right form.
    assert_eq!(
        parse_move(&p, "92").unwrap_err(),
        NotationError::IllegalMove {
            text: "92".into(),
            reason: IllegalReason::MissingTuzdykMark {
                correct: "92x".into()
            }
        }
    );
    let r = play(&mut p, "92x");
    assert_eq!(r.tuzdyk_made, Some(ROW + 1));
    assert_eq!(r.captured, 0);
    assert_eq!(p.tuzdyk(Side::South), Some(2));
    assert_eq!(p.tuzdyk(Side::North), None);
    assert_eq!(p.fen(), "4,10S,2,t,1S/8,1S 77 73 N 1");
    assert_eq!(total(&p), 162);
}

#[test]
fn tuzdyk_refused_when_mover_already_has_one() {
    // South already owns N4: N2 stays at 3.
    let mut p = fen("4,10S,t,1,2S,1/8,3S 74 73 S 1");
    assert!(matches!(
        parse_move(&p, "92x"),
        Err(NotationError::IllegalMove {
            reason: IllegalReason::NoTuzdykMade { .. },
            ..
        })
    ));
    let r = play(&mut p, "92");
    assert_eq!((r.captured, r.tuzdyk_made), (0, None));
    assert_eq!(p.fen(), "4,10S,t,1,3S,1S/8,1S 74 73 N 1");
    assert_eq!(p.tuzdyk(Side::South), Some(4));
}

#[test]
fn tuzdyk_refused_in_opponents_ninth_hole() {
    // S9 with 10: S9 keeps 1, N1..N9 get one; N9 goes 2 -> 3.
    let mut p = fen("2S,8/8,10S 75 75 S 1");
    let r = play(&mut p, "99");
    assert_eq!((r.captured, r.tuzdyk_made), (0, None));
    assert_eq!(p.fen(), "3S,1S,1S,1S,1S,1S,1S,1S,1S/8,1S 75 75 N 1");
    // Control: the same shape one hole shorter makes a tuzdyk in N8.
    let mut p = fen("1,2S,7/8,9S 75 76 S 1");
    let r = play(&mut p, "98x");
    assert_eq!(r.tuzdyk_made, Some(ROW + 7));
    assert_eq!(p.fen(), "1,t,1S,1S,1S,1S,1S,1S,1S/8,1S 78 76 N 1");
}

#[test]
fn tuzdyk_refused_on_the_number_of_opponents_tuzdyk() {
    // North owns S2: South may not take N2.
    let mut p = fen("4,10S,2,2S,1/1,t,6,3S 74 73 S 1");
    let r = play(&mut p, "92");
    assert_eq!((r.captured, r.tuzdyk_made), (0, None));
    assert_eq!(p.fen(), "4,10S,2,3S,1S/1,t,6,1S 74 73 N 1");
    // Control: North owning S3 instead does not stop it.
    let mut p = fen("4,10S,2,2S,1/2,t,5,3S 74 73 S 1");
    let r = play(&mut p, "92x");
    assert_eq!(r.tuzdyk_made, Some(ROW + 1));
    assert_eq!(p.fen(), "4,10S,2,t,1S/2,t,5,1S 77 73 N 1");
}

#[test]
fn tuzdyk_needs_exactly_three() {
    // S9 (3 stones) ends in N2, which held k stones before: only k = 2
    // (3 after) makes a tuzdyk; even results are captures; 1 and 5 nothing.
    let cases = [
        (0u8, 0u8, false),
        (1, 2, false),
        (2, 0, true),
        (3, 4, false),
        (4, 0, false),
    ];
    for (k, captured, made) in cases {
        let north = if k == 0 {
            "4,10S,4".to_string()
        } else {
            format!("4,10S,2,{k}S,1")
        };
        let mut p = fen(&format!("{north}/8,3S 74 {} S 1", 75 - k));
        let mv = if made { "92x" } else { "92" };
        let r = play(&mut p, mv);
        assert_eq!(
            (r.captured, r.tuzdyk_made.is_some()),
            (captured, made),
            "k = {k}"
        );
        assert_eq!(total(&p), 162);
    }
}

#[test]
fn three_stones_off_the_last_hole_make_no_tuzdyk() {
    // S9 with 4: S9, N1, N2 (2 -> 3), N3 (0 -> 1). The 3 in N2 is not where
    // the last stone landed.
    let mut p = fen("4,10S,2,2S,1/8,4S 74 72 S 1");
    let r = play(&mut p, "93");
    assert_eq!((r.captured, r.tuzdyk_made), (0, None));
    assert_eq!(p.fen(), "4,10S,1,1S,3S,1S/8,1S 74 72 N 1");
}

#[test]
fn north_makes_a_tuzdyk_in_south_row() {
    // North plays 9 (3 stones): N9, S1, S2; S2 goes 2 -> 3.
    let mut p = fen("3S,8/1,2S,4,10S,2 74 73 N 1");
    let r = play(&mut p, "92x");
    assert_eq!(r.tuzdyk_made, Some(1));
    assert_eq!(p.tuzdyk(Side::North), Some(2));
    assert_eq!(p.fen(), "1S,8/1S,t,4,10S,2 74 76 S 2");
}

#[test]
fn tuzdyk_hole_cannot_be_played() {
    let p = fen("4,10S,2,t,1S/8,1S 77 73 N 1");
    // North's hole 2 is South's tuzdyk.
    assert_eq!(
        parse_move(&p, "23").unwrap_err(),
        NotationError::IllegalMove {
            text: "23".into(),
            reason: IllegalReason::Unplayable(IllegalMove::TuzdykHole {
                side: Side::North,
                hole: 2,
                owner: Side::South
            })
        }
    );
    let two = Move::new(2).unwrap();
    assert!(!p.is_legal(two));
    // The checked play refuses it and leaves the position as it was.
    let mut q = p;
    assert_eq!(
        q.play(two).unwrap_err(),
        IllegalMove::TuzdykHole {
            side: Side::North,
            hole: 2,
            owner: Side::South
        }
    );
    assert_eq!(q, p);
    assert!(p.after(two).is_err());
}

#[test]
fn south_sows_through_own_tuzdyk() {
    // South owns N2; S9 with 3: S9, N1, N2 -> South's kazan. The last stone
    // lands in the tuzdyk: no capture.
    let mut p = fen("4,10S,2,t,1/8,3S 74 75 S 1");
    let r = play(&mut p, "92");
    assert_eq!(r.fed, [1, 0]);
    assert_eq!(r.captured, 0);
    assert_eq!(p.fen(), "4,10S,2,t,1S/8,1S 75 75 N 1");
}

#[test]
fn south_sows_through_norths_tuzdyk_on_both_laps() {
    // North owns S3. S1 with 21: lap one S1..N9 feeds S3 once, lap two S1,
    // S2, S3 feeds it again and ends there.
    let mut p = fen("9/21S,1,t,6 70 71 S 1");
    let r = play(&mut p, "13");
    assert_eq!(r.fed, [0, 2]);
    assert_eq!(r.captured, 0);
    assert_eq!(r.last, 2);
    assert_eq!(
        p.fen(),
        "1S,1S,1S,1S,1S,1S,1S,1S,1S/2S,2S,t,1S,1S,1S,1S,1S,1S 70 73 N 1"
    );
}

#[test]
fn north_sows_through_own_tuzdyk() {
    // North owns S2; N9 with 3: N9, S1, S2 -> North's kazan.
    let mut p = fen("3S,8/1,t,4,10S,2 74 75 N 1");
    let r = play(&mut p, "92");
    assert_eq!(r.fed, [0, 1]);
    assert_eq!(p.fen(), "1S,8/1S,t,4,10S,2 74 76 S 2");
}

#[test]
fn north_sows_through_souths_tuzdyk() {
    // South owns N4; N1 with 5: N1..N5, N4 feeds South.
    let mut p = fen("4,10S,t,2,5S/8,2S 74 71 N 1");
    let r = play(&mut p, "15");
    assert_eq!(r.fed, [1, 0]);
    // N5 goes 10 -> 11 on North's own side: no capture.
    assert_eq!(p.fen(), "4,11S,t,1S,1S,1S/8,2S 75 71 S 2");
}

#[test]
fn kazan_over_81_takes_precedence_over_an_empty_row() {
    // South to move with no stones, but North already has 82.
    let p = fen("5S,8/9 75 82 S 1");
    let o = p.outcome().unwrap();
    assert_eq!(o.winner, Some(Side::North));
    assert_eq!(o.reason, EndReason::KazanOver81);
    assert_eq!(o.score, [75, 82]);
}

#[test]
fn capture_past_81_ends_the_game() {
    // South has 80 and captures 4 in N2.
    let mut p = fen("4,2S,2,3S,1/8,3S 80 74 S 1");
    let r = play(&mut p, "92");
    assert_eq!(r.captured, 4);
    let o = r.outcome.unwrap();
    assert_eq!(
        (o.winner, o.reason),
        (Some(Side::South), EndReason::KazanOver81)
    );
    assert_eq!(o.score, [84, 74]);
}

#[test]
fn empty_row_after_own_move_is_not_the_end_yet() {
    // South empties its row; North still has stones and moves; only when
    // South is to move without stones does the game end (example 3 too).
    let mut p = fen("7,2S,1/8,2S 79 79 S 1");
    play(&mut p, "91");
    assert_eq!(p.outcome(), None);
}

// ------------------------------------------------------------------- perft

#[test]
fn perft_table_through_depth_8() {
    let expected = [9u64, 73, 613, 5_199, 43_184, 360_035, 3_003_052, 25_166_174];
    let p = Position::start();
    for (d, &n) in expected.iter().enumerate() {
        assert_eq!(perft(&p, d as u32 + 1), n, "depth {}", d + 1);
    }
    assert_eq!(perft(&p, 0), 1);
}

#[test]
fn perft_counts_finished_games_as_leaves() {
    let p = fen("9/4S,8 79 79 N 1");
    for d in 0..4 {
        assert_eq!(perft(&p, d), 1);
    }
    // Example 3: South has one move (91); North then has 12 or 23; after
    // either South again has only 91, and North two answers: 1, 2, 2, 4.
    let p = fen("7,2S,1/8,2S 79 79 S 1");
    let counts: Vec<u64> = (1..=4).map(|d| perft(&p, d)).collect();
    assert_eq!(counts, [1, 2, 2, 4]);
}

// --------------------------------------------------------------- notation

#[test]
fn fen_round_trips() {
    for s in [
        START,
        "9S,9S,9S,9S,1,10S,10S,10S,10S/9S,9S,9S,9S,9S,1S,10S,10S,10S 10 0 N 1",
        "7,2S,1/8,2S 79 79 S 1",
        "4,10S,2,t,1S/2,t,5,1S 77 73 N 1",
        "9/t,8 81 81 S 2",
        "1,t,1S,1S,1S,1S,1S,1S,1S/8,1S 78 76 N 1",
        "162S,8/9 0 0 S 4294967295",
    ] {
        assert_eq!(fen(s).fen(), s);
        assert_eq!(s.parse::<Position>().unwrap().to_string(), s);
    }
    // The fields land where docs/rules.md says: North written from hole 9
    // down, a `t` owned by the player opposite its row; hole numbers 1..=9.
    let p = fen("4,10S,2,t,1S/2,t,5,1S 77 73 N 1");
    assert_eq!(p.hole(Side::North, 5), Some(10));
    assert_eq!(p.hole(Side::North, 1), Some(1));
    assert_eq!(p.hole(Side::South, 9), Some(1));
    assert_eq!(p.hole(Side::South, 0), None);
    assert_eq!(p.hole(Side::South, 10), None);
    assert_eq!(p.tuzdyk(Side::South), Some(2));
    assert_eq!(p.tuzdyk(Side::North), Some(3));
    assert_eq!(p.kazans(), [77, 73]);
    assert_eq!((p.side_to_move(), p.move_number()), (Side::North, 1));
}

#[test]
fn fen_of_random_games_round_trips() {
    // A fixed xorshift stream: the games differ, the test is repeatable.
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut tuzdyks_seen = 0;
    for _ in 0..300 {
        let mut p = Position::start();
        while p.outcome().is_none() {
            let moves: Vec<Move> = p.legal_moves().collect();
            let mv = moves[(next() % moves.len() as u64) as usize];
            let trad = traditional(&p, mv).unwrap();
            let u = uci(&p, mv).unwrap();
            assert_eq!(parse_move(&p, &trad).unwrap(), mv);
            assert_eq!(parse_move(&p, &u).unwrap(), mv);
            p.play(mv).unwrap();
            assert_eq!(total(&p), 162);
            let s = p.fen();
            assert_eq!(parse_fen(&s).unwrap(), p, "{s}");
            assert_eq!(parse_fen(&s).unwrap().fen(), s);
            if p.tuzdyk(Side::South).is_some() && p.tuzdyk(Side::North).is_some() {
                tuzdyks_seen += 1;
            }
        }
    }
    assert!(tuzdyks_seen > 0, "random play never made two tuzdyks");
}

#[test]
fn move_number_counts_full_moves() {
    let mut p = fen("9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 41");
    play(&mut p, "65");
    assert_eq!(p.move_number(), 41);
    play(&mut p, "g2c1");
    assert_eq!(p.move_number(), 42);
    assert!(p.fen().ends_with(" S 42"));
}

// --------------------------------------------- against a second implementation

mod reference;

/// A fixed xorshift stream, so failures are repeatable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random valid position: `n` stones on the board (some piled up so that
/// sowings lap), random tuzdyks, kazans and side to move.
fn random_position(rng: &mut Rng) -> Position {
    loop {
        let mut tuz = [None, None];
        for t in &mut tuz {
            if rng.below(2) == 0 {
                *t = Some(rng.below(8) as u8);
            }
        }
        if tuz[0].is_some() && tuz[0] == tuz[1] {
            continue;
        }
        // South's tuzdyk sits in North's row and the other way round.
        let blocked = |i: usize| {
            (i >= ROW && tuz[0] == Some((i - ROW) as u8)) || (i < ROW && tuz[1] == Some(i as u8))
        };
        let n = 1 + rng.below(70) as u32;
        let mut holes = [0u8; 18];
        let mut left = n;
        while left > 0 {
            let i = rng.below(18) as usize;
            if blocked(i) {
                continue;
            }
            // Sometimes drop a pile, to get 19+ stone sowings.
            let k = if rng.below(6) == 0 { left.min(25) } else { 1 };
            holes[i] += k as u8;
            left -= k;
        }
        let rest = 162 - n;
        // Both kazans at most 81 most of the time; sometimes one is over.
        let lo = rest.saturating_sub(81);
        let hi = rest.min(if rng.below(10) == 0 { 90 } else { 81 });
        if lo > hi {
            continue;
        }
        let south = lo + rng.below((hi - lo + 1) as u64) as u32;
        let side = if rng.below(2) == 0 {
            Side::South
        } else {
            Side::North
        };
        let kazans = [south as u8, (rest - south) as u8];
        // Hole numbers are 1-based in the public API.
        let numbers = tuz.map(|t| t.map(|offset| offset + 1));
        let p = Position::new(holes, kazans, numbers, side, 1 + rng.below(200) as u32)
            .expect("valid by construction");
        // Every position the API builds prints as a FEN that reads back.
        assert_eq!(parse_fen(&p.fen()).as_ref(), Ok(&p));
        return p;
    }
}

/// Checks every move of `p` against the reference, and returns the
/// positions after them.
fn compare_moves(p: &Position) -> Vec<Position> {
    let r = reference::Board::from_position(p);
    let outcome = p.outcome();
    let ref_result = r.result();
    assert_eq!(
        outcome.map(|o| (
            o.winner.map(|w| w.index()),
            [o.score[0] as u32, o.score[1] as u32]
        )),
        ref_result,
        "{p}"
    );
    if outcome.is_some() {
        assert_eq!(p.legal_moves().count(), 0);
        return Vec::new();
    }
    let ours: Vec<usize> = p
        .legal_moves()
        .map(|m| p.side_to_move().row_start() + m.index())
        .collect();
    assert_eq!(ours, r.moves(), "{p}");
    p.legal_moves()
        .map(|m| {
            let after = p.after(m).unwrap();
            let from = p.side_to_move().row_start() + m.index();
            assert_eq!(
                reference::Board::from_position(&after),
                r.play(from),
                "{p} move {}",
                traditional(p, m).unwrap()
            );
            after
        })
        .collect()
}

#[test]
fn engine_agrees_with_the_reference_on_random_positions() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for _ in 0..20_000 {
        let p = random_position(&mut rng);
        for q in compare_moves(&p) {
            compare_moves(&q);
        }
    }
}

#[test]
fn engine_agrees_with_the_reference_along_random_games() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    for _ in 0..500 {
        let mut p = Position::start();
        loop {
            let next = compare_moves(&p);
            if next.is_empty() {
                break;
            }
            p = next[rng.below(next.len() as u64) as usize];
        }
    }
}

#[test]
fn perft_agrees_with_the_reference() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..300 {
        let p = random_position(&mut rng);
        let r = reference::Board::from_position(&p);
        assert_eq!(perft(&p, 4), r.perft(4), "{p}");
    }
    assert_eq!(reference::Board::start().perft(6), 360_035);
}

#[test]
fn moves_exist_only_for_holes_one_to_nine() {
    assert_eq!(Move::new(0), None);
    assert_eq!(Move::new(10), None);
    assert_eq!(Move::from_index(9), None);
    for hole in 1..=9u8 {
        let m = Move::new(hole).unwrap();
        assert_eq!(m.hole(), hole);
        assert_eq!(m.index(), hole as usize - 1);
        assert_eq!(Move::from_index(m.index()), Some(m));
        assert_eq!(m.to_string(), hole.to_string());
    }
}

#[test]
fn play_refuses_empty_holes_and_finished_games() {
    // South's hole 9 is empty.
    let mut p = fen("9/5S,8 78 79 S 30");
    let before = p;
    assert_eq!(
        p.play(Move::new(9).unwrap()).unwrap_err(),
        IllegalMove::EmptyHole {
            side: Side::South,
            hole: 9
        }
    );
    assert_eq!(p, before);
    p.play(Move::new(1).unwrap()).unwrap();
    // North has no stones: the game is over, every move is refused.
    assert!(p.outcome().is_some());
    for hole in 1..=9 {
        assert_eq!(
            p.play(Move::new(hole).unwrap()).unwrap_err(),
            IllegalMove::GameOver
        );
    }
}

#[test]
fn every_constructible_position_round_trips_through_its_fen() {
    let mut holes = [0u8; CYCLE];
    holes[0] = 2;
    // Move number 0 cannot be written as a FEN, so it cannot be built.
    assert_eq!(
        Position::new(holes, [80, 80], [None, None], Side::South, 0),
        Err(PositionError::MoveNumberZero)
    );
    // Tuzdyk numbers are hole numbers 1..=8; 9 is a 9th hole, 0 and 10 do
    // not exist.
    for (number, err) in [
        (
            0,
            PositionError::TuzdykOutOfRange {
                owner: Side::South,
                number: 0,
            },
        ),
        (
            10,
            PositionError::TuzdykOutOfRange {
                owner: Side::South,
                number: 10,
            },
        ),
        (9, PositionError::TuzdykInNinth { row: Side::North }),
    ] {
        assert_eq!(
            Position::new(holes, [80, 80], [Some(number), None], Side::South, 1),
            Err(err)
        );
    }
    let p = Position::new(holes, [80, 80], [Some(8), Some(2)], Side::North, 7).unwrap();
    assert_eq!(p.tuzdyk(Side::South), Some(8));
    assert_eq!(p.tuzdyk(Side::North), Some(2));
    assert_eq!(parse_fen(&p.fen()).unwrap(), p);
}

// ------------------------------------------------ play with a tuzdyk ends

/// The holes a stone in hole `idx` must still travel to reach the next
/// tuzdyk ahead of it in the cycle (`None`: no tuzdyk on the board).
fn to_next_tuzdyk(pos: &Position, idx: usize) -> Option<u32> {
    (1..=CYCLE)
        .find(|&d| pos.is_tuzdyk((idx + d) % CYCLE))
        .map(|d| d as u32)
}

/// `P`: the sum over the stones on the board of [`to_next_tuzdyk`].
fn travel(pos: &Position) -> u32 {
    let holes = pos.holes();
    (0..CYCLE)
        .map(|i| holes[i] as u32 * to_next_tuzdyk(pos, i).unwrap_or(0))
        .sum()
}

/// docs/rules.md, "The end of the game": once a tuzdyk stands, every move
/// lowers (stones on the board, P) in lexicographic order, so no position
/// repeats and endless play needs a board without tuzdyks. Random games,
/// every move from the first tuzdyk on.
#[test]
fn with_a_tuzdyk_every_move_lowers_the_stones_or_their_travel() {
    use rand::rngs::SmallRng;
    use rand::{RngExt, SeedableRng};
    let mut rng = SmallRng::seed_from_u64(7);
    let mut checked = 0u64;
    for _ in 0..3000 {
        let mut pos = Position::start();
        while pos.outcome().is_none() {
            let moves: Vec<Move> = pos.legal_moves().collect();
            let mv = moves[rng.random_range(0..moves.len() as u64) as usize];
            let before = (pos.stones_on_board(), travel(&pos));
            let tuzdyk = pos.has_tuzdyk();
            pos.play(mv).expect("a legal move");
            if tuzdyk {
                let after = (pos.stones_on_board(), travel(&pos));
                assert!(
                    after < before,
                    "{} after {mv:?}: {before:?} -> {after:?}",
                    pos.fen()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100_000, "only {checked} moves with a tuzdyk");
}
