//! FEN and move notation: every error the parsers name, and property tests
//! that feed them arbitrary and near-valid text (no input may panic; every
//! accepted FEN prints back to itself, whitespace normalised).

use proptest::prelude::*;
use togyz_tb::notation::{parse_fen, parse_move, IllegalReason, NotationError};
use togyz_tb::{IllegalMove, Move, Position, Side};

const START: &str = "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1";

fn err(s: &str) -> NotationError {
    match parse_fen(s) {
        Ok(p) => panic!("{s} parsed as {p}"),
        Err(e) => e,
    }
}

#[test]
fn field_and_row_counts() {
    assert_eq!(err("9S,9S"), NotationError::FieldCount { found: 1 });
    assert_eq!(
        err(&format!("{START} x")),
        NotationError::FieldCount { found: 6 }
    );
    // Whitespace around and between the fields is free.
    let spaced = parse_fen(&format!("  {}\n", START.replace(' ', "  \t"))).unwrap();
    assert_eq!(spaced, Position::start());
    assert_eq!(spaced.fen(), START);
    assert_eq!(err("9/9S,8  0 S 1"), NotationError::FieldCount { found: 4 });
    assert_eq!(err("  "), NotationError::FieldCount { found: 0 });
    assert_eq!(err("9S 0 0 S 1"), NotationError::RowCount { found: 1 });
    assert_eq!(err("9/9/9 0 0 S 1"), NotationError::RowCount { found: 3 });
    let e = err("9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 9 0 S 1");
    assert_eq!(
        e,
        NotationError::RowLength {
            row: Side::North,
            holes: 8
        }
    );
    assert_eq!(e.to_string(), "the North row describes 8 holes, not 9");
    assert_eq!(
        err("9/9,1S 80 81 S 1"),
        NotationError::RowLength {
            row: Side::South,
            holes: 10
        }
    );
    assert_eq!(
        err("/9 81 81 S 1"),
        NotationError::BadHole {
            row: Side::North,
            token: String::new()
        }
    );
}

#[test]
fn bad_holes_and_counts() {
    for (row, tok) in [
        ("9s,8", "9s"),
        ("x,8", "x"),
        ("S,8", "S"),
        ("0,9", "0"),
        ("10,1S", "10"),
    ] {
        assert_eq!(
            err(&format!("{row}/9 81 80 S 1")),
            NotationError::BadHole {
                row: Side::North,
                token: tok.into()
            },
            "{row}"
        );
    }
    for tok in ["0S", "09S", "163S", "99999999999S"] {
        assert_eq!(
            err(&format!("9/{tok},8 81 81 S 1")),
            NotationError::BadStoneCount {
                row: Side::South,
                token: tok.into()
            }
        );
    }
    assert_eq!(
        err("9/4,5 81 81 S 1"),
        NotationError::SplitRun {
            row: Side::South,
            token: "5".into()
        }
    );
    // A forgotten `S` usually shows as a run after a run: say so.
    let e = err("8,2/9 79 79 S 1");
    assert_eq!(
        e,
        NotationError::SplitRun {
            row: Side::North,
            token: "2".into()
        }
    );
    assert!(e.to_string().contains("did you mean `2S`"), "{e}");
}

#[test]
fn bad_kazans_side_and_move_number() {
    for k in ["-1", "163", "a", "07", "+3"] {
        assert_eq!(
            err(&format!("9/9 {k} 81 S 1")),
            NotationError::BadKazan {
                side: Side::South,
                text: k.into()
            }
        );
    }
    assert_eq!(
        err("9/9 81 x S 1"),
        NotationError::BadKazan {
            side: Side::North,
            text: "x".into()
        }
    );
    // An empty field is a missing one: whitespace between fields is free.
    assert_eq!(err("9/9  81 S 1"), NotationError::FieldCount { found: 4 });
    assert_eq!(err("9/9 81 81  1"), NotationError::FieldCount { found: 4 });
    for s in ["W", "w", "SN", "sn", "South"] {
        assert_eq!(
            err(&format!("9/9 81 81 {s} 1")),
            NotationError::BadSide { text: s.into() }
        );
    }
    // A lower-case side to move is the same side.
    for (lower, upper) in [("s", "S"), ("n", "N")] {
        let fen = |side| format!("7,2S,1/8,2S 79 79 {side} 1");
        assert_eq!(parse_fen(&fen(lower)), parse_fen(&fen(upper)));
        assert!(parse_fen(&fen(lower)).is_ok());
    }
    for n in ["0", "-1", "x", "01", "4294967296", "1.5"] {
        assert_eq!(
            err(&format!("9/9 81 81 N {n}")),
            NotationError::BadMoveNumber { text: n.into() }
        );
    }
}

#[test]
fn stone_total() {
    let e = err("9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 1 0 S 1");
    assert_eq!(
        e,
        NotationError::StoneTotal {
            board: 162,
            south: 1,
            north: 0,
            total: 163
        }
    );
    assert!(e.to_string().contains("not 162"));
}

#[test]
fn tuzdyk_errors() {
    assert_eq!(
        err("t,t,7/9 81 81 S 1"),
        NotationError::TwoTuzdyksInRow { row: Side::North }
    );
    // North's hole 9 is written first.
    assert_eq!(
        err("t,8/9 81 81 S 1"),
        NotationError::TuzdykInNinth { row: Side::North }
    );
    assert_eq!(
        err("9/8,t 81 81 S 1"),
        NotationError::TuzdykInNinth { row: Side::South }
    );
    // N3 is the 7th item of the North row; S3 the 3rd of the South row.
    assert_eq!(
        err("6,t,2/2,t,6 81 81 S 1"),
        NotationError::TuzdykSameNumber { number: 3 }
    );
    assert_eq!(
        err("6,3t,2/9 81 78 S 1"),
        NotationError::StonesInTuzdyk {
            row: Side::North,
            number: 3
        }
    );
    // Different numbers are fine.
    assert!(parse_fen("6,t,2/1,t,7 81 81 S 1").is_ok());
}

#[test]
fn move_errors() {
    let start = Position::start();
    for m in [
        "", "0", "x", "01", "766", "7 6", "j1a1", "g1d2x", "G1D2", "g1d", "g1d3", "76X", "-1", "٧٦",
    ] {
        assert_eq!(
            parse_move(&start, m),
            Err(NotationError::MalformedMove { text: m.into() }),
            "{m:?}"
        );
    }
    let illegal = |pos: &Position, m: &str| match parse_move(pos, m) {
        Err(NotationError::IllegalMove { text, reason }) => {
            assert_eq!(text, m);
            reason
        }
        other => panic!("{m}: {other:?}"),
    };
    assert_eq!(
        illegal(&start, "75"),
        IllegalReason::WrongLanding {
            correct: "76".into()
        }
    );
    assert_eq!(
        illegal(&start, "76x"),
        IllegalReason::NoTuzdykMade {
            correct: "76".into()
        }
    );
    assert_eq!(
        illegal(&start, "g1d1"),
        IllegalReason::WrongLanding {
            correct: "g1d2".into()
        }
    );
    assert_eq!(
        illegal(&start, "a2b2"),
        IllegalReason::NotMoversRow {
            square: "a2".into(),
            side: Side::South
        }
    );
    let p = parse_fen("7,2S,1/8,2S 79 79 S 1").unwrap();
    let empty_one = IllegalReason::Unplayable(IllegalMove::EmptyHole {
        side: Side::South,
        hole: 1,
    });
    for m in ["12", "a1b1", "1"] {
        assert_eq!(illegal(&p, m), empty_one, "{m}");
    }
    let over = parse_fen("9/4S,8 79 79 N 1").unwrap();
    for m in ["11", "i2h2", "1"] {
        assert_eq!(
            illegal(&over, m),
            IllegalReason::Unplayable(IllegalMove::GameOver),
            "{m}"
        );
    }
    let e = parse_move(&start, "75").unwrap_err();
    assert_eq!(
        e.to_string(),
        "`75` is not legal here: its last stone lands elsewhere: the move is `76`"
    );
}

/// A random legal game prefix, driven by `choices`.
fn play_out(choices: &[u8]) -> Position {
    let mut p = Position::start();
    for &c in choices {
        let moves: Vec<Move> = p.legal_moves().collect();
        if moves.is_empty() {
            break;
        }
        p.play(moves[c as usize % moves.len()]).unwrap();
    }
    p
}

/// Items a FEN row is made of, valid and not.
fn row_item() -> impl Strategy<Value = String> {
    prop_oneof![
        (1u32..=20).prop_map(|n| format!("{n}S")),
        (1u32..=9).prop_map(|n| n.to_string()),
        Just("t".to_string()),
        Just("0S".to_string()),
        Just("3t".to_string()),
        Just("163S".to_string()),
        Just(String::new()),
        "[0-9StN,/ x-]{1,4}",
    ]
}

fn near_fen() -> impl Strategy<Value = String> {
    let row = || prop::collection::vec(row_item(), 0..12).prop_map(|v| v.join(","));
    (
        row(),
        row(),
        prop_oneof![(0u32..=170).prop_map(|k| k.to_string()), "[0-9+-]{0,4}"],
        prop_oneof![(0u32..=170).prop_map(|k| k.to_string()), "[0-9+-]{0,4}"],
        prop_oneof![Just("S"), Just("N"), Just("x"), Just("")],
        prop_oneof![
            (0u64..5_000_000_000).prop_map(|k| k.to_string()),
            "[0-9]{0,12}"
        ],
        prop_oneof![Just(" "), Just("  "), Just("/"), Just("")],
    )
        .prop_map(|(n, s, ks, kn, side, num, sep)| format!("{n}/{s}{sep}{ks} {kn} {side} {num}"))
}

/// Checks the parser's promise on any input: no panic, and an accepted FEN
/// prints back to itself with its whitespace normalised.
fn check_fen_text(s: &str) -> Result<(), TestCaseError> {
    if let Ok(p) = parse_fen(s) {
        prop_assert_eq!(p.fen(), s.split_whitespace().collect::<Vec<_>>().join(" "));
        prop_assert_eq!(parse_fen(&p.fen()), Ok(p));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_strings_never_panic(s in any::<String>()) {
        check_fen_text(&s)?;
        let positions = [
            Position::start(),
            parse_fen("7,2S,1/8,2S 79 79 S 1").unwrap(),
            parse_fen("9/4S,8 79 79 N 1").unwrap(),
        ];
        for p in &positions {
            let _ = parse_move(p, &s);
        }
    }

    #[test]
    fn near_fen_strings_never_panic(s in near_fen()) {
        check_fen_text(&s)?;
    }

    #[test]
    fn mutated_fens_never_panic(
        choices in prop::collection::vec(any::<u8>(), 0..120),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, "[0-9SNt,/ x]"), 1..4),
    ) {
        let mut s: Vec<char> = play_out(&choices).fen().chars().collect();
        for (at, kind, c) in edits {
            let c = c.chars().next().unwrap_or(' ');
            match kind {
                0 => { let i = at.index(s.len() + 1); s.insert(i, c); }
                1 if !s.is_empty() => { let i = at.index(s.len()); s.remove(i); }
                _ if !s.is_empty() => { let i = at.index(s.len()); s[i] = c; }
                _ => {}
            }
        }
        let s: String = s.into_iter().collect();
        check_fen_text(&s)?;
    }

    #[test]
    fn random_positions_round_trip(choices in prop::collection::vec(any::<u8>(), 0..200)) {
        let p = play_out(&choices);
        let s = p.fen();
        prop_assert_eq!(parse_fen(&s), Ok(p));
        prop_assert_eq!(s.parse::<Position>().unwrap().to_string(), s);
        for mv in p.legal_moves() {
            let mut q = p;
            let r = q.play(mv).unwrap();
            prop_assert_eq!(parse_move(&p, &r.traditional()), Ok(mv));
            prop_assert_eq!(parse_move(&p, &r.uci()), Ok(mv));
            prop_assert_eq!(parse_move(&p, &mv.to_string()), Ok(mv));
        }
    }

    #[test]
    fn arbitrary_move_text_never_panics(
        choices in prop::collection::vec(any::<u8>(), 0..150),
        m in "[0-9a-jx]{0,5}",
    ) {
        let p = play_out(&choices);
        if let Ok(mv) = parse_move(&p, &m) {
            // Whatever was accepted is legal and written exactly that way.
            prop_assert!(p.is_legal(mv));
            let mut q = p;
            let r = q.play(mv).unwrap();
            prop_assert!(m == r.traditional() || m == r.uci() || m == mv.to_string());
        }
    }
}

#[test]
fn a_bare_hole_number_is_the_move_from_that_hole() {
    let start = Position::start();
    for hole in 1..=9u8 {
        let text = hole.to_string();
        let mv = parse_move(&start, &text).unwrap();
        assert_eq!(mv, Move::new(hole).unwrap());
        assert_eq!(mv.to_string(), text);
    }
    // 6 from the start is `65` and `f1e2`: three names of one move.
    let six = parse_move(&start, "6").unwrap();
    let trad = togyz_tb::notation::traditional(&start, six).unwrap();
    let uci = togyz_tb::notation::uci(&start, six).unwrap();
    assert_eq!(parse_move(&start, &trad).unwrap(), six);
    assert_eq!(parse_move(&start, &uci).unwrap(), six);
    assert_eq!(trad, "65");
    assert_eq!(uci, "f1e2");
    // A tuzdyk hole named by its number is refused with the reason.
    let p = parse_fen("4,10S,2,t,1S/8,1S 77 73 N 1").unwrap();
    assert_eq!(
        parse_move(&p, "2"),
        Err(NotationError::IllegalMove {
            text: "2".into(),
            reason: IllegalReason::Unplayable(IllegalMove::TuzdykHole {
                side: Side::North,
                hole: 2,
                owner: Side::South,
            }),
        })
    );
}

#[test]
fn a_line_in_traditional_notation_and_moves_in_debug_by_hole() {
    let pos = parse_fen("7,2S,1/8,2S 79 79 S 1").unwrap();
    let m = |h| togyz_tb::Move::new(h).unwrap();
    let pv = [m(9), m(1), m(9), m(1)];
    assert_eq!(
        togyz_tb::notation::line(&pos, &pv).unwrap().join(" "),
        "91 12 91 12"
    );
    assert!(matches!(
        togyz_tb::notation::line(&pos, &[m(9), m(5)]),
        Err(NotationError::IllegalMove { .. })
    ));
    assert_eq!(format!("{:?}", m(9)), "Move(9)");
    assert_eq!(format!("{:?}", m(1)), "Move(1)");
}
