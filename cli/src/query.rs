//! `togyz-probe query [--tables DIR] [--json] FEN`: who wins here, in how
//! many plies, with which moves, and the line of best play.
//!
//! Exit codes: 0 answered, 2 bad input, 3 no table for the position (the
//! message names the missing stone count and the command that generates
//! it), 4 a damaged table. With `-` for the FEN, every line of standard
//! input is answered with one JSON line; a line that cannot be answered gets
//! `{"fen": ..., "error": ...}`, the others go on, and the exit code is the
//! most serious failure (4, then 3, then 2), 0 if every line was answered.

use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;
use togyz_probe::notation::{parse_fen, result_text, traditional, uci};
use togyz_probe::raw::index::MAX_STONES;
use togyz_probe::rules::{Move, Position, Side, ROW};
use togyz_probe::tablebase::{terminal_value, MoveValue, ProbeError, Tablebase, DRAW_LINE_PLIES};
use togyz_probe::Value;

/// Arguments of `query`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Folder of the table files (default: $TOGYZ_TABLES, else ./tables).
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
    /// Print one JSON object instead of the text report.
    #[arg(long)]
    json: bool,
    /// The position as a PlayStrategy FEN, or `-` to read one FEN per line
    /// from standard input and answer each with a JSON line.
    #[arg(value_name = "FEN", allow_hyphen_values = true)]
    fen: String,
}

/// The folder used when neither `--tables` nor `$TOGYZ_TABLES` is given.
const DEFAULT_TABLES: &str = "tables";

/// Why a position was not answered, with its exit code.
struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    fn bad_input(message: impl ToString) -> Failure {
        Failure {
            code: 2,
            message: message.to_string(),
        }
    }
}

/// One legal move in the JSON answer.
#[derive(Serialize)]
struct MoveJson {
    #[serde(rename = "move")]
    traditional: String,
    uci: String,
    result: &'static str,
    dtm: Option<u32>,
    fen: String,
}

/// The JSON answer for one position.
#[derive(Serialize)]
struct Answer {
    fen: String,
    stones: u32,
    side: String,
    result: &'static str,
    dtm: Option<u32>,
    moves: Vec<MoveJson>,
    pv: Vec<String>,
    /// Kept out of the JSON: the text report needs them.
    #[serde(skip)]
    pos: Position,
    #[serde(skip)]
    value: Value,
    #[serde(skip)]
    move_values: Vec<MoveValue>,
    #[serde(skip)]
    line: Vec<Move>,
}

/// A JSON error line.
#[derive(Serialize)]
struct ErrorJson<'a> {
    fen: &'a str,
    error: &'a str,
}

/// The tables, or why they could not be opened.
struct Tables {
    dir: PathBuf,
    /// The folder could not be listed: every table is missing.
    unreadable: Option<String>,
    tb: Result<Tablebase, ProbeError>,
}

impl Tables {
    fn open(dir: PathBuf) -> Tables {
        match Tablebase::open([&dir]) {
            Err(ProbeError::Directory { source, .. }) => Tables {
                unreadable: Some(source.to_string()),
                tb: Tablebase::open(std::iter::empty::<&Path>()),
                dir,
            },
            tb => Tables {
                unreadable: None,
                tb,
                dir,
            },
        }
    }

    /// The failure for a probe error on a position with `stones` stones.
    fn failure(&self, e: ProbeError, stones: u32) -> Failure {
        match e {
            ProbeError::MissingTable { stones: missing } if missing > MAX_STONES => Failure {
                code: 3,
                message: format!(
                    "no table for {missing} stones on the board: tables can be made for at most {MAX_STONES}"
                ),
            },
            ProbeError::MissingTable { stones: missing } => {
                let out = if self.dir == Path::new(DEFAULT_TABLES) {
                    String::new()
                } else {
                    format!(" --out {}", self.dir.display())
                };
                let folder = match &self.unreadable {
                    Some(why) => format!("{} ({why})", self.dir.display()),
                    None => self.dir.display().to_string(),
                };
                Failure {
                    code: 3,
                    message: format!(
                        "no table for {missing} stones on the board in {folder}; generate the tables with `togyz-gen generate --max-stones {}{out}`",
                        stones.max(missing)
                    ),
                }
            }
            ProbeError::Directory { .. } => Failure {
                code: 3,
                message: e.to_string(),
            },
            ProbeError::Table(_) | ProbeError::Inconsistent { .. } => Failure {
                code: 4,
                message: format!(
                    "{e}; check the tables with `togyz-gen verify --tables {}`, or delete the damaged file and generate it again",
                    self.dir.display()
                ),
            },
        }
    }

    /// Answers one FEN.
    fn answer(&self, fen: &str) -> Result<Answer, Failure> {
        let pos = parse_fen(fen).map_err(Failure::bad_input)?;
        let stones = pos.stones_on_board();
        let fail = |e: ProbeError| self.failure(e, stones);
        let tb = self.tb.as_ref().map_err(|e| fail(e.clone()))?;
        let value = tb.value(&pos).map_err(fail)?;
        let move_values = tb.moves(&pos).map_err(fail)?;
        let mut moves = Vec::new();
        for m in &move_values {
            let after = pos.after_unchecked(m.mv);
            moves.push(MoveJson {
                traditional: traditional(&pos, m.mv).map_err(Failure::bad_input)?,
                uci: uci(&pos, m.mv).map_err(Failure::bad_input)?,
                result: m.value.wdl().name(),
                dtm: m.value.dtm(),
                fen: after.fen(),
            });
        }
        let line = tb.principal_variation(&pos).map_err(fail)?;
        let mut pv = Vec::new();
        let mut p = pos;
        for &mv in &line {
            pv.push(traditional(&p, mv).map_err(Failure::bad_input)?);
            p.play_unchecked(mv);
        }
        Ok(Answer {
            fen: pos.fen(),
            stones,
            side: pos.side_to_move().letter().to_string(),
            result: value.wdl().name(),
            dtm: value.dtm(),
            moves,
            pv,
            pos,
            value,
            move_values,
            line,
        })
    }
}

/// Runs the subcommand and returns its exit code.
pub fn run(args: Args) -> ExitCode {
    let dir = args
        .tables
        .clone()
        .or_else(|| {
            std::env::var_os("TOGYZ_TABLES")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
        .unwrap_or_else(|| PathBuf::from(DEFAULT_TABLES));
    let tables = Tables::open(dir);
    let result = if args.fen == "-" {
        run_stdin(&tables)
    } else {
        run_one(&tables, &args.fen, args.json)
    };
    match result {
        Ok(code) => ExitCode::from(code),
        // Standard output went away (a closed pipe): nothing more to say.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write the answer: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_one(tables: &Tables, fen: &str, json: bool) -> io::Result<u8> {
    let mut out = io::stdout().lock();
    match tables.answer(fen) {
        Ok(a) if json => {
            writeln!(out, "{}", to_json(&a))?;
            Ok(0)
        }
        Ok(a) => {
            out.write_all(report(&a).as_bytes())?;
            Ok(0)
        }
        Err(f) => {
            if json {
                writeln!(out, "{}", error_json(fen, &f.message))?;
            }
            eprintln!("error: {}", f.message.replace('\n', " "));
            Ok(f.code)
        }
    }
}

fn run_stdin(tables: &Tables) -> io::Result<u8> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = io::stdout().lock();
    let mut worst = 0u8;
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let text = String::from_utf8_lossy(&line);
        let fen = text.trim_end_matches(['\n', '\r']);
        let answer = if std::str::from_utf8(&line).is_err() {
            Err(Failure::bad_input("the line is not valid UTF-8"))
        } else if fen.trim().is_empty() {
            Err(Failure::bad_input("empty line: expected a FEN"))
        } else {
            tables.answer(fen)
        };
        match answer {
            Ok(a) => writeln!(out, "{}", to_json(&a))?,
            Err(f) => {
                // 4 (damaged table) over 3 (missing table) over 2 (bad input).
                worst = worst.max(f.code);
                writeln!(out, "{}", error_json(fen, &f.message))?;
            }
        }
        // Answer each line as it comes, for programs that talk over a pipe.
        out.flush()?;
    }
    Ok(worst)
}

fn to_json(a: &Answer) -> String {
    serde_json::to_string(a).expect("an answer always serialises")
}

fn error_json(fen: &str, error: &str) -> String {
    serde_json::to_string(&ErrorJson { fen, error }).expect("strings always serialise")
}

/// "wins in 7 plies", "draws", "loses in 1 ply".
fn in_words(v: Value) -> String {
    let plies = |d: u32| {
        if d == 1 {
            "1 ply".to_string()
        } else {
            format!("{d} plies")
        }
    };
    match v {
        Value::Win(d) => format!("wins in {}", plies(d)),
        Value::Draw => "draws".to_string(),
        Value::Loss(d) => format!("loses in {}", plies(d)),
    }
}

/// The board as South sees it: North's holes 9..1 on top, South's 1..9
/// below, each hole's stones (`.` empty, `X` a tuzdyk), and the kazans.
fn diagram(pos: &Position) -> String {
    let cell = |side: Side, number: usize| {
        let idx = side.row_start() + number;
        if pos.is_tuzdyk(idx) {
            "X".to_string()
        } else {
            match pos.holes()[idx] {
                0 => ".".to_string(),
                c => c.to_string(),
            }
        }
    };
    let row = |side: Side, numbers: &mut dyn Iterator<Item = usize>| {
        numbers
            .map(|i| format!("{:>4}", cell(side, i)))
            .collect::<String>()
    };
    let labels = |numbers: &mut dyn Iterator<Item = usize>| {
        numbers.map(|i| format!("{:>4}", i + 1)).collect::<String>()
    };
    let [south_kazan, north_kazan] = pos.kazans();
    let mut s = String::new();
    s.push_str(&format!("       {}\n", labels(&mut (0..ROW).rev())));
    s.push_str(&format!(
        "North  {}   kazan {north_kazan}\n",
        row(Side::North, &mut (0..ROW).rev())
    ));
    s.push_str(&format!(
        "South  {}   kazan {south_kazan}\n",
        row(Side::South, &mut (0..ROW))
    ));
    s.push_str(&format!("       {}\n", labels(&mut (0..ROW))));
    for owner in [Side::South, Side::North] {
        if let Some(number) = pos.tuzdyk(owner) {
            s.push_str(&format!(
                "X: {owner}'s tuzdyk in {}'s hole {number}\n",
                owner.opponent(),
            ));
        }
    }
    s
}

/// The text report: diagram, verdict, moves, line of best play.
fn report(a: &Answer) -> String {
    let pos = &a.pos;
    let side = pos.side_to_move();
    let mut s = diagram(pos);
    s.push('\n');
    if terminal_value(pos).is_some() {
        let why = result_text(pos).unwrap_or_default();
        s.push_str(&format!("Game over: {why}.\n"));
        return s;
    }
    match a.value {
        Value::Draw => s.push_str(&format!("{side} to move: a draw with best play.\n")),
        v => s.push_str(&format!("{side} to move {}.\n", in_words(v))),
    }
    s.push_str("\nMoves, best first:\n");
    for (m, json) in a.move_values.iter().zip(&a.moves) {
        s.push_str(&format!(
            "  {:<4} {:<5} {}\n",
            json.traditional,
            json.uci,
            in_words(m.value)
        ));
    }
    // Where the line ends.
    let mut end = *pos;
    for &mv in &a.line {
        end.play_unchecked(mv);
    }
    let tail = match (result_text(&end), a.value) {
        (Some(r), _) => format!(", then {r}"),
        (None, Value::Draw) if a.line.len() >= DRAW_LINE_PLIES => {
            format!(" (first {} plies; the draw goes on)", a.pv.len())
        }
        (None, Value::Draw) => " (the position repeats: play can go on forever)".to_string(),
        (None, _) => String::new(),
    };
    let label = if a.value == Value::Draw {
        "Drawing line"
    } else {
        "Best line"
    };
    s.push_str(&format!("\n{label}: {}{tail}\n", a.pv.join(" ")));
    s
}
