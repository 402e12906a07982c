//! Process-wide allocator tuning for programs that run executables repeatedly.

/// Asks the C allocator to keep freed memory for reuse instead of returning it to the
/// operating system, so repeated executions of a module stop paying page faults (and the
/// kernel's zeroing) for every large intermediate array.
///
/// glibc's defaults serve arrays over 32 MiB (and, until a first free, over 128 KiB) with
/// fresh `mmap`s and trim the heap on free: measured on the CNN training step of
/// `../shared/perf/hlo/B3_cnn_step.hlo`, 13,700 page faults per execution, and 12% of
/// its time. After this call: 900 per execution.
///
/// This changes the whole process's allocator behaviour (the memory stays mapped while the
/// process lives), so it is a choice for the program, not something the library does by
/// itself: the `xla` command line and the examples call it at start-up. Returns `false`
/// where it does nothing (not glibc, or glibc refused a setting). Setting the environment
/// variables `MALLOC_MMAP_THRESHOLD_` and `MALLOC_TRIM_THRESHOLD_`, or using an allocator
/// such as mimalloc, has the same effect.
pub fn retain_freed_memory() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // 1 GiB: larger arrays are rare and are better returned to the system.
        const MMAP_THRESHOLD: libc::c_int = 1 << 30;
        const TRIM_THRESHOLD: libc::c_int = libc::c_int::MAX;
        // SAFETY: `mallopt` only adjusts glibc's allocator parameters; it takes plain
        // integers, touches no memory of ours, and is thread-safe (it takes the arena locks).
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
                && libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}
