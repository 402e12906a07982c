//! Reads that the executor's own plans prove in bounds.
//!
//! A kernel's inner loop reads positions its plan computed from verified shapes (a
//! convolution's window offsets, a reduce-window's groups, a batch's matrix offsets). An
//! out-of-range position there is a bug in xla-cpu, never something a module can cause.
//! These helpers name that invariant: debug builds (and so CI) assert it, with the caller's
//! location; release builds never panic and read the element type's zero (or an empty
//! slice), keeping the inner loop free of error plumbing. Where a check is cheap (once per
//! call rather than per element) kernels return [`crate::CpuError::Internal`] instead.

use std::ops::Range;

/// `v[i]`, which the caller's plan proves in bounds (`what` names the plan).
#[inline(always)]
#[track_caller]
pub(crate) fn at<T: Copy + Default>(v: &[T], i: usize, what: &'static str) -> T {
    debug_assert!(
        i < v.len(),
        "xla-cpu invariant broken: {what} reads element {i} of {}",
        v.len()
    );
    v.get(i).copied().unwrap_or_default()
}

/// `v[i]`, which the caller's plan proves in bounds, for element types without a
/// `Default` (`zero` is read in release builds if the invariant breaks).
#[inline(always)]
#[track_caller]
pub(crate) fn at_or<T: Copy>(v: &[T], i: usize, what: &'static str, zero: T) -> T {
    debug_assert!(
        i < v.len(),
        "xla-cpu invariant broken: {what} reads element {i} of {}",
        v.len()
    );
    v.get(i).copied().unwrap_or(zero)
}

/// `&v[r]`, which the caller's plan proves in bounds (`what` names the plan).
#[inline(always)]
#[track_caller]
pub(crate) fn span<'a, T>(v: &'a [T], r: Range<usize>, what: &'static str) -> &'a [T] {
    debug_assert!(
        r.start <= r.end && r.end <= v.len(),
        "xla-cpu invariant broken: {what} reads {r:?} of {} elements",
        v.len()
    );
    v.get(r).unwrap_or(&[])
}

/// `&v[from..]`, which the caller's plan proves in bounds (`what` names the plan).
#[inline(always)]
#[track_caller]
pub(crate) fn tail<'a, T>(v: &'a [T], from: usize, what: &'static str) -> &'a [T] {
    debug_assert!(
        from <= v.len(),
        "xla-cpu invariant broken: {what} reads from {from} of {} elements",
        v.len()
    );
    v.get(from..).unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_bounds_reads_are_plain_reads() {
        let v = [1.5f32, 2.5, 3.5];
        assert_eq!(at(&v, 1, "test"), 2.5);
        assert_eq!(at_or(&v, 2, "test", 0.0), 3.5);
        assert_eq!(span(&v, 1..3, "test"), &[2.5, 3.5]);
        assert_eq!(tail(&v, 2, "test"), &[3.5]);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "xla-cpu invariant broken: test plan reads element 3 of 3")]
    fn out_of_bounds_reads_assert_in_debug_builds() {
        at(&[1.0f32, 2.0, 3.0], 3, "test plan");
    }
}
