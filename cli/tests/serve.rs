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
        // Parameters that are no `key=value`, or do not decode to text.
        ("/v1/togyzkumalak?fen", 400, "bad_request"),
        ("/v1/togyzkumalak?%zz=1", 400, "bad_request"),
        ("/v1/togyzkumalak?fen=%FF%FE", 400, "bad_request"),
        (
            "/v1/togyzkumalak?fen=7,2S,1/8,2S_79_79_S_1&=1",
            400,
            "bad_request",
        ),
        ("/v1/togyzkumalak?search_time=%2", 400, "bad_request"),
        ("/v1/annotate?%zz", 405, "method_not_allowed"),
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
        // The search running and the one queued may each take their 3 s,
        // one after the other on the one slot.
        assert_eq!(third.header("retry-after"), Some("6"));
        assert!(third.json()["error"].as_str().unwrap().contains("in 6 s"));
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
        assert_eq!(r.json()["result"], "unknown");
    }
    let m = s.get("/metrics").body;
    assert_eq!(metric(&m, "togyz_cache_misses_total"), 1.0, "{m}");
    assert_eq!(metric(&m, "togyz_cache_hits_total"), 3.0, "{m}");
    // An open result is not kept: asked again, the start is searched
    // again, by the solver the first search grew.
    let again = s.get(path);
    assert_eq!(again.status, 200);
    assert_eq!(again.json()["result"], "unknown");
    // A proven one is: the second ask is the first's answer.
    let proven = format!(
        "/v1/togyzkumalak?fen={}&search_time=1",
        underscored(SEARCHED)
    );
    let first = s.get(&proven);
    assert_eq!(first.json()["source"], "search", "{}", first.body);
    assert_ne!(first.json()["result"], "unknown", "{}", first.body);
    assert_eq!(s.get(&proven).body, first.body);
    let m = s.get("/metrics").body;
    assert_eq!(metric(&m, "togyz_cache_misses_total"), 3.0, "{m}");
    assert_eq!(metric(&m, "togyz_cache_hits_total"), 4.0, "{m}");
    let ok = r#"togyz_http_requests_total{route="/v1/togyzkumalak",method="GET",status="200"}"#;
    assert_eq!(metric(&m, ok), 7.0);
    let count = r#"togyz_http_request_duration_seconds_count{route="/v1/togyzkumalak"}"#;
    assert_eq!(metric(&m, count), 7.0);
    assert!(m.contains("togyz_http_request_duration_seconds_bucket{"));
    assert_eq!(metric(&m, "togyz_searches_running"), 0.0);
    // The search's solver is kept, with the tables it grew.
    assert_eq!(metric(&m, "togyz_solvers_idle"), 1.0, "{m}");
    assert!(metric(&m, "togyz_solver_table_bytes") > 0.0, "{m}");
    s.get("/no/such/page");
    let m = s.get("/metrics").body;
    let other = r#"togyz_http_requests_total{route="other",method="GET",status="404"}"#;
    assert_eq!(metric(&m, other), 1.0);
    // One log line a request.
    let log = s.log();
    assert_eq!(
        log.matches(" GET /v1/togyzkumalak 200 ").count(),
        7,
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
    assert!(
        preflight.contains("access-control-max-age: 86400"),
        "{preflight}"
    );
    // Another site's page may read a busy answer's Retry-After.
    let r = s.get_with(path, &[("Origin", "https://a.example")]);
    assert_eq!(
        r.header("access-control-expose-headers"),
        Some("retry-after")
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
    // Valid query strings only.
    let r = s.post("/v1/annotate?%zz=1", SAMPLE.as_bytes());
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.json()["kind"], "bad_request");
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
fn a_folder_without_tables_too_much_memory_or_a_taken_port_stops_the_server_at_once() {
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
    // Every slot keeps its search tables: 1024 of 1 GB fit no machine
    // this runs on.
    let dir = common::tables().to_str().unwrap();
    let args = [
        "serve",
        "--bind",
        "127.0.0.1:0",
        "--tables",
        dir,
        "--searches",
        "1024",
        "--search-memory",
        "1G",
    ];
    let out = common::output(common::command(&args, None), "");
    assert_eq!(out.status.code(), Some(2));
    let says = String::from_utf8_lossy(&out.stderr);
    assert!(says.contains("more than this machine's"), "{says}");
    let s = server(&[]);
    let args = ["serve", "--bind", s.addr.as_str(), "--tables", dir];
    let out = common::output(common::command(&args, None), "");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot listen on"));
}

/// A connection to `addr` from the loopback address `from` (any of
/// 127.0.0.0/8 is this machine's): another client, as the server sees it.
fn connect_from(from: &str, addr: &str) -> TcpStream {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let stream = rt.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
        socket.connect(addr.parse().unwrap()).await.unwrap()
    });
    let stream = stream.into_std().unwrap();
    stream.set_nonblocking(false).unwrap();
    stream
}

/// `GET /healthz` over `c`: the status line and what follows.
fn healthz(mut c: TcpStream) -> String {
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    c.write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut out = Vec::new();
    let _ = c.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether the server closes `c` within `within`, sending nothing.
fn closed_within(c: &mut TcpStream, within: Duration) -> bool {
    c.set_read_timeout(Some(within)).unwrap();
    let mut b = [0u8; 16];
    // A reset is a close too.
    matches!(c.read(&mut b), Ok(0) | Err(_)) && {
        c.set_read_timeout(Some(Duration::from_millis(10))).unwrap();
        !matches!(c.read(&mut b), Ok(n) if n > 0)
    }
}

#[test]
fn one_client_holding_its_limit_leaves_room_for_others() {
    // Six connections in all, four of them one address's at most; silent
    // connections are held for 20 s, longer than the test.
    let s = server(&[
        "--max-connections",
        "6",
        "--max-client-connections",
        "4",
        "--first-byte-timeout",
        "20",
    ]);
    // The attacker opens 40 connections from 127.0.0.1 and sends nothing.
    let mut held = Vec::new();
    for _ in 0..40 {
        held.push(connect_from("127.0.0.1", &s.addr));
    }
    std::thread::sleep(Duration::from_millis(300));
    // Past its four, its connections are closed at once.
    let mut more = connect_from("127.0.0.1", &s.addr);
    assert!(closed_within(&mut more, Duration::from_secs(2)));
    // Another address still gets its answer, twice (the two free slots).
    for _ in 0..2 {
        let t = Instant::now();
        let answer = healthz(connect_from("127.0.0.2", &s.addr));
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.ends_with("ok\n"), "{answer}");
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    }
    // The attacker's four still hold their slots: they are the only ones
    // taken, and are freed as they close.
    held.truncate(0);
    std::thread::sleep(Duration::from_millis(300));
    let answer = healthz(connect_from("127.0.0.1", &s.addr));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

#[test]
fn a_connection_silent_past_the_first_byte_timeout_is_closed() {
    let s = server(&["--first-byte-timeout", "0.5", "--client-timeout", "10"]);
    let mut silent = TcpStream::connect(&s.addr).unwrap();
    let t = Instant::now();
    assert!(closed_within(&mut silent, Duration::from_secs(5)));
    let took = t.elapsed();
    assert!(
        took >= Duration::from_millis(400) && took < Duration::from_secs(3),
        "closed after {took:?}"
    );
    // One that has started its request has the whole --client-timeout to
    // finish its head.
    let mut slow = TcpStream::connect(&s.addr).unwrap();
    slow.write_all(b"GET /healthz HTTP/1.1\r\n").unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    slow.write_all(b"Host: t\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    slow.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

#[test]
fn the_log_has_one_line_a_request_and_can_be_sampled_or_off() {
    let every = server(&[]);
    let connect = b"CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n";
    let answer = raw(&every.addr, connect);
    assert!(answer.starts_with("HTTP/1.1 4"), "{answer}");
    every.get("/healthz");
    std::thread::sleep(Duration::from_millis(200));
    let log = every.log();
    let lines: Vec<&str> = log.lines().skip(1).collect();
    assert_eq!(lines.len(), 2, "{log}");
    for line in &lines {
        // time, address, method, path, status, milliseconds
        assert_eq!(line.split(' ').count(), 6, "{line}");
    }
    assert!(lines[0].contains(" CONNECT - 4"), "{log}");
    let third = server(&["--log-sample", "3"]);
    for _ in 0..7 {
        third.get("/healthz");
    }
    std::thread::sleep(Duration::from_millis(200));
    // The 1st, 4th and 7th.
    assert_eq!(third.log().matches(" GET /healthz 200 ").count(), 3);
    let off = server(&["--log-sample", "0"]);
    for _ in 0..3 {
        off.get("/healthz");
    }
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(off.log().lines().count(), 1, "{}", off.log());
}

#[test]
fn the_limits_are_told() {
    let s = server(&["--search-time", "3", "--max-search-nodes", "5000"]);
    let j = s.get("/v1/limits").json();
    assert_eq!(j["search_time"], 3.0);
    assert_eq!(j["search_nodes"], 5000);
    assert_eq!(j["annotate_time"], 30.0);
    assert_eq!(j["max_body"], 1_000_000);
}

/// A record of two games: the first settled by the tables at once, the
/// second from the start position, which searches `search_time` at each of
/// its last two positions before it gives up.
const TWO_GAMES: &str = "[FEN \"7,2S,1/8,2S 79 79 S 1\"]\n1. 91 12 2. 91 12\n\n1. 19 21\n";

#[test]
fn ndjson_annotations_stream_each_game_when_it_is_done() {
    let s = server(&["--search-memory", "16M"]);
    let req = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .new_agent()
        .post(format!(
            "{}/v1/annotate?search_time=1.5&format=ndjson",
            s.base
        ));
    let t = Instant::now();
    let mut r = req.send(TWO_GAMES.as_bytes()).unwrap();
    assert_eq!(r.status(), 200);
    let mut lines = std::io::BufReader::new(r.body_mut().as_reader());
    let mut first = String::new();
    std::io::BufRead::read_line(&mut lines, &mut first).unwrap();
    let first_at = t.elapsed();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut lines, &mut rest).unwrap();
    let all_at = t.elapsed();
    let one: Json = serde_json::from_str(&first).unwrap();
    assert_eq!(one["game"], 1);
    assert_eq!(one["first_settled"], 0);
    let two: Json = serde_json::from_str(rest.trim()).unwrap();
    assert_eq!(two["game"], 2);
    // The second game's two searches take 3 s; the first game's line came
    // long before.
    assert!(all_at >= Duration::from_millis(2900), "{all_at:?}");
    assert!(
        all_at - first_at >= Duration::from_secs(2),
        "{first_at:?} {all_at:?}"
    );
}

#[test]
fn a_node_budget_annotates_alike_each_time() {
    let s = server(&["--search-memory", "16M"]);
    let path = "/v1/annotate?search_nodes=20000";
    let game = "1. 19 21 2. 32 43\n";
    let a = s.post(path, game.as_bytes());
    assert_eq!(a.status, 200, "{}", a.body);
    for _ in 0..2 {
        assert_eq!(s.post(path, game.as_bytes()).body, a.body);
    }
    // What `annotate --search-nodes` says.
    let dir = common::tables().to_str().unwrap();
    let args = [
        "annotate",
        "--json",
        "--tables",
        dir,
        "--search-nodes",
        "20000",
        "--search-memory",
        "16M",
        "-",
    ];
    let out = common::output(common::command(&args, None), game);
    let cli: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(a.json()[0], cli);
    for bad in [
        "search_nodes=0",
        "search_nodes=many",
        "search_nodes=5&search_time=1",
    ] {
        let r = s.post(&format!("/v1/annotate?{bad}"), game.as_bytes());
        assert_eq!(r.status, 400, "{bad}: {}", r.body);
        assert_eq!(r.json()["kind"], "bad_request");
    }
}

#[test]
fn a_streamed_annotation_holds_its_place_until_its_last_game() {
    let s = server(&["--searches", "1", "--queue", "0", "--search-memory", "16M"]);
    let mut first = TcpStream::connect(&s.addr).unwrap();
    first
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let head = format!(
        "POST /v1/annotate?search_time=1.5&format=ndjson HTTP/1.1\r\nHost: t\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{TWO_GAMES}",
        TWO_GAMES.len()
    );
    first.write_all(head.as_bytes()).unwrap();
    // The first game's line has come; the second game searches on.
    let mut got = Vec::new();
    let mut b = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains("\"game\":1") {
        let n = first.read(&mut b).unwrap();
        assert!(n > 0, "{}", String::from_utf8_lossy(&got));
        got.extend_from_slice(&b[..n]);
    }
    // So another annotation is turned away before its body is read.
    let t = Instant::now();
    let answer = raw(
        &s.addr,
        b"POST /v1/annotate HTTP/1.1\r\nHost: t\r\nContent-Length: 500000\r\n\r\n",
    );
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    let mut rest = String::new();
    let _ = first.read_to_string(&mut rest);
    assert!(rest.contains("\"game\":2"), "{rest}");
}
