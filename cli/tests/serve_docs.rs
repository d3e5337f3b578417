//! docs/http-api.md's examples, run: every `curl` line is sent to a server
//! over the tables for 1 to 4 stones, and its answer must have the status
//! and the shape the document shows.

mod common;
mod serve_common;

use serde_json::Value as Json;
use serve_common::Server;

const DOC: &str = include_str!("../../docs/http-api.md");
/// The address the examples use.
const EXAMPLE_BASE: &str = "http://127.0.0.1:9000";

/// One example: the request and the answer shown.
struct Example {
    command: String,
    status: u16,
    body: String,
}

/// The examples: each ```sh block holding a `curl` line, with the ```http
/// block after it.
fn examples() -> Vec<Example> {
    let mut out = Vec::new();
    let mut lines = DOC.lines();
    let mut command: Option<String> = None;
    while let Some(line) = lines.next() {
        let block = |lines: &mut std::str::Lines| -> Vec<String> {
            lines
                .take_while(|l| *l != "```")
                .map(str::to_owned)
                .collect()
        };
        match line {
            "```sh" => {
                let b = block(&mut lines);
                assert_eq!(b.len(), 1, "one command a block: {b:?}");
                assert!(b[0].contains("curl "), "{b:?}");
                command = Some(b[0].clone());
            }
            "```http" => {
                let b = block(&mut lines);
                let command = command.take().expect("an answer follows its command");
                let status = b[0]
                    .strip_prefix("HTTP/1.1 ")
                    .and_then(|s| s.get(..3))
                    .and_then(|s| s.parse().ok())
                    .unwrap_or_else(|| panic!("no status in {:?}", b[0]));
                out.push(Example {
                    command,
                    status,
                    body: b[1..].join("\n").trim().to_string(),
                });
            }
            _ => {}
        }
    }
    out
}

/// The text inside the first pair of single quotes after `from`.
fn quoted(s: &str) -> Option<(&str, &str)> {
    let start = s.find('\'')? + 1;
    let len = s[start..].find('\'')?;
    Some((&s[start..start + len], &s[start + len + 1..]))
}

/// Checks that `got` has the shape of `want`: the same fields, arrays as
/// long, equal values, but for messages (`error`, shown shortened) and the
/// search's statistics (timings).
fn same_shape(got: &Json, want: &Json, at: &str) {
    match (got, want) {
        (Json::Object(g), Json::Object(w)) => {
            let (gk, wk): (Vec<_>, Vec<_>) = (g.keys().collect(), w.keys().collect());
            let mut gs = gk.clone();
            let mut ws = wk.clone();
            gs.sort();
            ws.sort();
            assert_eq!(gs, ws, "fields at {at}");
            for (k, v) in w {
                match k.as_str() {
                    "error" => assert!(g[k].is_string(), "{at}.{k}"),
                    "search" => same_shape_keys(&g[k], v, &format!("{at}.{k}")),
                    _ => same_shape(&g[k], v, &format!("{at}.{k}")),
                }
            }
        }
        (Json::Array(g), Json::Array(w)) => {
            assert_eq!(g.len(), w.len(), "length at {at}");
            for (i, (g, w)) in g.iter().zip(w).enumerate() {
                same_shape(g, w, &format!("{at}[{i}]"));
            }
        }
        _ => assert_eq!(got, want, "at {at}"),
    }
}

fn same_shape_keys(got: &Json, want: &Json, at: &str) {
    let keys = |j: &Json| {
        let mut k: Vec<String> = j.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(keys(got), keys(want), "fields at {at}");
}

#[test]
fn every_curl_example_of_the_api_document_holds() {
    let s = Server::start(common::tables(), &["--search-time", "5"]);
    let examples = examples();
    assert!(examples.len() >= 10, "{} examples", examples.len());
    for ex in &examples {
        let cmd = ex.command.as_str();
        let (body, rest) = match cmd.strip_prefix("printf ") {
            Some(rest) => {
                let (text, rest) = quoted(rest).unwrap();
                (Some(text.replace("\\n", "\n")), rest)
            }
            None => (None, cmd),
        };
        let (url, _) = quoted(&rest[rest.find("curl ").unwrap()..]).unwrap();
        let path = url
            .strip_prefix(EXAMPLE_BASE)
            .expect("examples use 127.0.0.1:9000");
        let reply = match &body {
            Some(b) => {
                assert!(rest.contains("--data-binary @-"), "{cmd}");
                s.post(path, b.as_bytes())
            }
            None => s.get(path),
        };
        assert_eq!(reply.status, ex.status, "{cmd}: {}", reply.body);
        if ex.body.is_empty() {
            continue;
        }
        match serde_json::from_str::<Json>(&ex.body) {
            Ok(want) => same_shape(&reply.json(), &want, cmd),
            // Text (the metrics, `ok`): every line's name and labels are
            // in the answer.
            Err(_) => {
                for line in ex.body.lines() {
                    let key = line.rsplit_once(' ').map_or(line, |(k, _)| k);
                    assert!(reply.body.contains(key), "{cmd}: {key} in\n{}", reply.body);
                }
            }
        }
    }
}
