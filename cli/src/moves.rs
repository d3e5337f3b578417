//! Positions and move lists from the command line: a FEN that the shell may
//! have split, and a list of moves replayed from it.

use togyz_probe::notation::{parse_fen, parse_move, NotationError};
use togyz_probe::rules::{MoveReport, Position};

use crate::failure::{Failure, Stop};

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

/// One move of a replayed list.
pub struct Played {
    /// What the move did (who moved, which hole, where it landed).
    pub report: MoveReport,
    /// The position after it.
    pub after: Position,
}

/// Plays `moves` (traditional, UCI, or a bare hole number; move numbers
/// such as `1.` are skipped) from `start`. A move that cannot be read or
/// played stops the list: the failure names it by its place in the list
/// and carries the moves before it and the position there.
pub fn replay(start: &Position, moves: &[String]) -> Result<Vec<Played>, Failure> {
    let moves: Vec<&String> = moves.iter().filter(|m| !is_move_number(m)).collect();
    let mut pos = *start;
    let mut played: Vec<Played> = Vec::with_capacity(moves.len());
    for (i, text) in moves.iter().enumerate() {
        // `36X` and `G1D2` are meant as `36x` and `g1d2`.
        let text = text.trim().to_ascii_lowercase();
        let step = parse_move(&pos, &text).and_then(|mv| {
            pos.play(mv).map_err(|e| NotationError::IllegalMove {
                text: text.clone(),
                reason: e.into(),
            })
        });
        let report = step.map_err(|e| {
            let mut f = Failure::notation(&e);
            if moves.len() > 1 {
                f.message = format!("move {} of {}: {e}", i + 1, moves.len());
            }
            f.stop = Some(Stop {
                index: i + 1,
                played: played.iter().map(|p| p.report.traditional()).collect(),
                pos,
            });
            f
        })?;
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
}
