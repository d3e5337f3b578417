//! A load test of `togyz-probe serve` on loopback: answers from the tables
//! per second and their latency at C concurrent connections, alone and
//! while S clients keep asking positions that need search.
//!
//! ```text
//! togyz-probe serve --tables /tmp/tb8 --bind 127.0.0.1:9000 2>/dev/null &
//! cargo run --profile ci -p togyz-cli --example serve_load -- \
//!     --url http://127.0.0.1:9000 --max-stones 8 --seconds 10
//! ```
//!
//! The table positions are random live positions with 2 to `--max-stones`
//! stones (the tables must cover them: every answer must be a 200 from the
//! tables, with every move ranked); the search positions have 12 to 20
//! stones, each new, so the cache does not answer them. Bounded in time
//! (`--warmup` seconds, then `--seconds` a phase) and in requests
//! (`--max-requests` a phase).

use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use togyz_tb::{Position, Side};
use tokio::net::TcpStream;

struct Options {
    addr: String,
    connections: usize,
    searchers: usize,
    seconds: f64,
    max_requests: u64,
    max_stones: u32,
    search_time: f64,
    warmup: f64,
}

fn options() -> Options {
    let mut o = Options {
        addr: "127.0.0.1:9000".into(),
        connections: 64,
        searchers: 8,
        seconds: 10.0,
        max_requests: 2_000_000,
        max_stones: 8,
        search_time: 2.0,
        warmup: 3.0,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let [key, value] = pair else {
            panic!("options come as `--name value`: {args:?}");
        };
        match key.as_str() {
            "--url" => {
                o.addr = value
                    .trim_start_matches("http://")
                    .trim_end_matches('/')
                    .into()
            }
            "--connections" => o.connections = parse(key, value),
            "--searchers" => o.searchers = parse(key, value),
            "--seconds" => o.seconds = parse(key, value),
            "--max-requests" => o.max_requests = parse(key, value),
            "--max-stones" => o.max_stones = parse(key, value),
            "--search-time" => o.search_time = parse(key, value),
            "--warmup" => o.warmup = parse(key, value),
            _ => panic!("unknown option {key}"),
        }
    }
    o
}

/// The value of option `key`.
fn parse<T: std::str::FromStr>(key: &str, value: &str) -> T {
    value
        .parse()
        .unwrap_or_else(|_| panic!("bad value for {key}: {value}"))
}

/// A random live position with `n` stones on the board, no tuzdyks.
fn random_position(rng: &mut SmallRng, n: u32) -> Position {
    loop {
        let mut holes = [0u8; 18];
        for _ in 0..n {
            holes[rng.random_range(0..18)] += 1;
        }
        let rest = 162 - n;
        // Kazans of at most 81 each: nobody has won yet.
        let low = rest.saturating_sub(81);
        let south = rng.random_range(low..=81.min(rest));
        let kazans = [south as u8, (rest - south) as u8];
        let side = if rng.random() {
            Side::South
        } else {
            Side::North
        };
        if let Ok(p) = Position::new(holes, kazans, [None, None], side, 1) {
            if p.outcome().is_none() {
                return p;
            }
        }
    }
}

/// The request target for `pos`.
fn target(pos: &Position, search_time: f64) -> String {
    format!(
        "/v1/togyzkumalak?fen={}&search_time={search_time}",
        pos.fen().replace(' ', "_")
    )
}

/// One connection asking `targets` (cycled) until `until` or `budget`
/// requests; the latency of each 200, in microseconds, and the count of
/// other answers.
async fn client(
    addr: String,
    targets: Vec<String>,
    until: Instant,
    budget: u64,
) -> (Vec<u32>, u64) {
    let stream = TcpStream::connect(&addr).await.expect("the server listens");
    stream.set_nodelay(true).unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    tokio::spawn(conn);
    let (mut times, mut other) = (Vec::new(), 0u64);
    for (i, t) in targets.iter().cycle().enumerate() {
        if i as u64 >= budget || Instant::now() >= until {
            break;
        }
        let req = hyper::Request::get(t.as_str())
            .header("host", addr.as_str())
            .body(Empty::<Bytes>::new())
            .unwrap();
        let start = Instant::now();
        if sender.ready().await.is_err() {
            break;
        }
        let Ok(resp) = sender.send_request(req).await else {
            break;
        };
        let status = resp.status();
        let body = resp.into_body().collect().await.map(|b| b.to_bytes());
        let took = start.elapsed().as_micros() as u32;
        match body {
            Ok(b) if status == 200 && b.starts_with(b"{") => times.push(took),
            _ => other += 1,
        }
    }
    (times, other)
}

/// Searchers: each asks a new search position at a time until `until`.
async fn searcher(addr: String, seed: u64, search_time: f64, until: Instant) -> (u64, u64) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let (mut answered, mut busy) = (0, 0);
    while Instant::now() < until {
        let n = rng.random_range(12..=20);
        let t = target(&random_position(&mut rng, n), search_time);
        let (ok, other) = client(addr.clone(), vec![t], until + Duration::from_secs(60), 1).await;
        answered += ok.len() as u64;
        busy += other;
        if other > 0 {
            // 503: come back a little later, as Retry-After asks.
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    (answered, busy)
}

/// One phase of `seconds`: `o.connections` table clients (and `searchers`
/// searchers).
async fn phase(o: &Options, seconds: f64, searchers: usize, label: &str) {
    let mut rng = SmallRng::seed_from_u64(2026);
    let until = Instant::now() + Duration::from_secs_f64(seconds);
    let per = o.max_requests / o.connections as u64;
    let searches: Vec<_> = (0..searchers)
        .map(|i| {
            tokio::spawn(searcher(
                o.addr.clone(),
                100 + i as u64,
                o.search_time,
                until,
            ))
        })
        .collect();
    let start = Instant::now();
    let tasks: Vec<_> = (0..o.connections)
        .map(|_| {
            let targets: Vec<String> = (0..500)
                .map(|_| {
                    let n = rng.random_range(2..=o.max_stones);
                    target(&random_position(&mut rng, n), 0.0)
                })
                .collect();
            tokio::spawn(client(o.addr.clone(), targets, until, per))
        })
        .collect();
    let (mut times, mut other) = (Vec::new(), 0);
    for t in tasks {
        let (ts, o) = t.await.unwrap();
        times.extend(ts);
        other += o;
    }
    let took = start.elapsed().as_secs_f64();
    let (mut searched, mut busy) = (0, 0);
    for s in searches {
        let (a, b) = s.await.unwrap();
        searched += a;
        busy += b;
    }
    times.sort_unstable();
    let q =
        |p: f64| times[((times.len() as f64 * p) as usize).min(times.len() - 1)] as f64 / 1000.0;
    println!(
        "{label}: {} table answers in {took:.1} s = {:.0}/s; latency ms p50 {:.2} p90 {:.2} \
         p99 {:.2} max {:.2}; other answers {other}; searches answered {searched}, busy/other {busy}",
        times.len(),
        times.len() as f64 / took,
        q(0.5),
        q(0.9),
        q(0.99),
        q(1.0),
    );
}

#[tokio::main]
async fn main() {
    let o = options();
    println!(
        "serve_load: {} connections, {} s a phase, positions of 2-{} stones; {} searchers at \
         search_time {}",
        o.connections, o.seconds, o.max_stones, o.searchers, o.search_time
    );
    // The same positions in every phase: the first one, not counted,
    // brings their blocks into the caches, so that the phases compare.
    if o.warmup > 0.0 {
        phase(&o, o.warmup, 0, "warm-up (not counted)").await;
    }
    phase(&o, o.seconds, 0, "tables alone").await;
    phase(&o, o.seconds, o.searchers, "tables while searching").await;
}
