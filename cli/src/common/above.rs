//! Above the tables: a position with more stones than the tables
//! hold is answered by proof search (a `Solver`) within
//! `--search-time` seconds. The answer is proven or says what was shown
//! ("at least a draw"); it is never a guess.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use togyz_answer::text::compact;
use togyz_answer::SearchMove;
use togyz_tb::search::Solver;
use togyz_tb::search::{Budget, SearchResult, Source};
use togyz_tb::terminal_value;
use togyz_tb::{Position, ProbeError, Side, Tablebase, TuzdykPairs, Wdl};

/// Whether `query` answers `pos` by search: it is above the tables of
/// every position, the game goes on, some tables are there to search into
/// from it (those of its tuzdyk pair, say, in a folder of one pair's
/// tables), and search is allowed.
pub fn applies(tb: &Tablebase, pos: &Position, seconds: f64) -> bool {
    seconds > 0.0
        && pos.stones_on_board() > tb.complete_up_to()
        && tb.horizon().of(pos) > 0
        && terminal_value(pos).is_none()
}

/// The answer for one position above the tables: its JSON
/// ([`togyz_answer::SearchAnswer`]) and what the text report needs.
pub struct SearchAnswer {
    json: togyz_answer::SearchAnswer,
    pos: Position,
    result_full: SearchResult,
    limit: f64,
}

/// The `--search-memory` option, shared by the commands that search.
#[derive(clap::Args, Debug, Clone)]
pub struct MemoryArg {
    /// Above the tables: the most memory the search's tables may take
    /// (`500M`, `2G`; at least 1M; default 387M)
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
    let bytes = togyz_answer::parse_bytes(text)?;
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
    let json = togyz_answer::SearchAnswer {
        moves: Some(SearchMove::list(pos, None, None)),
        ..togyz_answer::SearchAnswer::new(pos, &r)
    };
    Ok(SearchAnswer {
        json,
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

impl SearchAnswer {
    /// The position answered.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// Adds what `serve` sends beyond `query --json`'s answer: lichess's
    /// `category`, and every move's result where known and what it does,
    /// best first.
    pub fn extend(&mut self, tb: &Tablebase) {
        self.json.add_extra(&self.pos, &self.result_full, tb);
    }

    /// The answer's JSON, without what only the text report needs.
    pub fn into_json(self) -> togyz_answer::SearchAnswer {
        self.json
    }

    /// The verdict and the moves, after the board `diagram`.
    pub fn report(&self, diagram: &str) -> String {
        let r = &self.result_full;
        let side = self.pos.side_to_move();
        let mut s = format!("{diagram}\n");
        let how = format!(
            "{} nodes, {:.1} s; tables up to {} stones",
            compact(r.nodes),
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
                let by = match r.source {
                    // A WDL table's position: the result, no distance.
                    Source::Tables => format!(
                        "the win/draw/loss tables up to {} stones, which hold no distance",
                        r.table_stones
                    ),
                    _ => format!("proven by search: {how}"),
                };
                s.push_str(&format!("{side} to move {what} ({by})"));
                if let Some(b) = &self.json.best {
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
                if let Some(hint) = pair_hint(&self.pos, r.table_stones) {
                    s.push_str(&hint);
                }
            }
        }
        s.push_str("\nMoves:\n");
        for m in self.json.moves.iter().flatten() {
            s.push_str(&format!("  {:<4} {}\n", m.traditional, m.uci));
        }
        s
    }
}

/// Stones up to which [`pair_hint`] suggests a pair's tables: about 40 G
/// positions, an hour of one thread and 2.4 GB (docs/generate.md).
const PAIR_HINT_STONES: u32 = 17;

/// For a position with both tuzdyks whose search stopped at tables of
/// fewer than [`PAIR_HINT_STONES`] stones: the command that makes its
/// pair's tables, which the search then reaches further into.
fn pair_hint(pos: &Position, table_stones: u32) -> Option<String> {
    let (a, b) = (pos.tuzdyk(Side::South)?, pos.tuzdyk(Side::North)?);
    let pair = TuzdykPairs::from_mask(1 << TuzdykPairs::bit(a - 1, b - 1)?)?;
    (table_stones < PAIR_HINT_STONES).then(|| {
        format!(
            "Its tuzdyks stand in holes {pair}, so the game stays in their pair: `togyz-gen \
             generate --metric dtc --wdl-from 1 --wdl-pairs {pair} --max-stones \
             {PAIR_HINT_STONES} --out pair-{pair}` makes that pair's tables (about an hour), \
             which the search reads with a second `--tables pair-{pair}`.\n"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hint names the position's pair, only with both tuzdyks and
    /// tables short of it.
    #[test]
    fn a_position_with_both_tuzdyks_is_told_how_to_make_its_pairs_tables() {
        let both: Position = "4S,4S,t,1S,2S,2S,1S,1S,1/1,4S,1S,t,2S,1S,2S,1,2S 80 55 S 52"
            .parse()
            .unwrap();
        let hint = pair_hint(&both, 8).unwrap();
        assert!(
            hint.contains("--wdl-pairs 4-7 ") && hint.contains("--tables pair-4-7"),
            "{hint}"
        );
        assert!(pair_hint(&both, PAIR_HINT_STONES).is_none());
        let one: Position = "2S,1S,1S,1S,1,1S,2,t/1S,3S,1,4S,2S,1S,3S,3S,1 63 76 S 43"
            .parse()
            .unwrap();
        assert!(pair_hint(&one, 8).is_none());
    }

    #[test]
    fn the_help_states_the_default_memory() {
        // `--search-memory`'s help and the READMEs say 387M.
        assert_eq!((Budget::default().memory() + 500_000) / 1_000_000, 387);
        let limits = MemoryArg { bytes: None }.limits(2.0);
        assert_eq!(limits.budget(), Budget::time(Duration::from_secs(2)));
        let small = MemoryArg {
            bytes: Some(8_000_000),
        };
        assert!(small.limits(2.0).budget().memory() <= 8_000_000);
        assert!(parse_memory("999K").is_err() && parse_memory("1M").is_ok());
    }
}
