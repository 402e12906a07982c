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
//!
//! mimalloc also returns freed memory to the kernel ("purges" it, `MADV_DONTNEED`) a while
//! after it is freed, so a block of several MiB freed at the end of one run and allocated
//! again in the next is faulted in and zeroed by the kernel page by page. Measured on the
//! `B2` ensemble module (`xla vmap` of the MLP step over 4 weight sets, f32[4,784,512]
//! values), at one thread: 76 to 508 page faults per run with purging, none without (the
//! unbatched step: about 20, none). The CPU time this saves was within the noise of a
//! loaded machine (8 interleaved rounds at load 6 to 15: ensemble 16.9 to 21.3 ms per run
//! with purging, 18.3 to 21.4 without); the main engineer re-measures quiet. [`keep_freed_memory`] turns purging off: freed memory stays committed
//! for reuse, so the resident size stays at its peak instead of shrinking between runs.

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

/// mimalloc's `mi_option_purge_delay` (its position in the `mi_option_e` enumeration of
/// `mimalloc.h`, v3; `libmimalloc-sys` names no constant for it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Turns off mimalloc's purging of freed memory (see the module comment), unless the user
/// chose a delay with `MIMALLOC_PURGE_DELAY`.
pub fn keep_freed_memory() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: `mi_option_set` only stores the value (thread safe, any time).
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) }
    }
}

#[cfg(test)]
mod tests {
    /// The option is the purge delay: its default in mimalloc v3 is 1000 ms, and
    /// `keep_freed_memory` makes it -1 (never).
    #[test]
    fn the_purge_delay_option_is_the_one_set() {
        // SAFETY: reading an option is thread safe.
        let before = unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY) };
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(before, 1000);
        }
        super::keep_freed_memory();
        // SAFETY: as above.
        let after = unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY) };
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(after, -1);
        }
    }
}
