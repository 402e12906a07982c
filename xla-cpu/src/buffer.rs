//! Output buffers filled in parallel without a serial zeroing pass first.

use rayon::prelude::*;

/// A vector of `n` elements written by `work(state, chunk index, chunk)` over chunks of
/// `chunk_len` (> 0), in parallel when `min` allows. Each chunk is zeroed just before its work (while
/// it is in cache) rather than the whole vector up front: a serial memset of the output
/// measured 9% of the softmax benchmark. `min` is the fewest chunks per task (`usize::MAX`:
/// one thread).
pub(crate) fn filled_in_chunks<S>(
    n: usize,
    chunk_len: usize,
    min: usize,
    init: impl Fn() -> S + Sync + Send,
    work: impl Fn(&mut S, usize, &mut [f32]) + Sync + Send,
) -> Vec<f32> {
    let mut out: Vec<f32> = Vec::with_capacity(n);
    let go = |s: &mut S, c: usize, chunk: &mut [std::mem::MaybeUninit<f32>]| {
        for x in chunk.iter_mut() {
            x.write(0.0);
        }
        // SAFETY: every element of `chunk` was initialised just above, and
        // `MaybeUninit<f32>` has the size, alignment and layout of `f32`.
        let o = unsafe { &mut *(chunk as *mut [std::mem::MaybeUninit<f32>] as *mut [f32]) };
        work(s, c, o);
    };
    if let Some(spare) = out.spare_capacity_mut().get_mut(..n) {
        let len = chunk_len.max(1);
        if n <= len || min == usize::MAX {
            let mut s = init();
            for (c, o) in spare.chunks_mut(len).enumerate() {
                go(&mut s, c, o);
            }
        } else {
            spare
                .par_chunks_mut(len)
                .with_min_len(min)
                .enumerate()
                .for_each_init(&init, |s, (c, o)| go(s, c, o));
        }
        // SAFETY: the chunks above cover `spare[..n]` and each was fully initialised, so
        // the first `n` elements of `out` are initialised (and `n` <= capacity).
        unsafe { out.set_len(n) };
    }
    out
}
