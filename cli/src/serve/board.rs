//! The analysis board: its files, built into the binary. Only these paths
//! are served; no part of a request ever names a file on disk.

use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};

/// `(path, content type, contents)` of every file of the board.
const FILES: &[(&str, &str, &str)] = &[
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("static/index.html"),
    ),
    (
        "/static/board.css",
        "text/css; charset=utf-8",
        include_str!("static/board.css"),
    ),
    (
        "/static/board.js",
        "text/javascript; charset=utf-8",
        include_str!("static/board.js"),
    ),
    (
        "/favicon.svg",
        "image/svg+xml",
        include_str!("static/favicon.svg"),
    ),
];

/// The paths of the board's files, for the router.
pub fn paths() -> impl Iterator<Item = &'static str> {
    FILES.iter().map(|(path, _, _)| *path)
}

/// The file at `path` (one of [`paths`]).
pub fn file(path: &str) -> Response {
    let (_, kind, body) = FILES
        .iter()
        .find(|(p, _, _)| *p == path)
        .expect("routed paths only");
    ([(CONTENT_TYPE, *kind), (CACHE_CONTROL, "no-cache")], *body).into_response()
}
