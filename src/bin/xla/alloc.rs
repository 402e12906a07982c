//! The command line's allocator: mimalloc for everything but huge blocks, which go to the
//! C allocator.
//!
//! Loop bodies free and allocate the same buffer sizes every iteration; glibc's allocator
//! served them with consolidation and page faults (7% of a GRU training step; against glibc
//! tuned by `xla::cpu::retain_freed_memory`, mimalloc took that step from 19.5 to 17.7 ms).
//! But mimalloc maps memory with `MAP_NORESERVE` where the kernel overcommits, so a block
//! far larger than the machine is granted and the process is killed when it is touched;
//! glibc's `mmap` is refused up front, which the executor turns into a typed out-of-memory
//! error. Blocks from [`HUGE`] up therefore go to the C allocator. The library itself
//! leaves the choice of allocator to its users.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks of this many bytes or more are the C allocator's (mmap'ed by glibc either way).
const HUGE: usize = 1 << 28;

/// mimalloc below [`HUGE`] bytes, the C allocator from there.
pub struct Alloc;

fn huge(layout: Layout) -> bool {
    layout.size() >= HUGE
}

// SAFETY: every block is freed (and reallocated) by the allocator that made it: the
// choice depends only on the size, and `dealloc`/`realloc` receive the size the block was
// allocated with (the `GlobalAlloc` contract). A `realloc` that crosses `HUGE` allocates
// with the new allocator, copies `min(old, new)` bytes and frees with the old one, as
// `GlobalAlloc::realloc`'s default does. Both allocators honour every `Layout`.
unsafe impl GlobalAlloc for Alloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees (non-zero size).
        unsafe {
            if huge(layout) {
                System.alloc(layout)
            } else {
                mimalloc::MiMalloc.alloc(layout)
            }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe {
            if huge(layout) {
                System.alloc_zeroed(layout)
            } else {
                mimalloc::MiMalloc.alloc_zeroed(layout)
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` with this `layout`, so from the same allocator.
        unsafe {
            if huge(layout) {
                System.dealloc(ptr, layout)
            } else {
                mimalloc::MiMalloc.dealloc(ptr, layout)
            }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Ok(new) = Layout::from_size_align(new_size, layout.align()) else {
            return std::ptr::null_mut();
        };
        // SAFETY: the caller's guarantees for `ptr`/`layout`; the same allocator on both
        // sides, or a fresh block of the new allocator that receives the old bytes.
        unsafe {
            match (huge(layout), huge(new)) {
                (false, false) => mimalloc::MiMalloc.realloc(ptr, layout, new_size),
                (true, true) => System.realloc(ptr, layout, new_size),
                _ => {
                    let fresh = self.alloc(new);
                    if !fresh.is_null() {
                        std::ptr::copy_nonoverlapping(ptr, fresh, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                    fresh
                }
            }
        }
    }
}
