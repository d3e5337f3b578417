//! `togyz-probe query` above the tables: positions with 5 stones answered
//! by search over the tables for 1..=4 stones, checked against the
//! generator's solved values; the start position, far beyond any table, is
//! answered "not proven" with what was shown.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::OnceLock;

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde_json::Value as Json;
use togyz_gen::below::DtmLevels;
use togyz_gen::files::write::write_table;
use togyz_gen::solve::dtm::solve_all;
use togyz_tb::notation::parse_move;
use togyz_tb::raw::index::Layout;
use togyz_tb::terminal_value;
use togyz_tb::Metric;
use togyz_tb::{Position, Wdl};

fn setup() -> &'static (DtmLevels, tempfile::TempDir) {
    static S: OnceLock<(DtmLevels, tempfile::TempDir)> = OnceLock::new();
    S.get_or_init(|| {
        let levels = solve_all(5).expect("levels solve");
        let dir = tempfile::tempdir().unwrap();
        for n in 1..=4 {
            write_table(dir.path(), Metric::Dtm, n, &levels.table(n)).unwrap();
        }
        (levels, dir)
    })
}

fn query(args: &[&str]) -> Output {
    let dir: &Path = setup().1.path();
    Command::new(env!("CARGO_BIN_EXE_togyz-probe"))
        .arg("query")
        .arg("--tables")
        .arg(dir)
        .args(args)
        .env_remove("TOGYZ_TABLES")
        .output()
        .expect("the binary runs")
}

fn truth(pos: &Position) -> Wdl {
    terminal_value(pos)
        .or_else(|| setup().0.value(pos))
        .expect("solved")
        .wdl()
}

/// Live 5-stone positions, one of each value.
fn one_of_each() -> Vec<Position> {
    let layout = Layout::new(5);
    let mut rng = SmallRng::seed_from_u64(11);
    let mut found: Vec<Position> = Vec::new();
    while found.len() < 3 {
        let p = layout
            .slot(rng.random_range(0..layout.positions()))
            .position();
        if terminal_value(&p).is_none() && found.iter().all(|f| truth(f) != truth(&p)) {
            found.push(p);
        }
    }
    found
}

#[test]
fn above_the_tables_by_search() {
    for pos in one_of_each() {
        let fen = pos.fen();
        let t = truth(&pos);
        let out = query(&["--json", &fen]);
        assert_eq!(out.status.code(), Some(0));
        let j: Json = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["source"], "search", "{j}");
        assert_eq!(j["result"], t.name(), "{j}");
        assert_eq!(j["search"]["table_stones"], 4);
        assert!(j.get("proven").is_none());
        let best = parse_move(&pos, j["best"].as_str().unwrap()).unwrap();
        assert_eq!(truth(&pos.after(best).unwrap()).flip(), t, "{j}");
        let out = query(&[&fen]);
        let text = String::from_utf8(out.stdout).unwrap();
        let what = match t {
            Wdl::Win => "wins",
            Wdl::Draw => "draws",
            Wdl::Loss => "loses",
        };
        let side = pos.side_to_move();
        assert!(
            text.contains(&format!("{side} to move {what} (proven by search: ")),
            "{text}"
        );
        assert!(text.contains("; tables up to 4 stones): "), "{text}");
    }
}

#[test]
fn a_memory_bound_still_proves_and_a_bad_one_is_refused() {
    for pos in one_of_each() {
        let fen = pos.fen();
        let out = query(&["--json", "--search-memory", "1M", &fen]);
        assert_eq!(out.status.code(), Some(0));
        let j: Json = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["result"], truth(&pos).name(), "{j}");
    }
    let fen = one_of_each()[0].fen();
    for bad in ["999K", "0", "-5M", "lots", "2Q"] {
        let out = query(&[&format!("--search-memory={bad}"), &fen]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("--search-memory"), "{bad}: {err}");
    }
}

#[test]
fn far_above_the_tables_the_answer_says_what_was_shown() {
    let start = Position::start().fen();
    let out = query(&["--json", "--search-time", "0.3", &start]);
    assert_eq!(out.status.code(), Some(0));
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["result"], "unknown");
    assert_eq!(j["source"], "search");
    assert_eq!(j["best"], Json::Null);
    let (lo, hi) = (j["proven"]["lower"].as_str(), j["proven"]["upper"].as_str());
    assert!(lo.is_some() && hi.is_some() && lo != hi, "{j}");
    assert_eq!(j["moves"].as_array().unwrap().len(), 9);
    assert!(j["search"]["seconds"].as_f64().unwrap() < 2.0);
    let out = query(&["--search-time", "0.2", &start]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("not proven in 0.2 s: "), "{text}");
    // The progress line is for terminals only.
    assert!(out.stderr.is_empty());
}

#[test]
fn lines_of_standard_input_share_one_solver_and_stay_exact() {
    use std::io::Write;
    // Positions and the positions after each of their moves, so that the
    // searches of later lines meet what earlier ones proved.
    let layout = Layout::new(5);
    let mut rng = SmallRng::seed_from_u64(5);
    let mut positions = Vec::new();
    while positions.len() < 60 {
        let p = layout
            .slot(rng.random_range(0..layout.positions()))
            .position();
        if terminal_value(&p).is_none() {
            positions.push(p);
            positions.extend(p.legal_moves().map(|m| p.after(m).unwrap()));
        }
    }
    let input: String = positions.iter().map(|p| p.fen() + "\n").collect();
    let dir: &Path = setup().1.path();
    let mut child = Command::new(env!("CARGO_BIN_EXE_togyz-probe"))
        .args(["query", "--search-time", "10", "--tables"])
        .arg(dir)
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let lines: Vec<Json> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), positions.len());
    let mut searched = 0;
    for (pos, j) in positions.iter().zip(&lines) {
        assert_eq!(j["result"], truth(pos).name(), "{pos}: {j}");
        searched += usize::from(j["source"] == "search");
    }
    assert!(searched >= 10, "{searched}");
}

/// DTC tables for 1 and 2 stones and WDL tables (the win/draw/loss of the
/// positions with a tuzdyk, `docs/format.md`) for 3 and 4.
fn wdl_tables() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let (levels, splits) = togyz_gen::solve::dtc::solve_all(4).expect("levels solve");
        for n in 1..=4 {
            if n <= 2 {
                write_table(dir.path(), Metric::Dtc, n, &levels[n as usize].widened()).unwrap();
            } else {
                let level = splits.level(n).splits();
                togyz_gen::files::write::write_wdl_table(
                    dir.path(),
                    n,
                    togyz_tb::Contents::Wdl,
                    level,
                )
                .unwrap();
            }
        }
        dir
    })
    .path()
}

/// A position with a tuzdyk that a WDL table holds is answered from it:
/// the result, a move that keeps it, no distance, said as such; one
/// without a tuzdyk is proven by search above the tables of every position.
#[test]
fn wdl_tables_answer_positions_with_a_tuzdyk() {
    let layout = Layout::new(4);
    let mut rng = SmallRng::seed_from_u64(5);
    let (mut held, mut searched) = (0, 0);
    while held < 3 || searched < 2 {
        let pos = layout
            .slot(rng.random_range(0..layout.positions()))
            .position();
        if terminal_value(&pos).is_some() || (!pos.has_tuzdyk() && searched >= 2) {
            continue;
        }
        let fen = pos.fen();
        let t = truth(&pos);
        let run = |json: bool| {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_togyz-probe"));
            cmd.arg("query").arg("--tables").arg(wdl_tables());
            if json {
                cmd.arg("--json");
            }
            cmd.arg(&fen).env_remove("TOGYZ_TABLES").output().unwrap()
        };
        let out = run(true);
        assert_eq!(out.status.code(), Some(0));
        let j: Json = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["result"], t.name(), "{j}");
        let best = parse_move(&pos, j["best"].as_str().unwrap()).unwrap();
        assert_eq!(truth(&pos.after(best).unwrap()).flip(), t, "{j}");
        let text = String::from_utf8(run(false).stdout).unwrap();
        if pos.has_tuzdyk() {
            assert_eq!(j["source"], "tables", "{j}");
            assert_eq!(j["search"]["table_stones"], 4, "{j}");
            assert!(
                text.contains("(the win/draw/loss tables up to 4 stones, which hold no distance)"),
                "{text}"
            );
            held += 1;
        } else {
            assert_eq!(j["source"], "search", "{j}");
            assert_eq!(j["search"]["table_stones"], 2, "{j}");
            assert!(text.contains("(proven by search: "), "{text}");
            searched += 1;
        }
    }
}

/// A folder of WDL tables of one tuzdyk pair names the pair and how far
/// its tables go when a position is past them.
#[test]
fn a_folder_of_tuzdyk_pairs_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (levels, splits) = togyz_gen::solve::dtc::solve_all(3).expect("levels solve");
    write_table(dir.path(), Metric::Dtc, 1, &levels[1].widened()).unwrap();
    write_table(dir.path(), Metric::Dtc, 2, &levels[2].widened()).unwrap();
    let pairs = togyz_tb::Contents::Pairs("3-6".parse().unwrap());
    togyz_gen::files::write::write_wdl_table(dir.path(), 3, pairs, splits.level(3).splits())
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_togyz-probe"))
        .args(["query", "--search-time", "0", "--tables"])
        .arg(dir.path())
        .arg("4S,4S,t,1S,2S,2S,1S,1S,1/1,4S,1S,t,2S,1S,2S,1,2S 80 55 S 52")
        .env_remove("TOGYZ_TABLES")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cover 1 to 2 stones, those with tuzdyks in holes 3-6 up to 3 stones"),
        "{err}"
    );
}

/// `--tables` given twice, and `$TOGYZ_TABLES` as a list of folders:
/// a folder of the DTC tables and folders of one tuzdyk pair each are
/// read together, and a position of a pair is answered from its folder.
#[test]
fn folders_of_tuzdyk_pairs_are_read_together() {
    let (full, a, b) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let (levels, splits) = togyz_gen::solve::dtc::solve_all(4).expect("levels solve");
    for n in 1..=2 {
        write_table(full.path(), Metric::Dtc, n, &levels[n as usize].widened()).unwrap();
    }
    for (dir, pair) in [(&a, "3-6"), (&b, "1-8")] {
        let pairs = togyz_tb::Contents::Pairs(pair.parse().unwrap());
        for n in 1..=4 {
            togyz_gen::files::write::write_wdl_table(
                dir.path(),
                n,
                pairs,
                splits.level(n).splits(),
            )
            .unwrap();
        }
    }
    // Four stones, tuzdyks in holes 8 (of North's row) and 1 (of South's).
    let fen = "1S,t,1S,6/t,1S,1S,6 78 80 S 30";
    let pos: togyz_tb::Position = fen.parse().unwrap();
    assert_eq!(pos.stones_on_board(), 4);
    let want = {
        let all = tempfile::tempdir().unwrap();
        for n in 1..=4 {
            write_table(all.path(), Metric::Dtc, n, &levels[n as usize].widened()).unwrap();
        }
        togyz_tb::Tablebase::open([all.path()])
            .unwrap()
            .wdl(&pos)
            .unwrap()
    };
    let query = |args: &[&std::ffi::OsStr], env: Option<std::ffi::OsString>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_togyz-probe"));
        c.args(["query", "--json"]).args(args).arg(fen);
        match env {
            Some(v) => c.env("TOGYZ_TABLES", v),
            None => c.env_remove("TOGYZ_TABLES"),
        };
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let t = std::ffi::OsStr::new("--tables");
    let given = query(
        &[
            t,
            full.path().as_os_str(),
            t,
            a.path().as_os_str(),
            t,
            b.path().as_os_str(),
        ],
        None,
    );
    let listed = std::env::join_paths([full.path(), a.path(), b.path()]).unwrap();
    let from_env = query(&[], Some(listed));
    let result = format!("\"result\":\"{}\"", want.to_string().to_lowercase());
    for out in [&given, &from_env] {
        assert!(out.contains(&result), "{result}: {out}");
    }
    // Without the folder of its pair, the position is past the tables.
    let without = Command::new(env!("CARGO_BIN_EXE_togyz-probe"))
        .args(["query", "--search-time", "0", "--tables"])
        .arg(full.path())
        .arg("--tables")
        .arg(a.path())
        .arg(fen)
        .env_remove("TOGYZ_TABLES")
        .output()
        .unwrap();
    assert_eq!(without.status.code(), Some(3));
    // Asked without the search, the folders hold its result but no
    // distance: said so, not taken for a damaged table.
    let no_search = Command::new(env!("CARGO_BIN_EXE_togyz-probe"))
        .args(["query", "--search-time", "0", "--tables"])
        .arg(full.path())
        .arg("--tables")
        .arg(b.path())
        .arg(fen)
        .env_remove("TOGYZ_TABLES")
        .output()
        .unwrap();
    assert_eq!(no_search.status.code(), Some(3));
    let err = String::from_utf8_lossy(&no_search.stderr);
    assert!(
        err.contains("holes 1-8 only") && !err.contains("damaged"),
        "{err}"
    );
    // A folder of one pair's tables alone: its positions are searched.
    let alone = Command::new(env!("CARGO_BIN_EXE_togyz-probe"))
        .args(["query", "--json", "--tables"])
        .arg(b.path())
        .arg(fen)
        .env_remove("TOGYZ_TABLES")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&alone.stdout);
    assert!(alone.status.success() && out.contains(&result), "{out}");
}
