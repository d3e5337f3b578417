//! Bytes in: lines read with a cap on their length, and UTF-16 input
//! (found by its byte order mark) turned into UTF-8.

use std::io::{self, BufRead};
use std::sync::{Arc, Mutex};

use super::RecordError;

/// The longest line a record may hold, in bytes (1 MiB): a PlayOK export
/// writes a few moves a line, a plain list a whole game of several
/// thousand plies. A longer line is an error ([`RecordError::LineTooLong`])
/// read past without being held in memory.
pub const MAX_LINE_BYTES: usize = 1 << 20;

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

/// The first bytes of the input, read to look for a byte order mark, then
/// the rest.
pub(super) type Head<R> = io::Chain<io::Cursor<Vec<u8>>, R>;

/// The bytes under [`Records`](super::Records): as given, or UTF-16 turned into UTF-8.
pub(super) enum Input<R: BufRead> {
    /// Not looked at yet.
    Start(R),
    Bytes(Head<R>),
    Utf16(io::BufReader<Utf16<Head<R>>>),
    /// Refused at the start, or while [`Input::open`] looks.
    Gone,
}

impl<R: BufRead> Input<R> {
    /// Looks at the first bytes (however the input delivers them): a byte
    /// order mark, or text that is not text. `Err` ends the input.
    pub(super) fn open(&mut self) -> Result<(), RecordError> {
        let Input::Start(mut input) = std::mem::replace(self, Input::Gone) else {
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
        *self = match utf16 {
            None => Input::Bytes(rest),
            Some(le) => Input::Utf16(io::BufReader::new(Utf16::new(rest, le))),
        };
        Ok(())
    }

    /// Reads the next line into `buf`, at most [`MAX_LINE_BYTES`] of it.
    pub(super) fn read_line(&mut self, buf: &mut Vec<u8>) -> io::Result<Line> {
        match self {
            Input::Bytes(r) => read_line_capped(r, buf, MAX_LINE_BYTES),
            Input::Utf16(r) => read_line_capped(r, buf, MAX_LINE_BYTES),
            Input::Start(_) | Input::Gone => Ok(Line::End),
        }
    }
}

/// UTF-16 bytes read as UTF-8; a unit that is no character reads as
/// U+FFFD.
pub(super) struct Utf16<R: BufRead> {
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
