//! The searches: at most `--searches` at once on blocking threads (so that
//! the answers from the tables, served on the async workers, never wait for
//! one), at most `--queue` waiting behind them, and a cache of their proven
//! answers in which concurrent requests for one position wait for the first
//! one's search instead of starting their own.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use quick_cache::sync::Cache;
use quick_cache::Weighter;
use tokio::sync::Semaphore;

use super::metrics::Metrics;

/// The pool is full: the request should come back later.
#[derive(Debug)]
pub struct Busy;

/// A cached answer: its JSON text and its status code.
pub type Cached = Arc<(u16, String)>;

/// The cache's key: the position's FEN and the search time in
/// milliseconds (a longer search may prove more).
type Key = (String, u64);

/// What becomes of a search's answer once the requests waiting for it have
/// it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Kept in the cache: a proven result, which no later search changes.
    Cached,
    /// Given to the requests that waited for it, then dropped: a result
    /// left open, which a later search (with a kept solver that has grown
    /// since) may prove, as when a player steps back to a position.
    Shared,
    /// Given to no one else: a failure, which each request meets itself.
    Not,
}

/// An answer weighs its bytes (and its key's).
#[derive(Clone)]
struct Bytes;

impl Weighter<Key, Cached> for Bytes {
    fn weight(&self, key: &Key, value: &Cached) -> u64 {
        (key.0.len() + value.1.len() + 64) as u64
    }
}

/// Lowers the calling thread's priority to the least (nice 19): a search
/// (and the threads it starts, which inherit it) then gets a core only when
/// the async workers answering from the tables leave one free, so that
/// searches never slow those answers down. Every thread of the blocking
/// pool runs searches or annotations only, so it stays low.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: setpriority takes integers only and touches no memory of
        // ours; on Linux, PRIO_PROCESS with `who` 0 is the calling thread
        // alone. Failing (it cannot, for a lower priority) changes nothing.
        let _ = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, 19) };
    }
}

/// The bounded searches and their answers.
pub struct Pool {
    slots: Arc<Semaphore>,
    searches: usize,
    queue: usize,
    /// The most time the work queued and running may still take, in
    /// milliseconds: each adds its time limit while it waits or runs.
    pending: Arc<AtomicU64>,
    cache: Option<Cache<Key, Cached, Bytes>>,
    metrics: Arc<Metrics>,
}

/// Takes one off a gauge when dropped (a request that waited or ran, even
/// if its client went away meanwhile).
struct Count(prometheus_client::metrics::gauge::Gauge);

impl Drop for Count {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// Takes a work's time limit off [`Pool::pending`] when dropped.
struct Pending(Arc<AtomicU64>, u64);

impl Drop for Pending {
    fn drop(&mut self) {
        self.0.fetch_sub(self.1, Ordering::Relaxed);
    }
}

impl Pool {
    /// A pool of `searches` slots, `queue` places behind them and
    /// `cache_bytes` of answers.
    pub fn new(searches: usize, queue: usize, cache_bytes: u64, metrics: Arc<Metrics>) -> Pool {
        let cache = (cache_bytes > 0).then(|| {
            // An answer with its moves is about 2 kB.
            let items = usize::try_from(cache_bytes / 2048)
                .unwrap_or(usize::MAX)
                .max(16);
            Cache::with_weighter(items, cache_bytes, Bytes)
        });
        Pool {
            slots: Arc::new(Semaphore::new(searches)),
            searches,
            queue,
            pending: Arc::new(AtomicU64::new(0)),
            cache,
            metrics,
        }
    }

    /// Seconds until a slot is surely free for a request turned away now:
    /// the time limits of the work queued and running, shared by the
    /// slots (at least 1).
    pub fn retry_after(&self) -> u64 {
        let millis = self.pending.load(Ordering::Relaxed);
        millis.div_ceil(1000 * self.searches as u64).max(1)
    }

    /// Runs `work`, which takes at most `seconds`, on a blocking thread
    /// once a slot is free, or fails at once when the queue is full.
    ///
    /// # Errors
    /// [`Busy`] when every slot is taken and the queue is full.
    pub async fn run<T: Send + 'static>(
        &self,
        seconds: f64,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Busy> {
        let task = self.start(seconds, work).await?;
        Ok(task
            .await
            .unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic())))
    }

    /// Starts `work` (at most `seconds`) on a blocking thread once a slot
    /// is free, and returns its task; or fails at once when the queue is
    /// full.
    ///
    /// # Errors
    /// [`Busy`] when every slot is taken and the queue is full.
    pub async fn start<T: Send + 'static>(
        &self,
        seconds: f64,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<tokio::task::JoinHandle<T>, Busy> {
        let millis = (seconds * 1000.0).ceil() as u64;
        let permit = match self.slots.clone().try_acquire_owned() {
            Ok(p) => p,
            Err(_) => {
                let queued = &self.metrics.searches_queued;
                if queued.inc() >= self.queue as i64 {
                    queued.dec();
                    self.metrics.searches_rejected.inc();
                    return Err(Busy);
                }
                let _waiting = Count(queued.clone());
                self.pending.fetch_add(millis, Ordering::Relaxed);
                let pending = Pending(self.pending.clone(), millis);
                let permit = self
                    .slots
                    .clone()
                    .acquire_owned()
                    .await
                    .expect("the semaphore is never closed");
                drop(pending);
                permit
            }
        };
        self.metrics.searches_running.inc();
        let running = Count(self.metrics.searches_running.clone());
        self.pending.fetch_add(millis, Ordering::Relaxed);
        let pending = Pending(self.pending.clone(), millis);
        // The slot and the counts go with the work: a client that leaves
        // does not free the slot before the search ends.
        Ok(tokio::task::spawn_blocking(move || {
            lower_priority();
            let out = work();
            drop((permit, running, pending));
            out
        }))
    }

    /// The cached answer for `key`, or the one `search` makes (run in the
    /// pool); concurrent calls for one key run one search, unless it
    /// failed. `search` says what becomes of its answer ([`Keep`]).
    ///
    /// # Errors
    /// [`Busy`] from [`Pool::run`].
    pub async fn cached(
        &self,
        fen: String,
        millis: u64,
        search: impl FnOnce() -> (Cached, Keep) + Send + 'static,
    ) -> Result<Cached, Busy> {
        let Some(cache) = &self.cache else {
            self.metrics.cache_misses.inc();
            return self
                .run(millis as f64 / 1000.0, search)
                .await
                .map(|(answer, _)| answer);
        };
        let key = (fen, millis);
        match cache.get_value_or_guard_async(&key).await {
            Ok(answer) => {
                self.metrics.cache_hits.inc();
                Ok(answer)
            }
            Err(guard) => {
                self.metrics.cache_misses.inc();
                // Busy drops the guard: a waiting request then tries itself.
                let (answer, keep) = self.run(millis as f64 / 1000.0, search).await?;
                if keep != Keep::Not {
                    // The waiting requests take it from the cache.
                    let _ = guard.insert(answer.clone());
                }
                if keep == Keep::Shared {
                    // Only this answer: a later search's stays.
                    cache.remove_if(&key, |a| Arc::ptr_eq(a, &answer));
                }
                Ok(answer)
            }
        }
    }
}
