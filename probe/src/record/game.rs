//! The game model: a record's moves, tags and result, and its replay from
//! the start with every recorded detail checked.

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
    pub(super) fn parse(token: &str) -> Option<RecordedResult> {
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
    /// What the record's move numbers count from: 0 when its first move is
    /// `1.`, the FEN tag's move number less 1 when it numbers its moves
    /// from there (`30. 34` after `[FEN "... S 30"]`).
    pub number_offset: u32,
}

impl GameRecord {
    /// The label of ply `ply` (1-based) as the record numbers it, `30. 34`
    /// or `30... 34`, in a game whose first move is `first`'s.
    pub fn label(&self, ply: usize, first: Side) -> String {
        let text = self.moves.get(ply - 1).map_or("", |m| m.text.as_str());
        move_label(ply + 2 * self.number_offset as usize, first, text)
    }

    /// The value of tag `name`, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
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
            let label = self.label(ply, first);
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
            Some("N" | "n") => Side::North,
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
