//! The hot path allocates nothing: once its blocks are cached, a
//! win/draw/loss or distance probe makes no heap allocation. Counted with a
//! global allocator, so this file holds a single test.

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use togyz_gen::files::write::write_table;
use togyz_tb::raw::index::Layout;
use togyz_tb::Metric;
use togyz_tb::{terminal_value, Tablebase};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counter has no effect on the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: AllocLayout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn cached_probes_do_not_allocate() {
    let levels = togyz_gen::solve::dtm::solve_all(4).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for n in 1..=4 {
        write_table(dir.path(), Metric::Dtm, n, &levels.table(n)).unwrap();
    }
    let tb = Tablebase::open([dir.path()]).unwrap();
    let layout = Layout::new(4);
    let positions: Vec<_> = (0..layout.positions())
        .step_by(1499)
        .map(|i| layout.slot(i).position())
        .filter(|p| terminal_value(p).is_none())
        .collect();
    assert!(positions.len() > 500);
    // Warm up: map the file, fill the cache.
    for p in &positions {
        tb.value(p).unwrap();
    }
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let mut wins = 0;
    for p in &positions {
        wins += (tb.wdl(p).unwrap() == togyz_tb::Wdl::Win) as usize;
        wins += tb.value(p).unwrap().distance().is_some() as usize;
    }
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    assert!(wins > 0);
    assert_eq!(after - before, 0, "allocations during cached probes");
    // The counter does count: an uncached probe allocates its block.
    let uncached = Tablebase::open_with_cache([dir.path()], 0).unwrap();
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    uncached.wdl(&positions[0]).unwrap();
    assert!(ALLOCATIONS.load(Ordering::Relaxed) > before);
}
