//! The annotation of a game record: `togyz-probe annotate --json` prints
//! one [`GameAnnotation`] a line, and the server's `POST /v1/annotate`
//! sends the same objects; the text report names its verdicts with the
//! same functions ([`AnnotatedGame::mistake`], [`winner`]).
//!
//! The fields serialise in their order here; the command line's and the
//! server's tests check them.

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};
use togyz_tb::notation::{result_text, traditional};
use togyz_tb::record::{GameRecord, RecordError, Replay, ReplayError};
use togyz_tb::search::Source;
use togyz_tb::{Move, Position, Side, Value, Wdl};

/// The value of one position of a game, for its side to move, as an
/// annotation found it (by the rules, the tables or a search).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Eval {
    /// Win, draw or loss.
    pub wdl: Wdl,
    /// Plies to the end, when the rules or a DTM table gave it (a DTC
    /// table's distances are not to the end).
    pub dtm: Option<u32>,
    /// A move achieving the value, with its exact value when known.
    pub best: Option<(Move, Option<Value>)>,
    /// What proved it.
    pub source: Source,
}

/// Who wins with best play when the side to move of `pos` gets `wdl`:
/// `S`, `N` or `draw`.
pub fn winner(pos: &Position, wdl: Wdl) -> &'static str {
    let name = |side: Side| match side {
        Side::South => "S",
        Side::North => "N",
    };
    match wdl {
        Wdl::Win => name(pos.side_to_move()),
        Wdl::Loss => name(pos.side_to_move().opponent()),
        Wdl::Draw => "draw",
    }
}

/// One position's evaluation in JSON, side-neutral: who wins.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EvalAnswer {
    /// `S`, `N` or `draw`: who wins with best play ([`winner`]).
    pub winner: &'static str,
    /// Plies to the end, when the rules or a DTM table gave it, else null.
    pub dtm: Option<u32>,
    /// `rules`, `tables` or `search`.
    pub source: &'static str,
}

impl EvalAnswer {
    /// The evaluation `e` of `pos`.
    pub fn new(pos: &Position, e: &Eval) -> EvalAnswer {
        EvalAnswer {
            winner: winner(pos, e.wdl),
            dtm: e.dtm,
            source: e.source.name(),
        }
    }
}

/// A move that changes the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mistake {
    /// `throws the win` or `throws the draw`.
    pub what: &'static str,
    /// The move that kept the value, with it: `91x wins in 11`, `67 wins`
    /// (proven by search), `23 holds the draw`; `None` where no move is
    /// known.
    pub better: Option<String>,
}

/// One move of a game in JSON: the position before it, who wins before
/// and after it where that is settled, and what it throws.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveAnnotation {
    /// 1-based ply.
    pub ply: usize,
    /// The move with its number as recorded: `29. 91`, `29... 91`.
    pub label: String,
    /// The position it was played in.
    pub fen_before: String,
    /// The move in UCI notation (`g1d2`): its hole and where its last
    /// stone lands.
    pub uci: String,
    /// Who wins before it; null where unsettled.
    pub before: Option<EvalAnswer>,
    /// Who wins after it; null where unsettled.
    pub after: Option<EvalAnswer>,
    /// `throws the win`, `throws the draw`, or absent ([`Mistake::what`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mistake: Option<&'static str>,
    /// The move that kept the value, when a mistake is marked and a move
    /// is known ([`Mistake::better`]); else absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub better: Option<String>,
}

/// A game read, replayed and evaluated: what its annotation, in JSON or in
/// words, is made of.
#[derive(Clone, Copy, Debug)]
pub struct AnnotatedGame<'a> {
    record: &'a GameRecord,
    replay: &'a Replay,
    evals: &'a [Option<Eval>],
}

impl<'a> AnnotatedGame<'a> {
    /// The game `record`, replayed as `replay`, with `evals[i]` the
    /// evaluation of `replay.positions[i]` (`None` where unsettled).
    ///
    /// # Panics
    /// If `replay` is not the replay of `record` with one evaluation a
    /// position (the counts of moves, positions and evaluations disagree).
    pub fn new(
        record: &'a GameRecord,
        replay: &'a Replay,
        evals: &'a [Option<Eval>],
    ) -> AnnotatedGame<'a> {
        assert!(
            replay.positions.len() == record.moves.len() + 1
                && evals.len() == replay.positions.len(),
            "a replay of the record, one evaluation a position"
        );
        AnnotatedGame {
            record,
            replay,
            evals,
        }
    }

    /// The positions, the start first, then after each ply.
    pub fn positions(&self) -> &'a [Position] {
        &self.replay.positions
    }

    /// The evaluations of [`positions`](Self::positions).
    pub fn evals(&self) -> &'a [Option<Eval>] {
        self.evals
    }

    /// `29. 91` or `29... 91`: ply `k + 1`.
    pub fn label(&self, k: usize) -> String {
        let first = self.replay.positions[0].side_to_move();
        self.record.label(k + 1, first)
    }

    /// Whether ply `k + 1` changes the result: both sides of it are
    /// settled, and the mover gets less after it than before.
    pub fn is_mistake(&self, k: usize) -> bool {
        match (self.evals[k], self.evals[k + 1]) {
            (Some(b), Some(a)) => a.wdl.flip() < b.wdl,
            _ => false,
        }
    }

    /// What ply `k + 1` throws, if it changes the result.
    pub fn mistake(&self, k: usize) -> Option<Mistake> {
        if !self.is_mistake(k) {
            return None;
        }
        let b = self.evals[k].expect("a mistake is between evaluated positions");
        let what = if b.wdl == Wdl::Win {
            "throws the win"
        } else {
            "throws the draw"
        };
        let before = &self.replay.positions[k];
        let better = b.best.map(|(mv, v)| {
            let name = traditional(before, mv).unwrap_or_default();
            match (v, b.wdl) {
                (Some(Value::Win(d)), _) => format!("{name} wins in {d}"),
                (_, Wdl::Win) => format!("{name} wins"),
                _ => format!("{name} holds the draw"),
            }
        });
        Some(Mistake { what, better })
    }

    /// The first ply (0: the start) from which every position is
    /// evaluated.
    pub fn first_settled(&self) -> Option<usize> {
        self.evals.iter().position(Option::is_some)
    }

    /// Who should have won from [`first_settled`](Self::first_settled):
    /// `S`, `N` or `draw`.
    pub fn should_win(&self) -> Option<&'static str> {
        let f = self.first_settled()?;
        self.evals[f].map(|e| winner(&self.replay.positions[f], e.wdl))
    }

    /// How many plies change the result.
    pub fn mistakes(&self) -> usize {
        (0..self.record.moves.len())
            .filter(|&k| self.is_mistake(k))
            .count()
    }

    /// How the game ended on the board, if it did (`North wins 83:79
    /// (...)`).
    pub fn end(&self) -> Option<String> {
        result_text(self.replay.positions.last()?)
    }

    /// Ply `k + 1` in JSON.
    pub fn move_annotation(&self, k: usize) -> MoveAnnotation {
        let positions = &self.replay.positions;
        let eval = |i: usize| self.evals[i].map(|e| EvalAnswer::new(&positions[i], &e));
        let (mistake, better) = self.mistake(k).map(|m| (m.what, m.better)).unzip();
        MoveAnnotation {
            ply: k + 1,
            label: self.label(k),
            fen_before: positions[k].fen(),
            // A replayed move is legal in its position.
            uci: togyz_tb::notation::uci(&positions[k], self.replay.moves[k]).unwrap_or_default(),
            before: eval(k),
            after: eval(k + 1),
            mistake,
            better: better.flatten(),
        }
    }
}

/// A game's annotation in JSON: one object per game of a record, or the
/// reason it could not be read or replayed (`error`, with the other
/// fields empty).
#[derive(Clone, Debug, Serialize)]
pub struct GameAnnotation<'a> {
    /// The game's place in the record, from 1.
    pub game: usize,
    /// Line where the game starts (0 for a game that could not be read).
    pub line: usize,
    /// The record's tags, by name (sorted; of a name given twice, the
    /// last value).
    pub tags: BTreeMap<&'a str, &'a str>,
    /// The recorded result (`1-0`, `0-1`, `1/2-1/2`, `*`), or null.
    pub result: Option<&'static str>,
    /// Plies recorded.
    pub plies: usize,
    /// Why the game could not be read or replayed; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// First ply (0: the start) from which every position is evaluated.
    pub first_settled: Option<usize>,
    /// Who should have won from there (`S`, `N` or `draw`).
    pub should_win: Option<&'static str>,
    /// How the game ended on the board, if it did.
    pub end: Option<String>,
    /// How many moves change the result.
    pub mistakes: usize,
    /// Every ply ([`MoveAnnotation`]), empty for an error.
    pub moves: Moves<'a>,
}

/// The moves of a game's annotation, each made as it is written, so that
/// a long game is never held whole in JSON.
#[derive(Clone, Copy, Debug)]
pub struct Moves<'a>(Option<&'a AnnotatedGame<'a>>);

impl Serialize for Moves<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(a) => s.collect_seq((0..a.record.moves.len()).map(|k| a.move_annotation(k))),
            None => s.collect_seq(std::iter::empty::<MoveAnnotation>()),
        }
    }
}

impl<'a> GameAnnotation<'a> {
    /// The annotation of the `game`th game of a record.
    pub fn new(game: usize, a: &'a AnnotatedGame<'a>) -> GameAnnotation<'a> {
        GameAnnotation {
            first_settled: a.first_settled(),
            should_win: a.should_win(),
            end: a.end(),
            mistakes: a.mistakes(),
            moves: Moves(Some(a)),
            ..GameAnnotation::recorded(game, a.record)
        }
    }

    /// The `game`th game of a record, which could not be read: with where
    /// it starts and its tags when they were read (`partial`, the game as
    /// read up to the fault, [`Records::failed_game`]).
    ///
    /// [`Records::failed_game`]: togyz_tb::record::Records::failed_game
    pub fn unreadable(
        game: usize,
        e: &RecordError,
        partial: Option<&'a GameRecord>,
    ) -> GameAnnotation<'a> {
        let start = GameAnnotation::empty(game);
        GameAnnotation {
            error: Some(e.to_string()),
            line: partial.map_or(start.line, |g| g.line),
            tags: partial.map_or(start.tags.clone(), |g| {
                g.tags
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect()
            }),
            ..start
        }
    }

    /// The `game`th game of a record, `record`, which could not be
    /// replayed.
    pub fn unreplayable(
        game: usize,
        record: &'a GameRecord,
        e: &ReplayError,
    ) -> GameAnnotation<'a> {
        GameAnnotation {
            error: Some(e.to_string()),
            ..GameAnnotation::recorded(game, record)
        }
    }

    /// What the record says of the game, nothing evaluated.
    fn recorded(game: usize, record: &'a GameRecord) -> GameAnnotation<'a> {
        GameAnnotation {
            line: record.line,
            tags: record
                .tags
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect(),
            result: record.result.map(|r| r.text()),
            plies: record.moves.len(),
            ..GameAnnotation::empty(game)
        }
    }

    /// Nothing known of the `game`th game.
    fn empty(game: usize) -> GameAnnotation<'a> {
        GameAnnotation {
            game,
            line: 0,
            tags: BTreeMap::new(),
            result: None,
            plies: 0,
            error: None,
            first_settled: None,
            should_win: None,
            end: None,
            mistakes: 0,
            moves: Moves(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use togyz_tb::notation::parse_fen;
    use togyz_tb::record::parse_records;

    /// 7 stones, South to move: as docs/cli.md's example, with the
    /// evaluations that example prints.
    const RECORD: &str = "[FEN \"1,1S,2,1S,3,2S/1,1S,2,1S,3,1S 78 77 S 20\"]\n\
                          [Event \"b\"]\n[Event \"a\"]\n\n1. 23 *\n";

    fn record() -> GameRecord {
        parse_records(RECORD).remove(0).unwrap()
    }

    #[test]
    fn a_game_names_its_fields_in_order_with_nulls() {
        let g = record();
        let replay = g.replay().unwrap();
        let before = &replay.positions[0];
        let best = before
            .legal_moves()
            .find(|&m| traditional(before, m).unwrap() == "91x")
            .unwrap();
        let evals = [
            Some(Eval {
                wdl: Wdl::Win,
                dtm: Some(11),
                best: Some((best, Some(Value::Win(11)))),
                source: Source::Tables,
            }),
            Some(Eval {
                wdl: Wdl::Win,
                dtm: None,
                best: None,
                source: Source::Search,
            }),
        ];
        let a = AnnotatedGame::new(&g, &replay, &evals);
        let text = serde_json::to_string(&GameAnnotation::new(1, &a)).unwrap();
        // Tags sorted by name, the last `Event` kept; no `error` key; the
        // move's `dtm` null after it, as search gives no distance.
        assert_eq!(
            text,
            concat!(
                r#"{"game":1,"line":1,"tags":{"Event":"a","FEN":"1,1S,2,1S,3,2S/1,1S,2,1S,3,1S 78 77 S 20"},"#,
                r#""result":"*","plies":1,"first_settled":0,"should_win":"S","end":null,"mistakes":1,"#,
                r#""moves":[{"ply":1,"label":"1. 23","fen_before":"1,1S,2,1S,3,2S/1,1S,2,1S,3,1S 78 77 S 20","#,
                r#""uci":"b1c1","before":{"winner":"S","dtm":11,"source":"tables"},"#,
                r#""after":{"winner":"N","dtm":null,"source":"search"},"#,
                r#""mistake":"throws the win","better":"91x wins in 11"}]}"#
            )
        );
    }

    #[test]
    fn an_unsettled_move_has_null_evaluations_and_no_mistake() {
        let g = record();
        let replay = g.replay().unwrap();
        let evals = [None, None];
        let a = AnnotatedGame::new(&g, &replay, &evals);
        let m = serde_json::to_string(&a.move_annotation(0)).unwrap();
        assert_eq!(
            m,
            r#"{"ply":1,"label":"1. 23","fen_before":"1,1S,2,1S,3,2S/1,1S,2,1S,3,1S 78 77 S 20","uci":"b1c1","before":null,"after":null}"#
        );
        let game = GameAnnotation::new(1, &a);
        assert_eq!((game.first_settled, game.should_win), (None, None));
    }

    #[test]
    fn errors_keep_what_was_read_and_empty_the_rest() {
        let e = parse_records("[bad\n1. 23\n").remove(0).unwrap_err();
        let text = serde_json::to_string(&GameAnnotation::unreadable(3, &e, None)).unwrap();
        assert_eq!(
            text,
            format!(
                r#"{{"game":3,"line":0,"tags":{{}},"result":null,"plies":0,"error":{},"first_settled":null,"should_win":null,"end":null,"mistakes":0,"moves":[]}}"#,
                serde_json::to_string(&e.to_string()).unwrap()
            )
        );
        // Where the game starts and its tags, when they were read.
        let record = "1. 11\n\n[Event \"x\"]\n1. 11 zz\n";
        let mut games = togyz_tb::record::Records::new(record.as_bytes());
        games.next();
        let e = games.next().unwrap().unwrap_err();
        let text =
            serde_json::to_string(&GameAnnotation::unreadable(2, &e, games.failed_game())).unwrap();
        assert_eq!(
            text,
            format!(
                r#"{{"game":2,"line":3,"tags":{{"Event":"x"}},"result":null,"plies":0,"error":{},"first_settled":null,"should_win":null,"end":null,"mistakes":0,"moves":[]}}"#,
                serde_json::to_string(&e.to_string()).unwrap()
            )
        );
        let g = parse_records("1. 11\n").remove(0).unwrap();
        let e = g.replay().unwrap_err();
        let text = serde_json::to_string(&GameAnnotation::unreplayable(2, &g, &e)).unwrap();
        assert_eq!(
            text,
            format!(
                r#"{{"game":2,"line":1,"tags":{{}},"result":null,"plies":1,"error":{},"first_settled":null,"should_win":null,"end":null,"mistakes":0,"moves":[]}}"#,
                serde_json::to_string(&e.to_string()).unwrap()
            )
        );
    }

    #[test]
    fn the_winner_is_side_neutral() {
        let north = parse_fen("7,2S,1/8,2S 79 79 N 1").unwrap();
        assert_eq!(winner(&north, Wdl::Win), "N");
        assert_eq!(winner(&north, Wdl::Loss), "S");
        assert_eq!(winner(&north, Wdl::Draw), "draw");
    }
}
