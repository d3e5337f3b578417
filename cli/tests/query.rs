//! `togyz-probe query` end to end: real tables for up to 4 stones, written
//! by the generator into a temporary folder, queried through the binary.

mod common;

use common::{assert_code, dtc_tables, json_of, query, stderr, stdout, tables, text, EXAMPLE_3};
use serde_json::{json, Value as Json};
use togyz_answer::text::thousands;
use togyz_tb::raw::format::file_name;
use togyz_tb::raw::index::positions_for;
use togyz_tb::search::kazan_bounds;
use togyz_tb::Position;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

#[test]
fn example_three_in_words() {
    let dir = tables().to_str().unwrap();
    let out = query(&["--tables", dir, EXAMPLE_3], None, None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    let expected = "          9   8   7   6   5   4   3   2   1
North     .   .   .   .   .   .   .   2   .   kazan 79
South     .   .   .   .   .   .   .   .   2   kazan 79
          1   2   3   4   5   6   7   8   9

South to move loses in 4 plies.

Moves, best first:
  91   i1i2  loses in 4 plies

Best line: 91 12 91 12, then North wins 83:79 (South has no stones; North collects 4)
";
    assert_eq!(report, expected);
}

#[test]
fn example_three_as_json() {
    let dir = tables().to_str().unwrap();
    let out = query(&["--json", "--tables", dir, EXAMPLE_3], None, None);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        json_of(&out),
        json!({
            "fen": EXAMPLE_3,
            "stones": 4,
            "side": "S",
            "result": "loss",
            "dtm": 4,
            "dtc": null,
            "source": "tables",
            "moves": [{
                "move": "91",
                "uci": "i1i2",
                "result": "loss",
                "dtm": 4,
                "dtc": null,
                "fen": "7,2S,1S/8,1S 79 79 N 1"
            }],
            "pv": ["91", "12", "91", "12"]
        })
    );
    // North, after 91: wins in 3, and its move 12 wins in 3 counted from here.
    let out = query(
        &["--json", "--tables", dir, "7,2S,1S/8,1S 79 79 N 1"],
        None,
        None,
    );
    let j = json_of(&out);
    assert_eq!(
        (j["side"].clone(), j["result"].clone(), j["dtm"].clone()),
        (json!("N"), json!("win"), json!(3))
    );
    assert_eq!(j["moves"][0]["move"], "12");
    assert_eq!(j["moves"][0]["dtm"], 3);
    assert_eq!(j["pv"], json!(["12", "91", "12"]));
}

#[test]
fn moves_come_best_first_with_the_movers_results() {
    let dir = tables().to_str().unwrap();
    // South has three choices with 4 stones on the board.
    let fen = "8,1S/1S,1S,6,1S 79 79 S 1";
    let out = query(&["--json", "--tables", dir, fen], None, None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let j = json_of(&out);
    let moves = j["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 3);
    let rank = |m: &Json| -> i64 {
        let d = m["dtm"].as_i64().unwrap_or(0);
        match m["result"].as_str().unwrap() {
            "win" => 1000 - d,
            "draw" => 0,
            _ => -1000 + d,
        }
    };
    assert!(
        moves.windows(2).all(|w| rank(&w[0]) >= rank(&w[1])),
        "{moves:?}"
    );
    // The position's value is its best move's.
    assert_eq!(j["result"], moves[0]["result"]);
    assert_eq!(j["dtm"], moves[0]["dtm"]);
    // Each move's result matches the reply position's, seen from the mover.
    for m in moves {
        let reply = json_of(&query(
            &["--json", "--tables", dir, m["fen"].as_str().unwrap()],
            None,
            None,
        ));
        let flipped = match reply["result"].as_str().unwrap() {
            "win" => "loss",
            "loss" => "win",
            _ => "draw",
        };
        assert_eq!(m["result"], flipped);
        assert_eq!(m["dtm"].as_i64(), reply["dtm"].as_i64().map(|d| d + 1));
    }
}

#[test]
fn finished_games_and_draws() {
    let dir = tables().to_str().unwrap();
    let out = query(&["--json", "--tables", dir, "9/4S,8 79 79 N 1"], None, None);
    assert_eq!(out.status.code(), Some(0));
    let j = json_of(&out);
    assert_eq!(
        (j["result"].clone(), j["dtm"].clone()),
        (json!("loss"), json!(0))
    );
    assert_eq!(j["moves"], json!([]));
    let out = query(&["--tables", dir, "9/4S,8 79 79 N 1"], None, None);
    assert!(text(&out.stdout)
        .contains("Game over: South wins 83:79 (North has no stones; South collects 4)."));
    // One stone, 80:81: South's only move leaves North without stones, 81:81.
    let out = query(&["--json", "--tables", dir, "9/1S,8 80 81 S 1"], None, None);
    let j = json_of(&out);
    assert_eq!(
        (j["result"].clone(), j["dtm"].clone()),
        (json!("draw"), Json::Null)
    );
    assert_eq!(j["moves"][0]["dtm"], Json::Null);
    assert_eq!(j["pv"], json!(["12"]));
}

#[test]
fn wording_of_draws_and_single_plies() {
    let dir = tables().to_str().unwrap();
    let out = query(&["--tables", dir, "9/1S,8 80 81 S 1"], None, None);
    assert_code(&out, 0);
    assert!(
        stdout(&out).contains(
            "Drawing line: 12, then a draw 81:81 (North has no stones; South collects 1)\n"
        ),
        "{}",
        stdout(&out)
    );
    // North wins with its last move.
    let out = query(&["--tables", dir, "7,3S,1S/9 79 79 N 2"], None, None);
    let report = stdout(&out);
    assert!(
        report.contains("North to move wins in 1 ply.\n"),
        "{report}"
    );
    assert!(report.contains("  12   i2h2  wins in 1 ply\n"), "{report}");
}

/// Moves after the FEN (or alone, from the start) are played first; the
/// answer is for the position they lead to.
#[test]
fn moves_after_the_fen_are_played_first() {
    let dir = tables().to_str().unwrap();
    let after = "7,3S,1/8,1S 79 79 S 2";
    let direct = query(&["--json", "--tables", dir, after], None, None);
    let out = query(
        &["--json", "--tables", dir, EXAMPLE_3, "91", "i2h2"],
        None,
        None,
    );
    assert_code(&out, 0);
    let j = json_of(&out);
    assert_eq!(j["start"], EXAMPLE_3);
    assert_eq!(j["played"], json!(["91", "12"]));
    // Apart from where it came from, the answer is the direct one.
    let mut trimmed = j.clone();
    trimmed.as_object_mut().unwrap().remove("start");
    trimmed.as_object_mut().unwrap().remove("played");
    assert_eq!(trimmed, json_of(&direct));
    // The FEN as an option, as `play` takes it; capitals are forgiven.
    let out = query(
        &["--json", "--tables", dir, "--fen", EXAMPLE_3, "91", "I2H2"],
        None,
        None,
    );
    assert_code(&out, 0);
    assert_eq!(json_of(&out), j);
    let text_out = query(&["--tables", dir, EXAMPLE_3, "1.", "91", "12"], None, None);
    assert_code(&text_out, 0);
    let report = stdout(&text_out);
    assert!(
        report.starts_with(&format!("After 91 12: {after}\n\n")),
        "{report}"
    );
    assert!(
        report.contains("South to move loses in 2 plies."),
        "{report}"
    );
    // From the start: far above the tables, so the board and the moves.
    let out = query(&["--tables", dir, "65", "98"], None, None);
    assert_code(&out, 3);
    let report = stdout(&out);
    assert!(
        report.starts_with("After 65 98: 1S,9S,9S,9S,1,10S"),
        "{report}"
    );
    // A move that cannot be played: where, and the position there.
    let out = query(
        &["--json", "--tables", dir, EXAMPLE_3, "91", "91"],
        None,
        None,
    );
    assert_code(&out, 2);
    let j = json_of(&out);
    assert_eq!(j["kind"], "illegal_move");
    assert_eq!(j["move_index"], 2);
    assert_eq!(j["position"], "7,2S,1S/8,1S 79 79 N 1");
    assert!(stderr(&out).contains("The position after 91: 7,2S,1S/8,1S 79 79 N 1\n"));
}

#[test]
fn a_pasted_game_and_playok_tokens_are_moves() {
    let dir = tables().to_str().unwrap();
    let plain = query(
        &["--tables", dir, "--json", EXAMPLE_3, "91", "12"],
        None,
        None,
    );
    assert_code(&plain, 0);
    for args in [
        &["--tables", dir, "--json", EXAMPLE_3, "1. 91 12"][..],
        &["--tables", dir, "--json", EXAMPLE_3, "1. 91", "1... 12"],
        &["--tables", dir, "--json", "--fen", EXAMPLE_3, "91 12"],
    ] {
        let out = query(args, None, None);
        assert_code(&out, 0);
        assert_eq!(stdout(&out), stdout(&plain), "{args:?}");
    }
    // From the start, one argument: moves, not a FEN (too many stones for
    // these tables, so exit 3 with the position reached).
    let out = query(&["--tables", dir, "--json", "1. 76 98 2. 22"], None, None);
    let j = json_of(&out);
    assert_eq!(j["kind"], "no_table", "{j}");
    let moves = query(&["--tables", dir, "--json", "76", "98", "22"], None, None);
    assert_eq!(stdout(&out), stdout(&moves));
    let out = query(&["--tables", dir, "--json", "21(10) 21(10)"], None, None);
    assert_eq!(
        json_of(&out)["position"],
        "10S,10S,10S,10S,10S,10S,10S,1S,1/1,1S,10S,10S,10S,10S,10S,10S,10S 10 10 S 2"
    );
    let out = query(&["--tables", dir, "--json", "21(11)"], None, None);
    assert_code(&out, 2);
    assert_eq!(json_of(&out)["kind"], "illegal_move");
    // Still a FEN when it is not a move list.
    let out = query(&["--tables", dir, "not a fen"], None, None);
    assert_code(&out, 2);
    assert!(stderr(&out).contains("5 fields"), "{}", stderr(&out));
    // In batch mode too.
    let out = query(
        &["--tables", dir, "-"],
        None,
        Some(&format!("{EXAMPLE_3} 1. 91(79) 12\n")),
    );
    assert_code(&out, 0);
    let line: Json = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(line["played"], json!(["91", "12"]));
}

#[test]
fn standard_input_answers_every_line_in_order() {
    let dir = tables().to_str().unwrap();
    let input = format!("{EXAMPLE_3}\nnot a fen\n\n9/1S,8 80 81 S 1\r\n  {EXAMPLE_3} \n");
    let out = query(&["--tables", dir, "-"], None, Some(&input));
    // A bad line: exit 2, and every line still answered.
    assert_code(&out, 2);
    let lines: Vec<Json> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The blank line is skipped.
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["pv"], json!(["91", "12", "91", "12"]));
    assert_eq!(lines[1]["fen"], "not a fen");
    assert_eq!(lines[1]["kind"], "bad_fen");
    assert!(lines[1]["error"].as_str().unwrap().contains("5 fields"));
    assert_eq!(lines[2]["result"], "draw");
    // Spaces around a FEN are forgiven.
    assert_eq!(lines[3], lines[0]);
    assert_eq!(
        stderr(&out),
        "error: 1 of 4 lines was not answered: its JSON error object says why\n"
    );
    // Blank lines only, a trailing one too: nothing asked, nothing failed.
    let out = query(
        &["--tables", dir, "-"],
        None,
        Some(&format!("\n \r\n{EXAMPLE_3}\n\n")),
    );
    assert_code(&out, 0);
    assert_eq!(stdout(&out).lines().count(), 1);
    // A line past the cap is an error object echoing only its start, and
    // the next line is answered.
    let long = format!("{EXAMPLE_3}{}", " 91".repeat(30_000));
    let out = query(
        &["--tables", dir, "-"],
        None,
        Some(&format!("{long}\n{EXAMPLE_3}\n")),
    );
    assert_code(&out, 2);
    let lines: Vec<Json> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0]["error"]
        .as_str()
        .unwrap()
        .contains("longer than 65536 bytes"));
    assert!(lines[0]["fen"].as_str().unwrap().len() < 100);
    assert_eq!(lines[1]["pv"], json!(["91", "12", "91", "12"]));
    // Moves after the FEN on a line, as on the command line.
    let out = query(
        &["--tables", dir, "-"],
        None,
        Some(&format!("{EXAMPLE_3} 91 12\n{EXAMPLE_3} 91 91\n")),
    );
    assert_code(&out, 2);
    let lines: Vec<Json> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["fen"], "7,3S,1/8,1S 79 79 S 2");
    assert_eq!(lines[0]["played"], json!(["91", "12"]));
    assert_eq!(lines[0]["dtm"], 2);
    assert_eq!(lines[1]["kind"], "illegal_move");
    assert_eq!(lines[1]["move_index"], 2);
    assert_eq!(lines[1]["position"], "7,2S,1S/8,1S 79 79 N 1");
    // All good: exit 0, nothing on standard error.
    let out = query(
        &["--tables", dir, "-"],
        None,
        Some(&format!("{EXAMPLE_3}\n")),
    );
    assert_code(&out, 0);
    assert!(out.stderr.is_empty());
}

/// In batch mode the exit code is the highest of the failed lines':
/// 2 bad input < 3 no table < 4 damaged < 5 unreadable.
#[test]
fn standard_input_exits_with_the_highest_code() {
    let dir = tables().to_str().unwrap();
    let five = "9/1S,1S,1S,1S,1S,4 78 79 S 1";
    let out = query(
        &["--tables", dir, "-"],
        None,
        Some(&format!("x\n{five}\n{EXAMPLE_3}\n")),
    );
    assert_code(&out, 3);
    let kinds: Vec<Json> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<Json>(l).unwrap()["kind"].clone())
        .collect();
    assert_eq!(kinds, [json!("bad_fen"), json!("no_table"), Json::Null]);
    let damaged = damaged_copy();
    let out = query(
        &["--tables", damaged.path().to_str().unwrap(), "-"],
        None,
        Some(&format!("x\n{five}\n{EXAMPLE_3}\n")),
    );
    assert_code(&out, 4);
    let last: Json = serde_json::from_str(stdout(&out).lines().last().unwrap()).unwrap();
    assert_eq!(last["kind"], "damaged_table");
}

#[test]
fn missing_tables_show_the_board_and_the_legal_moves() {
    let dir = tables().to_str().unwrap();
    let five = "9/1S,1S,1S,1S,1S,4 78 79 S 1";
    let out = query(&["--tables", dir, five], None, None);
    assert_code(&out, 3);
    assert_eq!(
        stdout(&out),
        "          9   8   7   6   5   4   3   2   1
North     .   .   .   .   .   .   .   .   .   kazan 79
South     1   1   1   1   1   .   .   .   .   kazan 78
          1   2   3   4   5   6   7   8   9

South to move; no table covers this position.
Legal moves: 12 (a1b1), 23 (b1c1), 34 (c1d1), 45 (d1e1), 56 (e1f1)
"
    );
    // The message: what the folder holds, how big the table is, and the
    // command that makes it (which checks up front that it fits).
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "error: no table for 5 stones on the board: the tables in {dir} cover 1 to 4 stones. \
             The 5-stone table holds {} positions; `togyz-gen generate --max-stones 5 --out {dir}`",
            thousands(positions_for(5))
        )),
        "{err}"
    );
    // The starting position is far beyond any table that can exist: no
    // advice to generate one.
    let start = "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1";
    let out = query(&["--tables", dir, start], None, None);
    assert_code(&out, 3);
    let err = stderr(&out);
    assert!(
        err.starts_with("error: no table can exist for 162 stones on the board: tables go up to 40 stones; the tables in"),
        "{err}"
    );
    assert!(!err.contains("generate"), "{err}");
    assert!(stdout(&out).contains("Legal moves: 19 (a1i1), 21 (b1i2), 32 (c1h2)"));
    // Above what the generator can solve: no advice it would refuse.
    let twenty = "1S,8/2S,2S,2S,2S,2S,2S,2S,2S,3S 71 71 S 1";
    let out = query(&["--tables", dir, twenty], None, None);
    assert_code(&out, 3);
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "no table for 20 stones on the board: the tables in {dir} cover 1 to 4 stones. \
             The 20-stone table would hold {} positions; `togyz-gen` solves at most {} stones",
            thousands(positions_for(20)),
            togyz_tb::raw::index::max_solver_stones()
        )),
        "{err}"
    );
    assert!(!err.contains("--max-stones"), "{err}");
    // A folder that does not exist: every table is missing.
    let out = query(&["--tables", "/nonexistent/togyz", EXAMPLE_3], None, None);
    assert_code(&out, 3);
    assert!(
        stderr(&out).contains("the tables folder /nonexistent/togyz does not exist"),
        "{}",
        stderr(&out)
    );
    // An empty folder, a single table, and a gap.
    let some = tempfile::tempdir().unwrap();
    let some_dir = some.path().to_str().unwrap();
    for (add, held) in [
        (None, "holds no tables"),
        (Some(1), "cover 1 stone."),
        (Some(3), "holds the tables for 1, 3 stones"),
    ] {
        if let Some(n) = add {
            std::fs::copy(tables().join(file_name(n)), some.path().join(file_name(n))).unwrap();
        }
        let e = stderr(&query(&["--tables", some_dir, EXAMPLE_3], None, None));
        assert!(e.contains(held), "{e}");
    }
    // In JSON mode the error is a JSON object with its kind.
    let out = query(&["--json", "--tables", dir, five], None, None);
    assert_code(&out, 3);
    let j = json_of(&out);
    assert_eq!(j["kind"], "no_table");
    assert!(j["error"].as_str().unwrap().contains("5 stones"));
    // With what the rules alone show: the result is unknown, the kazans'
    // bounds, the legal moves.
    let pos: Position = five.parse().unwrap();
    let (lower, upper) = kazan_bounds(&pos);
    assert_eq!(j["result"], "unknown");
    assert_eq!(j["stones"], 5);
    assert_eq!(j["proven"]["lower"], lower.name());
    assert_eq!(j["proven"]["upper"], upper.name());
    let moves: Vec<_> = j["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["fen"].clone())
        .collect();
    let want: Vec<_> = pos
        .legal_moves()
        .map(|mv| json!(pos.after_unchecked(mv).fen()))
        .collect();
    assert_eq!(moves, want);
}

#[test]
fn bad_input_exits_2() {
    let dir = tables().to_str().unwrap();
    for (args, kind) in [
        (&[""][..], "bad_fen"),
        (&["9/9 81 81 S"], "bad_fen"),
        (&["7,2S,1/8,2S 79 79 X 1"], "bad_fen"),
        (&["7,2S,1/8,2S 80 79 S 1"], "bad_fen"),
        (&["8,2/9 79 79 S 1"], "bad_fen"),
        (&[EXAMPLE_3, "zz"], "bad_move"),
        (&[EXAMPLE_3, "12"], "illegal_move"),
        (&["-", "91"], "bad_fen"),
    ] {
        let mut all = vec!["--tables", dir];
        all.extend_from_slice(args);
        let out = query(&all, None, None);
        assert_code(&out, 2);
        assert!(out.stdout.is_empty());
        assert!(stderr(&out).starts_with("error: "));
        if args[0] != "-" {
            all.insert(0, "--json");
            assert_eq!(json_of(&query(&all, None, None))["kind"], kind, "{args:?}");
        }
    }
}

#[test]
fn tables_folder_from_the_environment() {
    let dir = tables();
    let out = query(&["--json", EXAMPLE_3], Some(dir), None);
    assert_code(&out, 0);
    assert_eq!(json_of(&out)["dtm"], 4);
    // --tables wins over the environment.
    let out = query(
        &["--tables", "/nonexistent/togyz", EXAMPLE_3],
        Some(dir),
        None,
    );
    assert_code(&out, 3);
}

/// A copy of the tables whose 4-stone file has a flipped byte in its block
/// index (seen by the first probe into the file).
fn damaged_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for n in 1..=4 {
        std::fs::copy(tables().join(file_name(n)), dir.path().join(file_name(n))).unwrap();
    }
    let path = dir.path().join(file_name(4));
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() - 3;
    bytes[at] ^= 0x10;
    std::fs::write(&path, bytes).unwrap();
    dir
}

#[test]
fn a_damaged_table_exits_4_naming_the_file() {
    let dir = damaged_copy();
    let path = dir.path().join(file_name(4));
    let out = query(
        &["--tables", dir.path().to_str().unwrap(), EXAMPLE_3],
        None,
        None,
    );
    assert_code(&out, 4);
    let err = stderr(&out);
    assert!(err.contains("togyz-04.tkb"), "{err}");
    assert!(err.contains("togyz-gen verify"), "{err}");
    // A damaged header: the 4-stone positions answer its error, the others
    // are answered, with a warning naming the file.
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[20] ^= 0x10;
    std::fs::write(&path, bytes).unwrap();
    let out = query(
        &[
            "--json",
            "--tables",
            dir.path().to_str().unwrap(),
            EXAMPLE_3,
        ],
        None,
        None,
    );
    assert_code(&out, 4);
    let j = json_of(&out);
    assert_eq!(j["kind"], "damaged_table");
    assert!(j["error"].as_str().unwrap().contains("togyz-04.tkb"));
    let out = query(
        &[
            "--json",
            "--tables",
            dir.path().to_str().unwrap(),
            "9/1S,8 80 81 S 1",
        ],
        None,
        None,
    );
    assert_code(&out, 0);
    assert_eq!(json_of(&out)["result"], "draw");
    assert!(stderr(&out).starts_with("warning: "), "{}", stderr(&out));
    assert!(stderr(&out).contains("togyz-04.tkb"), "{}", stderr(&out));
    // A truncated file too (the case: a 5-stone file, a 4-stone
    // query; here the 4-stone file and a 3-stone query).
    let bytes = std::fs::read(tables().join(file_name(4))).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let three = "9/1S,1S,1S,6 79 80 S 1";
    let out = query(
        &["--json", "--tables", dir.path().to_str().unwrap(), three],
        None,
        None,
    );
    assert_code(&out, 0);
    assert!(stderr(&out).contains("togyz-04.tkb"), "{}", stderr(&out));
    let out = query(
        &[
            "--json",
            "--tables",
            dir.path().to_str().unwrap(),
            EXAMPLE_3,
        ],
        None,
        None,
    );
    assert_code(&out, 4);
    // A finished game needs no table.
    let out = query(
        &["--tables", dir.path().to_str().unwrap(), "9/4S,8 79 79 N 1"],
        None,
        None,
    );
    assert_code(&out, 0);
}

/// A `query` command run as a user whom `chmod` binds: as root (who reads
/// everything) the binary runs as `nobody`, otherwise as ourselves.
fn unprivileged_query(args: &[&str]) -> Command {
    let mut all = vec!["query"];
    all.extend_from_slice(args);
    let mut cmd = common::command(&all, None);
    let probe = tempfile::NamedTempFile::new().unwrap();
    if probe.as_file().metadata().unwrap().uid() == 0 {
        cmd.uid(65534).gid(65534);
    }
    cmd
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A table the user may not read is reported as unreadable (exit 5, kind
/// unreadable_table, a word on permissions), never as damaged with advice
/// to delete it; so is a folder that cannot be listed.
#[test]
fn an_unreadable_table_is_not_called_damaged() {
    let dir = tempfile::tempdir().unwrap();
    set_mode(dir.path(), 0o755);
    for n in 1..=4 {
        let path = dir.path().join(file_name(n));
        std::fs::copy(tables().join(file_name(n)), &path).unwrap();
        set_mode(&path, if n == 4 { 0o000 } else { 0o644 });
    }
    let d = dir.path().to_str().unwrap();
    for json in [false, true] {
        let mut args = vec!["--tables", d, EXAMPLE_3];
        if json {
            args.insert(0, "--json");
        }
        let out = common::output(unprivileged_query(&args), "");
        assert_code(&out, 5);
        let err = stderr(&out);
        assert!(
            err.contains("togyz-04.tkb: cannot read the file: Permission denied"),
            "{err}"
        );
        assert!(err.contains("permission to read"), "{err}");
        assert!(!err.contains("damaged") && !err.contains("delete"), "{err}");
        if json {
            assert_eq!(json_of(&out)["kind"], "unreadable_table");
        }
    }
    set_mode(&dir.path().join(file_name(4)), 0o644);
    let out = common::output(unprivileged_query(&["--tables", d, EXAMPLE_3]), "");
    assert_code(&out, 0);
    // The folder itself.
    set_mode(dir.path(), 0o000);
    let out = common::output(unprivileged_query(&["--tables", d, EXAMPLE_3]), "");
    set_mode(dir.path(), 0o755);
    assert_code(&out, 5);
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!(
            "error: cannot list the tables folder {d}: Permission denied"
        )),
        "{err}"
    );
}

/// DTC tables: the text names the distance to conversion, the JSON puts
/// it under `dtc` with `dtm` null, and the line plays to the end.
#[test]
fn dtc_tables_answer_in_plies_to_conversion() {
    let dir = dtc_tables().to_str().unwrap();
    let out = query(&["--tables", dir, EXAMPLE_3], None, None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(
        report.contains("South to move loses; converts in 4 plies.")
            && report.contains("  91   i1i2  loses; converts in 4 plies")
            && report.contains("Best line: 91 12 91 12, then North wins 83:79"),
        "{report}"
    );
    let out = query(&["--json", "--tables", dir, EXAMPLE_3], None, None);
    let j = json_of(&out);
    assert_eq!(
        (j["dtm"].clone(), j["dtc"].clone()),
        (json!(null), json!(4))
    );
    assert_eq!(j["moves"][0]["dtc"], 4);
    assert_eq!(j["moves"][0]["dtm"], json!(null));
    // 91 takes two and passes 81: a conversion in 1.
    let out = query(
        &["--json", "--tables", dir, "4,1S,3,1S/8,2S 80 78 S 1"],
        None,
        None,
    );
    let j = json_of(&out);
    assert_eq!(
        (j["result"].clone(), j["dtc"].clone()),
        (json!("win"), json!(1)),
        "{j}"
    );
}
