//! `togyz-probe annotate` end to end: the sample PlayOK records, and
//! self-play records from set-up positions with 5 and 6 stones annotated
//! with the tables for 1..=4 stones (so by search), every verdict and every
//! marked move checked against the generator's solved values.

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use serde_json::Value as Json;
use togyz_gen::below::DtmLevels;
use togyz_gen::files::write::write_table;
use togyz_gen::solve::dtm::solve_all;
use togyz_tb::notation::traditional;
use togyz_tb::raw::index::Layout;
use togyz_tb::terminal_value;
use togyz_tb::Metric;
use togyz_tb::{Position, Side, Wdl};

const SAMPLE: &str = include_str!("../../probe/tests/data/sample-playok.txt");

fn setup() -> &'static (DtmLevels, tempfile::TempDir) {
    static S: OnceLock<(DtmLevels, tempfile::TempDir)> = OnceLock::new();
    S.get_or_init(|| {
        let levels = solve_all(6).expect("levels solve");
        let dir = tempfile::tempdir().unwrap();
        for n in 1..=4 {
            write_table(dir.path(), Metric::Dtm, n, &levels.table(n)).unwrap();
        }
        (levels, dir)
    })
}

fn annotate(args: &[&str], stdin: impl AsRef<[u8]>) -> Output {
    let dir = setup().1.path();
    let mut child = Command::new(env!("CARGO_BIN_EXE_togyz-probe"))
        .arg("annotate")
        .arg("--tables")
        .arg(dir)
        .args(args)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // A bad option ends the program before it reads: ignore the closed pipe.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_ref());
    child.wait_with_output().unwrap()
}

fn games(out: &Output) -> Vec<Json> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

#[test]
fn the_samples_in_words_and_in_json() {
    let out = annotate(&["--search-nodes", "20000"], SAMPLE);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("\nGame ").count() + 1, 3, "{text}");
    assert!(text.contains(
        "end: North wins 83:79 (South has no stones; North collects 5); recorded 1-0 — the record's result disagrees"
    ));
    let out = annotate(
        &[
            "--json",
            "--search-nodes",
            "20000",
            "--search-memory",
            "64M",
        ],
        SAMPLE.replace('\n', "\r\n"),
    );
    assert_eq!(out.status.code(), Some(0));
    let g = games(&out);
    let plies: Vec<_> = g.iter().map(|g| g["plies"].as_u64().unwrap()).collect();
    assert_eq!(plies, [79, 90, 102]);
    for game in &g {
        // The last position is over, so at least it is settled.
        let first = game["first_settled"].as_u64().unwrap();
        assert!(first <= game["plies"].as_u64().unwrap());
        assert_eq!(game["tags"]["White"], "south");
    }
    assert_eq!(g[1]["should_win"], "N");
}

/// A self-play game from a random live position with `n` stones, written
/// as a PlayOK record (kazans after even captures, `X` for a tuzdyk), with
/// the positions it passes through.
fn self_play(rng: &mut SmallRng, n: u32, number: usize) -> (String, Vec<Position>) {
    let layout = Layout::new(n);
    let mut pos = loop {
        let p = layout
            .slot(rng.random_range(0..layout.positions()))
            .position();
        if terminal_value(&p).is_none() {
            break p;
        }
    };
    let mut record = format!(
        "[Event \"self-play {number}\"]\r\n[White \"a\"]\r\n[Black \"b\"]\r\n[FEN \"{}\"]\r\n\r\n",
        pos.fen()
    );
    let mut positions = vec![pos];
    let mut ply = 0;
    while terminal_value(&pos).is_none() && ply < 24 {
        let moves: Vec<_> = pos.legal_moves().collect();
        let mv = moves[rng.random_range(0..moves.len() as u64) as usize];
        let text = traditional(&pos, mv).unwrap().replace('x', "X");
        let mover = pos.side_to_move();
        if mover == Side::South {
            record.push_str(&format!("{}. ", ply / 2 + 1));
        }
        let report = pos.play_unchecked(mv);
        record.push_str(&text);
        if report.captured > 0 {
            record.push_str(&format!("({})", pos.kazan(mover)));
        }
        record.push_str(if ply % 5 == 4 {
            " {a comment}\r\n"
        } else {
            " "
        });
        positions.push(pos);
        ply += 1;
    }
    record.push_str("*\r\n\r\n");
    (record, positions)
}

/// `count` self-play games from 5 and 6 stones in turn (seed `seed`), as
/// one record file, with the positions of each.
fn self_play_file(seed: u64, count: usize) -> (String, Vec<Vec<Position>>) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut file = String::new();
    let mut all = Vec::new();
    for i in 0..count {
        let (record, positions) = self_play(&mut rng, 5 + (i % 2) as u32, i);
        file.push_str(&record);
        all.push(positions);
    }
    (file, all)
}

fn truth(levels: &DtmLevels, pos: &Position) -> Wdl {
    terminal_value(pos)
        .or_else(|| levels.value(pos))
        .expect("within the solved levels")
        .wdl()
}

fn winner(pos: &Position, w: Wdl) -> &'static str {
    match (w, pos.side_to_move()) {
        (Wdl::Draw, _) => "draw",
        (Wdl::Win, Side::South) | (Wdl::Loss, Side::North) => "S",
        _ => "N",
    }
}

#[test]
fn self_play_verdicts_and_marked_moves_match_the_solver() {
    let (levels, _) = setup();
    let (file, all) = self_play_file(7, 20);
    let out = annotate(&["--json", "--search-nodes", "200000"], &file);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let g = games(&out);
    assert_eq!(g.len(), all.len());
    let mut marked = 0;
    for (game, positions) in g.iter().zip(&all) {
        // 5 and 6 stones over 4-stone tables: the search settles it all.
        assert_eq!(game["first_settled"], 0, "{game}");
        let moves = game["moves"].as_array().unwrap();
        assert_eq!(moves.len() + 1, positions.len());
        for (k, m) in moves.iter().enumerate() {
            let (b, a) = (&positions[k], &positions[k + 1]);
            let (tb, ta) = (truth(levels, b), truth(levels, a));
            assert_eq!(m["fen_before"], b.fen());
            assert_eq!(m["before"]["winner"], winner(b, tb), "{m}");
            assert_eq!(m["after"]["winner"], winner(a, ta), "{m}");
            let dropped = ta.flip() < tb;
            assert_eq!(m.get("mistake").is_some(), dropped, "{m}");
            if dropped {
                marked += 1;
                // The better move named does keep the value.
                let better = m["better"].as_str().unwrap();
                let mv = togyz_tb::notation::parse_move(b, &better[..better.find(' ').unwrap()])
                    .unwrap();
                assert_eq!(truth(levels, &b.after(mv).unwrap()).flip(), tb, "{m}");
            }
        }
    }
    assert!(marked >= 3, "random play makes mistakes: {marked}");
}

#[test]
fn a_wrong_kazan_is_an_error_naming_game_and_ply_and_the_next_game_goes_on() {
    let bad = SAMPLE.replacen("33(22)", "33(24)", 1);
    let out = annotate(&["--json", "--search-time", "0"], &bad);
    assert_eq!(out.status.code(), Some(2));
    let g = games(&out);
    assert_eq!(g.len(), 3);
    assert_eq!(
        g[0]["error"],
        "ply 4 (2... 33 on line 8): the record says the mover's kazan is 24, the move makes it 22"
    );
    assert!(g[1].get("error").is_none() && g[2].get("error").is_none());
    let out = annotate(&["--search-time", "0"], &bad);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("Game 1 (line 1): south – north, 1-0 (79 plies)\n  error: ply 4"));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .starts_with("error: "));
}

#[test]
fn bad_search_limits_and_empty_input_are_errors() {
    for t in ["-1", "abc", "inf"] {
        let out = annotate(&["--search-time", t], SAMPLE);
        assert_eq!(out.status.code(), Some(2), "{t}");
    }
    for m in ["100K", "many"] {
        let out = annotate(&["--search-memory", m], SAMPLE);
        assert_eq!(out.status.code(), Some(2), "{m}");
    }
    let out = annotate(&[], "  \r\n");
    assert_eq!(out.status.code(), Some(2));
    // A folder or a missing file in the record's place.
    let dir = tempfile::tempdir().unwrap();
    for (path, says) in [
        (dir.path().to_path_buf(), "is a directory"),
        (dir.path().join("none.txt"), "No such file"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_togyz-probe"))
            .args(["annotate", "--tables"])
            .arg(setup().1.path())
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.starts_with("error: cannot read ") && err.contains(says),
            "{err}"
        );
    }
}

#[test]
fn windows_exports_read_a_byte_order_mark_utf16_and_a_legacy_code_page() {
    let plain = annotate(&["--search-time", "0"], SAMPLE);
    assert_eq!(plain.status.code(), Some(0));
    let bom = [b"\xef\xbb\xbf".as_slice(), SAMPLE.as_bytes()].concat();
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain(SAMPLE.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    for input in [bom, utf16] {
        let out = annotate(&["--search-time", "0"], &input);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(out.stdout, plain.stdout);
        assert!(out.stderr.is_empty());
    }
    let splice = |find: &str, from: usize, to: usize, with: &[u8]| {
        let at = SAMPLE.find(find).unwrap();
        let b = SAMPLE.as_bytes();
        [&b[..at + from], with, &b[at + to..]].concat()
    };
    // "Иван" in Windows-1251: the name is marred, the game replays.
    let cp1251 = splice("\"south\"", 1, 6, b"\xc8\xe2\xe0\xed");
    let out = annotate(&["--json", "--search-time", "0"], &cp1251);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8(out.stderr.clone())
        .unwrap()
        .starts_with("warning: line 4 of the input is not valid UTF-8"));
    let g = games(&out);
    assert_eq!(g[0]["tags"]["White"], "\u{fffd}".repeat(4));
    assert_eq!(g[0]["plies"], 79);
    // A bad byte among the moves is that game's syntax error.
    let bad = splice("33(22)", 1, 2, b"\xff");
    let out = annotate(&["--json", "--search-time", "0"], &bad);
    assert_eq!(out.status.code(), Some(2));
    let g = games(&out);
    let error = g[0]["error"].as_str().unwrap();
    assert!(error.starts_with("line 8:"), "{error}");
    assert!(g[1].get("error").is_none());
}

#[test]
fn a_node_budget_gives_the_same_report_every_time() {
    let mut rng = SmallRng::seed_from_u64(11);
    let mut file = String::new();
    for i in 0..6 {
        file.push_str(&self_play(&mut rng, 6, i).0);
    }
    let first = annotate(&["--json", "--search-nodes", "300"], &file);
    assert_eq!(first.status.code(), Some(0));
    let searched = games(&first)
        .iter()
        .flat_map(|g| g["moves"].as_array().unwrap().clone())
        .filter(|m| m["before"]["source"] == "search")
        .count();
    assert!(searched > 0, "some positions are settled by search");
    for _ in 0..2 {
        let again = annotate(&["--json", "--search-nodes", "300"], &file);
        assert_eq!(again.stdout, first.stdout);
    }
    for bad in [
        &["--search-nodes", "0"][..],
        &["--search-nodes", "x"],
        &["--search-nodes", "10", "--search-time", "1"],
    ] {
        assert_eq!(annotate(bad, &file).status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn a_game_past_the_cap_is_an_error_and_the_next_game_is_annotated() {
    // An endless cycle (docs/rules.md sets no move limit): 18 plies that
    // come back to the start, written out past the cap.
    let cycle: Vec<String> = ["91".to_string(), "91".to_string()]
        .into_iter()
        .chain((1..9).flat_map(|h| [format!("{h}{}", h + 1), format!("{h}{}", h + 1)]))
        .collect();
    let fen = "[FEN \"1S,8/8,1S 80 80 S 1\"]\n\n";
    let plies = togyz_tb::record::MAX_GAME_PLIES + 18;
    let mut long = fen.to_string();
    for k in 0..plies / 18 {
        long.push_str(&cycle.join(" "));
        long.push_str(if k % 5 == 4 { "\n" } else { " " });
    }
    long.push_str("*\n");
    let input = format!("{long}\n{fen}1. 91 91 *\n");
    let out = annotate(&["--json", "--search-time", "0"], &input);
    assert_eq!(out.status.code(), Some(2));
    let g = games(&out);
    assert_eq!(g.len(), 2);
    assert!(
        g[0]["error"]
            .as_str()
            .unwrap()
            .contains("goes on past 100000 plies"),
        "{}",
        g[0]
    );
    assert_eq!(g[1]["plies"], 2);
    assert!(g[1].get("error").is_none());
    // Just under the cap, the whole cycle replays.
    let mut short = fen.to_string();
    for _ in 0..togyz_tb::record::MAX_GAME_PLIES / 18 {
        short.push_str(&cycle.join(" "));
        short.push('\n');
    }
    let out = annotate(&["--search-time", "0"], &short);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_fen_game_may_number_from_the_fen_and_utf16_without_a_mark_is_named() {
    let numbered = "[FEN \"1,1S,2,1S,3,2S/1,1S,2,1S,3,1S 78 77 S 219\"]\n\n219. 23 *\n";
    for text in [numbered.to_string(), numbered.replace("219. ", "1. ")] {
        let out = annotate(&["--json", "--search-time", "0"], &text);
        assert_eq!(out.status.code(), Some(0), "{text}");
        assert_eq!(games(&out)[0]["plies"], 1);
    }
    let utf16: Vec<u8> = SAMPLE.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let out = annotate(&["--search-time", "0"], &utf16);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("looks like UTF-16 (little-endian) without a byte order mark"),
        "{text}"
    );
    assert!(!text.contains('\0') && !out.stderr.contains(&0));
}

#[test]
fn without_search_the_move_played_settles_a_position_it_wins() {
    let (levels, _) = setup();
    let (file, all) = self_play_file(11, 60);
    let out = annotate(&["--json", "--search-time", "0"], &file);
    assert_eq!(out.status.code(), Some(0));
    let g = games(&out);
    assert_eq!(g.len(), all.len());
    let mut above = 0;
    for (game, positions) in g.iter().zip(&all) {
        let moves = game["moves"].as_array().unwrap();
        for (k, m) in moves.iter().enumerate() {
            let (b, a) = (&positions[k], &positions[k + 1]);
            if m["before"].is_null() {
                continue;
            }
            let tb = truth(levels, b);
            assert_eq!(m["before"]["winner"], winner(b, tb), "{m}");
            if b.stones_on_board() > 4 && terminal_value(b).is_none() {
                // Above the 4-stone tables with no search: only the move
                // played can settle it, by winning.
                above += 1;
                assert_eq!(truth(levels, a), Wdl::Loss, "{m}");
                assert_eq!(tb, Wdl::Win, "{m}");
                assert_eq!(m["before"]["source"], "search", "{m}");
            }
        }
    }
    assert!(
        above >= 3,
        "winning last moves from above the tables: {above}"
    );
}
