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

/// `togyz-gen` with `args`, which must succeed; its standard output.
fn ok(args: &[&str], dir: &std::path::Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_togyz-gen"))
        .args(args)
        .arg(dir)
        .env_remove("TOGYZ_TABLES")
        .output()
        .expect("togyz-gen runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The Markdown report and the chart of the tables in `dir`.
fn report_and_chart(dir: &std::path::Path) -> (String, String) {
    let svg = dir.join("chart.svg");
    let md = ok(
        &[
            "stats",
            "--quiet",
            "--chart",
            svg.to_str().unwrap(),
            "--tables",
        ],
        dir,
    );
    (md, std::fs::read_to_string(&svg).unwrap())
}

#[test]
fn reports_on_dtc_tables_describe_distances_to_conversion() {
    let gen = |args: &[&str], dir| {
        let mut all = vec!["generate", "--quiet"];
        all.extend(args);
        all.push("--out");
        ok(&all, dir)
    };
    let dtc = tempfile::tempdir().unwrap();
    gen(&["--metric", "dtc", "--max-stones", "4"], dtc.path());
    let (md, svg) = report_and_chart(dtc.path());
    assert!(
        md.contains("distances are plies to the next conversion"),
        "{md}"
    );
    assert!(md.contains("Wins for the side to move by distance, in plies to the next conversion"));
    assert!(md.contains("plies to conversion: `"), "{md}");
    for wrong in ["end of the game", "win in ", "loses in "] {
        assert!(!md.contains(wrong), "`{wrong}` in a DTC report: {md}");
    }
    assert!(svg.contains("plies to the next conversion") && !svg.contains("end of the game"));

    let dtm = tempfile::tempdir().unwrap();
    gen(&["--max-stones", "4"], dtm.path());
    let (md, svg) = report_and_chart(dtm.path());
    assert!(md.contains("distances are plies to the end of the game"));
    assert!(md.contains("win in ") && !md.contains("conversion"), "{md}");
    assert!(svg.contains("plies to the end of the game") && !svg.contains("conversion"));

    // DTM tables below, DTC above: both named, the DTC levels marked.
    let mixed = tempfile::tempdir().unwrap();
    gen(&["--max-stones", "2"], mixed.path());
    gen(&["--metric", "dtc", "--max-stones", "4"], mixed.path());
    let (md, svg) = report_and_chart(mixed.path());
    assert!(
        md.contains(
            "to the end of the game in the DTM tables and to the next conversion in the DTC tables"
        ),
        "{md}"
    );
    assert!(md.contains("| 4 (DTC) |") && md.contains("| plies | 1 | 2 | 3 (DTC) |"));
    assert!(svg.contains("4 stones (DTC)") && svg.contains("or to the next conversion"));
}
