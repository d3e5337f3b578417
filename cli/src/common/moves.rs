//! Positions and move lists from the command line: a FEN that the shell may
//! have split, and a list of moves replayed from it.

use togyz_tb::notation::{parse_fen, parse_move, NotationError};
use togyz_tb::{MoveReport, Position};

use togyz_tb::record::split_kazan;

use crate::common::failure::{Failure, Kind, Stop};

/// Reads a FEN given as one argument. `following` are the arguments after
/// it: when the shell split an unquoted FEN at its spaces, they hold the
/// rest of it, and the error says to quote it. A FEN with moves inside its
/// quotes is told to move them out.
pub fn fen_arg(fen: &str, following: &[String]) -> Result<Position, Failure> {
    parse_fen(fen).map_err(|e| {
        let mut f = Failure::notation(&e);
        let fields: Vec<&str> = fen.split_whitespace().collect();
        match e {
            NotationError::FieldCount {
                found: found @ 1..=4,
            } => {
                let missing = 5 - found;
                let mut joined = fields.clone();
                joined.extend(following.iter().take(missing).map(String::as_str));
                let joined = joined.join(" ");
                if following.len() >= missing && parse_fen(&joined).is_ok() {
                    f.message = format!(
                        "the FEN came as separate arguments, split at its spaces: put it in \
                         quotes, as '{joined}'"
                    );
                }
            }
            NotationError::FieldCount { found: found @ 6.. }
                if parse_fen(&fields[..5].join(" ")).is_ok() =>
            {
                f.message = format!(
                    "a FEN has 5 fields, found {found}: the first five make a FEN; moves (`{}`) \
                     go after the quoted FEN, each an argument of its own",
                    fields[5..].join(" ")
                );
            }
            _ => {}
        }
        f
    })
}

/// A move number pasted with a game (`1.`, `12...`): skipped.
fn is_move_number(text: &str) -> bool {
    let digits = text.trim_end_matches('.');
    digits.len() < text.len() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// A result at the end of a pasted game (`1-0`, `0-1`, `1/2-1/2`, `*`):
/// skipped.
fn is_result(text: &str) -> bool {
    matches!(text, "1-0" | "0-1" | "1/2-1/2" | "*")
}

/// The moves of a list of arguments: each argument split at its spaces (a
/// game pasted as one argument, `1. 76 98 2. 22`, is a list), move numbers
/// (`1.`, or glued to the move, `1.76`) and a final result skipped.
pub fn tokens(args: &[String]) -> Vec<&str> {
    args.iter()
        .flat_map(|a| a.split_whitespace())
        .filter(|t| !is_move_number(t) && !is_result(t))
        .map(|t| {
            // `12.76` or `12...76`: the move after its number.
            let digits = t.bytes().take_while(u8::is_ascii_digit).count();
            match t[digits..].trim_start_matches('.') {
                rest if digits > 0 && t[digits..].starts_with('.') && !rest.is_empty() => rest,
                _ => t,
            }
        })
        .collect()
}

/// Whether `arg` is a move list rather than a FEN: every word a move in
/// one of the notations (PlayOK's `21(10)` and `36X` too), a move number or
/// a result.
pub fn is_move_list(arg: &str) -> bool {
    let args = [arg.to_string()];
    let moves = tokens(&args);
    !moves.is_empty()
        && moves.iter().all(|t| {
            let Some((text, _)) = split_kazan(t) else {
                return false;
            };
            let b = text.to_ascii_lowercase().into_bytes();
            matches!(
                b[..],
                [b'1'..=b'9'] | [b'1'..=b'9', b'1'..=b'9'] | [b'1'..=b'9', b'1'..=b'9', b'x']
            ) || matches!(b[..], [b'a'..=b'i', b'1' | b'2', b'a'..=b'i', b'1' | b'2'])
        })
}

/// One move of a replayed list.
pub struct Played {
    /// What the move did (who moved, which hole, where it landed).
    pub report: MoveReport,
    /// The position after it.
    pub after: Position,
}

/// Plays `moves` (traditional, UCI, or a bare hole number; PlayOK's
/// `21(10)` and `36X`; move numbers such as `1.` and a final result are
/// skipped; an argument may hold a whole pasted list) from `start`. A
/// kazan written after a move, `(k)`, is checked as `annotate` checks it:
/// it must be the mover's kazan after the move (a capture typed without
/// one is let through: moves typed by hand need not carry them). A move that cannot be read or played stops the
/// list: the failure names it by its place in the list and carries the
/// moves before it and the position there.
pub fn replay(start: &Position, moves: &[String]) -> Result<Vec<Played>, Failure> {
    let moves = tokens(moves);
    let mut pos = *start;
    let mut played: Vec<Played> = Vec::with_capacity(moves.len());
    for (i, token) in moves.iter().enumerate() {
        let (text, kazan) = split_kazan(token).unwrap_or((token, None));
        // `36X` and `G1D2` are meant as `36x` and `g1d2`.
        let text = text.trim().to_ascii_lowercase();
        let mover = pos.side_to_move();
        let before = pos;
        let step = parse_move(&pos, &text).and_then(|mv| {
            pos.play(mv).map_err(|e| NotationError::IllegalMove {
                text: text.clone(),
                reason: e.into(),
            })
        });
        let stop = |played: &[Played], pos: Position, mut f: Failure| {
            if moves.len() > 1 {
                f.message = format!("move {} of {}: {}", i + 1, moves.len(), f.message);
            }
            f.stop = Some(Stop {
                index: i + 1,
                played: played.iter().map(|p| p.report.traditional()).collect(),
                pos,
            });
            f
        };
        let report = step.map_err(|e| stop(&played, before, Failure::notation(&e)))?;
        let actual = u32::from(pos.kazan(mover));
        if let Some(k) = kazan.filter(|&k| k != actual) {
            let message =
                format!("`{token}` says the mover's kazan is {k}, the move makes it {actual}");
            return Err(stop(
                &played,
                before,
                Failure::new(Kind::IllegalMove, message),
            ));
        }
        played.push(Played { report, after: pos });
    }
    Ok(played)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_numbers_are_recognised() {
        for t in ["1.", "12.", "3...", "40.."] {
            assert!(is_move_number(t), "{t}");
        }
        for t in ["1", "76", "36x", ".", "..", "a.", "g1d2", "1.2", ""] {
            assert!(!is_move_number(t), "{t}");
        }
    }

    #[test]
    fn pasted_games_split_into_moves() {
        let args = ["1. 21(10) 21(10)".to_string(), "2.23 36X 1-0".to_string()];
        assert_eq!(tokens(&args), ["21(10)", "21(10)", "23", "36X"]);
        for list in ["1. 76 98 2. 22", "21(10) 36X", "g1d2", "7", "1.76"] {
            assert!(is_move_list(list), "{list}");
        }
        for fen in ["not a fen", "7,2S,1/8,2S 79 79 S 1", "21(1000)", " ", "1."] {
            assert!(!is_move_list(fen), "{fen}");
        }
    }
}
