//! `togyz-probe annotate [--tables DIR] [--json] [--search-time S] FILE|-`:
//! replays every game of a record file (PlayOK's text format or a plain move
//! list), checks every recorded landing and kazan, and marks each move that
//! changes the result.
//!
//! Positions are evaluated from the end of the game backwards: by the
//! tables when they cover the position, else by proof search within
//! `--search-time` seconds. The walk stops at the second unproven position
//! in a row (earlier positions hold more stones and are harder still), so
//! the game is settled from the first position of an unbroken run of
//! evaluated positions to the end. A game that cannot be read or replayed
//! is reported with the line or ply at fault, and the next game goes on;
//! the exit code is then 2.

use std::io::{self, Read, Write};
use std::time::Instant;

use serde::Serialize;
use togyz_probe::notation::{result_text, traditional};
use togyz_probe::record::{move_label, parse_records, GameRecord};
use togyz_probe::search::{Budget, Source};
use togyz_probe::tablebase::terminal_value;
use togyz_probe::{Metric, Move, Position, ProbeError, Side, Solver, Tablebase, Value, Wdl};

use crate::above::MemoryArg;
use crate::failure::{Failure, Kind};
use crate::tables::{Tables, TablesArg};

/// Arguments of `annotate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    tables: TablesArg,
    /// One JSON object per game instead of the text report.
    #[arg(long)]
    json: bool,
    /// Search time per position above the tables, in seconds (fractions
    /// allowed; 0 uses the tables only).
    #[arg(long, value_name = "SECONDS", default_value = "1", value_parser = parse_seconds)]
    search_time: f64,
    #[command(flatten)]
    memory: MemoryArg,
    /// The record file, or `-` for standard input.
    #[arg(value_name = "FILE", allow_hyphen_values = true)]
    file: String,
}

/// A non-negative, finite number of seconds.
pub fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.0..=1e6).contains(&s) => Ok(s),
        _ => Err(format!(
            "`{text}` is not a number of seconds from 0 to 1000000"
        )),
    }
}

/// The value of one position, for its side to move.
#[derive(Clone, Copy, Debug)]
struct Eval {
    wdl: Wdl,
    /// Plies to the end, when the tables gave it.
    dtm: Option<u32>,
    /// A move achieving the value, with its exact value when known.
    best: Option<(Move, Option<Value>)>,
    source: Source,
}

/// One position's evaluation in JSON, as the winner's name.
#[derive(Serialize)]
struct EvalJson {
    /// `S`, `N` or `draw`: who wins with best play.
    winner: &'static str,
    /// Plies to the end, when the tables gave it.
    dtm: Option<u32>,
    /// `rules`, `tables` or `search`.
    source: &'static str,
}

#[derive(Serialize)]
struct MoveJson {
    ply: usize,
    label: String,
    fen_before: String,
    before: Option<EvalJson>,
    after: Option<EvalJson>,
    /// `throws the win`, `throws the draw`, or absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    mistake: Option<String>,
    /// The move that kept the value, when a mistake is marked.
    #[serde(skip_serializing_if = "Option::is_none")]
    better: Option<String>,
}

#[derive(Serialize)]
struct GameJson {
    game: usize,
    line: usize,
    tags: serde_json::Map<String, serde_json::Value>,
    result: Option<&'static str>,
    plies: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// First ply (0: the start) from which every position is evaluated.
    first_settled: Option<usize>,
    /// Who should have won from there (`S`, `N` or `draw`).
    should_win: Option<&'static str>,
    /// How the game ended on the board, if it did.
    end: Option<String>,
    mistakes: usize,
    moves: Vec<MoveJson>,
}

/// The text of a record file, and whether bytes had to be replaced. Moves
/// are ASCII, so a file in a legacy code page (player names in
/// Windows-1251, say) still replays: only its tag values are marred, while
/// a bad byte inside the moves is a syntax error naming the line.
fn decode(bytes: &[u8]) -> (String, bool) {
    let utf16 = |le: bool| {
        let units = bytes[2..].chunks(2).map(|c| match (c, le) {
            ([a, b], true) => u16::from_le_bytes([*a, *b]),
            ([a, b], false) => u16::from_be_bytes([*a, *b]),
            // An odd last byte: no whole unit, so a replacement.
            _ => 0xd800,
        });
        let text: String = char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect();
        let lossy = bytes.len() % 2 == 1 || text.contains(char::REPLACEMENT_CHARACTER);
        (text, lossy)
    };
    match bytes {
        [0xff, 0xfe, ..] => utf16(true),
        [0xfe, 0xff, ..] => utf16(false),
        _ => match std::str::from_utf8(bytes) {
            Ok(t) => (t.to_owned(), false),
            Err(_) => (String::from_utf8_lossy(bytes).into_owned(), true),
        },
    }
}

/// Runs the subcommand. Games that cannot be read or replayed are reported
/// in place and make the exit code 2 at the end.
pub fn run(args: Args) -> Result<(), Failure> {
    let mut bytes = Vec::new();
    if args.file == "-" {
        io::stdin()
            .read_to_end(&mut bytes)
            .map_err(Failure::input)?;
    } else {
        bytes = std::fs::read(&args.file)
            .map_err(|e| Failure::new(Kind::BadFen, format!("cannot read {}: {e}", args.file)))?;
    }
    let (_, lossy) = decode(&bytes);
    if lossy {
        eprintln!(
            "warning: {} is not valid UTF-8 (or UTF-16 with a byte order mark); \
             its bad bytes read as \u{fffd}",
            if args.file == "-" {
                "standard input"
            } else {
                &args.file
            }
        );
    }
    let tables = args.tables.open();
    if let Some(f) = tables.open_failure() {
        return Err(f);
    }
    let budget = args.memory.limits(args.search_time).budget();
    let mut out = io::stdout().lock();
    let failed = annotate_stream(&bytes[..], &tables, budget, args.json, None, &mut out)?;
    if failed {
        return Err(Failure::new(
            Kind::BadMove,
            "some games could not be read or replayed (see above)",
        ));
    }
    Ok(())
}

/// Annotates every game of `input` (a record file, as `annotate` reads it),
/// writing each game's report to `out` as soon as it is done: one JSON
/// object per line when `json`, else the text report. After `deadline`
/// nothing more is searched: positions above the tables are left
/// unsettled.
///
/// Returns whether some game could not be read or replayed (its report
/// says why).
///
/// # Errors
/// The input cannot be read or holds no game, `out` cannot be written, or a
/// table is damaged or unreadable.
pub fn annotate_stream(
    mut input: impl std::io::BufRead,
    tables: &Tables,
    budget: Budget,
    json: bool,
    deadline: Option<Instant>,
    out: &mut impl Write,
) -> Result<bool, Failure> {
    let mut bytes = Vec::new();
    input.read_to_end(&mut bytes).map_err(Failure::input)?;
    let (text, _) = decode(&bytes);
    let mut failed = false;
    let games = parse_records(&text);
    if games.is_empty() {
        return Err(Failure::new(Kind::BadMove, "the input holds no game"));
    }
    for (i, game) in games.into_iter().enumerate() {
        let number = i + 1;
        let mut report = GameJson {
            game: number,
            line: 0,
            tags: serde_json::Map::new(),
            result: None,
            plies: 0,
            error: None,
            first_settled: None,
            should_win: None,
            end: None,
            mistakes: 0,
            moves: Vec::new(),
        };
        let mut text = String::new();
        match game {
            Err(e) => {
                failed = true;
                report.error = Some(e.to_string());
                text.push_str(&format!("Game {number}: error: {e}\n"));
            }
            Ok(g) => {
                failed |= annotate(tables, budget, deadline, &g, &mut report, &mut text)?;
            }
        }
        let written = if json {
            writeln!(
                out,
                "{}",
                serde_json::to_string(&report).expect("a game always serialises")
            )
        } else {
            writeln!(out, "{text}")
        };
        written.and_then(|()| out.flush())?;
    }
    Ok(failed)
}

/// Annotates one game into `json` and `text`; returns whether it failed to
/// replay.
fn annotate(
    tables: &Tables,
    budget: Budget,
    deadline: Option<Instant>,
    g: &GameRecord,
    json: &mut GameJson,
    text: &mut String,
) -> Result<bool, Failure> {
    json.line = g.line;
    json.plies = g.moves.len();
    json.result = g.result.map(|r| r.text());
    for (k, v) in &g.tags {
        json.tags.insert(k.clone(), v.clone().into());
    }
    text.push_str(&format!("Game {} (line {}): {g}\n", json.game, g.line));
    let replay = match g.replay() {
        Ok(r) => r,
        Err(e) => {
            json.error = Some(e.to_string());
            text.push_str(&format!("  error: {e}\n"));
            return Ok(true);
        }
    };
    let evals =
        evaluate(&tables.tb, budget, deadline, &replay.positions).map_err(|e| tables.failure(e))?;
    let first_mover = replay.positions[0].side_to_move();
    let first = evals.iter().position(Option::is_some);
    json.first_settled = first;
    if let Some(f) = first {
        let pos = &replay.positions[f];
        let e = evals[f].expect("settled");
        json.should_win = Some(winner_of(pos, e.wdl));
        let at = if f == 0 {
            "the start".to_string()
        } else {
            format!(
                "ply {f}, after {}",
                move_label(f, first_mover, &g.moves[f - 1].text)
            )
        };
        text.push_str(&format!(
            "  settled from {at} ({} stones): {}\n",
            pos.stones_on_board(),
            verdict(pos, &e)
        ));
    } else {
        text.push_str("  no position settled by the tables or the search\n");
    }
    for (k, m) in g.moves.iter().enumerate() {
        let before_pos = &replay.positions[k];
        let label = move_label(k + 1, first_mover, &m.text);
        let (before, after) = (evals[k], evals[k + 1]);
        let mut mj = MoveJson {
            ply: k + 1,
            label: label.clone(),
            fen_before: before_pos.fen(),
            before: before.map(|e| eval_json(before_pos, &e)),
            after: after.map(|e| eval_json(&replay.positions[k + 1], &e)),
            mistake: None,
            better: None,
        };
        let mut mistake = None;
        if let (Some(b), Some(a)) = (before, after) {
            let got = a.wdl.flip();
            if got < b.wdl {
                let what = if b.wdl == Wdl::Win {
                    "throws the win"
                } else {
                    "throws the draw"
                };
                let better = b.best.map(|(mv, v)| {
                    let name = traditional(before_pos, mv).unwrap_or_default();
                    match (v, b.wdl) {
                        (Some(Value::Win(d)), _) => format!("{name} wins in {d}"),
                        (_, Wdl::Win) => format!("{name} wins"),
                        _ => format!("{name} holds the draw"),
                    }
                });
                json.mistakes += 1;
                mj.mistake = Some(what.to_string());
                mj.better = better.clone();
                mistake = Some(match better {
                    Some(b) => format!("{what}: {b}"),
                    None => what.to_string(),
                });
            }
        }
        if before.is_some() {
            let change = format!(
                "{} → {}",
                standing(before_pos, before),
                standing(&replay.positions[k + 1], after)
            );
            match mistake {
                Some(m) => text.push_str(&format!("  {label}?? {m} ({change})\n")),
                None => text.push_str(&format!("  {label:<12} {change}\n")),
            }
        }
        json.moves.push(mj);
    }
    let last = replay.positions.last().expect("the start at least");
    json.end = result_text(last);
    let recorded = g.result.map_or("no result", |r| r.text());
    match &json.end {
        Some(end) => {
            let agree = match (last.outcome(), g.result) {
                (Some(o), Some(r)) if r.winner().is_some() || r.text() == "1/2-1/2" => {
                    o.winner == r.winner()
                }
                _ => true,
            };
            let note = if agree {
                String::new()
            } else {
                " — the record's result disagrees with the rules (docs/rules.md)".to_string()
            };
            text.push_str(&format!("  end: {end}; recorded {recorded}{note}\n"));
        }
        None => text.push_str(&format!(
            "  the record stops before the end of the game; recorded {recorded}\n"
        )),
    }
    text.push_str(&format!(
        "  summary: first settled {}, should have won: {}, {} result-changing move{}\n",
        first.map_or("nowhere".to_string(), |f| format!("at ply {f}")),
        json.should_win.map_or("unknown", |w| match w {
            "S" => "South",
            "N" => "North",
            _ => "neither (a draw)",
        }),
        json.mistakes,
        if json.mistakes == 1 { "" } else { "s" }
    ));
    Ok(false)
}

/// Evaluates positions from the last backwards; stops at the second
/// unproven position in a row and leaves everything before it `None`.
/// No search runs past `deadline`, and none for longer than what is left.
fn evaluate(
    tb: &Tablebase,
    budget: Budget,
    deadline: Option<Instant>,
    positions: &[Position],
) -> Result<Vec<Option<Eval>>, ProbeError> {
    let mut out = vec![None; positions.len()];
    let mut solver = Solver::new(tb, budget);
    let mut misses = 0;
    for (i, pos) in positions.iter().enumerate().rev() {
        let eval = if let Some(v) = terminal_value(pos) {
            Some(Eval {
                wdl: v.wdl(),
                dtm: Some(0),
                best: None,
                source: Source::Rules,
            })
        } else if pos.stones_on_board() <= tb.complete_up_to() {
            let (v, metric) = tb.value_with_metric(pos)?;
            // Distances to the end only: a DTC table's are not.
            let dtm = metric == Metric::Dtm;
            let best = tb
                .best_move(pos)?
                .map(|m| (m.mv, Some(m.value).filter(|_| dtm)));
            Some(Eval {
                wdl: v.wdl(),
                dtm: v.dtm().filter(|_| dtm),
                best,
                source: Source::Tables,
            })
        } else if budget.time.is_some_and(|t| t.is_zero()) {
            None
        } else {
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            if left.is_some_and(|l| l.is_zero()) {
                None
            } else {
                if let Some(left) = left.filter(|&l| budget.time.is_none_or(|t| t > l)) {
                    solver.set_budget(Budget {
                        time: Some(left),
                        ..budget
                    });
                }
                let r = solver.solve(pos)?;
                r.proven().map(|wdl| Eval {
                    wdl,
                    dtm: None,
                    best: r.best_move.map(|m| (m, None)),
                    source: r.source,
                })
            }
        };
        match eval {
            Some(_) => misses = 0,
            None => {
                misses += 1;
                if misses == 2 {
                    break;
                }
            }
        }
        out[i] = eval;
    }
    // Only the unbroken run to the end counts as settled.
    if let Some(gap) = out.iter().rposition(Option::is_none) {
        for e in &mut out[..gap] {
            *e = None;
        }
    }
    Ok(out)
}

fn eval_json(pos: &Position, e: &Eval) -> EvalJson {
    EvalJson {
        winner: winner_of(pos, e.wdl),
        dtm: e.dtm,
        source: e.source.name(),
    }
}

/// Who wins from `pos`, side-neutral: "South wins in 13", "North wins
/// (search)", "draw", "unknown".
fn standing(pos: &Position, e: Option<Eval>) -> String {
    let Some(e) = e else {
        return "unknown".to_string();
    };
    let how = match (e.dtm, e.source) {
        (Some(0), _) => " (game over)".to_string(),
        (Some(d), _) => format!(" in {d}"),
        (None, Source::Search) => " (search)".to_string(),
        (None, _) => String::new(),
    };
    match winner_of(pos, e.wdl) {
        "S" => format!("South wins{how}"),
        "N" => format!("North wins{how}"),
        _ => format!("draw{how}"),
    }
}

/// "South to move wins in 13", "North to move loses (proven by search)".
fn verdict(pos: &Position, e: &Eval) -> String {
    let side = pos.side_to_move();
    let what = match e.wdl {
        Wdl::Win => "wins",
        Wdl::Draw => "draws",
        Wdl::Loss => "loses",
    };
    let how = match (e.dtm, e.source) {
        (Some(0), _) => " (the game is over)".to_string(),
        (Some(d), _) => format!(" in {d}"),
        (None, Source::Search) => " (proven by search)".to_string(),
        (None, _) => String::new(),
    };
    format!("{side} to move {what}{how}")
}

/// Who wins when the side to move of `pos` gets `w`: `S`, `N` or `draw`.
fn winner_of(pos: &Position, w: Wdl) -> &'static str {
    let name = |side: Side| match side {
        Side::South => "S",
        Side::North => "N",
    };
    match w {
        Wdl::Win => name(pos.side_to_move()),
        Wdl::Loss => name(pos.side_to_move().opponent()),
        Wdl::Draw => "draw",
    }
}
