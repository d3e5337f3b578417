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

use std::fmt;

use crate::notation::{parse_move, NotationError};
use crate::rules::{Move, Position, Side};

/// How a recorded game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordedResult {
    /// `1-0`: South (White) won.
    SouthWins,
    /// `0-1`: North (Black) won.
    NorthWins,
    /// `1/2-1/2`.
    Draw,
    /// `*` or no result: unfinished or unknown.
    Unknown,
}

impl RecordedResult {
    fn parse(token: &str) -> Option<RecordedResult> {
        Some(match token {
            "1-0" => RecordedResult::SouthWins,
            "0-1" => RecordedResult::NorthWins,
            "1/2-1/2" => RecordedResult::Draw,
            "*" => RecordedResult::Unknown,
            _ => return None,
        })
    }

    /// The winner, `None` for a draw or an unknown result.
    pub fn winner(self) -> Option<Side> {
        match self {
            RecordedResult::SouthWins => Some(Side::South),
            RecordedResult::NorthWins => Some(Side::North),
            _ => None,
        }
    }

    /// As written in the record.
    pub fn text(self) -> &'static str {
        match self {
            RecordedResult::SouthWins => "1-0",
            RecordedResult::NorthWins => "0-1",
            RecordedResult::Draw => "1/2-1/2",
            RecordedResult::Unknown => "*",
        }
    }
}

/// One move as recorded: the notation and the kazan written after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedMove {
    /// The move without its kazan, as written (`91X`, `g1d2`).
    pub text: String,
    /// The mover's kazan written after a capture, `(k)`.
    pub kazan: Option<u32>,
    /// Line of the record file it was read from (1-based).
    pub line: usize,
}

/// One game read from a record file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameRecord {
    /// Tags in file order, e.g. `("White", "south")`.
    pub tags: Vec<(String, String)>,
    /// The moves, from the starting position.
    pub moves: Vec<RecordedMove>,
    /// The recorded result, if any.
    pub result: Option<RecordedResult>,
    /// Line where the game starts (1-based).
    pub line: usize,
}

impl GameRecord {
    /// The value of tag `name`, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What is wrong with a record.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// A line starting with `[` is not `[Name "value"]`.
    #[error("line {line}: a tag is written [Name \"value\"], found `{text}`")]
    BadTag {
        /// 1-based line.
        line: usize,
        /// The line.
        text: String,
    },
    /// A comment is opened with `{` and never closed.
    #[error("line {line}: the comment opened here is never closed with `}}`")]
    UnclosedComment {
        /// 1-based line.
        line: usize,
    },
    /// A token is neither a move number, a move, nor a result.
    #[error("line {line}: `{token}` is not a move (`76`, `36X`, `21(10)`, `g1d2`), a move number or a result")]
    BadToken {
        /// 1-based line.
        line: usize,
        /// The token.
        token: String,
    },
    /// A move number that does not follow the moves before it.
    #[error("line {line}: move number {found}. where {expected}. was due")]
    MoveNumber {
        /// 1-based line.
        line: usize,
        /// The number written.
        found: u32,
        /// The number expected.
        expected: u32,
    },
}

/// Why a recorded game cannot be replayed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The move is illegal, or its landing or tuzdyk mark is wrong.
    #[error("ply {ply} ({label} on line {line}): {source}")]
    Move {
        /// 1-based ply.
        ply: usize,
        /// The move with its number, e.g. `29. 91`.
        label: String,
        /// 1-based line.
        line: usize,
        /// What the notation check found.
        source: NotationError,
    },
    /// The kazan written after the move is not the mover's kazan.
    #[error("ply {ply} ({label} on line {line}): the record says the mover's kazan is {recorded}, the move makes it {actual}")]
    Kazan {
        /// 1-based ply.
        ply: usize,
        /// The move with its number.
        label: String,
        /// 1-based line.
        line: usize,
        /// The kazan written.
        recorded: u32,
        /// The kazan after the move.
        actual: u32,
    },
    /// The `[FEN "..."]` tag is not a valid position.
    #[error("the FEN tag of the game at line {line}: {source}")]
    Fen {
        /// 1-based line where the game starts.
        line: usize,
        /// What the FEN parser found.
        source: NotationError,
    },
    /// A capture without its kazan written.
    #[error("ply {ply} ({label} on line {line}): the move captures, the record writes no kazan (the mover's kazan is {actual})")]
    MissingKazan {
        /// 1-based ply.
        ply: usize,
        /// The move with its number.
        label: String,
        /// 1-based line.
        line: usize,
        /// The kazan after the move.
        actual: u32,
    },
}

/// `29. 91` for South's move, `29... 91` for North's: the label of ply
/// `ply` (1-based) with text `text`, in a game whose first move is
/// `first`'s.
pub fn move_label(ply: usize, first: Side, text: &str) -> String {
    // Counted as if South had moved first.
    let ply = ply + first.index();
    let number = ply.div_ceil(2);
    if ply % 2 == 1 {
        format!("{number}. {text}")
    } else {
        format!("{number}... {text}")
    }
}

/// A game replayed: the positions (the start first, then after each move)
/// and the moves between them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// `positions[i]` is the position before ply `i + 1`.
    pub positions: Vec<Position>,
    /// The moves, `moves[i]` played in `positions[i]`.
    pub moves: Vec<Move>,
}

impl GameRecord {
    /// Replays the game from the start, checking every move's legality,
    /// landing hole and tuzdyk mark, and every recorded kazan: an even
    /// capture must carry `(k)`, the mover's kazan after the move, and any
    /// `(k)` written (PlayOK writes none after a tuzdyk, `91X`) must be it (a plain move list, with no tags and no kazans,
    /// is not held to writing them).
    ///
    /// # Errors
    /// The first move that does not replay, with its ply.
    pub fn replay(&self) -> Result<Replay, ReplayError> {
        // Plain move lists write no kazans; PlayOK's records write every
        // capture's.
        let playok = !self.tags.is_empty() || self.moves.iter().any(|m| m.kazan.is_some());
        let mut pos = self.start()?;
        let first = pos.side_to_move();
        let mut out = Replay {
            positions: vec![pos],
            moves: Vec::new(),
        };
        for (i, m) in self.moves.iter().enumerate() {
            let ply = i + 1;
            let label = move_label(ply, first, &m.text);
            // PlayOK marks a tuzdyk with `X`, the notation module with `x`.
            let text = m.text.replace('X', "x");
            let mv = parse_move(&pos, &text).map_err(|source| ReplayError::Move {
                ply,
                label: label.clone(),
                line: m.line,
                source,
            })?;
            let mover = pos.side_to_move();
            // `parse_move` has checked that the move is legal here.
            let report = pos.play_unchecked(mv);
            let actual = pos.kazan(mover) as u32;
            let captured = report.captured > 0;
            match m.kazan {
                Some(recorded) if recorded != actual => {
                    return Err(ReplayError::Kazan {
                        ply,
                        label,
                        line: m.line,
                        recorded,
                        actual,
                    })
                }
                None if captured && playok => {
                    return Err(ReplayError::MissingKazan {
                        ply,
                        label,
                        line: m.line,
                        actual,
                    })
                }
                _ => {}
            }
            out.positions.push(pos);
            out.moves.push(mv);
        }
        Ok(out)
    }
}

impl GameRecord {
    /// Who moves first: South, unless a FEN tag says North.
    pub fn first_mover(&self) -> Side {
        // Fields split as the FEN parser splits them (any whitespace).
        match self.tag("FEN").and_then(|f| f.split_whitespace().nth(3)) {
            Some("N") => Side::North,
            _ => Side::South,
        }
    }

    /// The starting position: the tag `[FEN "..."]` if present (a game
    /// from a set-up position), else the start of the game.
    ///
    /// # Errors
    /// A FEN tag that does not parse ([`ReplayError::Fen`]).
    pub fn start(&self) -> Result<Position, ReplayError> {
        match self.tag("FEN") {
            Some(fen) => crate::notation::parse_fen(fen).map_err(|source| ReplayError::Fen {
                line: self.line,
                source,
            }),
            None => Ok(Position::start()),
        }
    }
}

impl fmt::Display for GameRecord {
    /// `south – north, 1-0 (80 plies)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |tag, default| self.tag(tag).unwrap_or(default).to_owned();
        write!(
            f,
            "{} – {}, {} ({} pl{})",
            name("White", "South"),
            name("Black", "North"),
            self.result.unwrap_or(RecordedResult::Unknown).text(),
            self.moves.len(),
            if self.moves.len() == 1 { "y" } else { "ies" }
        )
    }
}

/// Reads every game of a record file. Each game is parsed on its own: a
/// game with a syntax error is an `Err` naming the line, and the games after
/// it are still read. A byte order mark at the start (Windows editors
/// write one) is skipped.
pub fn parse_records(text: &str) -> Vec<Result<GameRecord, RecordError>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut games = Vec::new();
    let mut cur: Option<Result<GameRecord, RecordError>> = None;
    let mut in_comment: Option<usize> = None;
    let mut blank_after_moves = false;
    let finish = |cur: &mut Option<Result<GameRecord, RecordError>>,
                  games: &mut Vec<Result<GameRecord, RecordError>>| {
        if let Some(g) = cur.take() {
            games.push(g);
        }
    };
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim_end_matches('\r').trim();
        if in_comment.is_none() && line.starts_with('[') {
            // Tags after moves start the next game.
            if matches!(&cur, Some(Ok(g)) if !g.moves.is_empty() || g.result.is_some())
                || matches!(&cur, Some(Err(_)))
            {
                finish(&mut cur, &mut games);
            }
            let g = cur.get_or_insert_with(|| {
                Ok(GameRecord {
                    line: line_no,
                    ..GameRecord::default()
                })
            });
            if let Ok(game) = g {
                match parse_tag(line) {
                    Some(tag) => game.tags.push(tag),
                    None => {
                        *g = Err(RecordError::BadTag {
                            line: line_no,
                            text: line.to_owned(),
                        })
                    }
                }
            }
            blank_after_moves = false;
            continue;
        }
        if line.is_empty() && in_comment.is_none() {
            blank_after_moves =
                matches!(&cur, Some(Ok(g)) if !g.moves.is_empty() || g.result.is_some());
            continue;
        }
        if blank_after_moves {
            // A plain move list ends at a blank line.
            finish(&mut cur, &mut games);
            blank_after_moves = false;
        }
        // Strip comments, which may span lines.
        let mut rest = String::new();
        for c in line.chars() {
            match (in_comment, c) {
                (None, '{') => in_comment = Some(line_no),
                (Some(_), '}') => in_comment = None,
                (None, c) => rest.push(c),
                (Some(_), _) => {}
            }
        }
        for token in rest.split_whitespace() {
            let g = cur.get_or_insert_with(|| {
                Ok(GameRecord {
                    line: line_no,
                    ..GameRecord::default()
                })
            });
            let Ok(game) = g else { break };
            if game.result.is_some() {
                // Moves after a result: a new plain game.
                finish(&mut cur, &mut games);
                cur = Some(Ok(GameRecord {
                    line: line_no,
                    ..GameRecord::default()
                }));
            }
            let Some(Ok(game)) = cur.as_mut() else { break };
            if let Err(e) = read_token(game, token, line_no) {
                cur = Some(Err(e));
                break;
            }
        }
    }
    if let Some(line) = in_comment {
        if !matches!(cur, Some(Err(_))) {
            cur = Some(Err(RecordError::UnclosedComment { line }));
        }
    }
    finish(&mut cur, &mut games);
    games
}

/// `[Name "value"]` → `(Name, value)`.
fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let (name, value) = inner.split_once(' ')?;
    let value = value.trim().strip_prefix('"')?.strip_suffix('"')?;
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then(|| (name.to_owned(), value.to_owned()))
}

/// Reads one token into `game`: a move number (`12.` or `12...`, possibly
/// glued to the move after it), a move, or a result.
fn read_token(game: &mut GameRecord, token: &str, line: usize) -> Result<(), RecordError> {
    if let Some(r) = RecordedResult::parse(token) {
        game.result = Some(r);
        return Ok(());
    }
    let bad = || RecordError::BadToken {
        line,
        token: token.to_owned(),
    };
    let digits = token.bytes().take_while(u8::is_ascii_digit).count();
    let mut rest = token;
    if digits > 0 && token[digits..].starts_with('.') {
        let found: u32 = token[..digits].parse().map_err(|_| bad())?;
        let ply = game.moves.len() as u32 + game.first_mover().index() as u32;
        let expected = ply / 2 + 1;
        if found != expected {
            return Err(RecordError::MoveNumber {
                line,
                found,
                expected,
            });
        }
        rest = token[digits..].trim_start_matches('.');
        if rest.is_empty() {
            return Ok(());
        }
    }
    let (text, kazan) = match rest.split_once('(') {
        Some((text, k)) => {
            let k = k.strip_suffix(')').ok_or_else(bad)?;
            if k.is_empty() || k.len() > 3 || !k.bytes().all(|d| d.is_ascii_digit()) {
                return Err(bad());
            }
            (text, Some(k.parse().map_err(|_| bad())?))
        }
        None => (rest, None),
    };
    let b = text.as_bytes();
    let traditional = matches!(
        b,
        [b'1'..=b'9', b'1'..=b'9'] | [b'1'..=b'9', b'1'..=b'9', b'x' | b'X']
    );
    let uci = matches!(b, [b'a'..=b'i', b'1' | b'2', b'a'..=b'i', b'1' | b'2']);
    if !(traditional || uci) {
        return Err(bad());
    }
    game.moves.push(RecordedMove {
        text: text.to_owned(),
        kazan,
        line,
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
