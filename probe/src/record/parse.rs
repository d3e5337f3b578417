//! The PlayOK parser: games read one at a time from lines of text, each
//! game's syntax errors kept to it.

use std::collections::VecDeque;
use std::io::BufRead;

use super::input::{Input, Line};
use super::{GameRecord, RecordedMove, RecordedResult, MAX_LINE_BYTES};

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

    /// Reads the next line into the parser; false at the end of the input.
    fn next_line(&mut self) -> bool {
        let read = self.input.read_line(&mut self.buf);
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
            if let Err(e) = self.input.open() {
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
