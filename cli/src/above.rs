//! Above the tables: a position with more stones than the tables
//! hold is answered by proof search (a `Solver`) within
//! `--search-time` seconds. The answer is proven or says what was shown
//! ("at least a draw"); it is never a guess.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use togyz_probe::notation::{traditional, uci};
use togyz_probe::search::{Budget, SearchResult};
use togyz_probe::tablebase::terminal_value;
use togyz_probe::{Move, Position, ProbeError, Solver, Tablebase, Wdl};

/// Whether `query` answers `pos` by search: it is above the tables, the game
/// goes on, some tables are there to search into, and search is allowed.
pub fn applies(tb: &Tablebase, pos: &Position, seconds: f64) -> bool {
    let n = tb.complete_up_to();
    seconds > 0.0 && n > 0 && pos.stones_on_board() > n && terminal_value(pos).is_none()
}

/// A legal move in the JSON answer.
#[derive(Serialize)]
pub struct MoveJson {
    #[serde(rename = "move")]
    traditional: String,
    uci: String,
    fen: String,
    /// What `serve` adds: the move's result where it is known, and what
    /// the move does.
    #[serde(flatten)]
    extra: Option<SearchMoveExtra>,
}

/// What `serve` adds to a move above the tables: its result where the
/// rules, the tables or the search know it, else null; distances are
/// unknown there.
#[derive(Serialize)]
pub struct SearchMoveExtra {
    /// For the mover: `win`, `draw`, `loss`, or null.
    result: Option<&'static str>,
    /// Always null above the tables (present so every answer's moves have
    /// the same fields).
    dtm: Option<u32>,
    /// Always null above the tables.
    dtc: Option<u32>,
    #[serde(flatten)]
    more: MoveExtra,
}

/// What `serve` adds to every move: lichess's names, and what the move
/// does on the board.
#[derive(Serialize)]
pub struct MoveExtra {
    /// The traditional notation again, under lichess's name for a move's
    /// human-readable notation.
    san: String,
    /// As lichess's `category`: the result for the side to move after the
    /// move (a winning move has `loss`), or `unknown`.
    category: &'static str,
    /// Stones captured by an even count.
    capture: u8,
    /// Whether the move makes a tuzdyk.
    tuzdyk: bool,
    /// Stones sown into the tuzdyks.
    feed: u8,
    /// Whether stones leave the board (a capture, a tuzdyk made, or stones
    /// fed into one): the move leads to a smaller table.
    conversion: bool,
    /// Whether the game is over after the move.
    game_over: bool,
}

impl MoveExtra {
    /// The additions for the legal move `mv` of `pos`, whose result for the
    /// mover is `result` where known.
    pub fn new(pos: &Position, mv: Move, result: Option<Wdl>) -> MoveExtra {
        let mut after = *pos;
        let report = after.play_unchecked(mv);
        let feed = report.fed[0] + report.fed[1];
        MoveExtra {
            san: report.traditional(),
            category: result.map_or("unknown", |w| w.flip().name()),
            capture: report.captured,
            tuzdyk: report.tuzdyk_made.is_some(),
            feed,
            conversion: after.stones_on_board() < pos.stones_on_board(),
            game_over: report.outcome.is_some(),
        }
    }
}

/// What `serve` adds to a whole answer.
#[derive(Serialize)]
pub struct Extra {
    /// As lichess names it: `win`, `draw`, `loss` (for the side to move),
    /// or `unknown`.
    category: &'static str,
    /// Whether the game is over in this position.
    game_over: bool,
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
    tb.value_with_metric(&after)
        .ok()
        .map(|(v, _)| v.wdl().flip())
}

/// The bounds shown when the result is not proven.
#[derive(Serialize)]
pub struct Proven {
    lower: &'static str,
    upper: &'static str,
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

/// The legal moves of `pos` for the JSON answer. With `serve`'s tables,
/// each says what it does and its result where known (`best`: the move
/// search proved, with its result), best first.
pub fn moves_json(
    pos: &Position,
    serve: Option<&Tablebase>,
    best: Option<(Move, Wdl)>,
) -> Vec<MoveJson> {
    let mut moves: Vec<(u8, MoveJson)> = pos
        .legal_moves()
        .map(|mv| {
            let extra = serve.map(|tb| {
                let result = match best {
                    Some((b, w)) if b == mv => Some(w),
                    _ => known_result(tb, pos, mv),
                };
                SearchMoveExtra {
                    result: result.map(Wdl::name),
                    dtm: None,
                    dtc: None,
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
            let json = MoveJson {
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

/// How the search went.
#[derive(Serialize)]
struct Stats {
    nodes: u64,
    depth: u32,
    graph_positions: u64,
    graph_closed: bool,
    seconds: f64,
    /// Every position with at most this many stones was probed.
    table_stones: u32,
}

/// The answer for one position above the tables.
#[derive(Serialize)]
pub struct SearchAnswer {
    fen: String,
    stones: u32,
    side: String,
    /// `win`, `draw`, `loss` or `unknown`.
    result: &'static str,
    source: &'static str,
    /// For `unknown`: what was shown, as an interval over loss < draw < win.
    #[serde(skip_serializing_if = "Option::is_none")]
    proven: Option<Proven>,
    /// A move that achieves the proven result.
    best: Option<String>,
    moves: Vec<MoveJson>,
    search: Stats,
    /// What `serve` adds: lichess's `category`, null distances.
    #[serde(flatten)]
    extra: Option<SearchExtra>,
    #[serde(skip)]
    pos: Position,
    #[serde(skip)]
    result_full: SearchResult,
    #[serde(skip)]
    limit: f64,
}

/// What `serve` adds to a search's answer.
#[derive(Serialize)]
pub struct SearchExtra {
    #[serde(flatten)]
    extra: Extra,
    /// Always null: search proves results, not distances.
    dtm: Option<u32>,
    /// Always null.
    dtc: Option<u32>,
}

/// The `--search-memory` option, shared by the commands that search.
#[derive(clap::Args, Debug, Clone)]
pub struct MemoryArg {
    /// Above the tables: the most memory the search's tables may take
    /// (`500M`, `2G`; at least 1M; default 442M)
    #[arg(long = "search-memory", value_name = "BYTES", value_parser = parse_memory)]
    bytes: Option<u64>,
}

impl MemoryArg {
    /// The limits of each search: `seconds` (`--search-time`) and this
    /// memory bound.
    pub fn limits(&self, seconds: f64) -> Limits {
        Limits {
            seconds,
            memory: self.bytes,
        }
    }
}

/// What `--search-time` and `--search-memory` ask of each search.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Seconds per position (0: no search).
    pub seconds: f64,
    /// Bytes the search tables may take at most (`None`: the default,
    /// [`Budget::memory`] of [`Budget::default`]).
    pub memory: Option<u64>,
}

impl Limits {
    /// The search budget these limits give.
    pub fn budget(self) -> Budget {
        let time = Budget::time(Duration::from_secs_f64(self.seconds));
        match self.memory {
            // `parse_memory` let through only what `with_memory` takes.
            Some(bytes) => time.with_memory(bytes).unwrap_or(time),
            None => time,
        }
    }
}

/// `--search-memory`: a byte count (`500M`, `2G`) that
/// [`Budget::with_memory`] takes.
///
/// # Errors
/// A message for clap when the text is no byte count or too small.
fn parse_memory(text: &str) -> Result<u64, String> {
    let bytes = togyz_probe::bytes::parse(text)?;
    Budget::default()
        .with_memory(bytes)
        .map_err(|e| format!("`{text}`: {e}"))?;
    Ok(bytes)
}

/// A solver for searches within `limits`, kept for all the lines of
/// standard input or positions of a game (related positions help each
/// other).
pub fn solver(tb: &Tablebase, limits: Limits) -> Solver<'_> {
    Solver::new(tb, limits.budget())
}

/// Searches `pos` with `solver` (made by [`solver`] with `seconds`), with a
/// progress line on standard error when `progress` and it is a terminal.
///
/// # Errors
/// A damaged table.
pub fn answer(
    solver: &mut Solver,
    pos: &Position,
    seconds: f64,
    progress: bool,
) -> Result<SearchAnswer, ProbeError> {
    let done = AtomicBool::new(false);
    let r = std::thread::scope(|s| {
        if progress && std::io::stderr().is_terminal() {
            s.spawn(|| show_progress(&done, seconds));
        }
        let r = solver.solve(pos);
        done.store(true, Ordering::SeqCst);
        r
    })?;
    let name = |mv| traditional(pos, mv).unwrap_or_default();
    let moves = moves_json(pos, None, None);
    Ok(SearchAnswer {
        fen: pos.fen(),
        stones: pos.stones_on_board(),
        side: pos.side_to_move().letter().to_string(),
        result: r.proven().map_or("unknown", Wdl::name),
        source: r.source.name(),
        proven: r.proven().is_none().then(|| Proven::new(r.lower, r.upper)),
        best: r.proven().and(r.best_move).map(name),
        moves,
        extra: None,
        search: Stats {
            nodes: r.nodes,
            depth: r.depth,
            graph_positions: r.graph_positions,
            graph_closed: r.graph_closed,
            seconds: (r.elapsed.as_secs_f64() * 1000.0).round() / 1000.0,
            table_stones: r.table_stones,
        },
        pos: *pos,
        result_full: r,
        limit: seconds,
    })
}

/// `searching… 1.2 s of 5 s` on standard error, rewritten in place.
fn show_progress(done: &AtomicBool, seconds: f64) {
    let start = Instant::now();
    while !done.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(100));
        eprint!(
            "\rsearching… {:.1} s of {seconds} s ",
            start.elapsed().as_secs_f64()
        );
    }
    eprint!("\r{:40}\r", "");
}

/// 1234 → "1234", 12_345 → "12.3k", 944_012 → "944k", 1_234_567 → "1.2M".
fn count(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=99_999 => format!("{:.1}k", n as f64 / 1e3),
        100_000..=999_999 => format!("{:.0}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

impl SearchAnswer {
    /// The position answered.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// Adds what `serve` sends beyond `query --json`'s answer: lichess's
    /// `category`, and every move's result where known and what it does,
    /// best first.
    pub fn extend(&mut self, tb: &Tablebase) {
        let r = &self.result_full;
        let best = r.proven().zip(r.best_move);
        self.moves = moves_json(&self.pos, Some(tb), best.map(|(w, m)| (m, w)));
        self.extra = Some(SearchExtra {
            extra: Extra::new(r.proven(), &self.pos),
            dtm: None,
            dtc: None,
        });
    }

    /// The verdict and the moves, after the board `diagram`.
    pub fn report(&self, diagram: &str) -> String {
        let r = &self.result_full;
        let side = self.pos.side_to_move();
        let mut s = format!("{diagram}\n");
        let how = format!(
            "{} nodes, {:.1} s; tables up to {} stones",
            count(r.nodes),
            r.elapsed.as_secs_f64(),
            r.table_stones
        );
        match r.proven() {
            Some(v) => {
                let what = match v {
                    Wdl::Win => "wins",
                    Wdl::Draw => "draws",
                    Wdl::Loss => "loses",
                };
                s.push_str(&format!("{side} to move {what} (proven by search: {how})"));
                if let Some(b) = &self.best {
                    let verb = match v {
                        Wdl::Win => "wins",
                        Wdl::Draw => "holds the draw",
                        Wdl::Loss => "loses like every move",
                    };
                    s.push_str(&format!(": {b} {verb}"));
                }
                s.push_str(".\n");
            }
            None => {
                let shown = match (r.lower, r.upper) {
                    (Wdl::Draw, _) => format!("{side} can hold at least a draw"),
                    (_, Wdl::Draw) => format!("{side} cannot win"),
                    _ => "neither side's win or draw is shown".to_string(),
                };
                s.push_str(&format!(
                    "not proven in {} s: {shown} ({how}).\n",
                    self.limit
                ));
            }
        }
        s.push_str("\nMoves:\n");
        for m in &self.moves {
            s.push_str(&format!("  {:<4} {}\n", m.traditional, m.uci));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_states_the_default_memory() {
        // `--search-memory`'s help and the READMEs say 442M.
        assert_eq!((Budget::default().memory() + 500_000) / 1_000_000, 442);
        let limits = MemoryArg { bytes: None }.limits(2.0);
        assert_eq!(limits.budget(), Budget::time(Duration::from_secs(2)));
        let small = MemoryArg {
            bytes: Some(8_000_000),
        };
        assert!(small.limits(2.0).budget().memory() <= 8_000_000);
        assert!(parse_memory("999K").is_err() && parse_memory("1M").is_ok());
    }
}
