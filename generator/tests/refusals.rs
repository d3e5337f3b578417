//! What `plan` says of runs `generate` refuses, and refusals that say what
//! the limit is, what would fit, and leave nothing behind (issue 28).

use std::path::Path;
use std::process::{Command, Output};

fn togyz_gen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_togyz-gen"))
        .args(args)
        .output()
        .expect("runs togyz-gen")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn plan_says_when_generate_refuses_the_stones() {
    let out = togyz_gen(&["plan", "--max-stones", "18"]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with(
            "`togyz-gen generate` refuses --max-stones 18: the solver handles at most 17 stones"
        ),
        "{stdout}"
    );
    // And generate does refuse it, with the same limit.
    let dir = tempfile::tempdir().unwrap();
    let out = togyz_gen(&[
        "generate",
        "--max-stones",
        "18",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(text(&out.stderr).contains("between 1 and 17"));
    // Within the solver's range, no such line.
    let out = togyz_gen(&["plan", "--max-stones", "17"]);
    assert!(!text(&out.stdout).contains("refuses"));
    // The tables of tuzdyk pairs go to 19 (their units have fewer free
    // holes); every tuzdyk's, to 17 as the complete ones.
    fn pairs(n: &'static str, pairs: Option<&'static str>) -> Vec<&'static str> {
        let mut args = vec!["--metric", "dtc", "--max-stones", n, "--wdl-from", "1"];
        if let Some(p) = pairs {
            args.extend(["--wdl-pairs", p]);
        }
        args
    }
    let plan = |args: Vec<&str>| text(&togyz_gen(&[&["plan"], &args[..]].concat()).stdout);
    assert!(!plan(pairs("19", Some("all"))).contains("refuses"));
    assert!(plan(pairs("20", Some("1-2"))).starts_with(
        "`togyz-gen generate` refuses --max-stones 20: the solver handles at most 19 stones"
    ));
    assert!(plan(pairs("18", None)).starts_with(
        "`togyz-gen generate` refuses --max-stones 18: the solver handles at most 17 stones"
    ));
    for (args, most) in [(pairs("20", Some("1-2")), "19"), (pairs("18", None), "17")] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("t");
        let run = [&["generate"], &args[..], &["--out", out.to_str().unwrap()]].concat();
        let r = togyz_gen(&run);
        assert!(!r.status.success());
        let err = text(&r.stderr);
        assert!(err.contains(&format!("between 1 and {most}")), "{err}");
        assert!(!out.exists(), "a refused run leaves nothing behind");
    }
}

/// `plan --shards K` is one shard's plan; no shards is refused.
#[test]
fn plan_of_one_shard() {
    let line = |shards: &str| {
        let out = togyz_gen(&[
            "plan",
            "--metric",
            "dtc",
            "--max-stones",
            "12",
            "--threads",
            "2",
            "--shards",
            shards,
        ]);
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    let (code, one, _) = line("1");
    assert_eq!(code, Some(0));
    assert!(
        one.starts_with("generate --metric dtc --max-stones 12: 32255065952 positions"),
        "{one}"
    );
    let (code, four, _) = line("4");
    assert_eq!(code, Some(0));
    let first = four.lines().next().unwrap();
    assert!(first.contains(": 8063766485 positions"), "{first}");
    assert!(
        first.ends_with("(one of 4 shards: its units and every level's assembly)"),
        "{first}"
    );
    let (code, _, err) = line("0");
    assert_eq!(code, Some(2));
    assert!(err.contains("--shards"), "{err}");
}

#[test]
fn plan_measures_the_disk_of_a_folder_to_be_made_where_it_would_be() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("a/b/c");
    let out = togyz_gen(&[
        "plan",
        "--max-stones",
        "4",
        "--out",
        missing.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert!(!stdout.contains("unknown"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "of disk free at {} ({} does not exist yet",
            dir.path().display(),
            missing.display()
        )),
        "{stdout}"
    );
    assert!(!missing.exists() && !dir.path().join("a").exists());
    let out = togyz_gen(&[
        "plan",
        "--max-stones",
        "4",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!("of disk free at {}\n", dir.path().display())),
        "{stdout}"
    );
}

/// `generate --max-memory CAP --max-stones 9 --out OUT`.
fn capped(cap: &str, out: &Path) -> Output {
    togyz_gen(&[
        "generate",
        "--max-memory",
        cap,
        "--max-stones",
        "9",
        "--out",
        out.to_str().unwrap(),
    ])
}

#[test]
fn a_memory_cap_is_named_as_the_users_with_what_fits_and_nothing_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("new/tables");
    let out = capped("100M", &missing);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("--max-memory allows 100 MB")
            && !stderr.contains("is available")
            && stderr.contains("nothing fits in it: even --max-stones 1 needs about 100."),
        "{stderr}"
    );
    assert!(
        text(&out.stdout).contains("100 MB of memory allowed by --max-memory"),
        "{}",
        text(&out.stdout)
    );
    assert!(!dir.path().join("new").exists(), "no folder made");
    // A cap that holds a smaller run: the largest is named, and it runs.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = capped("150M", &empty);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    let fits: String = stderr
        .split("the largest run that fits in it is --max-stones ")
        .nth(1)
        .unwrap_or_else(|| panic!("{stderr}"))
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    assert_eq!(
        std::fs::read_dir(&empty).unwrap().count(),
        0,
        "no lock file, nothing"
    );
    let run = |stones: &str| {
        togyz_gen(&[
            "generate",
            "--quiet",
            "--max-memory",
            "150M",
            "--max-stones",
            stones,
            "--out",
            empty.to_str().unwrap(),
        ])
    };
    let n: u32 = fits.parse().unwrap();
    let out = run(&(n + 1).to_string());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains(&format!("--max-stones {n} ")));
    let out = run(&fits);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// `--wdl-from` on the command line: `plan` states it, `generate` refuses
/// it without `--metric dtc` (a non-zero exit, nothing made) and writes
/// the WDL tables with it.
#[test]
fn wdl_from_on_the_command_line() {
    let plan = |more: &[&str]| {
        let mut argv = vec![
            "plan",
            "--metric",
            "dtc",
            "--max-stones",
            "12",
            "--wdl-from",
            "11",
        ];
        argv.extend_from_slice(more);
        togyz_gen(&argv)
    };
    let out = plan(&[]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("generate --metric dtc --max-stones 12 --wdl-from 11: "),
        "{stdout}"
    );
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("t");
    let at = folder.to_str().unwrap();
    let run = |metric: &[&str]| {
        let mut argv = vec![
            "generate",
            "--max-stones",
            "3",
            "--wdl-from",
            "3",
            "--quiet",
        ];
        argv.extend_from_slice(metric);
        argv.extend(["--out", at]);
        togyz_gen(&argv)
    };
    let out = run(&[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("add --metric dtc"),
        "{}",
        text(&out.stderr)
    );
    assert!(!folder.exists(), "a refused run makes nothing");
    let out = run(&["--metric", "dtc"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = togyz_tb::raw::format::TableFile::open(folder.join("togyz-03.tkb")).unwrap();
    assert_eq!(
        table.header().contents,
        togyz_tb::raw::format::Contents::Wdl
    );

    // Tuzdyk pairs: written where asked, named by the plan, refused when
    // malformed or without --wdl-from.
    let pairs = dir.path().join("p");
    let at = pairs.to_str().unwrap();
    let out = togyz_gen(&[
        "generate",
        "--metric",
        "dtc",
        "--max-stones",
        "3",
        "--wdl-from",
        "3",
        "--wdl-pairs",
        "6-3",
        "--quiet",
        "--out",
        at,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = togyz_tb::raw::format::TableFile::open(pairs.join("togyz-03.tkb")).unwrap();
    assert_eq!(
        table.header().contents.to_string(),
        "win/draw/loss of the positions with tuzdyks in holes 3-6"
    );
    let out = plan(&["--wdl-pairs", "3-6"]);
    assert!(
        text(&out.stdout)
            .starts_with("generate --metric dtc --max-stones 12 --wdl-from 11 --wdl-pairs 3-6: "),
        "{}",
        text(&out.stdout)
    );
    for bad in [
        &["--wdl-from", "3", "--wdl-pairs", "3-9"][..],
        &["--wdl-pairs", "3-6"],
    ] {
        let mut argv = vec![
            "generate",
            "--metric",
            "dtc",
            "--max-stones",
            "3",
            "--out",
            at,
        ];
        argv.extend_from_slice(bad);
        let out = togyz_gen(&argv);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        let err = text(&out.stderr);
        assert!(err.contains("--wdl-"), "{bad:?}: {err}");
    }
}
