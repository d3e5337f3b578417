//! `serve`'s command line and the limits it sets.

use std::net::SocketAddr;
use std::time::Duration;

use axum::http::HeaderValue;

use crate::common::above::{Limits, MemoryArg};
use crate::common::failure::{Failure, Kind};
use crate::common::tables::TablesArg;

/// Arguments of `serve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub(super) tables: TablesArg,
    /// The address and port to listen on (`0.0.0.0:9000` for every
    /// interface; port 0 picks a free one, printed at the start).
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:9000")]
    bind: SocketAddr,
    /// Above the tables: the longest proof search a request may ask for
    /// (`search_time`), in seconds; also a request's default.
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = crate::annotate::parse_seconds)]
    search_time: f64,
    #[command(flatten)]
    memory: MemoryArg,
    /// Searches (and annotations) that run at once (default: the cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    searches: Option<u32>,
    /// Searches that may wait for one of those; past them a request gets
    /// 503 with Retry-After.
    #[arg(long, value_name = "N", default_value = "16")]
    queue: usize,
    /// Bytes of search answers kept, so that a position many people look at
    /// is searched once (`64M`; 0 keeps none).
    #[arg(long, value_name = "BYTES", default_value = "64M", value_parser = togyz_answer::parse_bytes)]
    cache: u64,
    /// A site whose pages may call the server from the browser (CORS), such
    /// as `https://playstrategy.org`; repeat it for more; `*` for any.
    #[arg(long = "cors-origin", value_name = "ORIGIN")]
    cors_origins: Vec<String>,
    /// The most time one `POST /v1/annotate` may take, in seconds: after it
    /// nothing more is searched, positions above the tables are left
    /// unsettled.
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = crate::annotate::parse_seconds)]
    annotate_time: f64,
    /// The most nodes a position of `POST /v1/annotate?search_nodes=N` may
    /// take (a node budget gives the same annotation each time).
    #[arg(long, value_name = "N", default_value = "1000000", value_parser = clap::value_parser!(u64).range(1..))]
    max_search_nodes: u64,
    /// The largest request body (a game record for `/v1/annotate`).
    #[arg(long, value_name = "BYTES", default_value = "1M", value_parser = togyz_answer::parse_bytes)]
    max_body: u64,
    /// Seconds a client may take to send a request's head, or its body;
    /// an idle kept-alive connection is closed after as long.
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = crate::annotate::parse_seconds)]
    client_timeout: f64,
    /// Connections open at once; more are closed as they come.
    #[arg(long, value_name = "N", default_value = "1024")]
    max_connections: usize,
    /// Connections one client address may hold open at once; more of its
    /// connections are closed as they come. Behind a reverse proxy every
    /// connection is the proxy's: set it to `--max-connections` there.
    #[arg(long, value_name = "N", default_value = "128")]
    max_client_connections: usize,
    /// Seconds a new connection may wait before sending its first byte;
    /// a connection silent that long is closed.
    #[arg(long, value_name = "SECONDS", default_value = "3", value_parser = crate::annotate::parse_seconds)]
    first_byte_timeout: f64,
    /// The log on standard error: one line for one request in N (1, the
    /// default: every request; 0: none).
    #[arg(long, value_name = "N", default_value = "1")]
    log_sample: u64,
    /// Threads answering requests (from the tables; searches run on threads
    /// of their own) (default: the cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    workers: Option<u32>,
}

/// What the server runs with, read from [`Args`].
#[derive(Clone, Debug)]
pub struct Config {
    /// Where to listen.
    pub bind: SocketAddr,
    /// Threads serving requests (the cores).
    pub workers: usize,
    /// The longest search, and the default.
    pub search_time: f64,
    /// Each search's limits but its time (set per request).
    pub memory: MemoryArg,
    /// Searches at once.
    pub searches: usize,
    /// Searches waiting at most.
    pub queue: usize,
    /// Bytes of cached answers.
    pub cache_bytes: u64,
    /// Origins allowed by CORS (`None`: any).
    pub cors: Option<Vec<HeaderValue>>,
    /// Whether CORS is on at all.
    pub cors_on: bool,
    /// The time cap of one annotation.
    pub annotate_time: Duration,
    /// The node cap of an annotation's positions.
    pub max_search_nodes: u64,
    /// The body size cap.
    pub max_body: usize,
    /// Time to send a request's head or body.
    pub client_timeout: Duration,
    /// Connections open at once.
    pub max_connections: usize,
    /// Connections open at once from one address.
    pub max_client_connections: usize,
    /// Time for a new connection's first byte.
    pub first_byte_timeout: Duration,
    /// One request in this many is logged (0: none).
    pub log_sample: u64,
}

impl Config {
    /// The limits of a search of `seconds`.
    pub fn limits(&self, seconds: f64) -> Limits {
        self.memory.limits(seconds)
    }

    /// The most a request may take in all: its head and body, a wait in the
    /// queue behind full searches, then its own search or annotation.
    pub fn request_timeout(&self) -> Duration {
        let work = self.search_time.max(self.annotate_time.as_secs_f64());
        let waits = (self.queue / self.searches + 1) as f64 * work;
        self.client_timeout * 2 + Duration::from_secs_f64(work + waits + 5.0)
    }
}

impl Args {
    /// The configuration.
    ///
    /// # Errors
    /// A `--cors-origin` that is no header value, a limit of 0, or more
    /// search memory in all (`--searches` times `--search-memory`) than
    /// the machine has.
    pub fn config(&self) -> Result<Config, Failure> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let any = self.cors_origins.iter().any(|o| o == "*");
        let origins = self
            .cors_origins
            .iter()
            .filter(|o| *o != "*")
            .map(|o| {
                HeaderValue::from_str(o.trim_end_matches('/')).map_err(|_| {
                    Failure::new(
                        Kind::BadFen,
                        format!("--cors-origin `{o}` is not an origin such as https://example.org"),
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let bad = |what: &str| Failure::new(Kind::BadFen, what.to_string());
        if self.max_connections == 0 {
            return Err(bad("--max-connections must be at least 1"));
        }
        if self.max_client_connections == 0 {
            return Err(bad("--max-client-connections must be at least 1"));
        }
        if self.first_byte_timeout <= 0.0 {
            return Err(bad("--first-byte-timeout must be more than 0 seconds"));
        }
        if self.client_timeout <= 0.0 {
            return Err(bad("--client-timeout must be more than 0 seconds"));
        }
        let searches = self.searches.map_or(cores, |n| n as usize);
        // Each slot keeps its solver's tables between searches: at its
        // busiest the server holds all of them.
        let each = self.memory.limits(self.search_time).budget().memory();
        let all = each.saturating_mul(searches as u64);
        if let Some(machine) = togyz_tb::search::machine_memory().filter(|&m| all > m) {
            return Err(bad(&format!(
                "{searches} searches of up to {each} bytes each would take {all} bytes, more \
                 than this machine's {machine}: lower --searches or --search-memory"
            )));
        }
        Ok(Config {
            bind: self.bind,
            workers: self.workers.map_or(cores, |n| n as usize),
            search_time: self.search_time,
            memory: self.memory.clone(),
            searches,
            queue: self.queue,
            cache_bytes: self.cache,
            cors: (!any).then_some(origins),
            cors_on: !self.cors_origins.is_empty(),
            annotate_time: Duration::from_secs_f64(self.annotate_time),
            max_search_nodes: self.max_search_nodes,
            max_body: usize::try_from(self.max_body).unwrap_or(usize::MAX),
            client_timeout: Duration::from_secs_f64(self.client_timeout),
            max_connections: self.max_connections,
            max_client_connections: self.max_client_connections,
            first_byte_timeout: Duration::from_secs_f64(self.first_byte_timeout),
            log_sample: self.log_sample,
        })
    }
}
