//! `togyz-probe query` end to end: real tables for up to 4 stones, written
//! by the generator into a temporary folder, queried through the binary.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use serde_json::{json, Value as Json};
use togyz_gen::retro::solve_all;
use togyz_gen::write::write_table;
use togyz_probe::raw::format::file_name;

const EXAMPLE_3: &str = "7,2S,1/8,2S 79 79 S 1";

/// A folder with the solved tables for 1..=4 stones.
fn tables() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let levels = solve_all(4).expect("levels solve");
        for n in 1..=4 {
            write_table(dir.path(), n, &levels.table(n)).unwrap();
        }
        dir
    })
    .path()
}

fn query(args: &[&str], env: Option<&Path>, stdin: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_togyz-probe"));
    cmd.arg("query").args(args).env_remove("TOGYZ_TABLES");
    if let Some(dir) = env {
        cmd.env("TOGYZ_TABLES", dir);
    }
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the binary runs");
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

fn json_of(out: &Output) -> Json {
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

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
            "moves": [{
                "move": "91",
                "uci": "i1i2",
                "result": "loss",
                "dtm": 4,
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
fn standard_input_answers_every_line_in_order() {
    let dir = tables().to_str().unwrap();
    let input = format!("{EXAMPLE_3}\nnot a fen\n\n9/1S,8 80 81 S 1\r\n{EXAMPLE_3}\n");
    let out = query(&["--tables", dir, "-"], None, Some(&input));
    // A bad line: exit 2, and every line still answered.
    assert_eq!(out.status.code(), Some(2));
    let lines: Vec<Json> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0]["pv"], json!(["91", "12", "91", "12"]));
    assert_eq!(lines[1]["fen"], "not a fen");
    assert!(lines[1]["error"].as_str().unwrap().contains("5 fields"));
    assert!(lines[2]["error"].as_str().unwrap().contains("empty"));
    assert_eq!(lines[3]["result"], "draw");
    assert_eq!(lines[4], lines[0]);
    // All good: exit 0. A missing table outranks bad input.
    let out = query(
        &["--tables", dir, "-"],
        None,
        Some(&format!("{EXAMPLE_3}\n")),
    );
    assert_eq!(out.status.code(), Some(0));
    let five = "9/1S,1S,1S,1S,1S,4 78 79 S 1";
    let out = query(
        &["--tables", dir, "-"],
        None,
        Some(&format!("x\n{five}\n{EXAMPLE_3}\n")),
    );
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(text(&out.stdout).lines().count(), 3);
}

#[test]
fn missing_tables_exit_3_with_the_command_to_make_them() {
    let dir = tables().to_str().unwrap();
    let five = "9/1S,1S,1S,1S,1S,4 78 79 S 1";
    let out = query(&["--tables", dir, five], None, None);
    assert_eq!(out.status.code(), Some(3));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(err.starts_with("error: no table for 5 stones"), "{err}");
    assert!(
        err.contains(&format!("togyz-gen generate --max-stones 5 --out {dir}")),
        "{err}"
    );
    // The starting position is far beyond any table.
    let start = "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1";
    let out = query(&["--tables", dir, start], None, None);
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("162 stones"));
    // A folder that does not exist: every table is missing.
    let out = query(&["--tables", "/nonexistent/togyz", EXAMPLE_3], None, None);
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("/nonexistent/togyz"));
    // In JSON mode the error is a JSON object too.
    let out = query(&["--json", "--tables", dir, five], None, None);
    assert_eq!(out.status.code(), Some(3));
    assert!(json_of(&out)["error"]
        .as_str()
        .unwrap()
        .contains("5 stones"));
}

#[test]
fn bad_input_exits_2() {
    let dir = tables().to_str().unwrap();
    for fen in [
        "",
        "9/9 81 81 S",
        "7,2S,1/8,2S 79 79 X 1",
        "7,2S,1/8,2S 80 79 S 1",
    ] {
        let out = query(&["--tables", dir, fen], None, None);
        assert_eq!(out.status.code(), Some(2), "{fen:?}");
        assert!(out.stdout.is_empty());
        assert!(text(&out.stderr).starts_with("error: "));
    }
}

#[test]
fn tables_folder_from_the_environment() {
    let dir = tables();
    let out = query(&["--json", EXAMPLE_3], Some(dir), None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(json_of(&out)["dtm"], 4);
    // --tables wins over the environment.
    let out = query(
        &["--tables", "/nonexistent/togyz", EXAMPLE_3],
        Some(dir),
        None,
    );
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn a_damaged_table_exits_4_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    for n in 1..=4 {
        std::fs::copy(tables().join(file_name(n)), dir.path().join(file_name(n))).unwrap();
    }
    let path = dir.path().join(file_name(4));
    // A byte of the block index: the first probe into the file sees it.
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() - 3;
    bytes[at] ^= 0x10;
    std::fs::write(&path, bytes).unwrap();
    let out = query(
        &["--tables", dir.path().to_str().unwrap(), EXAMPLE_3],
        None,
        None,
    );
    assert_eq!(out.status.code(), Some(4));
    assert!(
        text(&out.stderr).contains("togyz-04.tkb"),
        "{}",
        text(&out.stderr)
    );
    // A damaged header stops every query.
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[20] ^= 0x10;
    std::fs::write(&path, bytes).unwrap();
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
    assert_eq!(out.status.code(), Some(4));
    assert!(json_of(&out)["error"]
        .as_str()
        .unwrap()
        .contains("togyz-04.tkb"));
}
