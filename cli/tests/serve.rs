//! `togyz-probe serve` end to end: the server on a free loopback port over
//! real tables for 1 to 4 stones, asked over HTTP; its answers are the
//! command line's (`query --json`, `annotate --json`) with lichess's names
//! added.

mod common;
mod serve_common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::Value as Json;
use serve_common::{underscored, Server};

/// A position above the 4-stone tables that search proves at once.
const SEARCHED: &str = "6,3S,2/8,2S 78 79 N 3";
/// Another (10 stones).
const SEARCHED_10: &str = "5S,8/5S,8 76 76 S 1";
/// Over: South has no stones left.
const OVER: &str = "4,5S,4/9 80 77 S 1";
/// The start position: far above any table, never proven in a second.
const START: &str = "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1";

fn server(args: &[&str]) -> Server {
    Server::start(common::tables(), args)
}

/// `query --json` for `fen` and `moves` with `--search-time seconds`.
fn cli(fen: &str, moves: &[&str], seconds: &str) -> Json {
    let dir = common::tables().to_str().unwrap();
    let mut args = vec![
        "query",
        "--json",
        "--tables",
        dir,
        "--search-time",
        seconds,
        fen,
    ];
    args.extend_from_slice(moves);
    let out = common::output(common::command(&args, None), "");
    serde_json::from_slice(&out.stdout).expect("query --json prints JSON")
}

/// The server's answer for `fen` and `moves`.
fn http(s: &Server, fen: &str, moves: &[&str], seconds: &str) -> serve_common::Reply {
    let mut path = format!(
        "/v1/togyzkumalak?fen={}&search_time={seconds}",
        underscored(fen)
    );
    if !moves.is_empty() {
        path.push_str(&format!("&moves={}", moves.join(",")));
    }
    s.get(&path)
}

/// What the server adds to an answer and to a move (docs/http-api.md).
const ADDED: &[&str] = &["category", "game_over", "dtm", "dtc"];
const ADDED_TO_MOVES: &[&str] = &[
    "san",
    "category",
    "capture",
    "tuzdyk",
    "feed",
    "conversion",
    "game_over",
    "result",
    "dtm",
    "dtc",
];

/// Checks that the server's answer holds the command line's: every field
/// equal (the search's statistics aside: they are timings), the moves
/// equal whatever their order, and nothing else but the documented
/// additions.
fn holds(server: &Json, cli: &Json) {
    let (s, c) = (server.as_object().unwrap(), cli.as_object().unwrap());
    for (k, v) in c {
        let got = &s[k];
        match k.as_str() {
            "search" => assert!(got.is_object(), "{k}: {server}"),
            "moves" => {
                let (gm, cm) = (got.as_array().unwrap(), v.as_array().unwrap());
                assert_eq!(gm.len(), cm.len(), "{server}\n{cli}");
                for m in cm {
                    let twin = gm
                        .iter()
                        .find(|g| g["move"] == m["move"])
                        .unwrap_or_else(|| panic!("{m} missing in {server}"));
                    for (mk, mv) in m.as_object().unwrap() {
                        assert_eq!(&twin[mk], mv, "move {m}: {mk}");
                    }
                    for mk in twin.as_object().unwrap().keys() {
                        assert!(m.get(mk).is_some() || ADDED_TO_MOVES.contains(&mk.as_str()));
                    }
                    check_move(twin);
                }
            }
            "source" if got == "game-over" => {
                assert_eq!(v, "tables");
                assert_eq!(s["game_over"], true);
            }
            _ => assert_eq!(got, v, "{k}: {server}\n{cli}"),
        }
    }
    for k in s.keys() {
        assert!(c.contains_key(k) || ADDED.contains(&k.as_str()), "{k}");
    }
}

/// A move's additions agree with its result and the FEN it leads to.
fn check_move(m: &Json) {
    assert_eq!(m["san"], m["move"]);
    let flipped = match m["result"].as_str() {
        Some("win") => "loss",
        Some("loss") => "win",
        Some("draw") => "draw",
        _ => "unknown",
    };
    assert_eq!(m["category"], flipped, "{m}");
    let taken = m["capture"].as_u64().unwrap() + m["feed"].as_u64().unwrap();
    assert_eq!(
        m["conversion"].as_bool().unwrap(),
        taken > 0 || m["tuzdyk"] == true,
        "{m}"
    );
    assert_eq!(
        m["move"].as_str().unwrap().ends_with('x'),
        m["tuzdyk"] == true
    );
}

#[test]
fn answers_are_query_json_with_lichess_names_added() {
    let s = server(&["--search-time", "5"]);
    let cases: &[(&str, &[&str], &str)] = &[
        (common::EXAMPLE_3, &[], "0"),
        (common::EXAMPLE_3, &["91", "12"], "0"),
        (common::EXAMPLE_3, &["i1i2"], "0"),
        ("7,2S,1/8,1S 79 80 N 1", &[], "0"),
        (OVER, &[], "0"),
        (SEARCHED, &[], "5"),
        (SEARCHED_10, &[], "5"),
        (START, &[], "0"),
    ];
    for (fen, moves, t) in cases {
        let (reply, want) = (http(&s, fen, moves, t), cli(fen, moves, t));
        assert_eq!(reply.status, 200, "{fen}: {}", reply.body);
        assert_eq!(reply.header("content-type"), Some("application/json"));
        let got = reply.json();
        holds(&got, &want);
        let category = got["category"].as_str().unwrap();
        assert_eq!(category, want["result"].as_str().unwrap());
    }
    // A finished game is `game-over`; a search's best move comes first.
    assert_eq!(http(&s, OVER, &[], "0").json()["source"], "game-over");
    let searched = http(&s, SEARCHED, &[], "5").json();
    assert_eq!(searched["moves"][0]["move"], searched["best"]);
    assert_eq!(searched["moves"][0]["result"], searched["result"]);
    // Without a FEN, the start position; spaces may come percent-encoded.
    let start = s.get("/v1/togyzkumalak?search_time=0").json();
    assert_eq!(start["fen"], START);
    let spaced = s.get("/v1/togyzkumalak?fen=7,2S,1/8,2S%2079%2079%20S%201&search_time=0");
    assert_eq!(spaced.json()["dtm"], 4);
}

#[test]
fn bad_input_gets_the_command_lines_kinds_and_4xx() {
    let s = server(&[]);
    let cases: &[(&str, u16, &str)] = &[
        ("/v1/togyzkumalak?fen=nonsense", 400, "bad_fen"),
        (
            "/v1/togyzkumalak?fen=7,2S,1/8,2S_79_79_S_1&moves=zz",
            400,
            "bad_move",
        ),
        (
            "/v1/togyzkumalak?fen=7,2S,1/8,2S_79_79_S_1&moves=91,91",
            400,
            "illegal_move",
        ),
        ("/v1/togyzkumalak?fen=", 400, "bad_fen"),
        ("/v1/togyzkumalak?search_time=soon", 400, "bad_request"),
        ("/v1/togyzkumalak?search_time=-1", 400, "bad_request"),
        ("/v1/togyzkumalak?fen=%FF%FE", 400, "bad_fen"),
        ("/v2/anything", 404, "not_found"),
        ("/../../etc/passwd", 404, "not_found"),
        ("/static/../Cargo.toml", 404, "not_found"),
        ("/v1/annotate", 405, "method_not_allowed"),
    ];
    for (path, status, kind) in cases {
        let r = s.get(path);
        assert_eq!(r.status, *status, "{path}: {}", r.body);
        assert_eq!(r.json()["kind"], *kind, "{path}");
        assert!(r.json()["error"].as_str().is_some_and(|e| !e.is_empty()));
    }
    // Where the moves stopped, as `query --json` says it.
    let r = http(&s, common::EXAMPLE_3, &["91", "91"], "0");
    let want = cli(common::EXAMPLE_3, &["91", "91"], "0");
    assert_eq!(r.json(), want);
    assert_eq!(r.json()["move_index"], 2);
    let long = format!("/v1/togyzkumalak?moves={}", "19,".repeat(20_000));
    assert_eq!(s.get(&long).status, 414);
    let r = s.post("/v1/togyzkumalak", b"");
    assert_eq!(r.status, 405);
    assert_eq!(s.get("/healthz").body, "ok\n");
}

#[test]
fn the_board_is_served_from_the_binary() {
    let s = server(&[]);
    let page = s.get("/");
    assert_eq!(page.status, 200);
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    assert!(page.body.contains("static/board.js"));
    for (path, kind) in [
        ("/static/board.js", "text/javascript"),
        ("/static/board.css", "text/css"),
    ] {
        let r = s.get(path);
        assert_eq!(r.status, 200);
        assert!(r.header("content-type").unwrap().starts_with(kind));
    }
}

/// A search position the tables cannot help with: one of the start's
/// neighbours, each a position of its own in the cache.
fn busy_position(i: usize) -> String {
    let moves = ["19", "21", "32", "43", "54", "65"];
    format!("/v1/togyzkumalak?moves={}&search_time=3", moves[i])
}

#[test]
fn a_full_queue_answers_503_with_retry_after() {
    let s = server(&["--searches", "1", "--queue", "1", "--search-memory", "16M"]);
    let base = s.base.clone();
    std::thread::scope(|scope| {
        let first = scope.spawn(|| s.get(&busy_position(0)));
        std::thread::sleep(Duration::from_millis(500));
        let second = scope.spawn(|| s.get(&busy_position(1)));
        std::thread::sleep(Duration::from_millis(500));
        let metrics = s.get("/metrics").body;
        assert!(metrics.contains("togyz_searches_running 1"), "{metrics}");
        assert!(metrics.contains("togyz_searches_queued 1"), "{metrics}");
        let third = s.get(&busy_position(2));
        assert_eq!(third.status, 503, "{}", third.body);
        assert_eq!(third.json()["kind"], "busy");
        assert_eq!(third.header("retry-after"), Some("5"));
        // Answers from the tables do not wait for the searches.
        let t = Instant::now();
        let table = http(&s, common::EXAMPLE_3, &[], "0");
        assert_eq!(table.status, 200);
        assert!(t.elapsed() < Duration::from_secs(2), "{base}");
        for r in [first.join().unwrap(), second.join().unwrap()] {
            assert_eq!(r.status, 200, "{}", r.body);
            assert_eq!(r.json()["source"], "search");
        }
    });
    assert!(s
        .get("/metrics")
        .body
        .contains("togyz_searches_rejected_total 1"));
}

/// The value of the metric line `name` (labels included) in `text`.
fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no {name} in {text}"))
        .parse()
        .unwrap()
}

#[test]
fn one_search_for_many_askers_and_the_cache_and_metrics_count_them() {
    let s = server(&["--search-memory", "16M"]);
    let path = "/v1/togyzkumalak?search_time=1";
    let replies: Vec<_> = std::thread::scope(|scope| {
        let asks: Vec<_> = (0..4).map(|_| scope.spawn(|| s.get(path))).collect();
        asks.into_iter().map(|a| a.join().unwrap()).collect()
    });
    for r in &replies {
        assert_eq!(r.status, 200);
        assert_eq!(r.body, replies[0].body, "one search, one answer");
    }
    let again = s.get(path);
    assert_eq!(again.body, replies[0].body);
    let m = s.get("/metrics").body;
    assert_eq!(metric(&m, "togyz_cache_misses_total"), 1.0, "{m}");
    assert_eq!(metric(&m, "togyz_cache_hits_total"), 4.0, "{m}");
    let ok = r#"togyz_http_requests_total{route="/v1/togyzkumalak",method="GET",status="200"}"#;
    assert_eq!(metric(&m, ok), 5.0);
    let count = r#"togyz_http_request_duration_seconds_count{route="/v1/togyzkumalak"}"#;
    assert_eq!(metric(&m, count), 5.0);
    assert!(m.contains("togyz_http_request_duration_seconds_bucket{"));
    assert_eq!(metric(&m, "togyz_searches_running"), 0.0);
    s.get("/no/such/page");
    let m = s.get("/metrics").body;
    let other = r#"togyz_http_requests_total{route="other",method="GET",status="404"}"#;
    assert_eq!(metric(&m, other), 1.0);
    // One log line a request.
    let log = s.log();
    assert_eq!(
        log.matches(" GET /v1/togyzkumalak 200 ").count(),
        5,
        "{log}"
    );
}

/// `bytes` sent over a fresh connection; everything the server answers
/// until it closes the connection.
fn raw(addr: &str, bytes: &[u8]) -> String {
    let mut c = TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    c.write_all(bytes).unwrap();
    let mut out = Vec::new();
    let _ = c.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn cors_allows_the_configured_origins_only() {
    let s = server(&[
        "--cors-origin",
        "https://a.example",
        "--cors-origin",
        "https://b.example",
    ]);
    let path = "/v1/togyzkumalak?search_time=0";
    for origin in ["https://a.example", "https://b.example"] {
        let r = s.get_with(path, &[("Origin", origin)]);
        assert_eq!(r.header("access-control-allow-origin"), Some(origin));
    }
    let r = s.get_with(path, &[("Origin", "https://evil.example")]);
    assert_eq!(r.header("access-control-allow-origin"), None);
    let preflight = raw(
        &s.addr,
        b"OPTIONS /v1/annotate HTTP/1.1\r\nHost: x\r\nOrigin: https://a.example\r\n\
          Access-Control-Request-Method: POST\r\nConnection: close\r\n\r\n",
    )
    .to_ascii_lowercase();
    assert!(preflight.starts_with("http/1.1 200"), "{preflight}");
    assert!(preflight.contains("access-control-allow-origin: https://a.example"));
    assert!(
        preflight.contains("access-control-allow-methods: get,post"),
        "{preflight}"
    );
    // Without --cors-origin, no CORS at all.
    let plain = server(&[]);
    let r = plain.get_with(path, &[("Origin", "https://a.example")]);
    assert_eq!(r.header("access-control-allow-origin"), None);
}

const SAMPLE: &str = include_str!("../../probe/tests/data/sample-playok.txt");

#[test]
fn annotate_answers_what_annotate_json_prints() {
    let s = server(&["--max-body", "64K"]);
    let dir = common::tables().to_str().unwrap();
    let args = [
        "annotate",
        "--json",
        "--tables",
        dir,
        "--search-time",
        "0",
        "-",
    ];
    let out = common::output(common::command(&args, None), SAMPLE);
    let lines: Vec<Json> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() > 1);
    let r = s.post("/v1/annotate?search_time=0", SAMPLE.as_bytes());
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json(), Json::Array(lines.clone()));
    let nd = s.post(
        "/v1/annotate?search_time=0&format=ndjson",
        SAMPLE.as_bytes(),
    );
    assert_eq!(nd.header("content-type"), Some("application/x-ndjson"));
    let nd: Vec<Json> = nd
        .body
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(nd, lines);
    // A game that cannot be replayed is reported in its object.
    let bad = s.post("/v1/annotate?search_time=0", b"1. 91 91\n");
    assert_eq!(bad.status, 200);
    assert!(bad.json()[0]["error"].is_string(), "{}", bad.body);
    for (body, status, kind) in [
        (&b"  \n"[..], 400, "bad_move"),
        (&vec![b'1'; 70_000][..], 413, "too_large"),
    ] {
        let r = s.post("/v1/annotate", body);
        assert_eq!(r.status, status, "{}", r.body);
        assert_eq!(r.json()["kind"], kind);
    }
    let r = s.post("/v1/annotate?format=xml", SAMPLE.as_bytes());
    assert_eq!(r.status, 400);
}

#[test]
fn annotate_stops_searching_at_its_time_cap() {
    // Every position of the game is above the tables: each would search
    // 5 s; the cap of 1 s for the whole request leaves them unsettled.
    let s = server(&["--annotate-time", "1", "--search-memory", "16M"]);
    let t = Instant::now();
    let r = s.post("/v1/annotate?search_time=5", b"1. 19 21 2. 32 43\n");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(t.elapsed() < Duration::from_secs(4), "{:?}", t.elapsed());
    assert_eq!(r.json()[0]["first_settled"], Json::Null);
}

#[test]
fn annotations_past_the_slots_and_queue_are_turned_away_before_their_bodies() {
    let s = server(&["--searches", "1", "--queue", "0", "--search-memory", "16M"]);
    std::thread::scope(|scope| {
        let long = scope.spawn(|| s.post("/v1/annotate?search_time=2", b"1. 19 21\n"));
        std::thread::sleep(Duration::from_millis(500));
        // A body announced but never sent: answered at once, not read.
        let t = Instant::now();
        let answer = raw(
            &s.addr,
            b"POST /v1/annotate HTTP/1.1\r\nHost: t\r\nContent-Length: 500000\r\n\r\n",
        );
        assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
        assert!(answer.contains("\"kind\":\"busy\""));
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        assert_eq!(long.join().unwrap().status, 200);
    });
}

#[test]
fn a_folder_without_tables_or_a_taken_port_stops_the_server_at_once() {
    let empty = tempfile::tempdir().unwrap();
    let missing = empty.path().join("missing");
    for (dir, code, says) in [
        (empty.path(), 3, "holds no tables"),
        (missing.as_path(), 3, "does not exist"),
    ] {
        let args = [
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--tables",
            dir.to_str().unwrap(),
        ];
        let out = common::output(common::command(&args, None), "");
        assert_eq!(out.status.code(), Some(code));
        assert!(String::from_utf8_lossy(&out.stderr).contains(says));
    }
    let s = server(&[]);
    let dir = common::tables().to_str().unwrap();
    let args = ["serve", "--bind", s.addr.as_str(), "--tables", dir];
    let out = common::output(common::command(&args, None), "");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot listen on"));
}
