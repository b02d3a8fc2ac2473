//! A counting global allocator, per thread, for proving "no allocation per event" and for
//! measuring heap bytes.
//!
//! Install it in a binary, test or bench:
//!
//! ```
//! #[global_allocator]
//! static ALLOC: cc_bench::alloc_count::CountingAlloc = cc_bench::alloc_count::CountingAlloc;
//!
//! fn main() {
//!     let before = cc_bench::alloc_count::snapshot();
//!     let v = std::hint::black_box(vec![0u8; 100]);
//!     let (allocations, held) = cc_bench::alloc_count::snapshot().since(&before);
//!     assert_eq!((allocations, held), (1, 100));
//!     drop(v);
//! }
//! ```
//!
//! then read [`snapshot`] before and after the code under test. Counters are thread-local, so
//! tests running in parallel do not see each other's allocations. Without the allocator
//! installed every counter stays zero ([`installed`] says which).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static ALLOCATED: Cell<u64> = const { Cell::new(0) };
    static FREED: Cell<u64> = const { Cell::new(0) };
}

/// Allocation counters of the current thread.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AllocSnapshot {
    /// Calls to `alloc`, `alloc_zeroed` and `realloc`.
    pub allocations: u64,
    /// Bytes requested (a `realloc` counts its new size).
    pub allocated_bytes: u64,
    /// Bytes released (a `realloc` counts its old size).
    pub freed_bytes: u64,
}

impl AllocSnapshot {
    /// What happened between `earlier` and `self`: (allocations, net bytes still held).
    pub fn since(&self, earlier: &Self) -> (u64, i64) {
        (
            self.allocations - earlier.allocations,
            (self.allocated_bytes - earlier.allocated_bytes) as i64
                - (self.freed_bytes - earlier.freed_bytes) as i64,
        )
    }
}

/// The current thread's counters.
pub fn snapshot() -> AllocSnapshot {
    AllocSnapshot {
        allocations: ALLOCATIONS.with(Cell::get),
        allocated_bytes: ALLOCATED.with(Cell::get),
        freed_bytes: FREED.with(Cell::get),
    }
}

/// Whether [`CountingAlloc`] is the global allocator (tested by allocating).
pub fn installed() -> bool {
    let before = snapshot();
    let b = std::hint::black_box(Box::new(0u64));
    drop(b);
    snapshot().allocations > before.allocations
}

fn count(allocs: u64, alloc_bytes: usize, free_bytes: usize) {
    // `try_with`: a thread's counters may already be gone while it tears down.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + allocs));
    let _ = ALLOCATED.try_with(|c| c.set(c.get() + alloc_bytes as u64));
    let _ = FREED.try_with(|c| c.set(c.get() + free_bytes as u64));
}

/// The system allocator, counting per thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingAlloc;

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the
// counters are const-initialised thread-locals without destructors, which do not allocate.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(1, layout.size(), 0);
        // SAFETY: forwarded unchanged (the caller upholds `GlobalAlloc::alloc`'s contract).
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(1, layout.size(), 0);
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(0, 0, layout.size());
        // SAFETY: `ptr` came from `System` via this allocator with this `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(1, new_size, layout.size());
        // SAFETY: as for `dealloc`; `new_size` is the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
