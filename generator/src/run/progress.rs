//! What the long-running commands share: the worker pool and the progress
//! bar.

use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;
use togyz_probe::Metric;

/// A bar over `len` positions labelled `prefix` (e.g. `"verify  8"`), or a
/// hidden one when `show` is false. indicatif draws nothing when standard
/// error is not a terminal, so logs stay clean.
pub fn positions_bar(len: u64, prefix: String, show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix:>10} [{elapsed_precise}] [{bar:40}] {percent:>3}% {human_pos}/{human_len} positions, {per_sec}, eta {eta}",
        )
        .expect("the template is valid")
        .progress_chars("=> "),
    );
    bar.set_prefix(prefix);
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// Parses `--threads`: a whole number of at least 1.
pub fn threads_arg(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1 (leave --threads out for one per core)".into()),
        Ok(t) => Ok(t),
        Err(_) => Err(format!("`{s}` is not a number of threads")),
    }
}

/// Runs `f` on a pool of `threads` worker threads (`None`: one per core).
/// `Err(threads)` if the pool cannot be started (or `threads` is 0).
pub fn with_threads<R: Send>(
    threads: Option<usize>,
    f: impl FnOnce() -> R + Send,
) -> Result<R, usize> {
    if threads == Some(0) {
        return Err(0);
    }
    let threads = threads.unwrap_or(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|_| threads)?;
    Ok(pool.install(f))
}

/// Parses `--metric`: `dtm` or `dtc`.
pub fn metric_arg(s: &str) -> Result<Metric, String> {
    match s.to_ascii_lowercase().as_str() {
        "dtm" => Ok(Metric::Dtm),
        "dtc" => Ok(Metric::Dtc),
        _ => Err(format!(
            "`{s}` is not a metric: dtm (distance to the end) or dtc (distance to conversion)"
        )),
    }
}
