//! `togyz-gen stats` as a user meets it: the chart path is checked before
//! any work, and `$TOGYZ_TABLES` names the tables folder.

use std::process::Command;

fn stats(args: &[&str], tables_env: Option<&std::path::Path>) -> (bool, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_togyz-gen"));
    cmd.arg("stats").args(args).arg("--quiet");
    cmd.env_remove("TOGYZ_TABLES");
    if let Some(dir) = tables_env {
        cmd.env("TOGYZ_TABLES", dir);
    }
    let out = cmd.output().expect("togyz-gen runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_unwritable_chart_is_refused_before_the_tables_are_read() {
    // The tables folder does not exist either: the chart must be named.
    let (ok, err) = stats(
        &[
            "--tables",
            "/no/such/tables",
            "--chart",
            "/no/such/dir/c.svg",
        ],
        None,
    );
    assert!(!ok);
    assert!(err.contains("/no/such/dir/c.svg"), "{err}");
    assert!(!err.contains("/no/such/tables"), "{err}");
}

#[test]
fn the_tables_folder_comes_from_togyz_tables() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("not-made");
    let (ok, err) = stats(&[], Some(&missing));
    assert!(!ok);
    assert!(err.contains("not-made"), "{err}");
    // --tables wins over the variable.
    let (ok, err) = stats(&["--tables", "/no/such/tables"], Some(&missing));
    assert!(!ok);
    assert!(
        err.contains("/no/such/tables") && !err.contains("not-made"),
        "{err}"
    );
}

#[test]
fn zero_threads_is_refused_before_any_work() {
    let (ok, err) = stats(&["--tables", "/no/such/tables", "--threads", "0"], None);
    assert!(!ok);
    assert!(err.contains("must be at least 1"), "{err}");
    assert!(!err.contains("/no/such/tables"), "{err}");
}
