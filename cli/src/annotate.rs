//! `togyz-probe annotate [--tables DIR] [--json] [--search-time S |
//! --search-nodes N] FILE|-`: replays every game of a record file (PlayOK's
//! text format or a plain move list), checks every recorded landing and
//! kazan, and marks each move that changes the result.
//!
//! The file is read game by game ([`annotate_stream`]), each report written
//! when its game is done, so memory does not grow with the input.
//! Positions are evaluated from the end of the game backwards: by the
//! tables when they cover the position, else by proof search within
//! `--search-time` seconds or `--search-nodes` nodes, or by the move
//! played when it reaches a position lost for the opponent. The walk stops at the
//! second unproven position in a row (earlier positions hold more stones
//! and are harder still), so the game is settled from the first position
//! of an unbroken run of evaluated positions to the end. A game that cannot
//! be read or replayed is reported with the line or ply at fault, and the
//! next game goes on; the exit code is then 2.

use std::io::{self, Write};
use std::time::Instant;

use togyz_answer::{winner, AnnotatedGame, Eval, GameAnnotation};
use togyz_tb::record::{GameRecord, RecordError, Records, Replay};
use togyz_tb::search::Solver;
use togyz_tb::search::{Budget, Source};
use togyz_tb::terminal_value;
use togyz_tb::{Metric, Position, ProbeError, Tablebase, Wdl};

use crate::common::above::MemoryArg;
use crate::common::failure::{Failure, Kind};
use crate::common::tables::{Tables, TablesArg};

/// Arguments of `annotate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    tables: TablesArg,
    /// One JSON object per game instead of the text report.
    #[arg(long)]
    json: bool,
    /// Search time per position above the tables, in seconds (fractions
    /// allowed; 0 uses the tables and the moves played only). How far a time budget gets depends
    /// on the machine and its load: --search-nodes gives the same report
    /// everywhere.
    #[arg(long, value_name = "SECONDS", default_value = "1", value_parser = parse_seconds)]
    search_time: f64,
    /// Instead of a time budget: at most this many search nodes per
    /// position for each prover (per question of the proof-number search,
    /// which asks both on one thread), so that the report is the same on
    /// any machine.
    #[arg(long, value_name = "NODES", conflicts_with = "search_time", value_parser = clap::value_parser!(u64).range(1..))]
    search_nodes: Option<u64>,
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

/// Runs the subcommand. Games that cannot be read or replayed are reported
/// in place and make the exit code 2 at the end.
pub fn run(args: Args) -> Result<(), Failure> {
    let tables = args.tables.open();
    if let Some(f) = tables.open_failure() {
        return Err(f);
    }
    let budget = match args.search_nodes {
        Some(nodes) => node_budget(nodes, args.memory.limits(0.0).memory),
        None => args.memory.limits(args.search_time).budget(),
    };
    let mut out = io::stdout().lock();
    let failed = if args.file == "-" {
        annotate_stream(
            io::stdin().lock(),
            &tables,
            &mut None,
            budget,
            args.json,
            None,
            &mut out,
        )?
    } else {
        let cannot =
            |e: io::Error| Failure::new(Kind::BadFen, format!("cannot read {}: {e}", args.file));
        let file = std::fs::File::open(&args.file).map_err(cannot)?;
        // A folder opens, and fails only at the first read.
        if file.metadata().map_err(cannot)?.is_dir() {
            return Err(cannot(io::Error::from(io::ErrorKind::IsADirectory)));
        }
        annotate_stream(
            io::BufReader::new(file),
            &tables,
            &mut None,
            budget,
            args.json,
            None,
            &mut out,
        )
        .map_err(|f| match f.kind {
            // Reading the file, not standard input, failed.
            Kind::Io if f.message.starts_with("cannot read the input") => {
                Failure::new(Kind::BadFen, f.message.replacen("the input", &args.file, 1))
            }
            _ => f,
        })?
    };
    if failed {
        return Err(Failure::new(
            Kind::BadMove,
            "some games could not be read or replayed (see above)",
        ));
    }
    Ok(())
}

/// A budget of `nodes` per search and no time limit, with `memory` bytes
/// if given: df-pn on one thread, which asks its two questions in turn, so
/// that no race between threads decides what a search leaves in its
/// tables for the next.
pub fn node_budget(nodes: u64, memory: Option<u64>) -> Budget {
    let b = Budget {
        dfpn_threads: 1,
        ..Budget::nodes(nodes)
    };
    // `--search-memory` let through only what `with_memory` takes.
    memory.map_or(b, |m| b.with_memory(m).unwrap_or(b))
}

/// Annotates every game of `input` (a record file: PlayOK text or plain
/// move lists, UTF-8 or UTF-16 with a byte order mark), writing each game's
/// report to `out` as soon as it is done: the text report, or one JSON
/// object a line when `json`. The input is read game by game, so memory
/// does not grow with it: a game is at most
/// [`MAX_GAME_PLIES`](togyz_tb::record::MAX_GAME_PLIES) plies and a
/// line at most [`MAX_LINE_BYTES`](togyz_tb::record::MAX_LINE_BYTES)
/// bytes, past which the game is reported as an error. Positions above the
/// tables are searched within `budget`, but none after `deadline`: they
/// are then left unsettled, as with `--search-time 0`. Bytes that are not
/// UTF-8 read as U+FFFD, with a warning on standard error.
///
/// The searches use `solver`, made by the first of them when `None`:
/// one solver for every game (and, in the server, for the requests
/// before).
///
/// Returns whether some game could not be read or replayed (each is
/// reported in its place, and the games after it go on).
///
/// # Errors
/// An input that holds no game ([`Kind::BadMove`]), that cannot be read
/// ([`Kind::Io`]), a damaged table, or a failure to write `out`.
pub fn annotate_stream<'t>(
    input: impl std::io::BufRead,
    tables: &'t crate::common::tables::Tables,
    solver: &mut Option<Solver<'t>>,
    budget: togyz_tb::search::Budget,
    json: bool,
    deadline: Option<std::time::Instant>,
    out: &mut impl std::io::Write,
) -> Result<bool, crate::common::failure::Failure> {
    let mut records = Records::new(input);
    let mut failed = false;
    let mut number = 0;
    let mut warned = false;
    while let Some(game) = records.next() {
        number += 1;
        if let (Some(line), false) = (records.lossy_line(), warned) {
            warned = true;
            eprintln!(
                "warning: line {line} of the input is not valid UTF-8 (nor UTF-16 with a byte \
                 order mark); its bad bytes read as \u{fffd}"
            );
        }
        let game = match game {
            Err(RecordError::Read { message, .. }) => {
                return Err(Failure::new(
                    Kind::Io,
                    format!("cannot read the input: {message}"),
                ))
            }
            g => g,
        };
        let mut report = Report {
            game: number,
            json,
            out: &mut *out,
        };
        failed |= match game {
            Err(e) => report.unreadable(&e, records.failed_game())?,
            // One solver for every game: its tables, grown once, hold what
            // the current search needs (older entries are replaced first),
            // and a search spends no time on fresh memory.
            Ok(g) => annotate(tables, solver, budget, deadline, &g, &mut report)?,
        };
        out.flush()?;
    }
    if number == 0 {
        return Err(Failure::new(Kind::BadMove, "the input holds no game"));
    }
    Ok(failed)
}

/// Where one game's report goes.
struct Report<'o, W> {
    game: usize,
    json: bool,
    out: &'o mut W,
}

impl<W: Write> Report<'_, W> {
    /// A game that could not be read: always a failure.
    fn unreadable(
        &mut self,
        e: &RecordError,
        partial: Option<&GameRecord>,
    ) -> Result<bool, Failure> {
        if self.json {
            self.write_json(&GameAnnotation::unreadable(self.game, e, partial))?;
        } else {
            match partial {
                Some(g) => writeln!(
                    self.out,
                    "Game {} (line {}): error: {e}\n",
                    self.game, g.line
                )?,
                None => writeln!(self.out, "Game {}: error: {e}\n", self.game)?,
            }
        }
        Ok(true)
    }

    /// `game` as one JSON line.
    fn write_json(&mut self, game: &GameAnnotation) -> Result<(), Failure> {
        serde_json::to_writer(&mut *self.out, game).map_err(io::Error::from)?;
        writeln!(self.out)?;
        Ok(())
    }
}

/// Annotates one game into `report`; returns whether it failed to replay.
fn annotate<'t, W: Write>(
    tables: &'t Tables,
    solver: &mut Option<Solver<'t>>,
    budget: Budget,
    deadline: Option<Instant>,
    g: &GameRecord,
    report: &mut Report<'_, W>,
) -> Result<bool, Failure> {
    if !report.json {
        writeln!(report.out, "Game {} (line {}): {g}", report.game, g.line)?;
    }
    let replay = match g.replay() {
        Ok(r) => r,
        Err(e) => {
            if report.json {
                report.write_json(&GameAnnotation::unreplayable(report.game, g, &e))?;
            } else {
                writeln!(report.out, "  error: {e}\n")?;
            }
            return Ok(true);
        }
    };
    let evals =
        evaluate(&tables.tb, solver, budget, deadline, &replay).map_err(|e| tables.failure(e))?;
    let walk = AnnotatedGame::new(g, &replay, &evals);
    let game = GameAnnotation::new(report.game, &walk);
    if report.json {
        report.write_json(&game)?;
    } else {
        text_report(&walk, &game, g, report.out)?;
    }
    Ok(false)
}

/// The text report of the game `g`, annotated as `walk` and `game`.
fn text_report(
    walk: &AnnotatedGame,
    game: &GameAnnotation,
    g: &GameRecord,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let positions = walk.positions();
    let evals = walk.evals();
    match game.first_settled {
        Some(f) => {
            let pos = &positions[f];
            let at = if f == 0 {
                "the start".to_string()
            } else {
                format!("ply {f}, after {}", walk.label(f - 1))
            };
            writeln!(
                out,
                "  settled from {at} ({} stones): {}",
                pos.stones_on_board(),
                verdict(pos, &evals[f].expect("settled"))
            )?;
        }
        None => writeln!(out, "  no position settled by the tables or the search")?,
    }
    for k in 0..g.moves.len() {
        let Some(before) = evals[k] else { continue };
        let label = walk.label(k);
        let change = format!(
            "{} → {}",
            standing(&positions[k], Some(before)),
            standing(&positions[k + 1], evals[k + 1])
        );
        match walk.mistake(k) {
            Some(m) => match m.better {
                Some(better) => writeln!(out, "  {label}?? {}: {better} ({change})", m.what)?,
                None => writeln!(out, "  {label}?? {} ({change})", m.what)?,
            },
            None => writeln!(out, "  {label:<12} {change}")?,
        }
    }
    let recorded = g.result.map_or("no result", |r| r.text());
    match &game.end {
        Some(end) => {
            let last = positions.last().expect("the start at least");
            let agree = match (last.outcome(), g.result) {
                (Some(o), Some(r)) if r.winner().is_some() || r.text() == "1/2-1/2" => {
                    o.winner == r.winner()
                }
                _ => true,
            };
            let note = if agree {
                ""
            } else {
                " — the record's result disagrees with the rules (docs/rules.md)"
            };
            writeln!(out, "  end: {end}; recorded {recorded}{note}")?;
        }
        None => writeln!(
            out,
            "  the record stops before the end of the game; recorded {recorded}"
        )?,
    }
    writeln!(
        out,
        "  summary: first settled {}, should have won: {}, {} result-changing move{}\n",
        game.first_settled
            .map_or("nowhere".to_string(), |f| format!("at ply {f}")),
        game.should_win.map_or("unknown", |w| match w {
            "S" => "South",
            "N" => "North",
            _ => "neither (a draw)",
        }),
        game.mistakes,
        if game.mistakes == 1 { "" } else { "s" }
    )?;
    Ok(())
}

/// Evaluates positions from the last backwards; stops at the second
/// unproven position in a row and leaves everything before it `None`.
/// The move played from a position bounds it from below by the value of
/// the position after it: a position whose played move reaches one lost
/// for its mover is won without a search, and a search that shows "cannot
/// win" settles a draw when the move played holds one. The solver is made
/// at the first search (a game the tables settle needs none); no search
/// starts after `deadline`, and none runs past it.
fn evaluate<'t>(
    tb: &'t Tablebase,
    solver: &mut Option<Solver<'t>>,
    budget: Budget,
    deadline: Option<Instant>,
    replay: &Replay,
) -> Result<Vec<Option<Eval>>, ProbeError> {
    let positions = &replay.positions;
    let mut out: Vec<Option<Eval>> = vec![None; positions.len()];
    let mut misses = 0;
    for (i, pos) in positions.iter().enumerate().rev() {
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        // What the move played guarantees the mover (sides alternate).
        let played = out
            .get(i + 1)
            .copied()
            .flatten()
            .map(|after| (replay.moves[i], after.wdl.flip()));
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
                dtm: v.distance().filter(|_| dtm),
                best,
                source: Source::Tables,
            })
        } else if let Some((mv, Wdl::Win)) = played {
            Some(Eval {
                wdl: Wdl::Win,
                dtm: None,
                best: Some((mv, None)),
                source: Source::Search,
            })
        } else if budget.time.is_some_and(|t| t.is_zero()) || left.is_some_and(|l| l.is_zero()) {
            None
        } else {
            let solver = solver.get_or_insert_with(|| Solver::new(tb, budget));
            let time = match (budget.time, left) {
                (Some(t), Some(l)) => Some(t.min(l)),
                (t, l) => t.or(l),
            };
            solver.set_budget(Budget { time, ..budget });
            let r = solver.solve(pos)?;
            match (r.proven(), played) {
                (Some(wdl), _) => Some(Eval {
                    wdl,
                    dtm: None,
                    best: r.best_move.map(|m| (m, None)),
                    source: r.source,
                }),
                // The search bounds the value from above, the move played
                // from below.
                (None, Some((mv, wdl))) if wdl == r.upper => Some(Eval {
                    wdl: r.upper,
                    dtm: None,
                    best: Some((mv, None)),
                    source: r.source,
                }),
                (None, _) => None,
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
    match winner(pos, e.wdl) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_search_after_the_deadline() {
        let tables = Tables::open_all(vec![togyz_gen::fixture::small_tables().to_path_buf()]);
        // 7 stones over 4-stone tables: settled by search, or not at all.
        let record = "[FEN \"1,1S,2,1S,3,2S/1,1S,2,1S,3,1S 78 77 S 20\"]\n\n1. 23 *\n";
        let run = |deadline| {
            let mut out = Vec::new();
            let failed = annotate_stream(
                record.as_bytes(),
                &tables,
                &mut None,
                node_budget(100_000, None),
                true,
                deadline,
                &mut out,
            )
            .unwrap();
            assert!(!failed);
            serde_json::from_slice::<serde_json::Value>(&out).unwrap()
        };
        let searched = run(None);
        assert_eq!(searched["first_settled"], 0, "{searched}");
        assert_eq!(searched["moves"][0]["before"]["source"], "search");
        let late = run(Some(Instant::now()));
        assert_eq!(late["first_settled"], serde_json::Value::Null, "{late}");
        assert_eq!(late["moves"][0]["before"], serde_json::Value::Null);
    }
}
