//! Fallible allocation of large arrays: a failed allocation is a typed error
//! ([`CpuError::Allocation`]) naming the op and the size, never an abort of the process.
//!
//! Rust's `vec![x; n]` and `Vec::with_capacity(n)` abort the whole process when the
//! allocator refuses; the kernels that allocate outputs from shapes go through these
//! helpers instead.

use crate::error::{CpuError, Result};

/// An empty vector with room for `n` elements, or an error naming `what`.
///
/// # Errors
/// [`CpuError::Allocation`] when the allocator refuses (or the size overflows).
pub(crate) fn try_with_capacity<T>(n: usize, what: &'static str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| CpuError::Allocation {
        what,
        bytes: (n as u64).saturating_mul(std::mem::size_of::<T>() as u64),
    })?;
    Ok(v)
}

/// A vector of `n` copies of `x`, or an error naming `what`.
///
/// # Errors
/// As [`try_with_capacity`].
pub(crate) fn try_filled<T: Copy>(n: usize, x: T, what: &'static str) -> Result<Vec<T>> {
    let mut v = try_with_capacity(n, what)?;
    if n > 0 {
        // Doubling copies go through libc's memmove, vectorised for the CPU at run time;
        // `resize` is a store loop of the baseline target's 16-byte stores (64% of a
        // pad's time, f32[1024,128], where it fills before the copies).
        v.push(x);
        while v.len() < n {
            v.extend_from_within(..v.len().min(n - v.len()));
        }
    }
    Ok(v)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn an_impossible_allocation_is_an_error() {
        let e = try_filled(usize::MAX / 4, 0f32, "iota").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("iota") && msg.contains("bytes"), "{msg}");
        let e = try_with_capacity::<f64>(1 << 50, "broadcast").unwrap_err();
        assert!(
            matches!(
                e,
                CpuError::Allocation {
                    what: "broadcast",
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn a_small_allocation_works() {
        assert_eq!(try_filled(3, 7u8, "t").unwrap(), vec![7, 7, 7]);
        for n in [0, 1, 2, 3, 5, 63, 64, 65, 1000, 1025] {
            assert_eq!(
                try_filled(n, -0.5f32, "t").unwrap(),
                vec![-0.5f32; n],
                "{n}"
            );
        }
    }
}
