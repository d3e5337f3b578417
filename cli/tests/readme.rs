//! The documents' `togyz-probe` examples are the program's real output: in
//! the README and in every `docs/*.md`, each block that starts with a
//! `$ ... togyz-probe ...` line is run by `sh` (in a folder whose `./tables`
//! holds the 1..=4-stone test tables) and compared. Examples that need
//! bigger tables say "no table" here (or are answered by search), or read
//! files outside the folder, and are skipped; enough others must be checked
//! for the test to pass, in every document that has examples. A `...` line
//! in an example stands for lines left out.

mod common;

use std::path::Path;
use std::process::Command;

use common::tables;

/// A document's examples: the command and the output shown under it.
fn examples(readme: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in readme.lines() {
        match (&mut current, line) {
            (_, l) if l.starts_with("$ ") && l.contains("togyz-probe ") => {
                out.extend(current.take());
                current = Some((l[2..].to_string(), String::new()));
            }
            (Some(_), l) if l.starts_with("$ ") || l.starts_with("```") => {
                out.extend(current.take());
            }
            (Some((_, text)), l) => {
                text.push_str(l);
                text.push('\n');
            }
            (None, _) => {}
        }
    }
    out.extend(current);
    // Blank lines between two commands of one block belong to neither.
    out.into_iter()
        .map(|(c, t)| (c, t.trim_end().to_string() + "\n"))
        .collect()
}

/// Whether `actual` matches `expected`, where a `...` line in `expected`
/// stands for any lines.
fn matches(expected: &str, actual: &str) -> bool {
    match expected.split_once("...\n") {
        Some((head, tail)) => actual.starts_with(head) && actual.ends_with(tail),
        None => actual == expected,
    }
}

/// The README and every Markdown file of `docs/`, by path from the root.
fn documents(root: &Path) -> Vec<String> {
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    docs.sort();
    docs.insert(0, "README.md".to_string());
    docs
}

#[test]
fn documented_examples_are_real_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let work = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(tables(), work.path().join("tables")).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_togyz-probe"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut total = 0;
    let mut with_examples = Vec::new();
    for doc in documents(&root) {
        let text = std::fs::read_to_string(root.join(&doc)).unwrap();
        let examples = examples(&text);
        if examples.is_empty() {
            continue;
        }
        with_examples.push(doc.clone());
        let mut checked = 0;
        for (command, expected) in examples {
            let out = Command::new("sh")
                .arg("-c")
                .arg(format!("{command} 2>&1"))
                .current_dir(work.path())
                .env("PATH", &path)
                .env_remove("TOGYZ_TABLES")
                .output()
                .unwrap();
            let actual = String::from_utf8(out.stdout).unwrap();
            if matches(&expected, &actual) {
                checked += 1;
            } else if [
                "no table",
                "by search",
                "not proven in",
                "(search)",
                "cannot read",
            ]
            .iter()
            .any(|s| actual.contains(s))
            {
                // Bigger tables answer these from the tables (or by a search
                // that here, over 4 stones, goes differently), or they read a
                // file outside the test folder.
                eprintln!("{doc}: needs bigger tables or other files, not checked: {command}");
            } else {
                panic!("{doc}: example `{command}` shows\n{expected}\nbut prints\n{actual}");
            }
        }
        assert!(checked >= 1, "{doc}: none of its examples checked");
        total += checked;
    }
    // The manual's examples must be found where they live, not lost in a move.
    for doc in ["README.md", "docs/cli.md"] {
        assert!(
            with_examples.iter().any(|d| d == doc),
            "{doc} has no examples"
        );
    }
    assert!(
        total >= 7,
        "only {total} examples checked in {with_examples:?}"
    );
}
