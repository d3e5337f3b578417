//! Game records: PlayOK's text format and plain move lists, read and
//! replayed with every recorded detail checked.
//!
//! PlayOK's export: tag lines (`[White "..."]`, White being South, the first
//! player), then numbered move pairs `1. 21(10) 21(10) 2. 23 33(22) ...` and
//! a result `1-0` (South won), `0-1` (North won) or `1/2-1/2`. A move is
//! written in traditional notation (hole played, then the number of the hole
//! where the last stone landed), followed by `X` when it made a tuzdyk and
//! by `(k)` when it captured, `k` being the mover's kazan after the move.
//! Comments in braces and Windows line ends are allowed; a file may hold
//! several games, each starting at its tags (or, without tags, after a
//! result or a blank line following moves).
//!
//! A plain list of moves, in traditional (`76`, `36x`) or PlayStrategy UCI
//! (`g1d2`) notation, with or without move numbers, is a game too.

mod game;
mod input;
mod parse;

pub use game::{move_label, GameRecord, RecordedMove, RecordedResult, Replay, ReplayError};
pub use input::{read_line_capped, Line, MAX_LINE_BYTES};
pub use parse::{parse_records, split_kazan, RecordError, Records, MAX_GAME_PLIES};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Side;
    use std::io;

    #[test]
    fn a_failed_game_keeps_its_line_and_tags() {
        let text = "[Event \"a\"]\n1. 76(10) 98\n\n[Event \"x\"]\n1. 76(10) zz 2. 11\n";
        let mut records = Records::new(text.as_bytes());
        let first = records.next().unwrap().unwrap();
        assert_eq!(first.line, 1);
        assert!(records.failed_game().is_none());
        let second = records.next().unwrap();
        assert!(matches!(second, Err(RecordError::BadToken { line: 5, .. })));
        let failed = records.failed_game().expect("the game as read");
        assert_eq!(failed.line, 4);
        assert_eq!(failed.tag("Event"), Some("x"));
        assert_eq!(failed.moves.len(), 1);
        // A bad tag: the tags before it.
        let mut bad = Records::new("[Event \"y\"]\n[Site nowhere]\n1. 11\n".as_bytes());
        assert!(matches!(
            bad.next(),
            Some(Err(RecordError::BadTag { line: 2, .. }))
        ));
        assert_eq!(bad.failed_game().unwrap().tag("Event"), Some("y"));
    }

    #[test]
    fn labels_follow_the_records_own_numbers() {
        let fen = "[FEN \"7,2S,1/8,2S 79 79 S 30\"]\n";
        let from_fen = parse_records(&format!("{fen}30. 91 12 31. 91 12\n"))
            .remove(0)
            .unwrap();
        assert_eq!(from_fen.number_offset, 29);
        assert_eq!(from_fen.label(1, Side::South), "30. 91");
        assert_eq!(from_fen.label(4, Side::South), "31... 12");
        let from_one = parse_records(&format!("{fen}1. 91 12 2. 91 12\n"))
            .remove(0)
            .unwrap();
        assert_eq!(from_one.number_offset, 0);
        assert_eq!(from_one.label(3, Side::South), "2. 91");
    }

    #[test]
    fn tags_moves_comments_and_results() {
        let text = "[White \"a\"]\r\n[Black \"b\"]\r\n\r\n1. 21(10) {a comment\r\nover two lines} 21(10) 2. 23 1-0\r\n";
        let games = parse_records(text);
        assert_eq!(games.len(), 1);
        let g = games[0].as_ref().unwrap();
        assert_eq!(g.tag("Black"), Some("b"));
        assert_eq!(g.moves.len(), 3);
        assert_eq!(g.moves[0].kazan, Some(10));
        assert_eq!(g.moves[2].line, 5);
        assert_eq!(g.result, Some(RecordedResult::SouthWins));
        assert!(g.replay().is_ok());
        let with_bom = parse_records(&format!("\u{feff}{text}"));
        assert_eq!(with_bom[0].as_ref().unwrap(), g);
    }

    #[test]
    fn plain_lists_split_at_blank_lines_and_errors_name_lines() {
        let games =
            parse_records("76 g1d2\n\n1. 21 2. 99\n[White \"x\"]\n1. 21(10) 21(10) 2. 23 zz\n");
        assert_eq!(games.len(), 3);
        assert_eq!(games[0].as_ref().unwrap().moves.len(), 2);
        assert_eq!(
            games[1],
            Err(RecordError::MoveNumber {
                line: 3,
                found: 2,
                expected: 1
            })
        );
        assert!(matches!(
            games[2],
            Err(RecordError::BadToken { line: 5, .. })
        ));
    }

    #[test]
    fn replay_checks_landing_and_kazan() {
        let g = |t: &str| parse_records(t).remove(0).unwrap().replay();
        assert!(matches!(
            g("1. 21(11)"),
            Err(ReplayError::Kazan {
                ply: 1,
                recorded: 11,
                actual: 10,
                ..
            })
        ));
        assert!(matches!(
            g("[A \"b\"]\n1. 21"),
            Err(ReplayError::MissingKazan { ply: 1, .. })
        ));
        assert!(g("1. 21").is_ok());
        assert!(matches!(g("1. 22"), Err(ReplayError::Move { ply: 1, .. })));
        assert_eq!(g("1. 21(10) 21(10)").unwrap().positions.len(), 3);
    }

    #[test]
    fn a_fen_game_numbers_its_moves_from_one_or_from_the_fen() {
        let fen = "[FEN \"1,1S,2,1S,3,2S/1,1S,2,1S,3,1S 78 77 S 20\"]\n\n";
        for moves in ["1. 23 *", "20. 23 *"] {
            let g = parse_records(&format!("{fen}{moves}\n")).remove(0).unwrap();
            assert_eq!(g.moves.len(), 1, "{moves}");
            assert!(g.replay().is_ok());
        }
        // Either count, kept through the game; nothing else.
        assert_eq!(
            parse_records(&format!("{fen}20. 23 2. 12\n")).remove(0),
            Err(RecordError::MoveNumber {
                line: 3,
                found: 2,
                expected: 20
            })
        );
        assert!(matches!(
            parse_records(&format!("{fen}19. 23\n")).remove(0),
            Err(RecordError::MoveNumber { found: 19, .. })
        ));
        // North first: `20...`.
        let north = "[FEN \"1,1S,2,1S,3,2S/1,1S,2,1S,3,1S 78 77 n 20\"]\n20... 13 *\n";
        let g = parse_records(north).remove(0).unwrap();
        assert_eq!(g.first_mover(), Side::North);
    }

    #[test]
    fn a_line_or_a_game_past_its_cap_is_an_error_and_the_next_game_is_read() {
        let long_line = format!(
            "[White \"a\"]\n{}\n[White \"b\"]\n1. 21 *\n",
            "1".repeat(MAX_LINE_BYTES + 1)
        );
        let games = parse_records(&long_line);
        assert_eq!(games.len(), 2);
        assert_eq!(games[0], Err(RecordError::LineTooLong { line: 2 }));
        assert_eq!(games[1].as_ref().unwrap().moves.len(), 1);
        // Short lines, one game too long.
        let mut text = String::from("[White \"a\"]\n");
        for _ in 0..MAX_GAME_PLIES / 10 + 1 {
            text.push_str("11 11 11 11 11 11 11 11 11 11\n");
        }
        text.push_str("[White \"b\"]\n1. 21\n");
        let games = parse_records(&text);
        assert_eq!(games.len(), 2);
        assert_eq!(games[0], Err(RecordError::GameTooLong { line: 1 }));
        assert_eq!(games[1].as_ref().unwrap().moves.len(), 1);
        // Exactly at the cap is still a game.
        let at_cap = "11 ".repeat(MAX_GAME_PLIES);
        assert_eq!(
            parse_records(&at_cap)[0].as_ref().unwrap().moves.len(),
            MAX_GAME_PLIES
        );
    }

    #[test]
    fn capped_lines_hold_at_most_the_cap() {
        let mut input = io::BufReader::with_capacity(3, &b"abcdefgh\nij\n\nk"[..]);
        let mut buf = Vec::new();
        let mut read = || {
            let r = read_line_capped(&mut input, &mut buf, 4).unwrap();
            (r, String::from_utf8(buf.clone()).unwrap())
        };
        assert_eq!(read(), (Line::TooLong, "abcd".to_string()));
        assert_eq!(read(), (Line::Read, "ij".to_string()));
        assert_eq!(read(), (Line::Read, String::new()));
        assert_eq!(read(), (Line::Read, "k".to_string()));
        assert_eq!(read(), (Line::End, String::new()));
    }

    /// Input that comes one byte at a time, as a slow pipe or socket may
    /// deliver it.
    struct Trickle<'a>(&'a [u8]);

    impl io::Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            match (self.0.split_first(), out.first_mut()) {
                (Some((b, rest)), Some(o)) => {
                    *o = *b;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    #[test]
    fn a_mark_split_over_reads_is_still_a_mark() {
        let text = "[White \"a\"]\n1. 21(10) 21(10) 1-0\n";
        let utf8 = [b"\xef\xbb\xbf".as_slice(), text.as_bytes()].concat();
        let utf16: Vec<u8> = [0xff, 0xfe]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let want = parse_records(text);
        for bytes in [utf8, utf16] {
            let games: Vec<_> =
                Records::new(io::BufReader::with_capacity(1, Trickle(&bytes))).collect();
            assert_eq!(games, want);
        }
    }

    #[test]
    fn utf16_reads_with_a_mark_and_is_named_without_one() {
        let text = "[White \"\u{410}\u{1f600}\"]\r\n1. 21(10) 21(10) 1-0\r\n";
        let units: Vec<u16> = text.encode_utf16().collect();
        for le in [true, false] {
            let mut bytes: Vec<u8> = if le {
                vec![0xff, 0xfe]
            } else {
                vec![0xfe, 0xff]
            };
            for u in &units {
                bytes.extend(if le { u.to_le_bytes() } else { u.to_be_bytes() });
            }
            let games: Vec<_> = Records::new(&bytes[..]).collect();
            let g = games[0].as_ref().unwrap();
            assert_eq!(g.tag("White"), Some("\u{410}\u{1f600}"));
            assert_eq!(g.moves.len(), 2);
            // Without the mark: what the file looks like, no raw bytes.
            let games: Vec<_> = Records::new(&bytes[2..]).collect();
            assert_eq!(games, [Err(RecordError::Utf16NoMark { little_endian: le })]);
            let message = games[0].as_ref().unwrap_err().to_string();
            assert!(
                message.contains("UTF-16") && !message.contains('\0'),
                "{message}"
            );
        }
        let games: Vec<_> = Records::new(&b"1. 21\n2\x001\n"[..]).collect();
        assert_eq!(games, [Err(RecordError::Nul { line: 2 })]);
        // Other bad bytes: the line is named, the moves still read.
        let mut r = Records::new(&b"[White \"\xe0\"]\n1. 21(10) 1-0\n"[..]);
        assert!(r.next().unwrap().is_ok());
        assert_eq!(r.lossy_line(), Some(1));
    }
}
