//! One path from a question to its reply, for `query` and `serve` alike:
//! a FEN and moves ([`Question`]), how it is answered, decided once
//! ([`Route`]), the answer ([`Verdict`]) and its JSON ([`Reply`], in the
//! shapes of `togyz-answer`).

use togyz_answer::{BeyondAnswer, ErrorAnswer, Reply, TablesAnswer};
use togyz_tb::search::Solver;
use togyz_tb::{Metric, MoveValue, ProbeError, Tablebase, Value};
use togyz_tb::{Move, Position};

use super::above::{self, Limits};
use super::failure::{Failure, Kind};
use super::moves::{fen_arg, replay};
use super::tables::Tables;

/// A question: the FEN given and what it and the moves after it ask
/// about.
pub struct Question {
    /// The FEN as given (the start position's when none was).
    pub given: String,
    /// The position reached, or why there is none.
    pub asked: Result<Asked, Failure>,
}

/// The position asked about: where it came from and the moves to it.
pub struct Asked {
    pub start: Position,
    /// The moves played, in traditional notation.
    pub played: Vec<String>,
    /// The position reached.
    pub pos: Position,
}

/// How a question is answered, decided once per question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// At once: from the tables, the rules, or its failure.
    Tables,
    /// Above the tables, by proof search within the limits.
    Search,
}

/// Who the reply is for.
#[derive(Clone, Copy)]
pub enum Audience<'t> {
    /// `query --json`: the documented shapes as they are.
    CommandLine,
    /// The server: lichess's names and what each move does added, from
    /// these tables.
    Server(&'t Tablebase),
}

/// The tables' answer for a position.
pub struct Answer {
    pub pos: Position,
    pub value: Value,
    /// What the distances of `value` and `moves` count.
    pub metric: Metric,
    pub moves: Vec<MoveValue>,
    pub line: Vec<Move>,
}

/// What can be said about a position.
pub enum Verdict {
    /// The tables answer it.
    Tables(Answer),
    /// Above the tables: what proof search showed.
    Search(Box<above::SearchAnswer>),
    /// No table covers it (and no search ran): the board and the legal
    /// moves can still be shown.
    Beyond(Position, Failure),
}

impl Question {
    /// The FEN `given` after `moves`.
    pub fn new(given: String, moves: &[String]) -> Question {
        let asked = fen_arg(&given, &[]).and_then(|start| Asked::new(start, moves));
        Question { given, asked }
    }

    /// As [`Question::new`] for a FEN and moves that came as command-line
    /// arguments: when the FEN cannot be read, the error says so if the
    /// shell split it at its spaces into the moves.
    pub fn from_args(given: String, moves: &[String]) -> Question {
        let asked = fen_arg(&given, moves).and_then(|start| Asked::new(start, moves));
        Question { given, asked }
    }

    /// The start position after `moves`.
    pub fn from_start(moves: &[String]) -> Question {
        Question {
            given: Position::start().fen(),
            asked: Asked::new(Position::start(), moves),
        }
    }

    /// A question that failed before any position: `given` could not be
    /// read (`failure` says why).
    pub fn failed(given: String, failure: Failure) -> Question {
        Question {
            given,
            asked: Err(failure),
        }
    }

    /// How it is answered: by search when the position is above the
    /// tables, the game goes on, some tables are there to search into, and
    /// `seconds` allows a search.
    pub fn route(&self, tables: &Tables, seconds: f64) -> Route {
        match &self.asked {
            Ok(a) if above::applies(&tables.tb, &a.pos, seconds) => Route::Search,
            _ => Route::Tables,
        }
    }

    /// Answers it by `route` ([`Question::route`]'s): from the tables, or
    /// above them by search within `limits` (with `solver`, made at the
    /// first search, and a progress line on a terminal if `progress`).
    ///
    /// # Errors
    /// The question's own failure, or the tables': damaged or unreadable.
    /// A position no table covers is [`Verdict::Beyond`], not an error.
    pub fn answer<'t>(
        &self,
        route: Route,
        tables: &'t Tables,
        limits: Limits,
        solver: &mut Option<Solver<'t>>,
        progress: bool,
    ) -> Result<Verdict, Failure> {
        let pos = &self.asked.as_ref().map_err(Clone::clone)?.pos;
        if route == Route::Search {
            let solver = solver.get_or_insert_with(|| above::solver(&tables.tb, limits));
            return above::answer(solver, pos, limits.seconds, progress)
                .map(|a| Verdict::Search(Box::new(a)))
                .map_err(|e| tables.failure(e));
        }
        let probe = || -> Result<Answer, ProbeError> {
            let (value, metric) = tables.tb.value_with_metric(pos)?;
            Ok(Answer {
                pos: *pos,
                value,
                metric,
                moves: tables.tb.moves(pos)?,
                line: tables.tb.principal_variation(pos)?,
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

    /// The reply to it, given what [`Question::answer`] said.
    pub fn reply(&self, verdict: Result<Verdict, Failure>, audience: Audience<'_>) -> Reply {
        let serve = match audience {
            Audience::CommandLine => None,
            Audience::Server(tb) => Some(tb),
        };
        let reached = match &self.asked {
            Ok(q) if !q.played.is_empty() => Some(q.pos.fen()),
            _ => None,
        };
        match verdict {
            Ok(Verdict::Tables(a)) => {
                Reply::Tables(tables_json(&a, self.asked.as_ref().ok(), serve))
            }
            Ok(Verdict::Search(mut a)) => {
                if let Some(tb) = serve {
                    a.extend(tb);
                }
                Reply::Search(a.into_json())
            }
            Ok(Verdict::Beyond(pos, f)) => {
                let error = ErrorAnswer {
                    position: reached,
                    ..ErrorAnswer::new(&self.given, f.kind, &f.message)
                };
                Reply::Beyond(BeyondAnswer::new(error, &pos, serve))
            }
            Err(f) => {
                let at = match &self.asked {
                    Err(Failure {
                        stop: Some(stop), ..
                    }) => Some(stop.pos.fen()),
                    _ => reached,
                };
                Reply::Error(ErrorAnswer {
                    move_index: f.stop.as_ref().map(|s| s.index),
                    position: at,
                    ..ErrorAnswer::new(&self.given, f.kind, &f.message)
                })
            }
        }
    }
}

impl Asked {
    /// Plays `moves` from `start`.
    fn new(start: Position, moves: &[String]) -> Result<Asked, Failure> {
        let played = replay(&start, moves)?;
        Ok(Asked {
            start,
            pos: played.last().map_or(start, |p| p.after),
            played: played.iter().map(|p| p.report.traditional()).collect(),
        })
    }
}

/// The JSON of a table answer, with the moves that led to it.
fn tables_json(a: &Answer, asked: Option<&Asked>, serve: Option<&Tablebase>) -> TablesAnswer {
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
