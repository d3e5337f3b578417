//! Position and move notation, interoperable with the PlayStrategy site.
//!
//! * Position: PlayStrategy's FEN,
//!   `<North row>/<South row> <South kazan> <North kazan> <S|N> <move number>`.
//!   The North row is written from North's hole 9 down to hole 1 (as South
//!   sees the board), the South row from hole 1 to 9. A hole with n stones is
//!   `nS`, a bare digit k is a run of k empty holes, `t` is a tuzdyk (owned by
//!   the player opposite the row it sits in). Example:
//!   `9S,9S,9S,9S,1,10S,10S,10S,10S/9S,9S,9S,9S,9S,1S,10S,10S,10S 10 0 N 1`.
//! * Move, traditional: the hole played, then the number of the hole (on
//!   either side) where the last stone landed, then `x` if the move made a
//!   tuzdyk: `65`, `36x`.
//! * Move, PlayStrategy UCI: origin and landing square, `a1`..`i1` being
//!   South's holes 1..9 and `i2`..`a2` North's holes 1..9: `f1e2`.
//! * Move, bare hole: the number of the hole played, `6`, the way players
//!   call a move (read by [`parse_move`]; written by [`Move`]'s `Display`).
//!
//! ```
//! use togyz_tb::notation::{parse_fen, parse_move, traditional, uci};
//! use togyz_tb::Position;
//!
//! let start = Position::start();
//! // South's hole 7: its last stone lands in North's hole 6.
//! let mv = parse_move(&start, "7").unwrap();
//! assert_eq!(parse_move(&start, "76").unwrap(), mv);
//! assert_eq!(parse_move(&start, "g1d2").unwrap(), mv);
//! assert_eq!(traditional(&start, mv).unwrap(), "76");
//! assert_eq!(uci(&start, mv).unwrap(), "g1d2");
//! // A wrong landing hole is refused with the right move named.
//! let err = parse_move(&start, "75").unwrap_err();
//! assert!(err.to_string().contains("`76`"));
//!
//! let pos = parse_fen("9S,9S,9S,9S,1,10S,10S,10S,10S/9S,9S,9S,9S,9S,1S,10S,10S,10S 10 0 N 1")
//!     .unwrap();
//! assert_eq!(pos.fen().parse::<Position>().unwrap(), pos);
//! ```
//!
//! Parsing is strict within the fields: every accepted FEN prints back to
//! the same string (whitespace around and between the fields aside), and a
//! FEN written by [`Position::fen`] always parses. Nothing here
//! panics on any input; errors are [`NotationError`] values whose messages
//! name the problem.

use std::fmt;
use std::str::FromStr;

use crate::rules::{
    EndReason, IllegalMove, Move, MoveReport, Position, PositionError, Side, CYCLE, ROW,
    TOTAL_STONES,
};

/// Why a FEN or a move could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    /// The FEN does not have exactly five space-separated fields.
    #[error(
        "a FEN has 5 fields separated by spaces (board, South kazan, North kazan, side to \
         move, move number), found {found}"
    )]
    FieldCount {
        /// Fields found.
        found: usize,
    },
    /// The board field is not two rows joined by one `/`.
    #[error("the board must be two rows (North/South) joined by one '/', found {found} rows")]
    RowCount {
        /// Rows found.
        found: usize,
    },
    /// A row describes more or fewer than 9 holes.
    #[error("the {row} row describes {holes} holes, not 9")]
    RowLength {
        /// The row.
        row: Side,
        /// Holes described.
        holes: usize,
    },
    /// A comma-separated item of a row is not `nS`, a run digit or `t`.
    #[error(
        "the {row} row has an unreadable hole `{token}` (expected `nS`, a run of empty \
         holes 1-9, or `t`)"
    )]
    BadHole {
        /// The row.
        row: Side,
        /// The offending item.
        token: String,
    },
    /// A hole's stone count is zero, has a leading zero, or exceeds 162.
    #[error(
        "the {row} row has a bad stone count `{token}`: a hole holds 1 to 162 stones, written \
         without leading zeros (empty holes are written as a run digit)"
    )]
    BadStoneCount {
        /// The row.
        row: Side,
        /// The offending item.
        token: String,
    },
    /// A run of empty holes follows another. Usually a hole's `S` was
    /// forgotten (`8,2` for `8,2S`); adjacent empty holes are one run.
    #[error(
        "the {row} row has `{token}` right after a run of empty holes: did you mean \
         `{token}S`, a hole with stones? (adjacent empty holes are written as one run)"
    )]
    SplitRun {
        /// The row.
        row: Side,
        /// The second run.
        token: String,
    },
    /// A kazan field is not a count from 0 to 162.
    #[error("the {side} kazan `{text}` is not a count from 0 to 162 (no sign, no leading zeros)")]
    BadKazan {
        /// Whose kazan.
        side: Side,
        /// The field.
        text: String,
    },
    /// Board plus kazans is not 162.
    #[error("stones on the board ({board}) plus kazans ({south} + {north}) make {total}, not 162")]
    StoneTotal {
        /// Stones on the board.
        board: u32,
        /// South's kazan.
        south: u32,
        /// North's kazan.
        north: u32,
        /// Their sum.
        total: u32,
    },
    /// One row holds two tuzdyks (each player owns at most one, in the
    /// opponent's row).
    #[error("the {row} row holds two tuzdyks; a player has at most one, in the opponent's row")]
    TwoTuzdyksInRow {
        /// The row.
        row: Side,
    },
    /// A tuzdyk in a 9th hole.
    #[error("a tuzdyk cannot be hole 9 (in the {row} row)")]
    TuzdykInNinth {
        /// The row holding it.
        row: Side,
    },
    /// Both tuzdyks carry the same hole number.
    #[error("both tuzdyks are on hole number {number}")]
    TuzdykSameNumber {
        /// The shared hole number, 1..=8.
        number: u8,
    },
    /// A tuzdyk written with stones in it (`3t`).
    #[error("the tuzdyk in hole {number} of the {row} row holds stones; a tuzdyk is written `t`")]
    StonesInTuzdyk {
        /// The row holding it.
        row: Side,
        /// Hole number, 1..=8.
        number: u8,
    },
    /// The side-to-move field is not `S` or `N`.
    #[error("the side to move must be `S` or `N` (or `s`, `n`), found `{text}`")]
    BadSide {
        /// The field.
        text: String,
    },
    /// The move-number field is not a whole number from 1 up.
    #[error(
        "the move number `{text}` is not a whole number from 1 to 4294967295 (no sign, no \
         leading zeros)"
    )]
    BadMoveNumber {
        /// The field.
        text: String,
    },
    /// The text is neither a hole number, a traditional nor a UCI move.
    #[error(
        "`{text}` is not a move: write the hole number (`7`), or the move in traditional \
         (`76`, `36x`) or UCI (`g1d2`) notation"
    )]
    MalformedMove {
        /// The text.
        text: String,
    },
    /// A well-formed move that cannot be played here, or that misstates
    /// where it lands.
    #[error("`{text}` is not legal here: {reason}")]
    IllegalMove {
        /// The text.
        text: String,
        /// What is wrong with it.
        reason: IllegalReason,
    },
    /// The parts of a position contradict each other in a way the checks
    /// above do not name (not produced by [`parse_fen`], kept so that every
    /// [`PositionError`] has a notation error).
    #[error(transparent)]
    Position(PositionError),
}

/// What is wrong with a well-formed move in a given position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalReason {
    /// The move cannot be played here: the game is over, the hole is empty
    /// or it is a tuzdyk.
    #[error(transparent)]
    Unplayable(#[from] IllegalMove),
    /// A UCI origin square outside the mover's row.
    #[error("{square} is not in {side}'s row ({side} is to move)")]
    NotMoversRow {
        /// The origin square.
        square: String,
        /// The side to move.
        side: Side,
    },
    /// The last stone lands elsewhere than the move says.
    #[error("its last stone lands elsewhere: the move is `{correct}`")]
    WrongLanding {
        /// The move written correctly, in the same notation.
        correct: String,
    },
    /// The move makes a tuzdyk but is written without `x`.
    #[error("it makes a tuzdyk: the move is `{correct}`")]
    MissingTuzdykMark {
        /// The move written correctly.
        correct: String,
    },
    /// The move is written with `x` but makes no tuzdyk.
    #[error("it makes no tuzdyk: the move is `{correct}`")]
    NoTuzdykMade {
        /// The move written correctly.
        correct: String,
    },
}

/// One item of a FEN row.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cell {
    Stones(u8),
    Empty,
    Tuzdyk,
}

/// Parses a decimal count without sign or leading zeros, at most `max`.
fn parse_count(text: &str, max: u32) -> Option<u32> {
    let b = text.as_bytes();
    if b.is_empty() || b.len() > 10 || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if b.len() > 1 && b[0] == b'0' {
        return None;
    }
    let v: u64 = b.iter().fold(0u64, |v, &d| v * 10 + (d - b'0') as u64);
    (v <= max as u64).then_some(v as u32)
}

/// A row read in the order it is written, with its tuzdyk (if any) as a
/// 0-based slot in that order.
struct ParsedRow {
    cells: [u8; ROW],
    tuzdyk_slot: Option<usize>,
}

/// Reads one row. `number_of` turns a 0-based written slot into the owner's
/// 1-based hole number (for messages only).
fn parse_row(
    text: &str,
    row: Side,
    number_of: impl Fn(usize) -> usize,
) -> Result<ParsedRow, NotationError> {
    let mut cells = [0u8; ROW];
    let mut tuzdyk_slot = None;
    let mut slot = 0usize;
    let mut prev_run = false;
    for token in text.split(',') {
        let cell = if token == "t" {
            Cell::Tuzdyk
        } else if let Some(n) = token.strip_suffix('S') {
            match parse_count(n, TOTAL_STONES) {
                Some(c) if c > 0 => Cell::Stones(c as u8),
                _ if !n.is_empty() && n.bytes().all(|d| d.is_ascii_digit()) => {
                    return Err(NotationError::BadStoneCount {
                        row,
                        token: token.to_owned(),
                    })
                }
                _ => {
                    return Err(NotationError::BadHole {
                        row,
                        token: token.to_owned(),
                    })
                }
            }
        } else if let Some(n) = token.strip_suffix('t') {
            if !n.is_empty() && n.bytes().all(|d| d.is_ascii_digit()) {
                return Err(NotationError::StonesInTuzdyk {
                    row,
                    number: number_of(slot.min(ROW - 1)) as u8,
                });
            }
            return Err(NotationError::BadHole {
                row,
                token: token.to_owned(),
            });
        } else if token.len() == 1 && matches!(token.as_bytes()[0], b'1'..=b'9') {
            if prev_run {
                return Err(NotationError::SplitRun {
                    row,
                    token: token.to_owned(),
                });
            }
            Cell::Empty
        } else {
            return Err(NotationError::BadHole {
                row,
                token: token.to_owned(),
            });
        };
        let width = match cell {
            Cell::Empty => (token.as_bytes()[0] - b'0') as usize,
            _ => 1,
        };
        prev_run = cell == Cell::Empty;
        if slot + width <= ROW {
            match cell {
                Cell::Stones(c) => cells[slot] = c,
                Cell::Empty => {}
                Cell::Tuzdyk => {
                    if tuzdyk_slot.is_some() {
                        return Err(NotationError::TwoTuzdyksInRow { row });
                    }
                    tuzdyk_slot = Some(slot);
                }
            }
        }
        // Keep counting past 9 so the message can say how many were written.
        slot += width;
    }
    if slot != ROW {
        return Err(NotationError::RowLength { row, holes: slot });
    }
    Ok(ParsedRow { cells, tuzdyk_slot })
}

/// Parses a PlayStrategy FEN.
///
/// Whitespace around the FEN and between its fields is free (a FEN pasted
/// with a trailing newline or a doubled space reads the same); within the
/// fields only the canonical form is accepted (the one [`Position::fen`]
/// writes), so `parse_fen(s)?.fen()` is `s` with its whitespace normalised
/// to single spaces.
///
/// # Errors
///
/// A [`NotationError`] naming the first problem found: the number of
/// fields or rows, an unreadable hole, kazan, side or move number, stones
/// that do not add up to 162, or tuzdyks the rules do not allow.
pub fn parse_fen(fen: &str) -> Result<Position, NotationError> {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(NotationError::FieldCount {
            found: fields.len(),
        });
    }
    let rows: Vec<&str> = fields[0].split('/').collect();
    if rows.len() != 2 {
        return Err(NotationError::RowCount { found: rows.len() });
    }
    // North is written from hole 9 down to hole 1.
    let north = parse_row(rows[0], Side::North, |slot| ROW - slot)?;
    let south = parse_row(rows[1], Side::South, |slot| slot + 1)?;

    let kazan = |side: Side, text: &str| {
        parse_count(text, TOTAL_STONES)
            .map(|k| k as u8)
            .ok_or_else(|| NotationError::BadKazan {
                side,
                text: text.to_owned(),
            })
    };
    let kazans = [
        kazan(Side::South, fields[1])?,
        kazan(Side::North, fields[2])?,
    ];
    let side = match fields[3] {
        "S" | "s" => Side::South,
        "N" | "n" => Side::North,
        other => {
            return Err(NotationError::BadSide {
                text: other.to_owned(),
            })
        }
    };
    let move_number = parse_count(fields[4], u32::MAX)
        .filter(|&n| n >= 1)
        .ok_or_else(|| NotationError::BadMoveNumber {
            text: fields[4].to_owned(),
        })?;

    let mut holes = [0u8; CYCLE];
    holes[..ROW].copy_from_slice(&south.cells);
    for (slot, &c) in north.cells.iter().enumerate() {
        holes[ROW + (ROW - 1 - slot)] = c;
    }
    // A tuzdyk in a row belongs to the player opposite that row; numbers
    // are 1-based.
    let tuzdyks = [
        north.tuzdyk_slot.map(|slot| (ROW - slot) as u8),
        south.tuzdyk_slot.map(|slot| slot as u8 + 1),
    ];
    Position::new(holes, kazans, tuzdyks, side, move_number).map_err(|e| match e {
        PositionError::StoneCount {
            board,
            south_kazan,
            north_kazan,
            total,
        } => NotationError::StoneTotal {
            board,
            south: south_kazan,
            north: north_kazan,
            total,
        },
        PositionError::TuzdykInNinth { row } => NotationError::TuzdykInNinth { row },
        PositionError::TuzdykSameNumber(number) => NotationError::TuzdykSameNumber { number },
        PositionError::StonesInTuzdyk { row, number } => {
            NotationError::StonesInTuzdyk { row, number }
        }
        other => NotationError::Position(other),
    })
}

/// Writes one row's cells, merging adjacent empty holes into runs.
fn write_row(out: &mut String, cells: impl Iterator<Item = Cell>) {
    let mut first = true;
    let mut run = 0u8;
    let mut sep = |out: &mut String| {
        if !first {
            out.push(',');
        }
        first = false;
    };
    for cell in cells {
        if cell == Cell::Empty {
            run += 1;
            continue;
        }
        if run > 0 {
            sep(out);
            out.push((b'0' + run) as char);
            run = 0;
        }
        sep(out);
        match cell {
            Cell::Stones(n) => {
                out.push_str(&n.to_string());
                out.push('S');
            }
            Cell::Tuzdyk => out.push('t'),
            Cell::Empty => {}
        }
    }
    if run > 0 {
        sep(out);
        out.push((b'0' + run) as char);
    }
}

impl Position {
    /// The position as a PlayStrategy FEN (the inverse of [`parse_fen`]).
    pub fn fen(&self) -> String {
        let cell = |idx: usize| {
            if self.is_tuzdyk(idx) {
                Cell::Tuzdyk
            } else if self.holes()[idx] == 0 {
                Cell::Empty
            } else {
                Cell::Stones(self.holes()[idx])
            }
        };
        let mut out = String::with_capacity(80);
        write_row(&mut out, (ROW..CYCLE).rev().map(cell));
        out.push('/');
        write_row(&mut out, (0..ROW).map(cell));
        let [s, n] = self.kazans();
        out.push_str(&format!(
            " {s} {n} {} {}",
            self.side_to_move().letter(),
            self.move_number()
        ));
        out
    }
}

/// Prints the FEN.
impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}

impl FromStr for Position {
    type Err = NotationError;

    fn from_str(s: &str) -> Result<Position, NotationError> {
        parse_fen(s)
    }
}

/// The UCI name of cycle index `idx` (`a1`..`i1` South 1..9, `i2`..`a2`
/// North 1..9). Callers pass cycle indices, which are below 18.
fn square_name(idx: usize) -> String {
    let (file, rank) = if idx < ROW {
        (b'a' + idx as u8, '1')
    } else {
        (b'i' - (idx - ROW) as u8, '2')
    };
    format!("{}{rank}", file as char)
}

/// The cycle index of a UCI square name, if it is one.
fn square_index(name: &[u8]) -> Option<usize> {
    match name {
        [f @ b'a'..=b'i', b'1'] => Some((f - b'a') as usize),
        [f @ b'a'..=b'i', b'2'] => Some(ROW + (b'i' - f) as usize),
        _ => None,
    }
}

impl MoveReport {
    /// The move in traditional notation: hole played, landing hole number,
    /// `x` if it made a tuzdyk (`65`, `36x`).
    pub fn traditional(&self) -> String {
        format!(
            "{}{}{}",
            self.mv,
            self.last % ROW + 1,
            if self.tuzdyk_made.is_some() { "x" } else { "" }
        )
    }

    /// The move in PlayStrategy UCI: origin and landing square (`f1e2`).
    pub fn uci(&self) -> String {
        let from = self.mover.row_start() + self.mv.index();
        format!("{}{}", square_name(from), square_name(self.last))
    }
}

/// Plays `mv` on a copy of `pos`, for notation purposes.
fn report_of(pos: &Position, mv: Move) -> Result<MoveReport, IllegalReason> {
    let mut p = *pos;
    Ok(p.play(mv)?)
}

/// Writes a move in traditional notation (`65`, `36x`), which needs the
/// position: the landing hole follows from it.
///
/// # Errors
///
/// [`NotationError::IllegalMove`] if `mv` cannot be played in `pos`.
pub fn traditional(pos: &Position, mv: Move) -> Result<String, NotationError> {
    report_of(pos, mv)
        .map(|r| r.traditional())
        .map_err(|reason| NotationError::IllegalMove {
            text: mv.to_string(),
            reason,
        })
}

/// A line of moves played one after the other from `pos` (a principal
/// variation, a game), each in traditional notation: `["91", "12", "91",
/// "12"]`; join them with spaces for the text `91 12 91 12`. (A move's own
/// `Display` is only its hole, `9`: the landing hole needs the position.)
///
/// # Errors
///
/// [`NotationError::IllegalMove`] for the first move that cannot be played
/// where the line has got to.
pub fn line(pos: &Position, moves: &[Move]) -> Result<Vec<String>, NotationError> {
    let mut p = *pos;
    moves
        .iter()
        .map(|&mv| {
            p.play(mv)
                .map(|r| r.traditional())
                .map_err(|e| NotationError::IllegalMove {
                    text: mv.to_string(),
                    reason: e.into(),
                })
        })
        .collect()
}

/// Writes a move in PlayStrategy UCI (`f1e2`).
///
/// # Errors
///
/// [`NotationError::IllegalMove`] if `mv` cannot be played in `pos`.
pub fn uci(pos: &Position, mv: Move) -> Result<String, NotationError> {
    report_of(pos, mv)
        .map(|r| r.uci())
        .map_err(|reason| NotationError::IllegalMove {
            text: mv.to_string(),
            reason,
        })
}

/// Reads a bare hole number (`1` to `9`) as the move from that hole of the
/// mover's row, checking that it is legal in `pos`.
///
/// # Errors
///
/// [`NotationError::MalformedMove`] unless `text` is one digit 1-9;
/// [`NotationError::IllegalMove`] if the hole cannot be played.
pub fn parse_hole(pos: &Position, text: &str) -> Result<Move, NotationError> {
    let mv = match text.as_bytes() {
        [h @ b'1'..=b'9'] => Move::new(h - b'0'),
        _ => None,
    }
    .ok_or_else(|| NotationError::MalformedMove {
        text: text.to_owned(),
    })?;
    pos.check(mv).map_err(|e| NotationError::IllegalMove {
        text: text.to_owned(),
        reason: e.into(),
    })?;
    Ok(mv)
}

/// Reads a move in traditional notation (`76`, `36x`), checking that it is
/// legal in `pos` and that the landing hole and the `x` are right.
///
/// # Errors
///
/// [`NotationError::MalformedMove`] for text of another shape;
/// [`NotationError::IllegalMove`] for a move that cannot be played, lands
/// elsewhere, or has a wrong `x`.
pub fn parse_traditional(pos: &Position, text: &str) -> Result<Move, NotationError> {
    let malformed = || NotationError::MalformedMove {
        text: text.to_owned(),
    };
    let (hole, landing, mark) = match text.as_bytes() {
        [h @ b'1'..=b'9', l @ b'1'..=b'9'] => (h - b'0', l - b'1', false),
        [h @ b'1'..=b'9', l @ b'1'..=b'9', b'x'] => (h - b'0', l - b'1', true),
        _ => return Err(malformed()),
    };
    let illegal = |reason| NotationError::IllegalMove {
        text: text.to_owned(),
        reason,
    };
    let mv = Move::new(hole).ok_or_else(malformed)?;
    let report = report_of(pos, mv).map_err(illegal)?;
    let correct = report.traditional();
    if report.last % ROW != landing as usize {
        return Err(illegal(IllegalReason::WrongLanding { correct }));
    }
    match (mark, report.tuzdyk_made.is_some()) {
        (false, true) => Err(illegal(IllegalReason::MissingTuzdykMark { correct })),
        (true, false) => Err(illegal(IllegalReason::NoTuzdykMade { correct })),
        _ => Ok(mv),
    }
}

/// Reads a move in PlayStrategy UCI (`g1d2`), checking that it is legal in
/// `pos` and that the destination is where the last stone lands.
///
/// # Errors
///
/// [`NotationError::MalformedMove`] unless `text` is two squares;
/// [`NotationError::IllegalMove`] for an origin outside the mover's row, a
/// move that cannot be played, or a wrong destination.
pub fn parse_uci(pos: &Position, text: &str) -> Result<Move, NotationError> {
    let b = text.as_bytes();
    let (from, to) = match (
        b.get(..2).and_then(square_index),
        b.get(2..).and_then(square_index),
    ) {
        (Some(f), Some(t)) if b.len() == 4 => (f, t),
        _ => {
            return Err(NotationError::MalformedMove {
                text: text.to_owned(),
            })
        }
    };
    let illegal = |reason| NotationError::IllegalMove {
        text: text.to_owned(),
        reason,
    };
    let side = pos.side_to_move();
    if pos.outcome().is_some() {
        return Err(illegal(IllegalMove::GameOver.into()));
    }
    if Side::of_hole(from) != side {
        return Err(illegal(IllegalReason::NotMoversRow {
            square: text[..2].to_owned(),
            side,
        }));
    }
    let mv = Move::from_index(from - side.row_start()).expect("a square of the mover's row");
    let report = report_of(pos, mv).map_err(illegal)?;
    if report.last != to {
        return Err(illegal(IllegalReason::WrongLanding {
            correct: report.uci(),
        }));
    }
    Ok(mv)
}

/// Reads a move in any notation: a bare hole number if it is one digit
/// (`6`), traditional if it starts with a digit (`65`, `36x`), UCI if it
/// starts with a letter (`f1e2`).
///
/// # Errors
///
/// As [`parse_hole`], [`parse_traditional`] and [`parse_uci`].
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, NotationError> {
    match text.as_bytes() {
        [_] => parse_hole(pos, text),
        [b'0'..=b'9', ..] => parse_traditional(pos, text),
        [b'a'..=b'z', ..] => parse_uci(pos, text),
        _ => Err(NotationError::MalformedMove {
            text: text.to_owned(),
        }),
    }
}

/// The result of a finished game in words, e.g. `North wins 83:79 (South has
/// no stones; North collects 4)`; `None` while the game goes on. The winner's
/// score comes first.
pub fn result_text(pos: &Position) -> Option<String> {
    let outcome = pos.outcome()?;
    let [s, n] = outcome.score;
    let head = match outcome.winner {
        Some(Side::South) => format!("South wins {s}:{n}"),
        Some(Side::North) => format!("North wins {n}:{s}"),
        None => format!("Draw {s}:{n}"),
    };
    let why = match outcome.reason {
        EndReason::KazanOver81 => {
            // Only one kazan can pass 81: the stones add up to 162.
            let owner = if s > n { Side::South } else { Side::North };
            format!("{owner}'s kazan holds more than 81")
        }
        EndReason::NoStones => {
            let mover = pos.side_to_move();
            format!(
                "{mover} has no stones; {} collects {}",
                mover.opponent(),
                pos.stones_on_board()
            )
        }
    };
    Some(format!("{head} ({why})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1";

    #[test]
    fn start_round_trip() {
        let p = parse_fen(START).unwrap();
        assert_eq!(p, Position::start());
        assert_eq!(p.fen(), START);
        assert_eq!(p.to_string(), START);
    }

    #[test]
    fn square_names_match_playstrategy() {
        let names: Vec<String> = (0..CYCLE).map(square_name).collect();
        assert_eq!(names[0], "a1");
        assert_eq!(names[8], "i1");
        assert_eq!(names[9], "i2");
        assert_eq!(names[17], "a2");
        for (i, n) in names.iter().enumerate() {
            assert_eq!(square_index(n.as_bytes()), Some(i));
        }
    }

    #[test]
    fn parse_count_rejects_non_canonical() {
        assert_eq!(parse_count("0", 162), Some(0));
        assert_eq!(parse_count("162", 162), Some(162));
        assert_eq!(parse_count("163", 162), None);
        assert_eq!(parse_count("07", 162), None);
        assert_eq!(parse_count("+7", 162), None);
        assert_eq!(parse_count("", 162), None);
        assert_eq!(parse_count("99999999999", u32::MAX), None);
    }

    #[test]
    fn traditional_and_uci_of_south_seven() {
        // docs/rules.md: South's `76` is `g1d2`.
        let p = Position::start();
        let seven = Move::new(7).unwrap();
        assert_eq!(traditional(&p, seven).unwrap(), "76");
        assert_eq!(uci(&p, seven).unwrap(), "g1d2");
        assert_eq!(parse_move(&p, "76").unwrap(), seven);
        assert_eq!(parse_move(&p, "g1d2").unwrap(), seven);
        assert_eq!(parse_move(&p, "7").unwrap(), seven);
    }
}
