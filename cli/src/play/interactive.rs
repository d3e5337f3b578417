//! `togyz-probe play -i`: a game at a prompt. After each move: the board,
//! the FEN, and the tables' verdict with every move's value where a table
//! covers the position (the legal moves otherwise); what the move just
//! played was worth next to the best one. `undo`, `board`, `help`, `quit`;
//! end of input leaves too. Everything goes to standard output, in order,
//! so a piped session reads as a transcript (the input is echoed after the
//! prompt when standard input is not a terminal).

use std::io::{self, BufRead, IsTerminal, Write};

use togyz_tb::notation::result_text;
use togyz_tb::Metric;
use togyz_tb::MoveValue;
use togyz_tb::Position;

use crate::common::failure::{Failure, Kind};
use crate::common::moves::{replay, Played};
use crate::common::render::{diagram, in_words, legal_moves, names, valued_moves, verdict};
use crate::common::tables::Tables;
use togyz_answer::text::stones;

const HELP: &str = "\
Enter a move: traditional (76, 36x), UCI (g1d2) or a hole number (6);
several moves on one line are played in turn. Commands:
  undo    take back the last move
  board   show the position again
  help    this text
  quit    leave (end of input, Ctrl-D, leaves too)
";

/// The game so far: where it started, and each move with the position
/// after it.
struct Game {
    start: Position,
    moves: Vec<(String, Position)>,
}

impl Game {
    fn current(&self) -> &Position {
        self.moves.last().map_or(&self.start, |(_, p)| p)
    }
}

/// Runs the session from `start` after the moves already `played`.
pub fn run(start: Position, played: Vec<Played>, tables: &Tables) -> Result<(), Failure> {
    let mut game = Game {
        start,
        moves: played
            .into_iter()
            .map(|p| (p.report.traditional(), p.after))
            .collect(),
    };
    let echo = !io::stdin().is_terminal();
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = io::stdout().lock();
    match tables.open_failure() {
        Some(f) => writeln!(out, "note: {}", f.message)?,
        None => writeln!(out, "{}.", capitalised(&tables.coverage()))?,
    }
    writeln!(out, "Type a move, or `help`.\n")?;
    let mut noted_beyond = false;
    show(&mut out, &game, tables, &mut noted_beyond)?;
    let mut line = Vec::new();
    loop {
        match game.current().outcome() {
            Some(_) => write!(out, "game over> ")?,
            None => write!(out, "{}> ", game.current().side_to_move())?,
        }
        out.flush()?;
        line.clear();
        if input.read_until(b'\n', &mut line).map_err(Failure::input)? == 0 {
            // End of input: end the prompt's line and leave.
            writeln!(out)?;
            return Ok(());
        }
        let text = String::from_utf8_lossy(&line);
        let command = text.trim();
        if echo {
            writeln!(out, "{command}")?;
        }
        match command.to_ascii_lowercase().as_str() {
            "" => continue,
            "quit" | "q" | "exit" => return Ok(()),
            "help" | "h" | "?" => write!(out, "{HELP}")?,
            "board" | "b" => {
                writeln!(out)?;
                show(&mut out, &game, tables, &mut noted_beyond)?;
            }
            "undo" | "u" => match game.moves.pop() {
                Some((mv, _)) => {
                    let mover = game.current().side_to_move();
                    writeln!(out, "Took back {mover}'s {mv}.\n")?;
                    show(&mut out, &game, tables, &mut noted_beyond)?;
                }
                None => writeln!(out, "Nothing to undo: this is where the game started.")?,
            },
            _ => {
                let texts: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
                match replay(game.current(), &texts) {
                    Ok(played) => {
                        for p in played {
                            let before = *game.current();
                            writeln!(out, "{}", judged(&before, &p, tables))?;
                            game.moves.push((p.report.traditional(), p.after));
                        }
                        writeln!(out)?;
                        show(&mut out, &game, tables, &mut noted_beyond)?;
                    }
                    Err(f) => {
                        let hint = match f.kind {
                            Kind::BadMove => "; `help` lists the commands",
                            _ => "",
                        };
                        writeln!(out, "error: {} (nothing played){hint}", f.message)?;
                    }
                }
            }
        }
    }
}

/// The tables' values of every move of `pos`, if they cover it.
fn valued(tables: &Tables, pos: &Position) -> Result<Vec<MoveValue>, Failure> {
    tables.tb.moves(pos).map_err(|e| tables.failure(e))
}

/// What the distances of the moves of `pos` count: its table's metric.
fn metric_of(tables: &Tables, pos: &Position) -> Metric {
    tables
        .tb
        .metric(pos.stones_on_board())
        .unwrap_or(Metric::Dtm)
}

/// "South plays 23: loses in 28 plies (best: 91x, wins in 11 plies)".
fn judged(before: &Position, p: &Played, tables: &Tables) -> String {
    let name = p.report.traditional();
    let head = format!("{} plays {name}", p.report.mover);
    let Ok(moves) = valued(tables, before) else {
        return format!("{head}.");
    };
    let (Some(best), Some(this)) = (moves.first(), moves.iter().find(|m| m.mv == p.report.mv))
    else {
        return format!("{head}.");
    };
    let in_words = |v| in_words(v, metric_of(tables, before));
    if this.value == best.value {
        format!("{head}: {} (a best move).", in_words(this.value))
    } else {
        let (best_name, _) = names(before, best.mv);
        format!(
            "{head}: {} (best: {best_name}, {}).",
            in_words(this.value),
            in_words(best.value)
        )
    }
}

/// The board, the FEN and what is known about the current position.
fn show(
    out: &mut impl Write,
    game: &Game,
    tables: &Tables,
    noted_beyond: &mut bool,
) -> io::Result<()> {
    let pos = game.current();
    write!(out, "{}", diagram(pos))?;
    writeln!(out, "FEN {}", pos.fen())?;
    if let Some(end) = result_text(pos) {
        writeln!(
            out,
            "Game over: {end}. `undo` takes back the last move, `quit` leaves.\n"
        )?;
        return Ok(());
    }
    let value = tables.tb.value(pos).map_err(|e| tables.failure(e));
    match (value, valued(tables, pos)) {
        (Ok(v), Ok(moves)) => {
            let metric = metric_of(tables, pos);
            writeln!(out, "{}", verdict(pos, v, metric))?;
            writeln!(out, "Moves, best first:")?;
            write!(out, "{}", valued_moves(pos, &moves))?;
        }
        (Err(f), _) | (_, Err(f)) => {
            // The whole reason once; after that, the short one.
            if f.kind != Kind::NoTable || !*noted_beyond {
                writeln!(out, "note: {}", f.message)?;
            }
            *noted_beyond |= f.kind == Kind::NoTable;
            let why = match f.kind {
                Kind::NoTable => format!("no table for {}", stones(pos.stones_on_board())),
                _ => "the tables cannot answer".to_string(),
            };
            writeln!(out, "{} to move; {why}.", pos.side_to_move())?;
            writeln!(out, "Legal moves: {}", legal_moves(pos))?;
        }
    }
    writeln!(out)
}

/// `text` with its first letter in capitals.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}
