//! `togyz-probe serve` under bad input: a thousand random bad requests
//! (malformed FENs and moves, query strings and bodies over the limits,
//! invalid UTF-8, bytes that are no HTTP, a record of 100,000 moves), a
//! client that sends one byte a second, many connections at once. Each gets
//! a 4xx or is dropped, memory stays bounded, nothing panics, and a good
//! request right after is answered.

mod common;
mod serve_common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serve_common::Server;

/// What came back for `bytes` sent over a fresh connection: the status, or
/// `None` if the server closed the connection without an answer.
fn send(addr: &str, bytes: &[u8]) -> (Option<u16>, String) {
    let mut c = TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    // The server may answer (413, 431) and close before reading it all.
    let _ = c.write_all(bytes);
    let mut out = Vec::new();
    let _ = c.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text
        .strip_prefix("HTTP/1.1 ")
        .and_then(|r| r.get(..3))
        .and_then(|s| s.parse().ok());
    (status, text)
}

/// `text` percent-encoded byte by byte.
fn encoded(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("%{b:02X}")).collect()
}

/// A GET request for `target`, closing the connection after it.
fn get(target: &str) -> Vec<u8> {
    format!("GET {target} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").into_bytes()
}

/// A POST of `body` to `target`.
fn post(target: &str, body: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "POST {target} HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body);
    r
}

/// One random bad request, and whether a 200 is a fair answer to it (an
/// annotation reports unreadable games inside its 200).
fn bad_request(rng: &mut SmallRng) -> (Vec<u8>, bool) {
    let junk = |rng: &mut SmallRng, n: usize| -> Vec<u8> { (0..n).map(|_| rng.random()).collect() };
    match rng.random_range(0..10u32) {
        0 => {
            let n = rng.random_range(1..60);
            (get(&format!("/v1/togyzkumalak?fen={}", encoded(&junk(rng, n)))), false)
        }
        1 => {
            let moves: Vec<String> = (0..rng.random_range(1..40))
                .map(|_| match rng.random_range(0..3u32) {
                    0 => rng.random_range(10..100u32).to_string(),
                    1 => "zz9".to_string(),
                    _ => encoded(&junk(rng, 3)),
                })
                .collect();
            // From a 4-stone position, so that every move list ends in a
            // bad or illegal move, or the game's end, at once.
            let fen = "7,2S,1/8,2S_79_79_S_1";
            let target = format!("/v1/togyzkumalak?fen={fen}&moves=91,12,{}", moves.join(","));
            (get(&target), false)
        }
        2 => {
            let n = rng.random_range(33_000..120_000);
            (get(&format!("/v1/togyzkumalak?fen={}", "1".repeat(n))), false)
        }
        3 => {
            // Raw invalid UTF-8 in the request line.
            let mut r = b"GET /v1/togyzkumalak?fen=".to_vec();
            r.extend(junk(rng, 20).iter().map(|b| b | 0x80));
            r.extend_from_slice(b" HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
            (r, false)
        }
        4 => {
            let n = rng.random_range(1..5000);
            (post("/v1/annotate?search_time=0", &junk(rng, n)), true)
        }
        5 => {
            let n = rng.random_range(1_100_000..1_500_000);
            (post("/v1/annotate", &vec![b'1'; n]), false)
        }
        6 => {
            let n = rng.random_range(1..300);
            let mut r = junk(rng, n);
            r.extend_from_slice(b"\r\n\r\n");
            (r, false)
        }
        7 => {
            let n = rng.random_range(70_000..500_000);
            let r = format!(
                "GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: {}\r\nConnection: close\r\n\r\n",
                "a".repeat(n)
            );
            (r.into_bytes(), false)
        }
        8 => {
            let path: String = (0..rng.random_range(1..30))
                .map(|_| ['a', '/', '.', '%', '2', 'e'][rng.random_range(0..6)])
                .collect();
            (get(&format!("/static/{path}")), false)
        }
        _ => (
            format!(
                "DELETE /v1/togyzkumalak?search_time={} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
                rng.random_range(0..9u32)
            )
            .into_bytes(),
            false,
        ),
    }
}

/// The resident memory of process `pid`, in bytes.
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap();
    kb * 1024
}

#[test]
fn a_thousand_bad_requests_then_a_good_one_is_answered() {
    let mut s = Server::start(
        common::tables(),
        &[
            "--client-timeout",
            "2",
            "--search-time",
            "0.2",
            "--search-memory",
            "16M",
            "--max-connections",
            "64",
        ],
    );
    let mut rng = SmallRng::seed_from_u64(26);
    for i in 0..1000 {
        let (request, ok_200) = bad_request(&mut rng);
        let (status, text) = send(&s.addr, &request);
        match status {
            // Dropped: for bytes that are no HTTP request at all.
            None => {}
            Some(200) if ok_200 => {
                let games: serde_json::Value =
                    serde_json::from_str(text.split("\r\n\r\n").nth(1).unwrap_or_default())
                        .unwrap_or_else(|e| panic!("request {i}: {e}: {text}"));
                assert!(games.is_array());
            }
            Some(c) => assert!((400..500).contains(&c), "request {i}: {text:.300}"),
        }
    }
    assert!(s.alive());

    // A record of 100,000 moves: read, replayed up to its first illegal
    // move, reported.
    let record: String = (0..100_000)
        .map(|i| if i % 2 == 0 { "19 " } else { "21 " })
        .collect();
    let (status, text) = send(
        &s.addr,
        &post("/v1/annotate?search_time=0", record.as_bytes()),
    );
    assert_eq!(status, Some(200), "{text:.300}");
    assert!(text.contains("\"error\""), "{text:.300}");

    // One byte a second: dropped at the client timeout (2 s), in the head
    // and in the body.
    let slow = |head: &[u8], trickle: &[u8]| -> (Duration, String) {
        let mut c = TcpStream::connect(&s.addr).unwrap();
        c.set_read_timeout(Some(Duration::from_millis(1000)))
            .unwrap();
        c.write_all(head).unwrap();
        let t = Instant::now();
        let mut got = Vec::new();
        for &b in trickle.iter().cycle().take(15) {
            if c.write_all(&[b]).is_err() {
                break;
            }
            let mut buf = [0u8; 4096];
            match c.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    got.extend_from_slice(&buf[..n]);
                    let mut rest = Vec::new();
                    let _ = c.read_to_end(&mut rest);
                    got.extend(rest);
                    break;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(_) => break,
            }
        }
        (t.elapsed(), String::from_utf8_lossy(&got).into_owned())
    };
    let (took, _) = slow(b"", b"GET /healthz HTTP/1.1\r\n");
    assert!(took < Duration::from_secs(8), "head: {took:?}");
    let head = b"POST /v1/annotate HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n";
    let (took, answer) = slow(head, b"19 21 ");
    assert!(took < Duration::from_secs(8), "body: {took:?}");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");

    // A connection kept open after its answer is closed once idle for the
    // client timeout.
    let mut idle = TcpStream::connect(&s.addr).unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        .unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    let t = Instant::now();
    let mut seen = Vec::new();
    let _ = idle.read_to_end(&mut seen);
    assert!(seen.starts_with(b"HTTP/1.1 200"));
    assert!(
        t.elapsed() < Duration::from_secs(8),
        "idle: {:?}",
        t.elapsed()
    );

    // Many connections at once: those over the limit are closed, the rest
    // answered; none waits forever.
    let conns: Vec<TcpStream> = (0..300)
        .filter_map(|_| TcpStream::connect(&s.addr).ok())
        .collect();
    let answered = std::thread::scope(|scope| {
        let handles: Vec<_> = conns
            .into_iter()
            .map(|mut c| {
                scope.spawn(move || {
                    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
                    let _ = c.write_all(&get("/healthz"));
                    let mut out = Vec::new();
                    let _ = c.read_to_end(&mut out);
                    out.starts_with(b"HTTP/1.1 200")
                })
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.join().ok())
            .filter(|&ok| ok)
            .count()
    });
    assert!(answered >= 1, "at least the first 64 are served");

    // Memory stayed bounded: the tables, one search's tables, buffers.
    let rss = rss(s.pid());
    assert!(rss < 400 << 20, "{} MB resident", rss >> 20);

    // A good request is answered, and nothing panicked.
    let good = s.get("/v1/togyzkumalak?fen=7,2S,1/8,2S_79_79_S_1");
    assert_eq!(good.status, 200);
    assert_eq!(good.json()["dtm"], 4);
    assert!(s.alive());
    let log = s.log();
    assert!(!log.contains("panicked"), "{log}");
}
