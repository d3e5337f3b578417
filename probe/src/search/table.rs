//! Memory for the provers' transposition tables.
//!
//! A table is one anonymous memory map: the system hands out its zeroed
//! pages as they are first touched, so a short search pays only for the
//! part of a large table it uses, and on Linux it is asked for huge pages,
//! since a lookup is a random access into hundreds of megabytes and the
//! misses of the address translation cost as much as the cache misses.

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use memmap2::MmapMut;

/// `len` entries of `T`, every one all-zero bytes at the start.
pub(crate) struct ZeroTable<T> {
    map: MmapMut,
    len: usize,
    _entries: PhantomData<T>,
}

impl<T: Copy> ZeroTable<T> {
    /// A table of `len` entries (a power of two); if the system refuses the
    /// memory, of the largest power of two below it that it grants (at
    /// least 4 entries, on the heap if need be).
    ///
    /// # Safety
    /// All-zero bytes must be a valid `T`.
    pub(crate) unsafe fn new(len: usize) -> ZeroTable<T> {
        assert!(std::mem::align_of::<T>() <= 4096, "pages align the entries");
        let mut len = len.max(4);
        loop {
            let bytes = len.checked_mul(std::mem::size_of::<T>());
            if let Some(map) = bytes.and_then(|b| MmapMut::map_anon(b).ok()) {
                #[cfg(target_os = "linux")]
                {
                    // Only advice: without huge pages the table still works.
                    let _ = map.advise(memmap2::Advice::HugePage);
                }
                return ZeroTable {
                    map,
                    len,
                    _entries: PhantomData,
                };
            }
            if len <= 4 {
                // Even a page is refused: nothing else will get memory.
                std::alloc::handle_alloc_error(
                    std::alloc::Layout::array::<T>(len).expect("four entries fit"),
                );
            }
            len /= 2;
        }
    }
}

impl<T> ZeroTable<T> {
    /// The number of entries (a power of two when asked for one).
    pub(crate) fn len(&self) -> usize {
        self.len
    }

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
