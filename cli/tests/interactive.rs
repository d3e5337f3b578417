//! `togyz-probe play -i` fed through a pipe: the transcript (prompts with
//! the input echoed), the tables' verdicts, undo, help, quit and the end of
//! input.

mod common;

use common::{assert_code, command, json_of, output, query, stdout, tables, EXAMPLE_3};
use serde_json::Value as Json;

/// A session on the 1..=4-stone tables; returns its standard output.
fn session(args: &[&str], input: &str) -> String {
    let dir = tables().to_str().unwrap();
    let mut all = vec!["play", "-i", "--tables", dir];
    all.extend_from_slice(args);
    let out = output(command(&all, None), input);
    assert_code(&out, 0);
    assert!(out.stderr.is_empty(), "{}", common::stderr(&out));
    stdout(&out)
}

#[test]
fn a_session_reads_as_a_transcript() {
    let text = session(&["--fen", EXAMPLE_3], "9\nquit\n");
    let tables_line = format!(
        "The tables in {} cover 1 to 4 stones.\n",
        tables().display()
    );
    let text = text.strip_prefix(&tables_line).expect(&text);
    assert_eq!(
        text,
        "Type a move, or `help`.

          9   8   7   6   5   4   3   2   1
North     .   .   .   .   .   .   .   2   .   kazan 79
South     .   .   .   .   .   .   .   .   2   kazan 79
          1   2   3   4   5   6   7   8   9
FEN 7,2S,1/8,2S 79 79 S 1
South to move loses in 4 plies.
Moves, best first:
  91   i1i2  loses in 4 plies

South> 9
South plays 91: loses in 4 plies (a best move).

          9   8   7   6   5   4   3   2   1
North     .   .   .   .   .   .   .   2   1   kazan 79
South     .   .   .   .   .   .   .   .   1   kazan 79
          1   2   3   4   5   6   7   8   9
FEN 7,2S,1S/8,1S 79 79 N 1
North to move wins in 3 plies.
Moves, best first:
  12   i2h2  wins in 3 plies
  23   h2g2  draws

North> quit
"
    );
}

#[test]
fn undo_help_bad_moves_and_the_end_of_the_game() {
    let text = session(
        &["--fen", EXAMPLE_3, "91"],
        "zz\nundo\nundo\nhelp\n91 12 91 12\n91\nundo\n",
    );
    // The moves given on the command line are played first.
    assert!(text.contains("FEN 7,2S,1S/8,1S 79 79 N 1\n"), "{text}");
    assert!(
        text.contains("North> zz\nerror: `zz` is not a move"),
        "{text}"
    );
    assert!(text.contains("(nothing played)\n"), "{text}");
    assert!(
        text.contains("North> undo\nTook back South's 91.\n"),
        "{text}"
    );
    assert!(
        text.contains("South> undo\nNothing to undo: this is where the game started.\n"),
        "{text}"
    );
    assert!(text.contains("South> help\nEnter a move:"), "{text}");
    // Several moves on a line, to the end of the game.
    assert!(
        text.contains("North plays 12: wins in 1 ply (a best move).\n"),
        "{text}"
    );
    assert!(text.contains(
        "Game over: North wins 83:79 (South has no stones; North collects 4). \
         `undo` takes back the last move, `quit` leaves.\n\ngame over> 91\n\
         error: `91` is not legal here: the game is over (nothing played)\n\
         game over> undo\nTook back North's 12.\n"
    ));
    // The end of input leaves, ending the prompt's line.
    assert!(text.ends_with("North> \n"), "{text}");
}

/// A move that is not the best is weighed against the best one, with the
/// values `query` gives.
#[test]
fn a_weaker_move_is_weighed_against_the_best() {
    let dir = tables().to_str().unwrap();
    let fen = "8,1S/1S,1S,6,1S 79 79 S 1";
    let j = json_of(&query(&["--json", "--tables", dir, fen], None, None));
    let moves = j["moves"].as_array().unwrap();
    let words = |m: &Json| {
        let plies = |d: u64| match d {
            1 => "1 ply".to_string(),
            d => format!("{d} plies"),
        };
        match (m["result"].as_str().unwrap(), m["dtm"].as_u64()) {
            ("win", Some(d)) => format!("wins in {}", plies(d)),
            ("loss", Some(d)) => format!("loses in {}", plies(d)),
            _ => "draws".to_string(),
        }
    };
    let (best, worst) = (&moves[0], moves.last().unwrap());
    assert_ne!(words(best), words(worst), "{moves:?}");
    let text = session(
        &["--fen", fen],
        &format!("{}\n", worst["move"].as_str().unwrap()),
    );
    let line = format!(
        "South plays {}: {} (best: {}, {}).\n",
        worst["move"].as_str().unwrap(),
        words(worst),
        best["move"].as_str().unwrap(),
        words(best)
    );
    assert!(text.contains(&line), "{line}\n{text}");
}

#[test]
fn above_the_tables_the_legal_moves() {
    let text = session(&[], "65\n");
    // The whole reason once, then the short one.
    assert_eq!(
        text.matches("note: no table can exist for 162 stones")
            .count(),
        1
    );
    assert!(
        text.contains("South to move; no table for 162 stones.\nLegal moves: 19 (a1i1), 21 (b1i2)")
    );
    assert!(text.contains("South plays 65.\n"), "{text}");
    assert!(
        text.contains("North to move; no table for 152 stones.\n"),
        "{text}"
    );
    // Without a tables folder: said once, and play goes on.
    let out = output(
        command(
            &[
                "play",
                "-i",
                "--tables",
                "/nonexistent/togyz",
                "--fen",
                EXAMPLE_3,
            ],
            None,
        ),
        "91\n",
    );
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(
        text.contains("the tables folder /nonexistent/togyz does not exist"),
        "{text}"
    );
    assert!(text.contains("South plays 91.\n"), "{text}");
}
