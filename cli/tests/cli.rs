//! The `togyz-probe` binary: `perft` and `play` output, and exit code 2 with
//! an `error: ...` line for bad input (a bad move in a list also shows the
//! moves before it and the position there).

mod common;

use common::{assert_code, fails, run, stderr, stdout};
use togyz_tb::notation::parse_fen;
use togyz_tb::perft;

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
    let e = fails(&["perft", "3", "--fen", "8,2/9 79 79 S 1"]);
    assert!(e.contains("did you mean `2S`"), "{e}");
    let e = fails(&["perft", "3", "4"]);
    assert!(e.contains("unexpected argument `4`"), "{e}");
    // `--tables` without `-i` would evaluate nothing: said, not ignored.
    let e = fails(&["play", "--tables", ".", "76"]);
    assert!(e.contains("togyz-probe annotate"), "{e}");
}

/// A FEN typed without quotes reaches the program as five arguments: every
/// command says to quote it, and shows how.
#[test]
fn an_unquoted_fen_is_met_with_the_quoted_one() {
    let quoted = "put it in quotes, as '7,2S,1/8,2S 79 79 S 1'";
    for args in [
        &["play", "--fen", "7,2S,1/8,2S", "79", "79", "S", "1", "91"][..],
        &["perft", "3", "--fen", "7,2S,1/8,2S", "79", "79", "S", "1"],
        &["query", "7,2S,1/8,2S", "79", "79", "S", "1"],
    ] {
        let e = fails(args);
        assert!(e.contains(quoted), "{args:?}: {e}");
    }
    // Moves inside the quotes.
    let e = fails(&["query", "7,2S,1/8,2S 79 79 S 1 91 12"]);
    assert!(
        e.contains("found 7: the first five make a FEN; moves (`91 12`) go after the quoted FEN"),
        "{e}"
    );
    // Whitespace around and inside a quoted FEN is forgiven.
    let out = run(&["perft", "2", "--fen", " 7,2S,1/8,2S  79 79 S 1\n"]);
    assert_code(&out, 0);
    assert_eq!(stdout(&out), "2\n");
}

/// A move of a list that cannot be played: its place and text, the moves
/// before it, and the position there as a FEN and a board; nothing on
/// standard output.
#[test]
fn a_bad_move_in_a_list_is_named_with_the_position_there() {
    let out = run(&["play", "65", "98", "76", "21", "g1d2"]);
    assert_code(&out, 2);
    assert!(out.stdout.is_empty(), "{}", stdout(&out));
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines[0],
        "error: move 3 of 5: `76` is not legal here: its last stone lands elsewhere: the move is `78`"
    );
    let there = "1S,9S,9S,9S,1,10S,10S,10S,10S/10S,10S,10S,10S,10S,2S,11S,11S,10S 10 0 S 2";
    assert_eq!(lines[1], format!("The position after 65 98: {there}"));
    // The board: labels, North, South, labels.
    assert_eq!(lines.len(), 6, "{err}");
    assert!(
        lines[3].starts_with("North     1   9   9   9   .  10"),
        "{err}"
    );
    assert!(
        lines[4].starts_with("South    10  10  10  10  10   2  11"),
        "{err}"
    );
    // The first move, and a move after the end of the game.
    let e = stderr(&run(&["play", "99"]));
    assert!(
        e.starts_with("error: `99` is not legal here: its last stone lands elsewhere: the move is `98`\nThe position before any move: 9S,9S"),
        "{e}"
    );
    let out = run(&[
        "play",
        "--fen",
        "7,2S,1/8,2S 79 79 S 1",
        "91",
        "12",
        "91",
        "12",
        "91",
    ]);
    assert_code(&out, 2);
    let e = stderr(&out);
    assert!(
        e.starts_with("error: move 5 of 5: `91` is not legal here: the game is over\nThe position after 91 12 91 12: 7,4S,1/9 79 79 S 3\n"),
        "{e}"
    );
    let e = stderr(&run(&["play", "65", "zz"]));
    assert!(
        e.starts_with("error: move 2 of 2: `zz` is not a move"),
        "{e}"
    );
}

#[test]
fn play_prints_the_board_after_each_move() {
    let out = run(&[
        "play",
        "--board",
        "--fen",
        "7,2S,1/8,2S 79 79 S 1",
        "91",
        "12",
    ]);
    assert_code(&out, 0);
    assert_eq!(
        stdout(&out),
        "South 91  7,2S,1S/8,1S 79 79 N 1
          9   8   7   6   5   4   3   2   1
North     .   .   .   .   .   .   .   2   1   kazan 79
South     .   .   .   .   .   .   .   .   1   kazan 79
          1   2   3   4   5   6   7   8   9

North 12  7,3S,1/8,1S 79 79 S 2
          9   8   7   6   5   4   3   2   1
North     .   .   .   .   .   .   .   3   .   kazan 79
South     .   .   .   .   .   .   .   .   1   kazan 79
          1   2   3   4   5   6   7   8   9

"
    );
    // A tuzdyk is drawn as X and named below the board.
    let out = run(&[
        "play",
        "--board",
        "--fen",
        "1,1S,2,1S,3,2S/1,1S,2,1S,3,1S 78 77 S 20",
        "91x",
    ]);
    assert_code(&out, 0);
    let text = stdout(&out);
    assert!(
        text.contains("North     .   1   .   .   1   .   .   .   X   kazan 77"),
        "{text}"
    );
    assert!(
        text.contains("X: South's tuzdyk in North's hole 1\n"),
        "{text}"
    );
}

#[test]
fn pasted_move_numbers_are_skipped_and_hole_numbers_read() {
    let plain = run(&["play", "65", "g2c1", "77"]);
    assert_eq!(stdout(&plain).lines().count(), 3);
    let pasted = run(&["play", "1.", "65", "g2c1", "2.", "77"]);
    assert_code(&pasted, 0);
    assert_eq!(stdout(&pasted), stdout(&plain));
    // Bare hole numbers, the way players call moves.
    let holes = run(&["play", "6", "3", "7"]);
    assert_code(&holes, 0);
    assert_eq!(stdout(&holes), stdout(&plain));
}

#[test]
fn playok_tokens_and_a_pasted_game_as_one_argument() {
    let plain = run(&["play", "21", "21", "23"]);
    assert_code(&plain, 0);
    // The example: a PlayOK token after a plain move.
    for args in [
        &["play", "21", "21(10)", "23"][..],
        &["play", "1. 21(10) 21(10) 2. 23"],
        &["play", "1.21(10)", "21(10) 2.23 *"],
    ] {
        let out = run(args);
        assert_code(&out, 0);
        assert_eq!(stdout(&out), stdout(&plain), "{args:?}");
    }
    // The kazan and the tuzdyk mark are checked, as annotate checks them.
    let out = run(&["play", "1. 21(10) 21(11)"]);
    assert_code(&out, 2);
    assert!(
        stderr(&out).starts_with(
            "error: move 2 of 2: `21(11)` says the mover's kazan is 11, the move makes it 10\n\
             The position after 21: "
        ),
        "{}",
        stderr(&out)
    );
    let out = run(&["play", "21", "21X"]);
    assert_code(&out, 2);
    assert!(stderr(&out).contains("makes no tuzdyk"), "{}", stderr(&out));
}

#[test]
fn each_help_speaks_of_its_own_command() {
    let perft = stdout(&run(&["perft", "--help"]));
    assert!(!perft.contains("play"), "{perft}");
    assert!(perft.contains("Exit codes: 0 done"), "{perft}");
    let play = stdout(&run(&["play", "--help"]));
    assert!(play.contains("`play -i` exits with 0"), "{play}");
    assert!(play.contains("[MOVE]..."), "{play}");
}

#[test]
fn play_without_moves_shows_the_position() {
    let start = run(&["play"]);
    assert_code(&start, 0);
    let text = stdout(&start);
    assert!(text.starts_with("9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1\n"));
    assert!(text.contains("kazan 0"), "{text}");
    let over = run(&["play", "--board", "--fen", "9/4S,8 79 79 N 1"]);
    assert_code(&over, 0);
    assert!(
        stdout(&over).ends_with("South wins 83:79 (North has no stones; South collects 4)\n"),
        "{}",
        stdout(&over)
    );
}

#[test]
fn usage_errors_exit_with_2() {
    for args in [
        &["perft", "abc"][..],
        &["perft"],
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

/// Output that cannot be written is exit code 1 with the reason; a reader
/// that closes the pipe early ends the program quietly.
#[test]
fn output_failures() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full exists on Linux");
    let out = common::command(&["perft", "3"], None)
        .stdout(full)
        .output()
        .unwrap();
    assert_code(&out, 1);
    assert!(
        stderr(&out).starts_with("error: cannot write the output: No space left on device"),
        "{}",
        stderr(&out)
    );
    let mut child = common::command(&["perft", "4", "--divide"], None)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_code(&out, 0);
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}
