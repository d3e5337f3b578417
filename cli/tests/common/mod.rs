//! What the command-line tests share: running the binary with arguments,
//! standard input and a clean environment, and real tables for 1 to 4
//! stones written by the generator into a temporary folder.

#![allow(dead_code)] // each test binary uses part of this module

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// The "one extra move" example of docs/rules.md: South loses in 4 plies.
pub const EXAMPLE_3: &str = "7,2S,1/8,2S 79 79 S 1";

/// A folder with the solved tables for 1..=4 stones.
pub fn tables() -> &'static Path {
    togyz_gen::fixture::small_tables()
}

/// A folder with DTC tables (`togyz-gen generate --metric dtc`) for 1..=4
/// stones.
pub fn dtc_tables() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let (levels, _) = togyz_gen::solve::dtc::solve_all(4).expect("levels solve");
        for n in 1..=4 {
            let values = levels[n as usize].widened();
            togyz_gen::files::write::write_table(dir.path(), togyz_tb::Metric::Dtc, n, &values)
                .expect("written");
        }
        dir
    })
    .path()
}

/// A command for the binary with `$TOGYZ_TABLES` unset (or set to `env`).
pub fn command(args: &[&str], env: Option<&Path>) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_togyz-probe"));
    cmd.args(args).env_remove("TOGYZ_TABLES");
    if let Some(dir) = env {
        cmd.env("TOGYZ_TABLES", dir);
    }
    cmd
}

/// Runs `cmd` with `stdin` as its standard input.
pub fn output(mut cmd: Command, stdin: &str) -> Output {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the binary runs");
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

/// Runs the binary with `args` and an empty standard input.
pub fn run(args: &[&str]) -> Output {
    output(command(args, None), "")
}

/// Runs `query` with `args`, `$TOGYZ_TABLES` set to `env`, and `stdin`.
/// Search above the tables is off (`--search-time 0`): these tests are
/// about the tables; `query_search.rs` tests the search.
pub fn query(args: &[&str], env: Option<&Path>, stdin: Option<&str>) -> Output {
    let mut all = vec!["query", "--search-time", "0"];
    all.extend_from_slice(args);
    output(command(&all, env), stdin.unwrap_or(""))
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

pub fn stdout(out: &Output) -> String {
    text(&out.stdout)
}

pub fn stderr(out: &Output) -> String {
    text(&out.stderr)
}

/// Standard output as one JSON value.
pub fn json_of(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// Asserts the exit code, showing standard error if it differs.
pub fn assert_code(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        stdout(out),
        stderr(out)
    );
}

/// Runs a command that must fail with exit code 2, an empty stdout and a
/// single `error: ` line on stderr; returns that line.
pub fn fails(args: &[&str]) -> String {
    let out = run(args);
    assert_code(&out, 2);
    assert!(out.stdout.is_empty(), "{args:?} printed {}", stdout(&out));
    let err = stderr(&out);
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    err.trim_end().to_owned()
}
