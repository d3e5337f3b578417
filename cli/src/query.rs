//! `togyz-probe query [--tables DIR] [--json] [FEN] [MOVE...]`: who wins
//! here, in how many plies, with which moves, and the line of best play.
//!
//! The position is the FEN (the start position without one) after the
//! moves, if any. With `-` for the FEN, every line of standard input is a
//! FEN, optionally followed by moves, answered with one JSON line. Exit
//! codes are [`Kind::code`]'s; in that batch mode, the highest code of any
//! line.

use std::io::{self, Write};

use togyz_answer::{BeyondAnswer, ErrorAnswer, Reply, TablesAnswer};
use togyz_tb::record::{read_line_capped, Line};
use togyz_tb::search::Solver;
use togyz_tb::{terminal_value, MoveValue, ProbeError, DRAW_LINE_PLIES};
use togyz_tb::{Metric, Tablebase, Value};
use togyz_tb::{Move, Position};

use crate::above::{self, Limits, MemoryArg};
use crate::failure::{Failure, Kind};
use crate::moves::{fen_arg, is_move_list, replay};
use crate::render::{diagram, ending, legal_moves, valued_moves, verdict};
use crate::tables::{Tables, TablesArg};
use togyz_answer::text::count;

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

/// A position no table covers, when no search ran.
fn beyond_json(
    fen: &str,
    f: &Failure,
    position: Option<String>,
    pos: &Position,
    serve: Option<&Tablebase>,
) -> BeyondAnswer {
    let error = ErrorAnswer {
        position,
        ..ErrorAnswer::new(fen, f.kind, &f.message)
    };
    BeyondAnswer::new(error, pos, serve)
}

/// The reply for the FEN `given`, the position it and the moves after it
/// ask about (`asked`), and what [`answer`] said about it. `serve` is the
/// tables when the server asks: it adds lichess's names and what each move
/// does (the command line's JSON stays as it was).
pub fn reply(
    given: &str,
    asked: &Result<Asked, Failure>,
    verdict: Result<Verdict, Failure>,
    serve: Option<&Tablebase>,
) -> Reply {
    let reached = match asked {
        Ok(q) if !q.played.is_empty() => Some(q.pos.fen()),
        _ => None,
    };
    match verdict {
        Ok(Verdict::Tables(a)) => Reply::Tables(answer_json(&a, asked.as_ref().ok(), serve)),
        Ok(Verdict::Search(mut a)) => {
            if let Some(tb) = serve {
                a.extend(tb);
            }
            Reply::Search(a.into_json())
        }
        Ok(Verdict::Beyond(pos, f)) => Reply::Beyond(beyond_json(given, &f, reached, &pos, serve)),
        Err(f) => {
            let at = match asked {
                Err(Failure {
                    stop: Some(stop), ..
                }) => Some(stop.pos.fen()),
                _ => reached,
            };
            Reply::Error(error_json(given, &f, at))
        }
    }
}

/// The tables' answer for a position.
pub struct Answer {
    pos: Position,
    value: Value,
    /// What the distances of `value` and `moves` count.
    metric: Metric,
    moves: Vec<MoveValue>,
    line: Vec<Move>,
}

/// What `query` can say about a position.
pub enum Verdict {
    /// The tables answer it.
    Tables(Answer),
    /// Above the tables: what proof search showed.
    Search(Box<above::SearchAnswer>),
    /// No table covers it (and no search ran): the board and the legal
    /// moves can still be shown.
    Beyond(Position, Failure),
}

/// The position asked about: where it came from and the moves to it.
pub struct Asked {
    start: Position,
    played: Vec<String>,
    /// The position reached.
    pub pos: Position,
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
    let (given, asked) = asked(&args);
    let asked = match asked {
        Ok(asked) => asked,
        Err(f) => {
            if args.json {
                writeln!(
                    out,
                    "{}",
                    reply(&given, &Err(f.clone()), Err(f.clone()), None).json()
                )?;
            }
            return Err(f);
        }
    };
    let verdict = answer(
        &tables,
        &asked.pos,
        args.memory.limits(args.search_time),
        &mut None,
        true,
    );
    if args.json {
        let failure = match &verdict {
            Ok(Verdict::Beyond(_, f)) | Err(f) => Some(f.clone()),
            _ => None,
        };
        writeln!(out, "{}", reply(&given, &Ok(asked), verdict, None).json())?;
        return failure.map_or(Ok(()), Err);
    } else {
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

/// The FEN the arguments give (the start position's if none) and the
/// position they ask about: that FEN after the moves.
fn asked(args: &Args) -> (String, Result<Asked, Failure>) {
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
        Some(fen) => (
            fen.clone(),
            fen_arg(fen, moves).and_then(|start| ask(start, moves)),
        ),
        None => (Position::start().fen(), ask(Position::start(), moves)),
    }
}

/// Plays `moves` from `start`.
pub fn ask(start: Position, moves: &[String]) -> Result<Asked, Failure> {
    let played = replay(&start, moves)?;
    Ok(Asked {
        start,
        pos: played.last().map_or(start, |p| p.after),
        played: played.iter().map(|p| p.report.traditional()).collect(),
    })
}

/// Answers a position from the tables, or above them by search within
/// `limits` (showing its progress on a terminal if `progress`).
pub fn answer<'t>(
    tables: &'t Tables,
    pos: &Position,
    limits: Limits,
    solver: &mut Option<Solver<'t>>,
    progress: bool,
) -> Result<Verdict, Failure> {
    if above::applies(&tables.tb, pos, limits.seconds) {
        // Made at the first search: a table answer needs no solver.
        let solver = solver.get_or_insert_with(|| above::solver(&tables.tb, limits));
        return above::answer(solver, pos, limits.seconds, progress)
            .map(|a| Verdict::Search(Box::new(a)))
            .map_err(|e| tables.failure(e));
    }
    let probe = || -> Result<Answer, ProbeError> {
        let (value, metric) = tables.tb.value_with_metric(pos)?;
        let moves = tables.tb.moves(pos)?;
        let line = tables.tb.principal_variation(pos)?;
        Ok(Answer {
            pos: *pos,
            value,
            metric,
            moves,
            line,
        })
    };
    match probe() {
        Ok(a) => Ok(Verdict::Tables(a)),
        Err(e) => {
            let f = tables.failure(e);
            match f.kind {
                Kind::NoTable => Ok(Verdict::Beyond(*pos, f)),
                _ => Err(f),
            }
        }
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
        let asked = if read == Line::TooLong {
            Err(Failure::new(
                Kind::BadFen,
                format!(
                    "the line is longer than {MAX_LINE_BYTES} bytes: not a FEN and moves \
                     (read past it)"
                ),
            ))
        } else if std::str::from_utf8(&line).is_err() {
            Err(Failure::new(Kind::BadFen, "the line is not valid UTF-8"))
        } else {
            // The FEN's five fields, then moves, as on the command line.
            let fields: Vec<String> = fen.split_whitespace().map(str::to_owned).collect();
            let (head, moves) = fields.split_at(fields.len().min(5));
            fen_arg(&head.join(" "), &[]).and_then(|start| ask(start, moves))
        };
        let verdict = asked
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|q| answer(tables, &q.pos, limits, &mut solver, true));
        let reply = reply(fen, &asked, verdict, None);
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

fn answer_json(a: &Answer, asked: Option<&Asked>, serve: Option<&Tablebase>) -> TablesAnswer {
    let pos = &a.pos;
    let mut json = TablesAnswer::new(pos, a.value, a.metric, &a.moves, &a.line);
    if serve.is_some() {
        json.add_extra(pos, a.value, &a.moves);
    }
    if let Some(q) = asked.filter(|q| !q.played.is_empty()) {
        json.start = Some(q.start.fen());
        json.played = Some(q.played.clone());
    }
    json
}

/// The JSON error object for the FEN given; `position` is where the
/// failure happened when moves led away from that FEN.
fn error_json(fen: &str, f: &Failure, position: Option<String>) -> ErrorAnswer {
    ErrorAnswer {
        move_index: f.stop.as_ref().map(|s| s.index),
        position,
        ..ErrorAnswer::new(fen, f.kind, &f.message)
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
