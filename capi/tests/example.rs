//! `examples/probe.c` end to end: compiled with the system C compiler
//! against the library cargo built, run against real tables for up to 4
//! stones, from one thread and from 4 at once. The expected output is
//! computed here with the Rust library.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use togyz_tb::notation::{parse_fen, traditional, uci};
use togyz_tb::{Tablebase, Value};

const SEED: &str = "7,2S,1/8,2S 79 79 S 1";

mod common;

/// The compiled example, in a temporary folder kept alive with it.
struct Setup {
    _bin: tempfile::TempDir,
    probe: PathBuf,
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let bin = tempfile::tempdir().unwrap();
        let probe = bin.path().join("probe");
        compile(&probe);
        Setup { _bin: bin, probe }
    })
}

/// The folder holding `libtogyz_tb.so`: cargo builds the library's every
/// crate type before the tests, next to them (`target/<profile>/deps`).
/// The copy one level up is only refreshed by `cargo build`, so it may be
/// stale and comes second.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let name = format!(
        "{}togyz_tb{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    let found = [deps, deps.parent().unwrap()]
        .into_iter()
        .find(|d| d.join(&name).exists())
        .unwrap_or_else(|| panic!("{name} not found next to {}", exe.display()))
        .to_path_buf();
    found
}

fn compile(out: &Path) {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = library_dir();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let result = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O2"])
        .arg("-I")
        .arg(crate_dir.join("include"))
        .arg(crate_dir.join("examples/probe.c"))
        .arg("-L")
        .arg(&lib)
        .arg("-ltogyz_tb")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lpthread")
        .arg("-o")
        .arg(out)
        .output()
        .unwrap_or_else(|e| panic!("the C compiler `{cc}` runs: {e}"));
    assert!(
        result.status.success(),
        "{cc} fails to compile examples/probe.c:\n{}",
        text(&result.stderr)
    );
}

fn run(args: &[&str]) -> Output {
    // Cargo's own LD_LIBRARY_PATH would win over the rpath and may lead to
    // a stale copy of the library.
    Command::new(&setup().probe)
        .args(args)
        .env("LD_LIBRARY_PATH", library_dir())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

fn value_text(v: Value) -> String {
    match v.distance() {
        Some(d) => format!("{} in {d}", v.wdl()),
        None => v.wdl().to_string(),
    }
}

/// What the example must print for `fen`, from the Rust library.
fn expected(fen: &str) -> String {
    let tb = Tablebase::open([common::tables()]).unwrap();
    let pos = parse_fen(fen).unwrap();
    let mut out = format!(
        "togyz-tb {}, tables for 1..4 stones\nposition: {}\nvalue: {}\nmoves, best first:\n",
        env!("CARGO_PKG_VERSION"),
        pos.fen(),
        value_text(tb.value(&pos).unwrap())
    );
    for m in tb.moves(&pos).unwrap() {
        out += &format!(
            "  {:<4} hole {}  {:<5} {}\n",
            traditional(&pos, m.mv).unwrap(),
            m.mv.hole(),
            uci(&pos, m.mv).unwrap(),
            value_text(m.value)
        );
    }
    out
}

#[test]
fn the_seed_is_a_loss_in_4_with_every_move_ranked() {
    let dir = common::tables().to_str().unwrap();
    let out = run(&[dir]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout, expected(SEED));
    assert!(stdout.contains("value: loss in 4\n"), "{stdout}");
    // South's only stones are in hole 9.
    assert!(
        stdout.contains("  91   hole 9  i1i2  loss in 4\n"),
        "{stdout}"
    );
}

#[test]
fn other_positions_match_the_rust_library() {
    let dir = common::tables().to_str().unwrap();
    for fen in common::FENS {
        let out = run(&[dir, fen]);
        assert!(out.status.success(), "{fen}: {}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert_eq!(stdout, expected(fen), "{fen}");
        // The hole number is the first digit of the traditional notation.
        for line in stdout.lines().filter(|l| l.contains(" hole ")) {
            let words: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(&words[0][..1], words[2], "{line}");
        }
    }
}

#[test]
fn four_threads_agree() {
    let dir = common::tables().to_str().unwrap();
    let out = run(&["--threads", "4", dir]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with(&expected(SEED)), "{stdout}");
    assert!(
        stdout.ends_with("4 threads x 2000 rounds: 4 agreed\n"),
        "{stdout}"
    );
}

#[test]
fn failures_come_back_with_their_message() {
    let dir = common::tables().to_str().unwrap();
    let out = run(&[dir, "not a fen"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("status 3)"),
        "{}",
        text(&out.stderr)
    );
    let missing = common::tables().join("no such folder");
    let out = run(&[missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("togyz_tb_open failed (status 7)"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn above_the_tables_the_example_proves_by_search() {
    let dir = common::tables().to_str().unwrap();
    let levels = togyz_gen::solve::dtm::solve_all(5).expect("levels solve");
    for fen in ["9/5S,8 76 81 S 1", "1S,1S,7/1S,1S,1S,6 78 79 N 7"] {
        let pos = parse_fen(fen).unwrap();
        let truth = levels.value(&pos).unwrap().wdl();
        let out = run(&[dir, fen]);
        assert!(out.status.success(), "{fen}: {}", text(&out.stderr));
        let stdout = text(&out.stdout);
        let want = format!(
            "position: {}\nvalue: {truth}, proven by search (",
            pos.fen()
        );
        assert!(stdout.contains(&want), "{stdout}");
        assert!(
            stdout.contains("; tables up to 4 stones)\nbest move: "),
            "{stdout}"
        );
    }
}
