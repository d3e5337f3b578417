//! The documents hold together: every relative link in every Markdown file
//! of the repository leads to a file that exists (and, with `#anchor`, to a
//! heading of it), `docs/README.md` lists every document of `docs/`, every
//! path the code map (`docs/layout.md`) names exists, and so does every
//! repository path named in `docs/*.md`, a README or a `//!` comment.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// Every Markdown file under `dir`, leaving out build output, fuzzing
/// corpora and hidden folders (none of them is documentation).
fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            let skip = name.starts_with('.')
                || ["target", "corpus", "run-corpus", "artifacts"].contains(&name.as_str());
            if !skip {
                markdown_files(&path, out);
            }
        } else if name.ends_with(".md") {
            out.push(path);
        }
    }
}

/// The lines of a Markdown text outside fenced code blocks.
fn prose_lines(text: &str) -> Vec<&str> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push(line);
        }
    }
    out
}

/// A line without its code spans (a `` `](x)` `` in code is no link).
fn without_code(line: &str) -> String {
    line.split('`').step_by(2).collect::<Vec<_>>().join("")
}

/// The destinations of a text's inline links and images, `[text](dest)`.
/// A link's text may wrap onto the next line; its destination may not.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose_lines(text) {
        let line = without_code(line);
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            // A title may follow the destination: `(dest "title")`.
            let dest = after[..end].split_whitespace().next().unwrap_or("");
            out.push(dest.to_string());
            rest = &after[end..];
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces
/// as hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// The anchors of a Markdown text's headings; a repeated heading gets
/// `-1`, `-2`, ... as on GitHub.
fn anchors(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    for line in prose_lines(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if hashes == 0 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(&line[hashes..]);
        let mut anchor = base.clone();
        let mut n = 0;
        while out.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        out.insert(anchor);
    }
    out
}

/// What is wrong with a link from `file`, if anything.
fn broken(file: &Path, dest: &str) -> Option<String> {
    if ["http://", "https://", "mailto:"]
        .iter()
        .any(|s| dest.starts_with(s))
    {
        return None;
    }
    let (path, anchor) = match dest.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (dest, None),
    };
    let target = if path.is_empty() {
        file.to_path_buf()
    } else {
        file.parent().unwrap().join(path)
    };
    if !target.exists() {
        return Some(format!("{dest}: no such file"));
    }
    let anchor = anchor?;
    if target.extension().is_some_and(|e| e == "md") {
        let text = std::fs::read_to_string(&target).unwrap();
        if !anchors(&text).contains(anchor) {
            return Some(format!("{dest}: no heading with that anchor"));
        }
    }
    None
}

#[test]
fn every_relative_link_resolves() {
    let root = root();
    let mut files = Vec::new();
    markdown_files(&root, &mut files);
    files.sort();
    let mut bad = Vec::new();
    let mut count = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for dest in links(&text) {
            count += 1;
            if let Some(why) = broken(file, &dest) {
                bad.push(format!(
                    "{}: {why}",
                    file.strip_prefix(&root).unwrap().display()
                ));
            }
        }
    }
    assert!(bad.is_empty(), "broken links:\n{}", bad.join("\n"));
    // The README and docs/ alone link more than this: a parser that found
    // none would pass every file.
    assert!(
        count >= 50,
        "only {count} links found in {} files",
        files.len()
    );
}

#[test]
fn the_link_checker_finds_what_is_broken() {
    let root = root();
    let readme = root.join("README.md");
    assert_eq!(broken(&readme, "docs/rules.md"), None);
    assert_eq!(broken(&readme, "docs/performance.md#fuzzing"), None);
    assert!(broken(&readme, "docs/no-such-file.md").is_some());
    assert!(broken(&readme, "docs/performance.md#no-such-heading").is_some());
    assert_eq!(
        links("[a](x.md) `[b](y.md)` ![c](img/z.png \"t\")"),
        ["x.md", "img/z.png"]
    );
    assert_eq!(
        slug(" Above the tables: proof search"),
        "above-the-tables-proof-search"
    );
    assert!(anchors("## A\n## A\n```\n## B\n```\n").contains("a-1"));
    assert!(!anchors("```\n## B\n```\n").contains("b"));
}

#[test]
fn docs_readme_lists_every_document() {
    let root = root();
    let index = std::fs::read_to_string(root.join("docs/README.md")).unwrap();
    let listed: HashSet<String> = links(&index).into_iter().collect();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".md") && name != "README.md" && !listed.contains(&name) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "docs/README.md does not list {missing:?}"
    );
}

/// The backquoted words of a table cell.
fn code_spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// Whether a code span of the map's second column names a file or folder
/// (`pns.rs`, `static/`) rather than a command or a type.
fn names_a_file(span: &str) -> bool {
    let plain = span
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c));
    let known = [
        ".rs", ".py", ".sh", ".h", ".c", ".js", ".css", ".html", ".toml", ".md",
    ];
    plain && (span.ends_with('/') || known.iter().any(|e| span.ends_with(e)))
}

#[test]
fn every_path_of_the_code_map_exists() {
    let root = root();
    let map = std::fs::read_to_string(root.join("docs/layout.md")).unwrap();
    let mut bad = Vec::new();
    let mut rows = 0;
    for line in map.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').collect();
        let (wher, what) = (cells[1], cells[2]);
        rows += 1;
        // The folders a file name of the second column may be in: each
        // folder named, a file's folder, and `x/` beside `x.rs`.
        let mut folders = Vec::new();
        for path in code_spans(wher) {
            let full = root.join(path);
            let ok = if path.ends_with('/') {
                full.is_dir()
            } else {
                full.is_file()
            };
            if !ok {
                bad.push(format!(
                    "{path}: no such {}",
                    if path.ends_with('/') {
                        "folder"
                    } else {
                        "file"
                    }
                ));
            }
            if path.ends_with('/') {
                folders.push(full);
            } else {
                folders.push(full.parent().unwrap().to_path_buf());
                folders.push(full.with_extension(""));
            }
        }
        for name in code_spans(what).into_iter().filter(|s| names_a_file(s)) {
            if !folders.iter().any(|f| f.join(name).exists()) {
                bad.push(format!(
                    "{name} (in the row of {}): no such file there",
                    wher.trim()
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "docs/layout.md names what is not there:\n{}",
        bad.join("\n")
    );
    assert!(rows >= 30, "only {rows} rows in the code map");
}

/// Folders that hold no source or documentation of the repository: build
/// output, fuzzing corpora, caches and hidden folders (but `.ci`).
fn skipped_dir(name: &str) -> bool {
    (name.starts_with('.') && name != ".ci")
        || ["target", "corpus", "run-corpus", "artifacts", "__pycache__"].contains(&name)
}

/// Every file and folder under `dir`, as paths relative to `root` with `/`
/// between their parts.
fn repository_paths(root: &Path, dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        let path = entry.path();
        let is_dir = entry.file_type().unwrap().is_dir();
        if is_dir && skipped_dir(&name) {
            continue;
        }
        let rel = path.strip_prefix(root).unwrap();
        out.push(rel.to_str().unwrap().replace('\\', "/"));
        if is_dir {
            repository_paths(root, &path, out);
        }
    }
}

/// Whether `text` matches `pattern`, whose `*` stands for any characters
/// but `/`.
fn glob_matches(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, tail)) => {
            let Some(rest) = text.strip_prefix(head) else {
                return false;
            };
            (0..=rest.len())
                .take_while(|&i| !rest[..i].contains('/'))
                .any(|i| rest.is_char_boundary(i) && glob_matches(tail, &rest[i..]))
        }
    }
}

/// The repository paths a text names: words with a `/` that start with a
/// top-level folder of the repository (`generator/src/run/plan.rs`,
/// `bench/fuzz/run-*.log`), and relative file names with an extension
/// (`src/lib.rs`, `solve/core.rs`). Words with placeholders (`OUT/{N}`,
/// `$DIR/x`, `<FEN>`), absolute paths and URLs name no file of the
/// repository; nor do `target/` (build output) and `tables/` (generated).
fn named_paths(text: &str, top: &HashSet<String>) -> Vec<(String, bool)> {
    const EXTENSIONS: [&str; 16] = [
        ".rs", ".md", ".py", ".sh", ".h", ".c", ".toml", ".js", ".css", ".html", ".java", ".csv",
        ".json", ".jsonl", ".fens", ".pyi",
    ];
    let word_char = |c: char| c.is_ascii_alphanumeric() || "_.-/*{}<>$".contains(c);
    let mut out = Vec::new();
    for word in text.split(|c: char| !word_char(c)) {
        let word = word.trim_end_matches(['.', ',']);
        if !word.contains('/')
            || word.starts_with('/')
            || word.contains(['{', '}', '<', '>', '$'])
            || word.contains("//")
        {
            continue;
        }
        let mut rel = word;
        while let Some(rest) = rel.strip_prefix("../").or_else(|| rel.strip_prefix("./")) {
            rel = rest;
        }
        let first = rel.split('/').next().unwrap();
        if first == "target" || first == "tables" {
            continue;
        }
        if top.contains(first) && rel == word {
            out.push((rel.to_string(), true));
        } else if EXTENSIONS.iter().any(|e| rel.ends_with(e)) {
            out.push((rel.to_string(), false));
        }
    }
    out
}

/// The text of a Rust file's `//!` comments, a line each.
fn inner_doc_comments(source: &str) -> String {
    source
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether a named path is there: from the repository's root when it
/// starts with a top-level folder, else as the end of some path of the
/// repository (`src/lib.rs` of a crate's README, `solve/core.rs` of a
/// module's comment).
fn path_exists(path: &str, from_root: bool, paths: &[String]) -> bool {
    let path = path.trim_end_matches('/');
    paths.iter().any(|p| {
        if from_root {
            glob_matches(path, p)
        } else {
            (0..p.len())
                .filter(|&i| i == 0 || p.as_bytes()[i - 1] == b'/')
                .any(|i| glob_matches(path, &p[i..]))
        }
    })
}

/// Every repository path that `docs/*.md`, the READMEs and the `//!`
/// comments name, with the file naming it, and whether it exists.
fn every_named_path() -> Vec<(String, String, bool)> {
    let root = root();
    let mut paths = Vec::new();
    repository_paths(&root, &root, &mut paths);
    paths.sort();
    let top: HashSet<String> = paths.iter().filter(|p| !p.contains('/')).cloned().collect();
    let mut out = Vec::new();
    for file in &paths {
        let name = file.rsplit('/').next().unwrap();
        let doc = (file.starts_with("docs/") && !file[5..].contains('/') && name.ends_with(".md"))
            || name == "README.md";
        let text = if doc {
            std::fs::read_to_string(root.join(file)).unwrap()
        } else if name.ends_with(".rs") {
            inner_doc_comments(&std::fs::read_to_string(root.join(file)).unwrap())
        } else {
            continue;
        };
        for (path, from_root) in named_paths(&text, &top) {
            let exists = path_exists(&path, from_root, &paths);
            out.push((file.clone(), path, exists));
        }
    }
    out
}

#[test]
fn every_path_named_in_the_docs_and_module_comments_exists() {
    let named = every_named_path();
    let mut bad = Vec::new();
    for (file, path, exists) in &named {
        if !exists {
            bad.push(format!("{file}: {path}: no such file or folder"));
        }
    }
    assert!(bad.is_empty(), "stale paths:\n{}", bad.join("\n"));
    // The documents and comments name far more: a reader that found none
    // would pass every file.
    assert!(named.len() >= 300, "only {} paths named", named.len());
}

#[test]
fn the_path_checker_finds_what_is_stale() {
    let top: HashSet<String> = ["generator", "bench", "docs"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let named = named_paths(
        "`generator/src/retro.rs`, see docs/cli.md. Run `bench/fuzz/run-*.log` \
         or src/lib.rs; not /tmp/x.rs, https://a.b/c.md, OUT/{N}.tkb, \
         target/ci/togyz-probe, 7,2S,1/8,2S or ../docs/rules.md.",
        &top,
    );
    let named: Vec<(&str, bool)> = named.iter().map(|(p, r)| (p.as_str(), *r)).collect();
    assert_eq!(
        named,
        [
            ("generator/src/retro.rs", true),
            ("docs/cli.md", true),
            ("bench/fuzz/run-*.log", true),
            ("src/lib.rs", false),
            ("docs/rules.md", false),
        ]
    );
    let paths: Vec<String> = [
        "bench/fuzz/run-table-300s.log",
        "generator/src/run/plan.rs",
        "cli/src/lib.rs",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert!(path_exists("bench/fuzz/run-*.log", true, &paths));
    assert!(path_exists("generator/src/run/plan.rs", true, &paths));
    assert!(!path_exists("generator/src/retro.rs", true, &paths));
    assert!(path_exists("src/lib.rs", false, &paths));
    assert!(path_exists("run/plan.rs", false, &paths));
    assert!(!path_exists("un/plan.rs", false, &paths));
    assert!(!path_exists("src/plan.rs", false, &paths));
    assert!(!glob_matches("bench/*.log", "bench/fuzz/a.log"));
}
