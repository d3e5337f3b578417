//! The routes and their answers: `GET /v1/togyzkumalak`, `POST
//! /v1/annotate` (streamed as NDJSON), `GET /v1/limits`, the board,
//! `/healthz`, `/metrics`; JSON errors with the command line's `kind`s for
//! everything else.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, Extension, MatchedPath, Query, Request, State};
use axum::http::header::{ACCEPT, CONTENT_TYPE, RETRY_AFTER};
use axum::http::HeaderName;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;
use togyz_answer::RequestError;
use togyz_tb::search::{Budget, Solver};
use togyz_tb::Position;
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::timeout::RequestBodyDeadlineLayer;

use super::board;
use super::config::Config;
use super::metrics::{Metrics, Peer, Served};
use super::pool::{Busy, Cached, Keep, Pool};
use super::solvers::Solvers;
use crate::common::ask::{Audience, Question, Route};
use crate::common::failure::{Failure, Kind};
use crate::common::tables::Tables;

/// The longest query string taken (a FEN and a few thousand moves).
const MAX_QUERY: usize = 32 * 1024;

/// What every request shares.
pub struct Inner {
    /// The limits.
    pub config: Config,
    /// The tables, open for the life of the process (the kept solvers
    /// borrow them).
    pub tables: &'static Tables,
    /// The searches and their cache.
    pub pool: Pool,
    /// The solvers kept between searches.
    pub solvers: Solvers,
    /// The counters.
    pub metrics: Arc<Metrics>,
    /// Annotations in flight (their bodies read, queued or running): as
    /// many as the search slots and the queue, so that the bodies held in
    /// memory are at most that many times `--max-body`.
    annotations: Arc<Semaphore>,
}

/// The shared state of the handlers.
pub type Shared = Arc<Inner>;

impl Inner {
    /// Runs `work` with a kept solver set to `budget`, or with none when
    /// not `keep`, so that `work` makes a fresh one; either is kept after.
    fn with_solver<T>(
        &self,
        keep: bool,
        budget: Budget,
        work: impl FnOnce(&mut Option<Solver<'static>>) -> T,
    ) -> T {
        let mut solver = keep.then(|| self.solvers.take(budget));
        let out = work(&mut solver);
        if let Some(solver) = solver {
            self.solvers.give_back(solver);
        }
        out
    }

    /// What `annotate --json` prints of the record `body`, written to
    /// `out` game by game, each position searched within `budget` (with a
    /// kept solver if `keep`), none after `time`.
    fn annotate(
        &self,
        body: &[u8],
        budget: Budget,
        keep: bool,
        time: Duration,
        out: &mut impl std::io::Write,
    ) -> Result<bool, Failure> {
        let deadline = Instant::now() + time;
        self.with_solver(keep, budget, |solver| {
            crate::annotate::annotate_stream(
                body,
                self.tables,
                solver,
                budget,
                true,
                Some(deadline),
                out,
            )
        })
    }
}

/// The state of a server with `config` over `tables`.
pub fn state(config: Config, tables: Tables) -> Shared {
    let metrics = Arc::new(Metrics::new(config.log_sample));
    let pool = Pool::new(
        config.searches,
        config.queue,
        config.cache_bytes,
        metrics.clone(),
    );
    let tables: &'static Tables = Box::leak(Box::new(tables));
    Arc::new(Inner {
        annotations: Arc::new(Semaphore::new(config.searches + config.queue)),
        config,
        tables,
        pool,
        solvers: Solvers::new(&tables.tb, metrics.clone()),
        metrics,
    })
}

/// Every route, with CORS, the body limits and the tracking of requests.
pub fn router(state: Shared) -> Router {
    let mut app = Router::new()
        .route("/v1/togyzkumalak", get(position))
        .route(
            "/v1/annotate",
            post(annotate).route_layer(axum::middleware::from_fn_with_state(
                state.clone(),
                admit_annotation,
            )),
        )
        .route("/v1/limits", get(limits))
        .route("/healthz", get(|| async { "ok\n" }))
        .route(
            "/metrics",
            get(|State(s): State<Shared>| async move { s.metrics.text() }),
        );
    for path in board::paths() {
        app = app.route(path, get(move || async move { board::file(path) }));
    }
    let config = &state.config;
    let mut app = app
        .fallback(|| async {
            error(
                StatusCode::NOT_FOUND,
                "not_found",
                "no such route: see docs/http-api.md",
            )
        })
        .method_not_allowed_fallback(|method: Method| async move {
            error(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                format!("{method} is not allowed on this route"),
            )
        })
        .layer(DefaultBodyLimit::max(config.max_body))
        .layer(RequestBodyDeadlineLayer::new(config.client_timeout))
        .layer(axum::middleware::from_fn_with_state(state.clone(), track));
    if config.cors_on {
        let origin = match &config.cors {
            None => AllowOrigin::any(),
            Some(list) => AllowOrigin::list(list.clone()),
        };
        app = app.layer(
            CorsLayer::new()
                .allow_origin(origin)
                .allow_methods([Method::GET, Method::POST])
                .allow_headers([CONTENT_TYPE])
                // A busy answer's Retry-After, readable by the site's page.
                .expose_headers([HeaderName::from_static("retry-after")])
                // Browsers cap it (Chromium at 2 hours); one preflight a
                // day at most otherwise.
                .max_age(Duration::from_secs(86_400)),
        );
    }
    app.with_state(state)
}

/// Counts, times and logs every request, and bounds its whole time.
async fn track(State(state): State<Shared>, req: Request, next: Next) -> Response {
    let start = Instant::now();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("other", MatchedPath::as_str)
        .to_owned();
    let method = req.method().as_str().to_owned();
    let peer = req.extensions().get::<Peer>().copied();
    // The path only: a query string may be long, and is the client's. A
    // CONNECT's target has none: `-`, so that the line splits on spaces.
    let mut path: String = req.uri().path().chars().take(100).collect();
    if req.uri().path().len() > path.len() {
        path.push('…');
    }
    if path.is_empty() {
        path.push('-');
    }
    // A backstop only: the head, the body, the queue and the work each
    // have a limit of their own, which together stay under this one, so no
    // request is known to reach it (docs/http-api.md lists no such 503).
    let limit = state.config.request_timeout();
    let response = match tokio::time::timeout(limit, next.run(req)).await {
        Ok(r) => r,
        Err(_) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            "timeout",
            format!("the request took more than {} s", limit.as_secs()),
        ),
    };
    state.metrics.served(Served {
        route,
        method: &method,
        path: &path,
        peer,
        status: response.status().as_u16(),
        took: start.elapsed(),
    });
    response
}

/// A JSON error of the server's own: `{"error": ..., "kind": ...}`.
pub fn error(status: StatusCode, kind: &'static str, message: impl Into<String>) -> Response {
    let body = RequestError {
        error: message.into(),
        kind,
    };
    json(status, body.json())
}

/// A JSON response.
fn json(status: StatusCode, body: String) -> Response {
    (status, [(CONTENT_TYPE, "application/json")], body).into_response()
}

/// The status for a failure of `kind`: the client's (400) or ours (500).
fn status_of(kind: Kind) -> StatusCode {
    match kind {
        Kind::BadFen | Kind::BadMove | Kind::IllegalMove => StatusCode::BAD_REQUEST,
        // The legal moves and what the rules show are still an answer.
        Kind::NoTable => StatusCode::OK,
        Kind::Io | Kind::DamagedTable | Kind::UnreadableTable => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// 503 with Retry-After: every search slot and the queue are taken. The
/// wait is the time the work queued and running may still take, shared by
/// the slots.
fn busy(pool: &Pool) -> Response {
    let wait = pool.retry_after();
    let mut r = error(
        StatusCode::SERVICE_UNAVAILABLE,
        "busy",
        format!("every search slot and the queue behind them are taken: try again in {wait} s"),
    );
    r.headers_mut().insert(RETRY_AFTER, wait.into());
    r
}

/// `GET /v1/limits`: what the server allows a request, so that a client
/// (the board) offers no more.
async fn limits(State(s): State<Shared>) -> Response {
    let c = &s.config;
    let body = serde_json::json!({
        "search_time": c.search_time,
        "search_nodes": c.max_search_nodes,
        "annotate_time": c.annotate_time.as_secs_f64(),
        "max_body": c.max_body,
    });
    json(StatusCode::OK, body.to_string())
}

/// The query string of `GET /v1/togyzkumalak`.
#[derive(Deserialize)]
struct PositionQuery {
    fen: Option<String>,
    moves: Option<String>,
    search_time: Option<String>,
}

/// The search time asked for (`text`, in seconds), capped by the server's;
/// `default` (capped) without one.
///
/// # Errors
/// The 400 answer for a text that is no number of seconds.
fn search_time(config: &Config, text: Option<&str>, default: f64) -> Result<f64, Box<Response>> {
    let Some(text) = text else {
        return Ok(default.min(config.search_time));
    };
    // The command line's reading of seconds, so both refuse alike.
    match crate::annotate::parse_seconds(text.trim()) {
        Ok(s) => Ok(s.min(config.search_time)),
        Err(m) => Err(Box::new(error(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("search_time: {m}"),
        ))),
    }
}

/// A route's query parameters, or the answer refusing them: 414 for a
/// query string past [`MAX_QUERY`], 400 for one that does not parse (a
/// part without `=`, an escape that decodes to no UTF-8 text).
fn query_of<T>(uri: &Uri, params: Result<Query<T>, QueryRejection>) -> Result<T, Box<Response>> {
    if let Some(r) = too_long(uri) {
        return Err(Box::new(r));
    }
    if let Err(m) = check_query(uri.query().unwrap_or("")) {
        return Err(Box::new(error(StatusCode::BAD_REQUEST, "bad_request", m)));
    }
    params
        .map(|Query(q)| q)
        .map_err(|e| Box::new(error(StatusCode::BAD_REQUEST, "bad_request", e.body_text())))
}

/// Checks that every `&`-separated part of a query string is `key=value`
/// with a key, and that both decode (`%XX` escapes, `+` for a space) to
/// UTF-8 text: the form decoder would read `fen` as an empty FEN and keep
/// a bad escape as it is, so that `?%zz=1` would be a parameter of no
/// name and pass unseen.
fn check_query(query: &str) -> Result<(), String> {
    let shown = |part: &str| -> String {
        let mut t: String = part.chars().take(40).collect();
        if t.len() < part.len() {
            t.push('…');
        }
        t
    };
    for part in query.split('&').filter(|p| !p.is_empty()) {
        let Some((key, value)) = part.split_once('=') else {
            return Err(format!(
                "`{}` is no parameter: the query string is key=value&...",
                shown(part)
            ));
        };
        if key.is_empty() {
            return Err(format!("`{}`: a parameter has no name", shown(part)));
        }
        for text in [key, value] {
            if !decodes(text) {
                return Err(format!(
                    "`{}` does not decode: %XX escapes of UTF-8 text only",
                    shown(part)
                ));
            }
        }
    }
    Ok(())
}

/// Whether `text`'s `%XX` escapes are all two hex digits and decode, with
/// the rest, to UTF-8.
fn decodes(text: &str) -> bool {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok());
            match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                // from_str_radix takes a sign: `%+1` is no escape.
                Some(v) if hex.is_some_and(|h| h.bytes().all(|c| c.is_ascii_hexdigit())) => {
                    out.push(v)
                }
                _ => return false,
            }
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).is_ok()
}

/// Whether the query string is too long to take.
fn too_long(uri: &Uri) -> Option<Response> {
    let n = uri.query().map_or(0, str::len);
    (n > MAX_QUERY).then(|| {
        error(
            StatusCode::URI_TOO_LONG,
            "too_large",
            format!("the query string has {n} bytes; at most {MAX_QUERY} are taken"),
        )
    })
}

/// `GET /v1/togyzkumalak?fen=FEN&moves=M1,M2&search_time=S`: the answer
/// `query --json` gives, with lichess's names added.
async fn position(
    State(s): State<Shared>,
    uri: Uri,
    params: Result<Query<PositionQuery>, QueryRejection>,
) -> Response {
    let q = match query_of(&uri, params) {
        Ok(q) => q,
        Err(r) => return *r,
    };
    let seconds = match search_time(&s.config, q.search_time.as_deref(), s.config.search_time) {
        Ok(t) => t,
        Err(r) => return *r,
    };
    // lila's `_` for spaces, which need no escaping in a URL.
    let given = q
        .fen
        .map_or_else(|| Position::start().fen(), |f| f.replace('_', " "));
    let moves: Vec<String> = q
        .moves
        .unwrap_or_default()
        .split([',', ' '])
        .filter(|m| !m.is_empty())
        .map(str::to_owned)
        .collect();
    let question = Question::new(given, &moves);
    let limits = s.config.limits(seconds);
    let route = question.route(s.tables, seconds);
    if route == Route::Tables {
        // From the tables (or the rules): answered here, at once.
        let verdict = question.answer(route, s.tables, limits, &mut None, false);
        let reply = question.reply(verdict, Audience::Server(&s.tables.tb));
        return json(
            reply.failure().map_or(StatusCode::OK, status_of),
            reply.json(),
        );
    }
    let pos = question
        .asked
        .as_ref()
        .map(|a| a.pos)
        .expect("searched positions were asked");
    let kept = s.clone();
    let search = move || -> (Cached, Keep) {
        let tables = kept.tables;
        let verdict = kept.with_solver(true, limits.budget(), |solver| {
            question.answer(route, tables, limits, solver, false)
        });
        let reply = question.reply(verdict, Audience::Server(&tables.tb));
        let status = reply.failure().map_or(StatusCode::OK, status_of);
        let keep = if status != StatusCode::OK {
            Keep::Not
        } else if reply.proven() {
            Keep::Cached
        } else {
            Keep::Shared
        };
        (Arc::new((status.as_u16(), reply.json())), keep)
    };
    let millis = (seconds * 1000.0).round() as u64;
    match s.pool.cached(pos.fen(), millis, search).await {
        Ok(answer) => json(
            StatusCode::from_u16(answer.0).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            answer.1.clone(),
        ),
        Err(Busy) => busy(&s.pool),
    }
}

/// An annotation's place among those in flight: taken by
/// [`admit_annotation`], handed to the annotation's work, which holds it
/// (and the body) until it ends, even when its client has gone.
#[derive(Clone)]
struct InFlight(Arc<std::sync::Mutex<Option<OwnedSemaphorePermit>>>);

impl InFlight {
    fn take(&self) -> Option<OwnedSemaphorePermit> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// Lets an annotation in (before its body is read) if fewer than the search
/// slots and the queue are in flight, else answers 503.
async fn admit_annotation(
    State(s): State<Shared>,
    mut req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let Ok(permit) = s.annotations.clone().try_acquire_owned() else {
        s.metrics.searches_rejected.inc();
        return busy(&s.pool);
    };
    req.extensions_mut()
        .insert(InFlight(Arc::new(std::sync::Mutex::new(Some(permit)))));
    next.run(req).await
}

/// The query string of `POST /v1/annotate`.
#[derive(Deserialize)]
struct AnnotateQuery {
    search_time: Option<String>,
    search_nodes: Option<String>,
    format: Option<String>,
}

/// `POST /v1/annotate[?search_time=S|search_nodes=N][&format=ndjson]` with
/// a game record as the body: what `annotate --json` prints, as one JSON
/// array, or its lines (NDJSON) each sent as soon as its game is done.
async fn annotate(
    State(s): State<Shared>,
    uri: Uri,
    headers: HeaderMap,
    Extension(in_flight): Extension<InFlight>,
    params: Result<Query<AnnotateQuery>, QueryRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let q = match query_of(&uri, params) {
        Ok(q) => q,
        Err(r) => return *r,
    };
    let body = match body {
        Ok(b) => b,
        Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return error(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                format!(
                    "the body is over {} bytes (the server's --max-body)",
                    s.config.max_body
                ),
            )
        }
        // The client stopped sending, or sent too slowly.
        Err(e) => {
            return error(
                StatusCode::REQUEST_TIMEOUT,
                "timeout",
                format!("the body could not be read: {}", e.body_text()),
            )
        }
    };
    // One second a position by default, as `annotate` searches; or a
    // number of nodes, which gives the same answer each time.
    let seconds = match search_time(&s.config, q.search_time.as_deref(), 1.0) {
        Ok(t) => t,
        Err(r) => return *r,
    };
    let nodes = match q.search_nodes.as_deref().map(str::trim) {
        None => None,
        Some(_) if q.search_time.is_some() => {
            return error(
                StatusCode::BAD_REQUEST,
                "bad_request",
                "search_time and search_nodes: one or the other",
            )
        }
        Some(text) => match text.parse::<u64>() {
            Ok(n) if n >= 1 => Some(n.min(s.config.max_search_nodes)),
            _ => {
                return error(
                    StatusCode::BAD_REQUEST,
                    "bad_request",
                    format!("search_nodes: `{text}` is not a number of nodes from 1"),
                )
            }
        },
    };
    let ndjson = match q.format.as_deref() {
        None => headers
            .get(ACCEPT)
            .and_then(|a| a.to_str().ok())
            .is_some_and(|a| a.contains("application/x-ndjson")),
        Some("ndjson") => true,
        Some("json") => false,
        Some(other) => {
            return error(
                StatusCode::BAD_REQUEST,
                "bad_request",
                format!("format `{other}` is neither `json` nor `ndjson`"),
            )
        }
    };
    let limits = s.config.limits(seconds);
    let budget = match nodes {
        Some(n) => crate::annotate::node_budget(n, limits.memory),
        None => limits.budget(),
    };
    let annotate_time = s.config.annotate_time;
    let held = in_flight.take();
    // A node budget gives the same answer each time only from fresh
    // tables; a time budget takes a kept solver. (The fresh solver is
    // kept after, for later searches.)
    let keep = nodes.is_none();
    if ndjson {
        return annotate_streamed(&s, body, budget, keep, annotate_time, held).await;
    }
    let kept = s.clone();
    let work = move || -> Result<Vec<u8>, Failure> {
        let _held = held;
        let mut out = Vec::new();
        kept.annotate(&body, budget, keep, annotate_time, &mut out)?;
        Ok(out)
    };
    match s.pool.run(annotate_time.as_secs_f64(), work).await {
        Err(Busy) => busy(&s.pool),
        Ok(Err(f)) => error(status_of(f.kind), f.kind.name(), f.message),
        Ok(Ok(lines)) => {
            // The lines of objects, as one array.
            let mut array = Vec::with_capacity(lines.len() + 2);
            array.push(b'[');
            for (i, line) in lines
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .enumerate()
            {
                if i > 0 {
                    array.push(b',');
                }
                array.extend_from_slice(line);
            }
            array.push(b']');
            (StatusCode::OK, [(CONTENT_TYPE, "application/json")], array).into_response()
        }
    }
}

/// A piece of a streamed annotation: a game's line, or the failure that
/// ended it.
type Piece = Result<Bytes, Failure>;

/// Writes each game's line into the channel as the annotation flushes it
/// (after each game); fails once the client has gone, which stops the
/// annotation and frees its slot.
struct LineSender {
    tx: mpsc::Sender<Piece>,
    buf: Vec<u8>,
}

impl std::io::Write for LineSender {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(b);
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let line = Bytes::from(std::mem::take(&mut self.buf));
        self.tx
            .blocking_send(Ok(line))
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the client has gone"))
    }
}

/// The body of a streamed annotation: the pieces as they come; a failure
/// after the first line is sent as a last line, `{"error", "kind"}`.
struct Streamed {
    first: Option<Bytes>,
    rx: mpsc::Receiver<Piece>,
}

impl http_body::Body for Streamed {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(Ok(http_body::Frame::data(first))));
        }
        self.rx.poll_recv(cx).map(|piece| {
            piece.map(|p| {
                let data = p.unwrap_or_else(|f| {
                    let e = RequestError {
                        error: f.message,
                        kind: f.kind.name(),
                    };
                    Bytes::from(format!("{}\n", e.json()))
                });
                Ok(http_body::Frame::data(data))
            })
        })
    }
}

/// `POST /v1/annotate` as NDJSON: each game's line is sent when its game
/// is done. The status waits for the first line, so that a record holding
/// no game is still a 400.
async fn annotate_streamed(
    s: &Shared,
    body: Bytes,
    budget: Budget,
    keep: bool,
    annotate_time: Duration,
    held: Option<OwnedSemaphorePermit>,
) -> Response {
    let (tx, mut rx) = mpsc::channel::<Piece>(4);
    let kept = s.clone();
    let work = move || {
        let _held = held;
        let mut out = LineSender {
            tx: tx.clone(),
            buf: Vec::new(),
        };
        let done = kept.annotate(&body, budget, keep, annotate_time, &mut out);
        if let Err(f) = done {
            // Gone clients read nothing more.
            let _ = tx.blocking_send(Err(f));
        }
    };
    // The work runs on when the client leaves, until its next line.
    if s.pool
        .start(annotate_time.as_secs_f64(), work)
        .await
        .is_err()
    {
        return busy(&s.pool);
    }
    match rx.recv().await {
        Some(Ok(first)) => {
            let body = Streamed {
                first: Some(first),
                rx,
            };
            (
                StatusCode::OK,
                [
                    (CONTENT_TYPE, "application/x-ndjson"),
                    // nginx passes each line on as it comes.
                    (HeaderName::from_static("x-accel-buffering"), "no"),
                ],
                axum::body::Body::new(body),
            )
                .into_response()
        }
        Some(Err(f)) => error(status_of(f.kind), f.kind.name(), f.message),
        None => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "io",
            "the annotation ended without a word",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_follow_whose_fault_it_is() {
        assert_eq!(status_of(Kind::BadFen), StatusCode::BAD_REQUEST);
        assert_eq!(status_of(Kind::IllegalMove), StatusCode::BAD_REQUEST);
        assert_eq!(status_of(Kind::NoTable), StatusCode::OK);
        assert_eq!(
            status_of(Kind::DamagedTable),
            StatusCode::INTERNAL_SERVER_ERROR
        );
    }
}
