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

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, BufRead};
use std::sync::{Arc, Mutex};

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
    /// A line longer than [`MAX_LINE_BYTES`].
    #[error(
        "line {line} is longer than {} bytes: not a record line (read past it)",
        MAX_LINE_BYTES
    )]
    LineTooLong {
        /// 1-based line.
        line: usize,
    },
    /// A game longer than [`MAX_GAME_PLIES`].
    #[error(
        "the game at line {line} goes on past {} plies, the most one game may hold (read past it)",
        MAX_GAME_PLIES
    )]
    GameTooLong {
        /// 1-based line where the game starts.
        line: usize,
    },
    /// A line holding NUL bytes: not text.
    #[error("line {line} holds NUL bytes: the file is not text (a binary file, or UTF-16 without a byte order mark?)")]
    Nul {
        /// 1-based line.
        line: usize,
    },
    /// Input whose first bytes are ASCII with zero bytes between: UTF-16
    /// without a byte order mark.
    #[error("the input looks like UTF-16 ({}) without a byte order mark: save it as UTF-8, or as UTF-16 with a byte order mark", if *little_endian { "little-endian" } else { "big-endian" })]
    Utf16NoMark {
        /// Which byte of a unit holds the ASCII character.
        little_endian: bool,
    },
    /// The input could not be read.
    #[error("line {line}: cannot read the input: {message}")]
    Read {
        /// 1-based line.
        line: usize,
        /// What the system said.
        message: String,
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

/// The longest line a record may hold, in bytes (1 MiB): a PlayOK export
/// writes a few moves a line, a plain list a whole game of several
/// thousand plies. A longer line is an error ([`RecordError::LineTooLong`])
/// read past without being held in memory.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The most plies one game may hold (100,000; real games hold a few
/// hundred). The rules set no move limit (docs/rules.md), so an endless
/// drawn cycle can be written out forever: past this the game is an error
/// ([`RecordError::GameTooLong`]) and the rest of it is read past without
/// being held, so that memory stays flat however long the input.
pub const MAX_GAME_PLIES: usize = 100_000;

/// Reads every game of a record file held in memory: [`Records`] over its
/// text, collected.
pub fn parse_records(text: &str) -> Vec<Result<GameRecord, RecordError>> {
    Records::new(text.as_bytes()).collect()
}

/// One line read by [`read_line_capped`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    /// The input has ended.
    End,
    /// A line, now in the buffer without its `\n`.
    Read,
    /// A line longer than the cap: read past, the buffer holds its first
    /// `cap` bytes.
    TooLong,
}

/// Reads one line of `input` into `buf` (cleared first), holding at most
/// `cap` bytes of it: the rest of a longer line is read and dropped, so a
/// line of any length takes at most `cap` bytes of memory.
///
/// # Errors
/// What reading `input` fails with.
pub fn read_line_capped(
    input: &mut impl BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
) -> io::Result<Line> {
    buf.clear();
    let mut any = false;
    let mut too_long = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (part, used, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], i + 1, true),
            None => (chunk, chunk.len(), false),
        };
        let room = cap.saturating_sub(buf.len());
        if part.len() > room {
            too_long = true;
        }
        buf.extend_from_slice(&part[..part.len().min(room)]);
        input.consume(used);
        if done {
            break;
        }
    }
    Ok(match (any, too_long) {
        (false, _) => Line::End,
        (true, false) => Line::Read,
        (true, true) => Line::TooLong,
    })
}

/// Reads the games of a record file one at a time from `input`, holding
/// only the game being read (at most [`MAX_GAME_PLIES`] plies, lines of at
/// most [`MAX_LINE_BYTES`]). Each game is parsed on its own: a game with a
/// syntax error is an `Err` naming the line, and the games after it are
/// still read. A UTF-8 byte order mark is skipped, and a UTF-16 one
/// (Windows editors write them) makes the input read as UTF-16; other bytes
/// that are not UTF-8 read as U+FFFD ([`Records::lossy_line`] says where
/// the first was), so that a legacy code page mars only tag values. Input
/// that looks like UTF-16 without a byte order mark, or holds NUL bytes,
/// is an error that says so.
pub struct Records<R: BufRead> {
    input: Input<R>,
    buf: Vec<u8>,
    line_no: usize,
    state: Parser,
    ready: Ready,
    /// The game the last error came from, as read up to its fault.
    failed: Option<GameRecord>,
    started: bool,
    ended: bool,
    lossy_line: Option<usize>,
}

/// The first bytes of the input, read to look for a byte order mark, then
/// the rest.
type Head<R> = io::Chain<io::Cursor<Vec<u8>>, R>;

/// The bytes under [`Records`]: as given, or UTF-16 turned into UTF-8.
enum Input<R: BufRead> {
    /// Not looked at yet.
    Start(R),
    Bytes(Head<R>),
    Utf16(io::BufReader<Utf16<Head<R>>>),
    /// Refused at the start, or while [`Records::start`] looks.
    Gone,
}

impl<R: BufRead> Records<R> {
    /// Reads the games of `input`.
    pub fn new(input: R) -> Records<R> {
        Records {
            input: Input::Start(input),
            buf: Vec::new(),
            line_no: 0,
            state: Parser::default(),
            ready: VecDeque::new(),
            failed: None,
            started: false,
            ended: false,
            lossy_line: None,
        }
    }

    /// The game that the last error returned came from, as read up to the
    /// fault: where it starts (`line`) and its tags, the moves before the
    /// fault. `None` after a game read whole, or after an error of the
    /// input itself (not text, cannot be read at its start).
    pub fn failed_game(&self) -> Option<&GameRecord> {
        self.failed.as_ref()
    }

    /// The first line whose bytes were not valid UTF-8 (they read as
    /// U+FFFD), if any so far.
    pub fn lossy_line(&self) -> Option<usize> {
        self.lossy_line
    }

    /// Looks at the first bytes (however the input delivers them): a byte
    /// order mark, or text that is not text. `Err` ends the input.
    fn start(&mut self) -> Result<(), RecordError> {
        let Input::Start(mut input) = std::mem::replace(&mut self.input, Input::Gone) else {
            return Ok(());
        };
        let mut head = Vec::with_capacity(3);
        while head.len() < 3 {
            let chunk = match input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(RecordError::Read {
                        line: 1,
                        message: e.to_string(),
                    })
                }
            };
            if chunk.is_empty() {
                break;
            }
            let n = chunk.len().min(3 - head.len());
            head.extend_from_slice(&chunk[..n]);
            input.consume(n);
        }
        let (utf16, skip) = match head[..] {
            [0xef, 0xbb, 0xbf, ..] => (None, 3),
            [0xff, 0xfe, ..] => (Some(true), 2),
            [0xfe, 0xff, ..] => (Some(false), 2),
            // ASCII in UTF-16 without a mark: every other byte is zero.
            [a, 0, ..] if a != 0 => {
                return Err(RecordError::Utf16NoMark {
                    little_endian: true,
                })
            }
            [0, b, ..] if b != 0 => {
                return Err(RecordError::Utf16NoMark {
                    little_endian: false,
                })
            }
            _ => (None, 0),
        };
        let rest = io::Read::chain(io::Cursor::new(head.split_off(skip)), input);
        self.input = match utf16 {
            None => Input::Bytes(rest),
            Some(le) => Input::Utf16(io::BufReader::new(Utf16::new(rest, le))),
        };
        Ok(())
    }

    /// Reads the next line into the parser; false at the end of the input.
    fn next_line(&mut self) -> bool {
        let read = match &mut self.input {
            Input::Bytes(r) => read_line_capped(r, &mut self.buf, MAX_LINE_BYTES),
            Input::Utf16(r) => read_line_capped(r, &mut self.buf, MAX_LINE_BYTES),
            Input::Start(_) | Input::Gone => Ok(Line::End),
        };
        self.line_no += 1;
        let line_no = self.line_no;
        match read {
            Ok(Line::End) => false,
            Err(e) => {
                self.state.fail(
                    &mut self.ready,
                    RecordError::Read {
                        line: line_no,
                        message: e.to_string(),
                    },
                    line_no,
                );
                self.ended = true;
                false
            }
            Ok(Line::TooLong) => {
                self.state.fail(
                    &mut self.ready,
                    RecordError::LineTooLong { line: line_no },
                    line_no,
                );
                true
            }
            Ok(Line::Read) => {
                if self.buf.contains(&0) {
                    self.state
                        .fail(&mut self.ready, RecordError::Nul { line: line_no }, line_no);
                    return true;
                }
                let text = match std::str::from_utf8(&self.buf) {
                    Ok(t) => std::borrow::Cow::Borrowed(t),
                    Err(_) => {
                        self.lossy_line.get_or_insert(line_no);
                        String::from_utf8_lossy(&self.buf)
                    }
                };
                self.state.line(&mut self.ready, line_no, &text);
                true
            }
        }
    }
}

impl<R: BufRead> Iterator for Records<R> {
    type Item = Result<GameRecord, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        if !self.started {
            self.started = true;
            if let Err(e) = self.start() {
                self.ended = true;
                self.failed = None;
                return Some(Err(e));
            }
        }
        while self.ready.is_empty() && !self.ended {
            if !self.next_line() {
                self.ended = true;
                self.state.end(&mut self.ready);
            }
        }
        let (game, failed) = self.ready.pop_front()?;
        self.failed = failed;
        Some(game)
    }
}

/// UTF-16 bytes read as UTF-8; a unit that is no character reads as
/// U+FFFD.
struct Utf16<R: BufRead> {
    chars: std::char::DecodeUtf16<Units<R>>,
    /// Where [`Units`] puts a read error, which ends its units.
    error: Arc<Mutex<Option<io::Error>>>,
    /// The UTF-8 bytes of a character not yet handed out, and how many
    /// were.
    pending: ([u8; 4], usize, usize),
}

/// The 16-bit units of UTF-16 bytes; an odd last byte reads as an
/// unpaired surrogate, so U+FFFD.
struct Units<R> {
    input: Option<R>,
    little_endian: bool,
    error: Arc<Mutex<Option<io::Error>>>,
}

impl<R: BufRead> Iterator for Units<R> {
    type Item = u16;

    fn next(&mut self) -> Option<u16> {
        let input = self.input.as_mut()?;
        let mut pair = [0u8; 2];
        let mut got = 0;
        while got < 2 {
            let chunk = match input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    *self.error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                    self.input = None;
                    return None;
                }
            };
            if chunk.is_empty() {
                break;
            }
            let n = chunk.len().min(2 - got);
            pair[got..got + n].copy_from_slice(&chunk[..n]);
            input.consume(n);
            got += n;
        }
        match got {
            0 => None,
            1 => Some(0xdc00),
            _ if self.little_endian => Some(u16::from_le_bytes(pair)),
            _ => Some(u16::from_be_bytes(pair)),
        }
    }
}

impl<R: BufRead> Utf16<R> {
    fn new(input: R, little_endian: bool) -> Utf16<R> {
        let error = Arc::new(Mutex::new(None));
        Utf16 {
            chars: char::decode_utf16(Units {
                input: Some(input),
                little_endian,
                error: Arc::clone(&error),
            }),
            error,
            pending: ([0; 4], 0, 0),
        }
    }
}

impl<R: BufRead> io::Read for Utf16<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < out.len() {
            let (bytes, from, to) = &mut self.pending;
            if from == to {
                let Some(c) = self.chars.next() else { break };
                let c = c.unwrap_or(char::REPLACEMENT_CHARACTER);
                *to = c.encode_utf8(bytes).len();
                *from = 0;
            }
            let take = (*to - *from).min(out.len() - n);
            out[n..n + take].copy_from_slice(&bytes[*from..*from + take]);
            *from += take;
            n += take;
        }
        if n == 0 {
            if let Some(e) = self.error.lock().unwrap_or_else(|p| p.into_inner()).take() {
                return Err(e);
            }
        }
        Ok(n)
    }
}

/// The games read and not yet handed out, each failed one with the game
/// as read up to its fault.
type Ready = VecDeque<(Result<GameRecord, RecordError>, Option<GameRecord>)>;

/// The state of [`Records`] between lines.
#[derive(Default)]
struct Parser {
    /// The game being read.
    cur: Option<Result<GameRecord, RecordError>>,
    /// When it has failed: the game as read up to the fault.
    partial: Option<GameRecord>,
    /// The line where an open comment started.
    in_comment: Option<usize>,
    blank_after_moves: bool,
    /// What the current game's move numbers count from, once its first
    /// number is read: 0 from `1.`, or the FEN tag's move number less 1.
    offset: Option<u32>,
}

impl Parser {
    fn finish(&mut self, ready: &mut Ready) {
        if let Some(g) = self.cur.take() {
            ready.push_back((g, self.partial.take()));
        }
        self.partial = None;
        self.offset = None;
    }

    fn new_game(&mut self, line: usize) {
        self.cur = Some(Ok(GameRecord {
            line,
            ..GameRecord::default()
        }));
        self.partial = None;
        self.offset = None;
    }

    /// The current game fails with `e`; what was read of it is kept.
    fn set_err(&mut self, e: RecordError) {
        if let Some(Ok(g)) = self.cur.take() {
            self.partial = Some(g);
        }
        self.cur = Some(Err(e));
    }

    /// A line that could not be read (too long, not text): the game it is
    /// in fails with `e`, unless it had failed already.
    fn fail(&mut self, ready: &mut Ready, e: RecordError, line_no: usize) {
        let done = matches!(&self.cur, Some(Ok(g)) if g.result.is_some());
        if self.blank_after_moves || done {
            self.finish(ready);
        }
        self.blank_after_moves = false;
        match &self.cur {
            Some(Err(_)) => {}
            Some(Ok(_)) => self.set_err(e),
            None => {
                self.new_game(line_no);
                self.set_err(e);
            }
        }
    }

    /// The input has ended.
    fn end(&mut self, ready: &mut Ready) {
        if let Some(line) = self.in_comment.take() {
            if !matches!(self.cur, Some(Err(_))) {
                self.set_err(RecordError::UnclosedComment { line });
            }
        }
        self.finish(ready);
    }

    /// Reads one line; the games it ends go to `ready`.
    fn line(&mut self, ready: &mut Ready, line_no: usize, raw: &str) {
        let line = raw.trim_end_matches('\r').trim();
        if self.in_comment.is_none() && line.starts_with('[') {
            // Tags after moves start the next game.
            if matches!(&self.cur, Some(Ok(g)) if !g.moves.is_empty() || g.result.is_some())
                || matches!(&self.cur, Some(Err(_)))
            {
                self.finish(ready);
            }
            if self.cur.is_none() {
                self.new_game(line_no);
            }
            if let Some(Ok(game)) = self.cur.as_mut() {
                match parse_tag(line) {
                    Some(tag) => game.tags.push(tag),
                    None => self.set_err(RecordError::BadTag {
                        line: line_no,
                        text: line.to_owned(),
                    }),
                }
            }
            self.blank_after_moves = false;
            return;
        }
        if line.is_empty() && self.in_comment.is_none() {
            self.blank_after_moves =
                matches!(&self.cur, Some(Ok(g)) if !g.moves.is_empty() || g.result.is_some());
            return;
        }
        if self.blank_after_moves {
            // A plain move list ends at a blank line.
            self.finish(ready);
            self.blank_after_moves = false;
        }
        // Strip comments, which may span lines.
        let mut rest = String::new();
        for c in line.chars() {
            match (self.in_comment, c) {
                (None, '{') => self.in_comment = Some(line_no),
                (Some(_), '}') => self.in_comment = None,
                (None, c) => rest.push(c),
                (Some(_), _) => {}
            }
        }
        for token in rest.split_whitespace() {
            if self.cur.is_none() {
                self.new_game(line_no);
            }
            match &self.cur {
                Some(Err(_)) => break,
                Some(Ok(game)) if game.result.is_some() => {
                    // Moves after a result: a new plain game.
                    self.finish(ready);
                    self.new_game(line_no);
                }
                _ => {}
            }
            let Some(Ok(game)) = self.cur.as_mut() else {
                break;
            };
            if let Err(e) = read_token(game, &mut self.offset, token, line_no) {
                self.set_err(e);
                break;
            }
        }
    }
}

/// `[Name "value"]` → `(Name, value)`.
fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let (name, value) = inner.split_once(' ')?;
    let value = value.trim().strip_prefix('"')?.strip_suffix('"')?;
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then(|| (name.to_owned(), value.to_owned()))
}

/// A move as PlayOK writes it, `21(10)`, split into the move (`21`) and
/// the kazan written after it (`10`, the mover's kazan after the move); a
/// move without `(k)` has none. `None` when the parentheses do not hold a
/// count of 1 to 3 digits.
pub fn split_kazan(token: &str) -> Option<(&str, Option<u32>)> {
    match token.split_once('(') {
        Some((text, k)) => {
            let k = k.strip_suffix(')')?;
            if k.is_empty() || k.len() > 3 || !k.bytes().all(|d| d.is_ascii_digit()) {
                return None;
            }
            Some((text, Some(k.parse().ok()?)))
        }
        None => Some((token, None)),
    }
}

/// Reads one token into `game`: a move number (`12.` or `12...`, possibly
/// glued to the move after it), a move, or a result.
/// A record with a FEN tag may number its moves from `1.` or from the
/// FEN's move number: `offset` keeps which, once the first number is read.
fn read_token(
    game: &mut GameRecord,
    offset: &mut Option<u32>,
    token: &str,
    line: usize,
) -> Result<(), RecordError> {
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
        let from_one = ply / 2 + 1;
        let fen_offset = game
            .tag("FEN")
            .and_then(|f| f.split_whitespace().nth(4)?.parse::<u32>().ok())
            .map_or(0, |n| n.saturating_sub(1));
        let shift = *offset.get_or_insert(
            if found != from_one && from_one.checked_add(fen_offset) == Some(found) {
                fen_offset
            } else {
                0
            },
        );
        game.number_offset = shift;
        let expected = from_one.saturating_add(shift);
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
    let (text, kazan) = split_kazan(rest).ok_or_else(bad)?;
    let b = text.as_bytes();
    let traditional = matches!(
        b,
        [b'1'..=b'9', b'1'..=b'9'] | [b'1'..=b'9', b'1'..=b'9', b'x' | b'X']
    );
    let uci = matches!(b, [b'a'..=b'i', b'1' | b'2', b'a'..=b'i', b'1' | b'2']);
    if !(traditional || uci) {
        return Err(bad());
    }
    if game.moves.len() >= MAX_GAME_PLIES {
        return Err(RecordError::GameTooLong { line: game.line });
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
