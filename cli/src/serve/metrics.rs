//! `GET /metrics` (Prometheus text) and what every request adds to it; the
//! log line of each request on standard error. It knows nothing of the
//! routes: [`routes`](super::routes) reports each request to it.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::{Metric, Registry};

/// A request's labels: the route (as routed, so that random paths add no
/// series), the method and the status.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: String,
    method: String,
    status: u16,
}

/// The route label of the latency histogram.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabel {
    route: String,
}

type Latency = Family<RouteLabel, Histogram, fn() -> Histogram>;

/// Every metric the server keeps.
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Latency,
    /// Search answers found in the cache.
    pub cache_hits: Counter,
    /// Search answers not in the cache.
    pub cache_misses: Counter,
    /// Searches (and annotations) running.
    pub searches_running: Gauge,
    /// Searches waiting for a slot.
    pub searches_queued: Gauge,
    /// Searches turned away with 503.
    pub searches_rejected: Counter,
    /// Solvers kept between searches, idle now.
    pub solvers_idle: Gauge,
    /// Bytes of the idle solvers' transposition tables.
    pub solver_table_bytes: Gauge,
    /// One request in this many is logged (0: none).
    log_sample: u64,
    /// Requests answered, for the sampling of the log.
    answered: AtomicU64,
}

/// Registers each `(name, help, metric)` of one kind under its name.
fn register<M: Metric + Clone, const N: usize>(
    registry: &mut Registry,
    metrics: [(&str, &str, &M); N],
) {
    for (name, help, metric) in metrics {
        registry.register(name, help, metric.clone());
    }
}

impl Metrics {
    /// The metrics, registered under `togyz_`; one request in `log_sample`
    /// logged (0: none).
    pub fn new(log_sample: u64) -> Metrics {
        let mut registry = Registry::with_prefix("togyz");
        let requests = Family::<RequestLabels, Counter>::default();
        fn latency() -> Histogram {
            // 0.1 ms to about 15 s.
            Histogram::new(exponential_buckets(0.0001, 2.5, 14))
        }
        let latency: Latency = Family::new_with_constructor(latency);
        let m = Metrics {
            requests: requests.clone(),
            latency: latency.clone(),
            cache_hits: Counter::default(),
            cache_misses: Counter::default(),
            searches_running: Gauge::default(),
            searches_queued: Gauge::default(),
            searches_rejected: Counter::default(),
            solvers_idle: Gauge::default(),
            solver_table_bytes: Gauge::default(),
            registry: Registry::default(),
            log_sample,
            answered: AtomicU64::new(0),
        };
        registry.register(
            "http_requests",
            "HTTP requests by route, method and status",
            requests,
        );
        registry.register(
            "http_request_duration_seconds",
            "Time to answer a request, by route",
            latency,
        );
        register(
            &mut registry,
            [
                (
                    "cache_hits",
                    "Search answers served from the cache",
                    &m.cache_hits,
                ),
                (
                    "cache_misses",
                    "Search answers not in the cache",
                    &m.cache_misses,
                ),
                (
                    "searches_rejected",
                    "Searches turned away with 503 (queue full)",
                    &m.searches_rejected,
                ),
            ],
        );
        register(
            &mut registry,
            [
                (
                    "searches_running",
                    "Searches and annotations running",
                    &m.searches_running,
                ),
                (
                    "searches_queued",
                    "Searches waiting for a slot",
                    &m.searches_queued,
                ),
                (
                    "solvers_idle",
                    "Solvers kept between searches, idle now",
                    &m.solvers_idle,
                ),
                (
                    "solver_table_bytes",
                    "Bytes of the idle kept solvers' transposition tables",
                    &m.solver_table_bytes,
                ),
            ],
        );
        Metrics { registry, ..m }
    }

    /// The Prometheus (OpenMetrics) text.
    pub fn text(&self) -> Response {
        let mut s = String::new();
        prometheus_client::encoding::text::encode(&mut s, &self.registry)
            .expect("writing to a String cannot fail");
        (
            [(
                CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            s,
        )
            .into_response()
    }
}

/// The address of the client, for the log line.
#[derive(Clone, Copy, Debug)]
pub struct Peer(pub SocketAddr);

/// One request answered, as it is counted and logged.
pub struct Served<'a> {
    /// The route as routed (`other` for none).
    pub route: String,
    /// The HTTP method.
    pub method: &'a str,
    /// The path, shortened (the query string is the client's).
    pub path: &'a str,
    /// Who asked.
    pub peer: Option<Peer>,
    /// The status sent.
    pub status: u16,
    /// The time taken.
    pub took: Duration,
}

impl Metrics {
    /// Counts and times a request, and logs it on standard error (one in
    /// `log_sample`: the first, then every `log_sample`th).
    pub fn served(&self, r: Served<'_>) {
        let Served {
            route,
            method,
            path,
            peer,
            status,
            took,
        } = r;
        self.requests
            .get_or_create(&RequestLabels {
                route: route.clone(),
                method: method.to_owned(),
                status,
            })
            .inc();
        self.latency
            .get_or_create(&RouteLabel { route })
            .observe(took.as_secs_f64());
        let n = self.answered.fetch_add(1, Ordering::Relaxed);
        if self.log_sample == 0 || !n.is_multiple_of(self.log_sample) {
            return;
        }
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs_f64();
        let peer = peer.map_or("-".to_string(), |p| p.0.ip().to_string());
        // Nowhere to report a failure to write the log.
        let _ = writeln!(
            std::io::stderr().lock(),
            "{now:.3} {peer} {method} {path} {status} {:.2}ms",
            took.as_secs_f64() * 1000.0
        );
    }
}
