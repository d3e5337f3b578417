//! The answer's JSON shape: `togyz-probe query --json`, the server's
//! replies and the Python package's dicts are these types serialised.
//!
//! The fields serialise in their order here; the command line's tests,
//! the server's and Python's check the keys.

use serde::Serialize;
use togyz_tb::notation::{self, traditional, uci};
use togyz_tb::search::SearchResult;
use togyz_tb::terminal_value;
use togyz_tb::{Metric, Move, MoveValue, Position, Tablebase, Value, Wdl};

use crate::Kind;

/// A distance under the key of its metric: `dtm` (plies to the end) or
/// `dtc` (plies to the next conversion), the other null; both null for a
/// draw, or where the distance is unknown (above the tables).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Distance {
    /// Plies to the end (DTM tables), null where unknown.
    pub dtm: Option<u32>,
    /// Plies to the next conversion (DTC tables), null where unknown.
    pub dtc: Option<u32>,
}

impl Distance {
    /// The distance of `value`, counted in `metric`.
    pub fn of(value: Value, metric: Metric) -> Distance {
        let d = value.distance();
        match metric {
            Metric::Dtm => Distance { dtm: d, dtc: None },
            Metric::Dtc => Distance { dtm: None, dtc: d },
        }
    }
}

/// One legal move in the tables' answer, best first.
#[derive(Clone, Debug, Serialize)]
pub struct MoveAnswer {
    /// Traditional notation (`91`, `36x`).
    #[serde(rename = "move")]
    pub traditional: String,
    /// UCI notation (`i1a2`).
    pub uci: String,
    /// The hole played, 1..=9 (the Python package's dicts only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hole: Option<u8>,
    /// For the mover: `win`, `draw` or `loss`.
    pub result: &'static str,
    /// Its distance for the mover, under its metric's key.
    #[serde(flatten)]
    pub distance: Distance,
    /// The position after the move.
    pub fen: String,
    /// What the server adds (lichess's names, what the move does).
    #[serde(flatten)]
    pub extra: Option<MoveExtra>,
}

impl MoveAnswer {
    /// The move `m` of `pos` (one of [`Tablebase::moves`]).
    pub fn new(pos: &Position, m: &MoveValue) -> MoveAnswer {
        MoveAnswer {
            traditional: traditional(pos, m.mv).unwrap_or_default(),
            uci: uci(pos, m.mv).unwrap_or_default(),
            hole: None,
            result: m.value.wdl().name(),
            distance: Distance::of(m.value, m.metric),
            fen: pos.after_unchecked(m.mv).fen(),
            extra: None,
        }
    }
}

/// The tables' answer for a position (or the rules', for a finished game).
#[derive(Clone, Debug, Serialize)]
pub struct TablesAnswer {
    /// Where the moves started, when moves were given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// The moves given, in traditional notation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub played: Option<Vec<String>>,
    /// The position answered.
    pub fen: String,
    /// Stones on its board.
    pub stones: u32,
    /// The side to move, `S` or `N`.
    pub side: String,
    /// For the side to move: `win`, `draw` or `loss`.
    pub result: &'static str,
    /// Its distance, under its metric's key.
    #[serde(flatten)]
    pub distance: Distance,
    /// `tables` (`search` above the tables; the server says `game-over`
    /// for a finished game).
    pub source: &'static str,
    /// What the server adds: lichess's `category`, whether the game is
    /// over.
    #[serde(flatten)]
    pub extra: Option<Extra>,
    /// Every legal move, best first.
    pub moves: Vec<MoveAnswer>,
    /// The line of best play, in traditional notation.
    pub pv: Vec<String>,
}

impl TablesAnswer {
    /// The answer for `pos`, whose value is `value` in `metric`, with its
    /// valued moves (best first) and line of best play `line`.
    pub fn new(
        pos: &Position,
        value: Value,
        metric: Metric,
        moves: &[MoveValue],
        line: &[Move],
    ) -> TablesAnswer {
        TablesAnswer {
            start: None,
            played: None,
            fen: pos.fen(),
            stones: pos.stones_on_board(),
            side: pos.side_to_move().letter().to_string(),
            result: value.wdl().name(),
            distance: Distance::of(value, metric),
            source: "tables",
            extra: None,
            moves: moves.iter().map(|m| MoveAnswer::new(pos, m)).collect(),
            // The tables' line is played from `pos`: every move is legal.
            pv: notation::line(pos, line).unwrap_or_default(),
        }
    }

    /// Adds what the server sends beyond `query --json`'s answer for
    /// `pos`, whose value is `value` and valued moves `moves` (as given to
    /// [`TablesAnswer::new`]): lichess's `category`, what each move does,
    /// and `game-over` as the source of a finished game.
    pub fn add_extra(&mut self, pos: &Position, value: Value, moves: &[MoveValue]) {
        for (m, v) in self.moves.iter_mut().zip(moves) {
            m.extra = Some(MoveExtra::new(pos, v.mv, Some(v.value.wdl())));
        }
        self.extra = Some(Extra::new(Some(value.wdl()), pos));
        if terminal_value(pos).is_some() {
            self.source = "game-over";
        }
    }
}

/// What the server adds to every move: lichess's names, and what the move
/// does on the board.
#[derive(Clone, Debug, Serialize)]
pub struct MoveExtra {
    /// The traditional notation again, under lichess's name for a move's
    /// human-readable notation.
    pub san: String,
    /// As lichess's `category`: the result for the side to move after the
    /// move (a winning move has `loss`), or `unknown`.
    pub category: &'static str,
    /// Stones captured by an even count.
    pub capture: u8,
    /// Whether the move makes a tuzdyk.
    pub tuzdyk: bool,
    /// Stones sown into the tuzdyks.
    pub feed: u8,
    /// Whether stones leave the board (a capture, a tuzdyk made, or stones
    /// fed into one): the move leads to a smaller table.
    pub conversion: bool,
    /// Whether the game is over after the move.
    pub game_over: bool,
}

impl MoveExtra {
    /// The additions for the legal move `mv` of `pos`, whose result for the
    /// mover is `result` where known.
    pub fn new(pos: &Position, mv: Move, result: Option<Wdl>) -> MoveExtra {
        let mut after = *pos;
        let report = after.play_unchecked(mv);
        MoveExtra {
            san: report.traditional(),
            category: result.map_or("unknown", |w| w.flip().name()),
            capture: report.captured,
            tuzdyk: report.tuzdyk_made.is_some(),
            feed: report.fed[0] + report.fed[1],
            conversion: after.stones_on_board() < pos.stones_on_board(),
            game_over: report.outcome.is_some(),
        }
    }
}

/// What the server adds to a whole answer.
#[derive(Clone, Debug, Serialize)]
pub struct Extra {
    /// As lichess names it: `win`, `draw`, `loss` (for the side to move),
    /// or `unknown`.
    pub category: &'static str,
    /// Whether the game is over in this position.
    pub game_over: bool,
}

impl Extra {
    /// The additions for `pos`, whose result is `result` where known.
    pub fn new(result: Option<Wdl>, pos: &Position) -> Extra {
        Extra {
            category: result.map_or("unknown", Wdl::name),
            game_over: terminal_value(pos).is_some(),
        }
    }
}

/// A legal move in an answer above the tables.
#[derive(Clone, Debug, Serialize)]
pub struct SearchMove {
    /// Traditional notation.
    #[serde(rename = "move")]
    pub traditional: String,
    /// UCI notation.
    pub uci: String,
    /// The position after the move.
    pub fen: String,
    /// What the server adds: the move's result where it is known, and what
    /// the move does.
    #[serde(flatten)]
    pub extra: Option<SearchMoveExtra>,
}

/// What the server adds to a move above the tables: its result where the
/// rules, the tables or the search know it, else null; distances are
/// unknown there.
#[derive(Clone, Debug, Serialize)]
pub struct SearchMoveExtra {
    /// For the mover: `win`, `draw`, `loss`, or null.
    pub result: Option<&'static str>,
    /// Always null above the tables (present so every answer's moves have
    /// the same fields).
    #[serde(flatten)]
    pub distance: Distance,
    /// What the move does.
    #[serde(flatten)]
    pub more: MoveExtra,
}

impl SearchMove {
    /// The legal moves of `pos` above the tables. With the server's tables
    /// (`serve`), each says what it does and its result where known
    /// (`best`: the move search proved, with its result), best first;
    /// without, in the rules' order.
    pub fn list(
        pos: &Position,
        serve: Option<&Tablebase>,
        best: Option<(Move, Wdl)>,
    ) -> Vec<SearchMove> {
        let mut moves: Vec<(u8, SearchMove)> = pos
            .legal_moves()
            .map(|mv| {
                let extra = serve.map(|tb| {
                    let result = match best {
                        Some((b, w)) if b == mv => Some(w),
                        _ => known_result(tb, pos, mv),
                    };
                    SearchMoveExtra {
                        result: result.map(Wdl::name),
                        distance: Distance::default(),
                        more: MoveExtra::new(pos, mv, result),
                    }
                });
                // Best first: the proven best move, then wins, draws, the
                // unknown, losses (the rules' order within each).
                let rank = match (best, extra.as_ref().and_then(|e| e.result)) {
                    (Some((b, _)), _) if b == mv => 0,
                    (_, Some("win")) => 1,
                    (_, Some("draw")) => 2,
                    (_, None) => 3,
                    _ => 4,
                };
                let json = SearchMove {
                    traditional: traditional(pos, mv).unwrap_or_default(),
                    uci: uci(pos, mv).unwrap_or_default(),
                    fen: pos.after_unchecked(mv).fen(),
                    extra,
                };
                (if serve.is_some() { rank } else { 0 }, json)
            })
            .collect();
        moves.sort_by_key(|(rank, _)| *rank);
        moves.into_iter().map(|(_, m)| m).collect()
    }
}

/// A move's result for the mover, where it is known without search: the
/// game ends with it, or the tables cover the position it leads to.
fn known_result(tb: &Tablebase, pos: &Position, mv: Move) -> Option<Wdl> {
    let after = pos.after_unchecked(mv);
    if let Some(v) = terminal_value(&after) {
        return Some(v.wdl().flip());
    }
    if after.stones_on_board() > tb.complete_up_to() {
        return None;
    }
    tb.value(&after).ok().map(|v| v.wdl().flip())
}

/// What is proven when the result is not: an interval over
/// loss < draw < win.
#[derive(Clone, Debug, Serialize)]
pub struct Proven {
    /// The result is at least this.
    pub lower: &'static str,
    /// The result is at most this.
    pub upper: &'static str,
}

impl Proven {
    /// The interval `lower..=upper`.
    pub fn new(lower: Wdl, upper: Wdl) -> Proven {
        Proven {
            lower: lower.name(),
            upper: upper.name(),
        }
    }
}

/// How a search went.
#[derive(Clone, Debug, Serialize)]
pub struct SearchStats {
    /// Nodes visited.
    pub nodes: u64,
    /// The deepest iteration completed.
    pub depth: u32,
    /// Positions in the search graph.
    pub graph_positions: u64,
    /// Whether the graph was closed (every position in it valued).
    pub graph_closed: bool,
    /// Seconds taken, to the millisecond.
    pub seconds: f64,
    /// Every position with at most this many stones was probed.
    pub table_stones: u32,
}

/// The answer for a position above the tables, by proof search.
#[derive(Clone, Debug, Serialize)]
pub struct SearchAnswer {
    /// The position.
    pub fen: String,
    /// Stones on its board.
    pub stones: u32,
    /// The side to move, `S` or `N`.
    pub side: String,
    /// `win`, `draw`, `loss` or `unknown`.
    pub result: &'static str,
    /// What proved it (`rules`, `tables`, `search`).
    pub source: &'static str,
    /// For `unknown`: what was shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proven: Option<Proven>,
    /// A move that achieves the proven result.
    pub best: Option<String>,
    /// The legal moves (the Python package's dict leaves them out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves: Option<Vec<SearchMove>>,
    /// How the search went.
    pub search: SearchStats,
    /// What the server adds: lichess's `category`, null distances.
    #[serde(flatten)]
    pub extra: Option<SearchExtra>,
}

impl SearchAnswer {
    /// The answer for `pos` from the search result `r`, without moves.
    pub fn new(pos: &Position, r: &SearchResult) -> SearchAnswer {
        SearchAnswer {
            fen: pos.fen(),
            stones: pos.stones_on_board(),
            side: pos.side_to_move().letter().to_string(),
            result: r.proven().map_or("unknown", Wdl::name),
            source: r.source.name(),
            proven: r.proven().is_none().then(|| Proven::new(r.lower, r.upper)),
            best: r
                .proven()
                .and(r.best_move)
                .map(|mv| traditional(pos, mv).unwrap_or_default()),
            moves: None,
            search: SearchStats {
                nodes: r.nodes,
                depth: r.depth,
                graph_positions: r.graph_positions,
                graph_closed: r.graph_closed,
                seconds: (r.elapsed.as_secs_f64() * 1000.0).round() / 1000.0,
                table_stones: r.table_stones,
            },
            extra: None,
        }
    }

    /// Adds what the server sends beyond `query --json`'s answer for
    /// `pos`, searched with the result `r`, over the server's tables `tb`:
    /// lichess's `category`, and every legal move with its result where
    /// known and what it does, best first.
    pub fn add_extra(&mut self, pos: &Position, r: &SearchResult, tb: &Tablebase) {
        let best = r.proven().zip(r.best_move).map(|(w, m)| (m, w));
        self.moves = Some(SearchMove::list(pos, Some(tb), best));
        self.extra = Some(SearchExtra {
            extra: Extra::new(r.proven(), pos),
            distance: Distance::default(),
        });
    }
}

/// What the server adds to a search's answer.
#[derive(Clone, Debug, Serialize)]
pub struct SearchExtra {
    /// Lichess's `category` and whether the game is over.
    #[serde(flatten)]
    pub extra: Extra,
    /// Always null: search proves results, not distances.
    #[serde(flatten)]
    pub distance: Distance,
}

/// A JSON error object: why a position was not answered.
#[derive(Clone, Debug, Serialize)]
pub struct ErrorAnswer {
    /// The FEN as given.
    pub fen: String,
    /// The message, one line.
    pub error: String,
    /// [`Kind::name`] of `failure`.
    pub kind: &'static str,
    /// The place in the move list of a move that could not be played.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub move_index: Option<usize>,
    /// Where moves given after the FEN led: the position a bad move was
    /// tried in, or the one no table covers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
    /// What failed (not serialised: the server's status code).
    #[serde(skip)]
    pub failure: Kind,
}

impl ErrorAnswer {
    /// The error object for the FEN `fen`, which failed as `failure`.
    pub fn new(fen: &str, failure: Kind, message: &str) -> ErrorAnswer {
        ErrorAnswer {
            fen: fen.to_owned(),
            error: message.to_owned(),
            kind: failure.name(),
            move_index: None,
            position: None,
            failure,
        }
    }
}

/// A position no table covers, when no search ran: the error object, with
/// what the rules alone show (the kazans' bounds) and the legal moves.
#[derive(Clone, Debug, Serialize)]
pub struct BeyondAnswer {
    /// Why there is no answer (`no_table`).
    #[serde(flatten)]
    pub error: ErrorAnswer,
    /// Stones on the board.
    pub stones: u32,
    /// The side to move, `S` or `N`.
    pub side: String,
    /// Always `unknown`.
    pub result: &'static str,
    /// What the kazans alone prove.
    pub proven: Proven,
    /// What the server adds: lichess's `category` (`unknown`).
    #[serde(flatten)]
    pub extra: Option<Extra>,
    /// The legal moves.
    pub moves: Vec<SearchMove>,
}

impl BeyondAnswer {
    /// The answer for `pos`, which no table covers (`error` says so),
    /// with the server's additions when `serve` holds its tables.
    pub fn new(error: ErrorAnswer, pos: &Position, serve: Option<&Tablebase>) -> BeyondAnswer {
        let (lower, upper) = togyz_tb::search::kazan_bounds(pos);
        BeyondAnswer {
            error,
            stones: pos.stones_on_board(),
            side: pos.side_to_move().letter().to_string(),
            result: "unknown",
            proven: Proven::new(lower, upper),
            extra: serve.map(|_| Extra::new(None, pos)),
            moves: SearchMove::list(pos, serve, None),
        }
    }
}

/// The answer to one position, as `togyz-probe query --json` prints it
/// and the server sends it: one of the four shapes above.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Reply {
    /// The tables' answer (or the rules', for a finished game).
    Tables(TablesAnswer),
    /// Above the tables: what proof search showed.
    Search(SearchAnswer),
    /// No table covers the position and no search ran.
    Beyond(BeyondAnswer),
    /// The position could not be answered.
    Error(ErrorAnswer),
}

impl Reply {
    /// What failed, if the position was not answered (`no_table` for
    /// [`Reply::Beyond`]).
    pub fn failure(&self) -> Option<Kind> {
        match self {
            Reply::Tables(_) | Reply::Search(_) => None,
            Reply::Beyond(b) => Some(b.error.failure),
            Reply::Error(e) => Some(e.failure),
        }
    }

    /// Whether the result is proven (by the tables, the rules or a
    /// search): then no later search changes it.
    pub fn proven(&self) -> bool {
        match self {
            Reply::Tables(_) => true,
            Reply::Search(s) => s.proven.is_none(),
            Reply::Beyond(_) | Reply::Error(_) => false,
        }
    }

    /// The JSON text, one line.
    pub fn json(&self) -> String {
        serde_json::to_string(self).expect("an answer always serialises")
    }
}

/// The server's error for a request it did not take as a position (an
/// unknown route, a bad parameter, a body too large, no search slot free)
/// or an annotation that failed as a whole: `{"error": ..., "kind": ...}`.
#[derive(Clone, Debug, Serialize)]
pub struct RequestError {
    /// The message, one line.
    pub error: String,
    /// `bad_request`, `not_found`, `method_not_allowed`, `too_large`,
    /// `timeout`, `busy`, or a [`Kind::name`].
    pub kind: &'static str,
}

impl RequestError {
    /// The JSON text, one line.
    pub fn json(&self) -> String {
        serde_json::to_string(self).expect("strings serialise")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_distance_is_under_its_metrics_key_only() {
        let json = |v, m| serde_json::to_string(&Distance::of(v, m)).unwrap();
        assert_eq!(json(Value::Win(3), Metric::Dtm), r#"{"dtm":3,"dtc":null}"#);
        assert_eq!(json(Value::Loss(2), Metric::Dtc), r#"{"dtm":null,"dtc":2}"#);
        assert_eq!(json(Value::Draw, Metric::Dtc), r#"{"dtm":null,"dtc":null}"#);
    }

    #[test]
    fn a_move_answer_names_its_keys_in_order() {
        let pos = Position::start();
        let mv = pos.legal_moves().next().unwrap();
        let m = MoveValue {
            mv,
            value: Value::Win(5),
            metric: Metric::Dtc,
        };
        let text = serde_json::to_string(&MoveAnswer::new(&pos, &m)).unwrap();
        let after = pos.after_unchecked(mv).fen();
        assert_eq!(
            text,
            format!(
                r#"{{"move":"{}","uci":"{}","result":"win","dtm":null,"dtc":5,"fen":"{after}"}}"#,
                traditional(&pos, mv).unwrap(),
                uci(&pos, mv).unwrap()
            )
        );
    }

    #[test]
    fn a_reply_is_its_answer_and_a_request_error_two_keys() {
        let error = ErrorAnswer::new("x", Kind::BadFen, "no FEN");
        let reply = Reply::Error(error.clone());
        assert_eq!(reply.json(), serde_json::to_string(&error).unwrap());
        assert_eq!(
            reply.json(),
            r#"{"fen":"x","error":"no FEN","kind":"bad_fen"}"#
        );
        assert_eq!(reply.failure(), Some(Kind::BadFen));
        let request = RequestError {
            error: "no such route".into(),
            kind: "not_found",
        };
        assert_eq!(
            request.json(),
            r#"{"error":"no such route","kind":"not_found"}"#
        );
    }
}
