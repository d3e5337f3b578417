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

/// Maps at least this large are asked for huge pages (two of 2 MiB): a
/// growing table is dense, so a huge page is filled, not wasted.
const HUGE_FROM: usize = 4 << 20;

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
        let table = ZeroTable {
            map,
            len,
            _entries: PhantomData,
        };
        table.advise();
        table.populate(0);
        Some(table)
    }

    /// Doubles the table in place, the new half all-zero; `false` if the
    /// system refuses (the table is then unchanged). Where the system cannot
    /// grow a map, the caller copies into a new table instead.
    #[cfg(target_os = "linux")]
    fn double(&mut self) -> bool {
        let Some(bytes) = (self.len * 2).checked_mul(std::mem::size_of::<T>()) else {
            return false;
        };
        // SAFETY: the map is anonymous, so there is no file end to read
        // past: the pages it gains are zero-filled (`mremap(2)`), which
        // `new`'s caller vouched is a valid `T`. `len` follows the map.
        let grown = unsafe {
            self.map
                .remap(bytes, memmap2::RemapOptions::new().may_move(true))
        };
        if grown.is_err() {
            return false;
        }
        let old_bytes = self.len * std::mem::size_of::<T>();
        self.len *= 2;
        self.advise();
        self.populate(old_bytes);
        true
    }

    /// Asks for huge pages when the map is large enough to fill them.
    fn advise(&self) {
        #[cfg(target_os = "linux")]
        if self.map.len() >= HUGE_FROM {
            // Only advice: without huge pages the table still works.
            let _ = self.map.advise(memmap2::Advice::HugePage);
        }
    }

    /// Has the system map the bytes from `from` on, zeroed and writable,
    /// now. A table is dense, so they are all written soon; left to fault
    /// one by one, a lookup first maps the shared zero page and the write
    /// after it copies, flushing the other core's address translations:
    /// 3 % of a search's samples went to those flushes, 0.8 % to the
    /// faults (docs/performance.md, "Tables mapped writable at once").
    fn populate(&self, from: usize) {
        #[cfg(target_os = "linux")]
        {
            let len = self.map.len().saturating_sub(from);
            // Only advice: a system without it (before Linux 5.14) faults
            // the pages in as they are touched.
            if len > 0 {
                let _ = (self.map).advise_range(memmap2::Advice::PopulateWrite, from, len);
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = from;
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

/// What an entry worth `value` to keep is worth `age` searches after it
/// was written: a quarter as much for each search since, at least 1 (so
/// that an unused slot, worth 0, is always taken first). The provers'
/// tables are kept between the searches of one solver (a game, a file of
/// games, an engine's session); this makes them fill with what the current
/// search needs, not with the costly entries of positions long past.
pub(crate) fn aged(value: u64, age: u32) -> u64 {
    1 + (value >> (2 * age).min(63))
}

/// An entry of a [`Buckets`] table.
pub(crate) trait Slot: Copy {
    /// Whether the slot holds an entry (all-zero bytes: it does not).
    fn used(&self) -> bool;
    /// The hash that places the entry ([`super::key_hash`] of its key).
    fn hash(&self) -> u64;
}

/// A hash table of buckets of `WAYS` slots (a power of two) that grows
/// from [`FIRST_ENTRIES`] to a ceiling (both powers of two), doubling when
/// half full. The caller picks the slot within a bucket (its key's, or what
/// to replace), and [`Buckets::slot_for`] gives the place to write.
pub(crate) struct Buckets<T, const WAYS: usize> {
    entries: ZeroTable<T>,
    ceiling: usize,
    used: usize,
    /// What the last doubling cost a moved entry, in nanoseconds, to tell
    /// whether the next one ends before the deadline.
    per_entry_ns: f64,
}

impl<T: Slot, const WAYS: usize> Buckets<T, WAYS> {
    /// An empty table that may grow to `ceiling` entries (a power of two, at
    /// least `WAYS`), or `None` if the system refuses even its first size.
    ///
    /// # Safety
    /// All-zero bytes must be a valid `T`, one whose [`Slot::used`] is false.
    pub(crate) unsafe fn new(ceiling: usize) -> Option<Buckets<T, WAYS>> {
        debug_assert!(WAYS.is_power_of_two() && ceiling.is_power_of_two() && ceiling >= WAYS);
        // SAFETY: passed on from the caller.
        let entries = unsafe { ZeroTable::new(FIRST_ENTRIES.min(ceiling)) }?;
        Some(Buckets {
            entries,
            ceiling,
            used: 0,
            per_entry_ns: 20.0,
        })
    }

    /// The first slot of the bucket of `hash`.
    fn bucket(&self, hash: u64) -> usize {
        hash as usize & (self.entries.len - 1) & !(WAYS - 1)
    }

    /// The slots of the bucket of `hash`.
    pub(crate) fn slots(&self, hash: u64) -> &[T; WAYS] {
        let b = self.bucket(hash);
        self.entries[b..b + WAYS]
            .try_into()
            .expect("a bucket is WAYS slots")
    }

    /// Where to write the entry hashed to `hash` into slot `pick` of its
    /// bucket (its key's slot, or the one to replace). When that slot is
    /// unused, the entry is counted first, and the table may double
    /// ([`Buckets::claim`]): the place is then the first free slot of the
    /// key's bucket, which a doubling keeps free.
    pub(crate) fn slot_for(&mut self, hash: u64, pick: usize, deadline: Option<Instant>) -> &mut T {
        let mut i = self.bucket(hash) + pick;
        if !self.entries[i].used() {
            self.claim(deadline);
            let b = self.bucket(hash);
            let free = (self.slots(hash).iter())
                .position(|s| !s.used())
                .expect("a claimed bucket has a free slot");
            i = b + free;
        }
        &mut self.entries[i]
    }

    /// Brings the bucket of `hash` into the cache.
    pub(crate) fn prefetch(&self, hash: u64) {
        self.entries.prefetch(self.bucket(hash), WAYS);
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

    /// Counts an entry about to go into an unused slot, and first doubles
    /// the table when that makes it half full, the ceiling allows it, the
    /// system grants the memory and the move would end before `deadline`.
    /// Slots found before the call may have moved.
    fn claim(&mut self, deadline: Option<Instant>) {
        self.used += 1;
        if self.used * 2 <= self.entries.len || self.entries.len >= self.ceiling {
            return;
        }
        let start = Instant::now();
        let cost = Duration::from_secs_f64(self.per_entry_ns * self.used as f64 * 1e-9);
        if deadline.is_some_and(|d| start + cost >= d) {
            return;
        }
        if !self.double() {
            // The system is out of memory: keep replacing in this size.
            self.ceiling = self.entries.len;
            return;
        }
        self.per_entry_ns = start.elapsed().as_nanos() as f64 / self.used as f64;
    }

    /// Doubles the table: a bucket `b` of the old table splits into `b` and
    /// `b + len` of the new one (the hash's next bit), so every entry finds
    /// a free slot. In place where the system can grow the map (no second
    /// copy in memory), by copying elsewhere. `false` if the memory is
    /// refused.
    fn double(&mut self) -> bool {
        let (old, ways) = (self.entries.len, WAYS);
        #[cfg(target_os = "linux")]
        {
            if !self.entries.double() {
                return false;
            }
            let mask = 2 * old - 1;
            // SAFETY: `new`'s caller vouched that all-zero bytes are an
            // unused `T`.
            let empty: T = unsafe { std::mem::zeroed() };
            for b in (0..old).step_by(ways) {
                for i in b..b + ways {
                    let e = self.entries[i];
                    if !e.used() || e.hash() as usize & mask & !(ways - 1) == b {
                        continue;
                    }
                    let up = &mut self.entries[b + old..b + old + ways];
                    let free = (up.iter())
                        .position(|s| !s.used())
                        .expect("a split bucket has room for what leaves the old one");
                    up[free] = e;
                    self.entries[i] = empty;
                }
            }
            true
        }
        #[cfg(not(target_os = "linux"))]
        {
            // SAFETY: `new`'s caller vouched for all-zero `T`s.
            let Some(mut bigger) = (unsafe { ZeroTable::<T>::new(old * 2) }) else {
                return false;
            };
            let mask = 2 * old - 1;
            for e in self.entries.iter().filter(|e| e.used()) {
                let b = e.hash() as usize & mask & !(ways - 1);
                let free = (bigger[b..b + ways].iter())
                    .position(|s| !s.used())
                    .expect("a split bucket has room for what leaves the old one");
                bigger[b + free] = *e;
            }
            self.entries = bigger;
            true
        }
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

    /// Puts `key` in a free slot of its bucket, as the provers do.
    fn put<const W: usize>(t: &mut Buckets<E, W>, key: u64, deadline: Option<Instant>) -> bool {
        let e = E { key, used: true };
        let Some(free) = t.slots(e.hash()).iter().position(|s| !s.used) else {
            return false;
        };
        *t.slot_for(e.hash(), free, deadline) = e;
        true
    }

    fn holds<const W: usize>(t: &Buckets<E, W>, key: u64) -> bool {
        let e = E { key, used: true };
        t.slots(e.hash()).contains(&e)
    }

    #[test]
    fn a_table_grows_with_what_it_holds_and_keeps_it() {
        // SAFETY: all-zero bytes are an unused `E`.
        let mut t: Buckets<E, 4> = unsafe { Buckets::new(1 << 20) }.unwrap();
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
        let mut t: Buckets<E, 2> = unsafe { Buckets::new(1 << 12) }.unwrap();
        for key in 1..=100_000u64 {
            put(&mut t, key, None);
        }
        assert_eq!(t.len(), 1 << 12);
        // SAFETY: as above.
        let mut late: Buckets<E, 2> = unsafe { Buckets::new(1 << 20) }.unwrap();
        let past = Some(Instant::now());
        for key in 1..=10_000u64 {
            put(&mut late, key, past);
        }
        assert_eq!(late.len(), FIRST_ENTRIES);
    }
}
