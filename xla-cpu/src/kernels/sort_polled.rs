//! A stable sort of one long slice that polls the run's stop (`limits/stop.rs`): runs of
//! `POLL_EVERY` positions sorted by the standard library's stable sort, then merged
//! pairwise, bottom-up, with a poll every `POLL_EVERY` merged positions. A stable sort's
//! result is unique, so this gives exactly what one `sort_by_key` of the whole slice gives.
//! The sort takes it only in a run with a token or deadline (a run without keeps the
//! standard library's sort).

use crate::error::Result;
use crate::limits::stop::{Poll, POLL_EVERY};

/// Sorts `idx` stably by `key`, as `idx.sort_by_key(key)` does.
///
/// # Errors
/// [`crate::CpuError::Stopped`] when the run must stop (`idx` is then left in some order,
/// never used: the executor reports the stop).
pub(crate) fn sort_by_key_polled<K: Ord>(
    idx: &mut Vec<usize>,
    key: impl Fn(usize) -> K,
    poll: &mut Poll,
) -> Result<()> {
    let n = idx.len();
    for run in idx.chunks_mut(POLL_EVERY) {
        poll.tick(run.len())?;
        run.sort_by_key(|&a| key(a));
    }
    let mut buf = vec![0usize; n];
    let mut width = POLL_EVERY;
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (left, right) = idx.split_at(mid);
            let (a, b) = (&left[lo..], &right[..hi - mid]);
            merge(a, b, &mut buf[lo..hi], &key, poll)?;
            lo = hi;
        }
        std::mem::swap(idx, &mut buf);
        width *= 2;
    }
    Ok(())
}

/// Merges the sorted `a` and `b` into `out` (as long as both): on equal keys `a`'s first,
/// which keeps the order stable.
fn merge<K: Ord>(
    a: &[usize],
    b: &[usize],
    out: &mut [usize],
    key: &impl Fn(usize) -> K,
    poll: &mut Poll,
) -> Result<()> {
    let (mut i, mut j) = (0, 0);
    for block in out.chunks_mut(POLL_EVERY) {
        poll.tick(block.len())?;
        for slot in block {
            match (a.get(i), b.get(j)) {
                (Some(&x), Some(&y)) if key(y) < key(x) => {
                    *slot = y;
                    j += 1;
                }
                (Some(&x), _) => {
                    *slot = x;
                    i += 1;
                }
                (None, Some(&y)) => {
                    *slot = y;
                    j += 1;
                }
                (None, None) => {}
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::cmp::Reverse;

    /// Random keys with many ties (so stability shows), over lengths around the run size.
    #[test]
    fn gives_the_standard_stable_sort() {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        for n in [
            0,
            1,
            POLL_EVERY - 1,
            POLL_EVERY,
            POLL_EVERY + 1,
            3 * POLL_EVERY + 123,
            4 * POLL_EVERY,
        ] {
            let keys: Vec<i128> = (0..n)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    i128::from(s % 50) - 25
                })
                .collect();
            let k = |a: usize| keys[a];
            let mut want: Vec<usize> = (0..n).collect();
            want.sort_by_key(|&a| k(a));
            let mut got: Vec<usize> = (0..n).collect();
            sort_by_key_polled(&mut got, k, &mut Poll::new(0)).unwrap();
            assert_eq!(got, want, "n = {n}");
            let mut want: Vec<usize> = (0..n).collect();
            want.sort_by_key(|&a| Reverse(k(a)));
            let mut got: Vec<usize> = (0..n).collect();
            sort_by_key_polled(&mut got, |a| Reverse(k(a)), &mut Poll::new(0)).unwrap();
            assert_eq!(got, want, "n = {n}, descending");
        }
    }
}
