//! Hints that bring memory into the cache ahead of its use: a solver
//! that knows the several bytes it will read next asks for them at once,
//! so their cache misses overlap.

/// Asks the processor to bring `bytes[i]` into the cache (a hint: an
/// index out of range is ignored).
#[inline(always)]
pub fn prefetch_byte(bytes: &[u8], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(b) = bytes.get(i) {
        // SAFETY: a prefetch is only a hint and never faults; the address
        // is in the slice anyway.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                (b as *const u8).cast(),
            )
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (bytes, i);
}
