//! Memory for the provers' transposition tables.
//!
//! A budget's table size is a ceiling, not a cost. A table starts small and
//! doubles, rehashing what it holds, whenever it is half full, until it
//! reaches the size the budget allows; only then does a new entry replace
//! an old one. So a search takes memory, and spends time zeroing it, in
//! proportion to the positions it stores: a proof found in a hundred nodes
//! touches a few kilobytes whatever the budget. (Before, one table of the
//! full size was mapped at the start and entries were spread over all of
//! it, so nearly every huge page of it was touched: 0.56 s for a draw
//! proven in a handful of nodes with the default budget, 2.2 s with 8 GB;
//! docs/performance.md, "Search memory".)
//!
//! Each size is one anonymous memory map: the system hands out zeroed pages
//! as they are first touched. Large maps are asked for huge pages, since a
//! lookup is a random access into hundreds of megabytes and the misses of
//! the address translation cost as much as the cache misses; a growing
//! table is dense, so every page of it is used anyway.

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::time::{Duration, Instant};

use memmap2::MmapMut;

/// Entries a table starts with (or its ceiling, when that is smaller).
pub(crate) const FIRST_ENTRIES: usize = 1 << 10;

/// Maps at least this large are asked for huge pages (16 of them, 2 MiB
/// each): below, a table is small enough for the translation caches.
const HUGE_FROM: usize = 32 << 20;

/// `len` entries of `T`, every one all-zero bytes at the start.
pub(crate) struct ZeroTable<T> {
    map: MmapMut,
    len: usize,
    _entries: PhantomData<T>,
}

impl<T: Copy> ZeroTable<T> {
    /// A table of `len` entries, or `None` if the system refuses the memory.
    ///
    /// # Safety
    /// All-zero bytes must be a valid `T`.
    pub(crate) unsafe fn new(len: usize) -> Option<ZeroTable<T>> {
        assert!(std::mem::align_of::<T>() <= 4096, "pages align the entries");
        let len = len.max(1);
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        let map = MmapMut::map_anon(bytes).ok()?;
        #[cfg(target_os = "linux")]
        if bytes >= HUGE_FROM {
            // Only advice: without huge pages the table still works.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        Some(ZeroTable {
            map,
            len,
            _entries: PhantomData,
        })
    }
}

impl<T> ZeroTable<T> {
    /// Asks the processor to bring entries `first..first + count` into the
    /// cache: a node then looks up its children's entries with the misses
    /// overlapping instead of waiting one after the other.
    pub(crate) fn prefetch(&self, first: usize, count: usize) {
        debug_assert!(first + count <= self.len);
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let start = self
                .map
                .as_ptr()
                .wrapping_add(first * std::mem::size_of::<T>());
            let bytes = count * std::mem::size_of::<T>();
            // Every cache line the entries touch, from the one `start` is in.
            let skew = start as usize & 63;
            let line = start.wrapping_sub(skew);
            for off in (0..skew + bytes).step_by(64) {
                // SAFETY: a prefetch is only a hint and never faults.
                #[allow(unused_unsafe)]
                unsafe {
                    _mm_prefetch::<_MM_HINT_T0>(line.wrapping_add(off).cast());
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (first, count);
    }
}

impl<T: Copy> Deref for ZeroTable<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: the map holds `len * size_of::<T>()` bytes, page-aligned
        // (so aligned for `T`, checked in `new`), initialised by the system
        // to zero, which the caller of `new` vouched is a valid `T`; the
        // map lives as long as `self`, and writes go through `&mut self`.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<T>(), self.len) }
    }
}

impl<T: Copy> DerefMut for ZeroTable<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, with the map borrowed mutably.
        unsafe { std::slice::from_raw_parts_mut(self.map.as_mut_ptr().cast::<T>(), self.len) }
    }
}

/// An entry of a [`Buckets`] table.
pub(crate) trait Slot: Copy {
    /// Whether the slot holds an entry (all-zero bytes: it does not).
    fn used(&self) -> bool;
    /// The hash that places the entry ([`super::key_hash`] of its key).
    fn hash(&self) -> u64;
}

/// A hash table of buckets of `ways` slots that grows from
/// [`FIRST_ENTRIES`] to a ceiling (both powers of two), doubling when half
/// full. The caller picks the slot within a bucket (and so what to
/// replace); before claiming an unused slot it calls [`Buckets::claim`].
pub(crate) struct Buckets<T> {
    entries: ZeroTable<T>,
    ways: usize,
    ceiling: usize,
    used: usize,
    /// What the last doubling cost a moved entry, in nanoseconds, to tell
    /// whether the next one ends before the deadline.
    per_entry_ns: f64,
}

impl<T: Slot> Buckets<T> {
    /// An empty table that may grow to `ceiling` entries (a power of two, at
    /// least `ways`), or `None` if the system refuses even its first size.
    ///
    /// # Safety
    /// All-zero bytes must be a valid `T`, one whose [`Slot::used`] is false.
    pub(crate) unsafe fn new(ways: usize, ceiling: usize) -> Option<Buckets<T>> {
        debug_assert!(ways.is_power_of_two() && ceiling.is_power_of_two() && ceiling >= ways);
        // SAFETY: passed on from the caller.
        let entries = unsafe { ZeroTable::new(FIRST_ENTRIES.min(ceiling)) }?;
        Some(Buckets {
            entries,
            ways,
            ceiling,
            used: 0,
            per_entry_ns: 20.0,
        })
    }

    /// The first slot of the bucket of `hash`.
    pub(crate) fn bucket(&self, hash: u64) -> usize {
        hash as usize & (self.entries.len - 1) & !(self.ways - 1)
    }

    /// The slots of the bucket of `hash`.
    pub(crate) fn slots(&self, hash: u64) -> &[T] {
        let b = self.bucket(hash);
        &self.entries[b..b + self.ways]
    }

    /// The entries (`len()` of them, a power of two).
    pub(crate) fn entries(&mut self) -> &mut [T] {
        &mut self.entries
    }

    /// Brings the bucket of `hash` into the cache.
    pub(crate) fn prefetch(&self, hash: u64) {
        self.entries.prefetch(self.bucket(hash), self.ways);
    }

    /// The entries the table has room for now.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len
    }

    /// The bytes the table takes now.
    pub(crate) fn bytes(&self) -> u64 {
        (self.entries.len * std::mem::size_of::<T>()) as u64
    }

    /// To be called before an entry goes into an unused slot: counts it, and
    /// first doubles the table when that makes it half full, the ceiling
    /// allows it, the system grants the memory and the move would end
    /// before `deadline`. Slots found before the call may have moved.
    pub(crate) fn claim(&mut self, deadline: Option<Instant>) {
        self.used += 1;
        if self.used * 2 <= self.entries.len || self.entries.len >= self.ceiling {
            return;
        }
        let start = Instant::now();
        let cost = Duration::from_secs_f64(self.per_entry_ns * self.used as f64 * 1e-9);
        if deadline.is_some_and(|d| start + cost >= d) {
            return;
        }
        // SAFETY: `new`'s caller vouched for all-zero `T`s.
        let Some(mut bigger) = (unsafe { ZeroTable::<T>::new(self.entries.len * 2) }) else {
            // The system is out of memory: keep replacing in this size.
            self.ceiling = self.entries.len;
            return;
        };
        let mask = bigger.len - 1;
        let mut moved = 0usize;
        for e in self.entries.iter().filter(|e| e.used()) {
            // A bucket of the old table splits into two of the new one, so
            // every entry finds a free slot in its new bucket.
            let b = e.hash() as usize & mask & !(self.ways - 1);
            let free = bigger[b..b + self.ways]
                .iter()
                .position(|s| !s.used())
                .expect("a doubled table has room in every bucket");
            bigger[b + free] = *e;
            moved += 1;
        }
        self.entries = bigger;
        self.per_entry_ns = start.elapsed().as_nanos() as f64 / moved.max(1) as f64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct E {
        key: u64,
        used: bool,
    }

    impl Slot for E {
        fn used(&self) -> bool {
            self.used
        }

        fn hash(&self) -> u64 {
            // Spread, so buckets fill evenly.
            self.key.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        }
    }

    /// Puts `key` in the first free slot of its bucket, as the provers do.
    fn put(t: &mut Buckets<E>, key: u64, deadline: Option<Instant>) -> bool {
        let e = E { key, used: true };
        if t.slots(e.hash()).iter().all(|s| s.used) {
            return false;
        }
        t.claim(deadline);
        let b = t.bucket(e.hash());
        let free = t.slots(e.hash()).iter().position(|s| !s.used).unwrap();
        t.entries()[b + free] = e;
        true
    }

    fn holds(t: &Buckets<E>, key: u64) -> bool {
        let e = E { key, used: true };
        t.slots(e.hash()).contains(&e)
    }

    #[test]
    fn a_table_grows_with_what_it_holds_and_keeps_it() {
        // SAFETY: all-zero bytes are an unused `E`.
        let mut t: Buckets<E> = unsafe { Buckets::new(4, 1 << 20) }.unwrap();
        assert_eq!(t.len(), FIRST_ENTRIES);
        let mut stored = Vec::new();
        for key in 1..=50_000u64 {
            if put(&mut t, key, None) {
                stored.push(key);
            }
            // Half full at most, after the entry that doubled it.
            assert!(
                t.used <= t.len() / 2 + 1,
                "{key}: {} of {}",
                t.used,
                t.len()
            );
        }
        // Below the ceiling a bucket is rarely full.
        assert!(stored.len() > 49_000, "{}", stored.len());
        assert!(t.len() <= 1 << 17, "{}", t.len());
        assert_eq!(t.bytes(), (t.len() * 16) as u64);
        assert!(stored.iter().all(|&k| holds(&t, k)));
    }

    #[test]
    fn a_table_stops_at_its_ceiling_and_at_the_deadline() {
        // SAFETY: as above.
        let mut t: Buckets<E> = unsafe { Buckets::new(2, 1 << 12) }.unwrap();
        for key in 1..=100_000u64 {
            put(&mut t, key, None);
        }
        assert_eq!(t.len(), 1 << 12);
        // SAFETY: as above.
        let mut late: Buckets<E> = unsafe { Buckets::new(2, 1 << 20) }.unwrap();
        let past = Some(Instant::now());
        for key in 1..=10_000u64 {
            put(&mut late, key, past);
        }
        assert_eq!(late.len(), FIRST_ENTRIES);
    }
}
