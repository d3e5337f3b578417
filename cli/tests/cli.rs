//! The `togyz-probe` binary: `perft` and `play` output, and exit code 2 with
//! a one-line `error: ...` for bad input.

use std::process::{Command, Output};

use togyz_probe::notation::parse_fen;
use togyz_probe::rules::perft;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_togyz-probe"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Runs a command that must fail with exit code 2, an empty stdout and a
/// single `error: ` line on stderr; returns that line.
fn fails(args: &[&str]) -> String {
    let out = run(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?} printed {}", stdout(&out));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    err.trim_end().to_owned()
}

#[test]
fn perft_counts_from_the_start() {
    let out = run(&["perft", "5"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "43184\n");
    assert_eq!(stdout(&run(&["perft", "7"])), "3003052\n");
    assert_eq!(stdout(&run(&["perft", "0"])), "1\n");
}

#[test]
fn perft_divide_lists_every_first_move() {
    let out = run(&["perft", "4", "--divide"]);
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 10, "{text}");
    assert_eq!(lines[9], "total 5199");
    let mut sum = 0;
    for (i, line) in lines[..9].iter().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f.len(), 3, "{line}");
        // Lines come in hole order: the first digit is the hole played.
        assert!(f[0].starts_with(&(i + 1).to_string()), "{line}");
        sum += f[2].parse::<u64>().unwrap();
    }
    assert_eq!(sum, 5199);
    assert!(lines[5].starts_with("65  f1e2 "), "{}", lines[5]);
    assert!(lines[6].starts_with("76  g1d2 "), "{}", lines[6]);
}

#[test]
fn perft_from_a_fen_matches_the_library() {
    let fen = "4,10S,2,2S,1/1,t,6,3S 74 73 S 1";
    let expected = perft(&parse_fen(fen).unwrap(), 8);
    let out = run(&["perft", "8", "--fen", fen]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), format!("{expected}\n"));
    // A finished game is one leaf at any depth, and divides into nothing.
    let over = "9/4S,8 79 79 N 1";
    assert_eq!(stdout(&run(&["perft", "6", "--fen", over])), "1\n");
    assert_eq!(
        stdout(&run(&["perft", "6", "--fen", over, "--divide"])),
        "total 1\n"
    );
}

#[test]
fn play_example_3() {
    // The third move in UCI: South's hole 9 (i1) to North's hole 1 (i2).
    let out = run(&[
        "play",
        "--fen",
        "7,2S,1/8,2S 79 79 S 1",
        "91",
        "12",
        "i1i2",
        "12",
    ]);
    assert!(out.status.success());
    assert_eq!(
        stdout(&out),
        "South 91  7,2S,1S/8,1S 79 79 N 1\n\
         North 12  7,3S,1/8,1S 79 79 S 2\n\
         South 91  7,3S,1S/9 79 79 N 2\n\
         North 12  7,4S,1/9 79 79 S 3\n\
         North wins 83:79 (South has no stones; North collects 4)\n"
    );
}

#[test]
fn play_from_the_start_in_both_notations() {
    let out = run(&["play", "65", "g2c1"]);
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "South 65  9S,9S,9S,9S,1,10S,10S,10S,10S/9S,9S,9S,9S,9S,1S,10S,10S,10S 10 0 N 1"
    );
    assert!(lines[1].starts_with("North 33  "), "{}", lines[1]);
    assert_eq!(lines.len(), 2);
}

#[test]
fn bad_input_exits_with_2_and_one_error_line() {
    let e = fails(&["play", "--fen", "9S,9S 0 0 S 1", "11"]);
    assert!(e.contains("two rows"), "{e}");
    let e = fails(&["perft", "3", "--fen", "9/9 81 81 W 1"]);
    assert!(e.contains("side to move"), "{e}");
    let e = fails(&["play", "75"]);
    assert!(e.contains("the move is `76`"), "{e}");
    fails(&["play", "65", "zz"]);
    // A move after the end of the game.
    let e = fails(&[
        "play",
        "--fen",
        "7,2S,1/8,2S 79 79 S 1",
        "91",
        "12",
        "91",
        "12",
        "91",
    ]);
    assert!(e.contains("the game is over"), "{e}");
}

#[test]
fn usage_errors_exit_with_2() {
    for args in [
        &["perft", "abc"][..],
        &["perft"],
        &["play"],
        &["frobnicate"],
        &[],
        &["perft", "3", "--bogus"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        // clap explains on stderr (no arguments at all print the help).
        assert!(!out.stderr.is_empty(), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
