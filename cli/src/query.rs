//! `togyz-probe query [--tables DIR] [--json] [FEN] [MOVE...]`: who wins
//! here, in how many plies, with which moves, and the line of best play.
//!
//! The position is the FEN (the start position without one) after the
//! moves, if any. With `-` for the FEN, every line of standard input is a
//! FEN, optionally followed by moves, answered with one JSON line. Exit
//! codes are [`Kind::code`]'s; in that batch mode, the highest code of any
//! line.

use std::io::{self, Write};

use togyz_answer::text::count;
use togyz_tb::record::{read_line_capped, Line};
use togyz_tb::{terminal_value, Move, Position, Value, DRAW_LINE_PLIES};

use crate::common::above::{Limits, MemoryArg};
use crate::common::ask::{Answer, Audience, Question, Verdict};
use crate::common::failure::{Failure, Kind};
use crate::common::moves::is_move_list;
use crate::common::render::{diagram, ending, legal_moves, valued_moves, verdict};
use crate::common::tables::{Tables, TablesArg};

/// Arguments of `query`.
#[derive(clap::Args, Debug)]
#[command(
    override_usage = "togyz-probe query [OPTIONS] [FEN] [MOVE]...\n       \
                      togyz-probe query [OPTIONS] --fen FEN [MOVE]...\n       \
                      togyz-probe query [OPTIONS] -"
)]
pub struct Args {
    #[command(flatten)]
    tables: TablesArg,
    /// Print one JSON object instead of the text report.
    #[arg(long)]
    json: bool,
    /// The position: a PlayStrategy FEN in quotes, then moves played from
    /// it (traditional `76`/`36x`, UCI `g1d2`, a hole number, or PlayOK's
    /// `21(10)`/`36X`; move numbers such as `1.` are skipped, and a game
    /// pasted whole may be one argument). Without a FEN (the first argument
    /// has no `/` or `,`, and spaces only between moves) the moves start
    /// from the initial position.
    /// `-` alone reads one FEN per line from standard input (moves may
    /// follow it on the line) and answers each with a JSON line.
    #[arg(value_name = "FEN|MOVE")]
    position: Vec<String>,
    /// The FEN, as `play` and `perft` take it; every argument is then a
    /// move.
    #[arg(long, value_name = "FEN")]
    fen: Option<String>,
    /// Above the tables: prove the result by search for at most this many
    /// seconds (fractions allowed; 0: report the missing table instead).
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = crate::annotate::parse_seconds)]
    search_time: f64,
    #[command(flatten)]
    memory: MemoryArg,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<(), Failure> {
    let tables = args.tables.open();
    if args.fen.as_deref() == Some("-") || args.position.first().is_some_and(|a| a == "-") {
        if args.position.len() + usize::from(args.fen.is_some()) > 1 {
            return Err(Failure::new(
                Kind::BadFen,
                "`-` reads FENs from standard input and takes no moves after it (put them on \
                 the lines, after each FEN)",
            ));
        }
        return run_stdin(&tables, args.memory.limits(args.search_time));
    }
    let mut out = io::stdout().lock();
    let question = question(&args);
    let limits = args.memory.limits(args.search_time);
    let route = question.route(&tables, limits.seconds);
    let verdict = question.answer(route, &tables, limits, &mut None, true);
    if args.json {
        let failure = match &verdict {
            Ok(Verdict::Beyond(_, f)) | Err(f) => Some(f.clone()),
            _ => None,
        };
        writeln!(
            out,
            "{}",
            question.reply(verdict, Audience::CommandLine).json()
        )?;
        return failure.map_or(Ok(()), Err);
    }
    if let Ok(asked) = &question.asked {
        if !asked.played.is_empty() {
            writeln!(
                out,
                "After {}: {}\n",
                asked.played.join(" "),
                asked.pos.fen()
            )?;
        }
        match &verdict {
            Ok(Verdict::Tables(a)) => out.write_all(report(a).as_bytes())?,
            Ok(Verdict::Search(a)) => out.write_all(a.report(&diagram(a.position())).as_bytes())?,
            Ok(Verdict::Beyond(pos, _)) => out.write_all(report_beyond(pos).as_bytes())?,
            Err(_) => {}
        }
    }
    match verdict {
        Ok(Verdict::Tables(_) | Verdict::Search(_)) => Ok(()),
        Ok(Verdict::Beyond(_, f)) | Err(f) => Err(f),
    }
}

/// The question the arguments ask: their FEN (the start position's if
/// none) after their moves.
fn question(args: &Args) -> Question {
    let (fen, moves) = match &args.fen {
        Some(fen) => (Some(fen), &args.position[..]),
        None => {
            // A move never holds a `/` or a `,`; a FEN (even a broken one)
            // almost always does, or a space, unless it is a pasted list of
            // moves.
            let first = args.position.first().filter(|a| {
                a.trim().is_empty()
                    || a.contains(['/', ','])
                    || (a.contains(char::is_whitespace) && !is_move_list(a))
            });
            let skip = usize::from(first.is_some());
            (first, &args.position[skip..])
        }
    };
    match fen {
        Some(fen) => Question::from_args(fen.clone(), moves),
        None => Question::from_start(moves),
    }
}

/// The longest line `query -` reads (64 KiB: a FEN and a game of
/// thousands of moves); a longer one is answered with an error object and
/// read past without being held.
const MAX_LINE_BYTES: usize = 64 << 10;

/// Answers each line of standard input with a JSON line; blank lines are
/// skipped.
fn run_stdin(tables: &Tables, limits: Limits) -> Result<(), Failure> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = io::stdout().lock();
    let mut worst: Option<Kind> = None;
    let (mut lines, mut failed) = (0u64, 0u64);
    let mut line = Vec::new();
    let mut solver = None;
    loop {
        let read =
            read_line_capped(&mut input, &mut line, MAX_LINE_BYTES).map_err(Failure::input)?;
        if read == Line::End {
            break;
        }
        if line.trim_ascii().is_empty() {
            // Blank lines (a trailing one too) ask nothing.
            continue;
        }
        lines += 1;
        if read == Line::TooLong {
            // Echo only its start.
            line.truncate(60);
            line.extend_from_slice("…".as_bytes());
        }
        let text = String::from_utf8_lossy(&line);
        let fen = text.trim_end_matches('\r');
        let question = if read == Line::TooLong {
            Question::failed(
                fen.to_owned(),
                Failure::new(
                    Kind::BadFen,
                    format!(
                        "the line is longer than {MAX_LINE_BYTES} bytes: not a FEN and moves \
                         (read past it)"
                    ),
                ),
            )
        } else if std::str::from_utf8(&line).is_err() {
            Question::failed(
                fen.to_owned(),
                Failure::new(Kind::BadFen, "the line is not valid UTF-8"),
            )
        } else {
            // The FEN's five fields, then moves, as on the command line.
            let fields: Vec<String> = fen.split_whitespace().map(str::to_owned).collect();
            let (head, moves) = fields.split_at(fields.len().min(5));
            // The reply names the whole line as given.
            Question {
                given: fen.to_owned(),
                ..Question::new(head.join(" "), moves)
            }
        };
        let route = question.route(tables, limits.seconds);
        let verdict = question.answer(route, tables, limits, &mut solver, true);
        let reply = question.reply(verdict, Audience::CommandLine);
        if let Some(kind) = reply.failure() {
            failed += 1;
            worst = worst.max(Some(kind));
        }
        writeln!(out, "{}", reply.json())?;
        // Answer each line as it comes, for programs that talk over a pipe.
        out.flush()?;
    }
    match worst {
        None => Ok(()),
        Some(kind) => Err(Failure::new(
            kind,
            match failed {
                1 => format!(
                    "1 of {} was not answered: its JSON error object says why",
                    count(lines, "line", "lines")
                ),
                _ => format!(
                    "{failed} of {lines} lines were not answered: their JSON error objects say why"
                ),
            },
        )),
    }
}

/// A line of moves from `pos` in traditional notation.
fn line_names(pos: &Position, line: &[Move]) -> Vec<String> {
    // The tables' line is played from `pos`: every move is legal there.
    togyz_tb::notation::line(pos, line).unwrap_or_default()
}

/// The text report: diagram, verdict, moves, line of best play.
fn report(a: &Answer) -> String {
    let pos = &a.pos;
    let mut s = diagram(pos);
    s.push('\n');
    if terminal_value(pos).is_some() {
        let why = ending(pos).unwrap_or_default();
        s.push_str(&format!("Game over: {why}.\n"));
        return s;
    }
    s.push_str(&verdict(pos, a.value, a.metric));
    s.push_str("\n\nMoves, best first:\n");
    s.push_str(&valued_moves(pos, &a.moves));
    let mut end = *pos;
    for &mv in &a.line {
        end.play_unchecked(mv);
    }
    let tail = match (ending(&end), a.value) {
        (Some(r), _) => format!(", then {r}"),
        (None, Value::Draw) if a.line.len() >= DRAW_LINE_PLIES => {
            format!(" (first {} plies; the draw goes on)", a.line.len())
        }
        (None, Value::Draw) => " (the position repeats: play can go on forever)".to_string(),
        (None, _) => String::new(),
    };
    let label = if a.value == Value::Draw {
        "Drawing line"
    } else {
        "Best line"
    };
    let line = line_names(pos, &a.line).join(" ");
    s.push_str(&format!("\n{label}: {line}{tail}\n"));
    s
}

/// The text for a position no table covers: the board, what is known
/// about it, and the legal moves (the reason follows on standard error).
fn report_beyond(pos: &Position) -> String {
    let mut s = diagram(pos);
    s.push('\n');
    s.push_str(&beyond_answer(pos));
    s.push_str(&format!("Legal moves: {}\n", legal_moves(pos)));
    s
}

/// What is known about a position above the tables, one line or more: the
/// place where a search beyond the tables reports what it proves.
fn beyond_answer(pos: &Position) -> String {
    format!(
        "{} to move; no table covers this position.\n",
        pos.side_to_move()
    )
}
