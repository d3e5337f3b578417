//! `togyz-probe serve`: the tables and the proof search over HTTP, with the
//! analysis board in the browser (docs/http-api.md describes every route).
//!
//! One file, one job: [`config`] the command line, [`routes`] the handlers
//! and their JSON, [`pool`] the bounded searches and the cache of their
//! answers, [`solvers`] the solvers kept between searches, [`metrics`] the
//! Prometheus counters and the log line of each request, [`board`] the
//! board's files built into the binary, [`clients`] the connections of
//! each client address. This file runs the listener: a connection past the
//! limits (in all, or of its address) is closed at once, one that sends
//! nothing within `--first-byte-timeout` soon after; hyper serves the
//! others (with a timeout on reading a request's head), axum routes them.

mod board;
mod clients;
mod config;
mod metrics;
mod pool;
mod routes;
mod solvers;

use std::sync::Arc;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt;

pub use config::Args;

use crate::common::failure::{Failure, Kind};

/// The longest request head (request line and headers) read.
const MAX_HEAD: usize = 64 * 1024;

/// Runs the server until it is stopped (Ctrl-C, SIGTERM).
///
/// # Errors
/// The tables folder cannot be read or holds no tables, or the address
/// cannot be bound.
pub fn run(args: Args) -> Result<(), Failure> {
    let config = args.config()?;
    let tables = args.tables.open();
    if let Some(f) = tables.open_failure() {
        return Err(f);
    }
    // `query` answers finished games without tables; a server without any
    // is a wrong folder.
    if tables.tb.stones().next().is_none() {
        return Err(Failure::new(
            Kind::NoTable,
            format!("{}: the server needs tables", tables.coverage()),
        ));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.workers)
        .enable_all()
        .build()
        .map_err(|e| Failure::new(Kind::Io, format!("cannot start the server's threads: {e}")))?;
    let served = runtime.block_on(serve(config, tables));
    // Searches still running are of no use to anyone now: stop waiting for
    // them soon (a drop would wait for each to run out its time).
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    served
}

/// Binds the address and serves connections until a stop signal.
async fn serve(
    config: config::Config,
    tables: crate::common::tables::Tables,
) -> Result<(), Failure> {
    let listener = TcpListener::bind(config.bind)
        .await
        .map_err(|e| Failure::new(Kind::Io, format!("cannot listen on {}: {e}", config.bind)))?;
    let local = listener
        .local_addr()
        .map_err(|e| Failure::new(Kind::Io, format!("cannot read the bound address: {e}")))?;
    eprintln!(
        "togyz-probe serve: listening on http://{local} ({}; searches: {} at once, {} queued; \
         search time up to {} s)",
        tables.coverage(),
        config.searches,
        config.queue,
        config.search_time
    );
    let connections = Arc::new(Semaphore::new(config.max_connections));
    let clients = clients::Clients::new(config.max_client_connections);
    let header_timeout = config.client_timeout;
    let first_byte = config.first_byte_timeout;
    let state = routes::state(config, tables);
    let app = routes::router(state);
    let stop = stop_signal();
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(c) => c,
                // Out of file descriptors and the like: wait, then go on.
                Err(e) => {
                    eprintln!("accept failed: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        // Past the connection limit the connection is closed at once: a
        // flood costs a file descriptor for a moment, not a task each.
        let Ok(permit) = connections.clone().try_acquire_owned() else {
            drop(stream);
            continue;
        };
        // So is one past its address's own limit: one client cannot take
        // every slot.
        let Some(slot) = clients.take(peer.ip()) else {
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        tokio::spawn(async move {
            // A connection that sends nothing holds its slots for
            // --first-byte-timeout, not for the whole --client-timeout.
            let mut first = [0u8; 1];
            match tokio::time::timeout(first_byte, stream.peek(&mut first)).await {
                Ok(Ok(n)) if n > 0 => {}
                // Silent, closed, or failed: nothing to answer.
                _ => return,
            }
            let svc = app.map_request(move |req: hyper::Request<hyper::body::Incoming>| {
                let mut req = req.map(axum::body::Body::new);
                req.extensions_mut().insert(metrics::Peer(peer));
                req
            });
            let conn = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                // A request's head (its line and headers) fits in 64 KiB;
                // a longer one gets 431 or 414 and the connection closes.
                .max_buf_size(MAX_HEAD)
                .max_header_size(MAX_HEAD)
                .serve_connection(TokioIo::new(stream), TowerToHyperService::new(svc));
            // A client that goes away or times out is no error of ours.
            let _ = conn.await;
            drop((permit, slot));
        });
    }
    eprintln!("togyz-probe serve: stopped");
    Ok(())
}

/// Ctrl-C, or SIGTERM on Unix (what systemd and containers send).
async fn stop_signal() {
    let ctrl_c = async {
        // Without a handler the signal still ends the process.
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}
