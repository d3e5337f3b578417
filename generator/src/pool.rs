//! The worker pool of the long-running commands: `generate`, `assemble`,
//! `verify` and `stats`.

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
