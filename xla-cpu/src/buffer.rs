//! Output buffers filled in parallel without a serial zeroing pass first.

use std::mem::MaybeUninit;

use crate::limits::stop::Stop;
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
    written_in_chunks(n, chunk_len, min, init, |s, c, sink| {
        work(s, c, sink.into_zeroed())
    })
}

/// The uninitialised chunk of an output, written front to back by [`Sink::push`].
/// Whatever is left unwritten when it is dropped is set to `T::default()` (zero), so the chunk is always fully
/// initialised afterwards whatever the writer did.
pub(crate) struct Sink<'a, T: Copy + Default> {
    buf: &'a mut [MaybeUninit<T>],
    filled: usize,
}

impl<'a, T: Copy + Default> Sink<'a, T> {
    /// Appends `xs` (cut at the chunk's end).
    #[inline(always)]
    pub(crate) fn push(&mut self, xs: &[T]) {
        let rest = self.buf.get_mut(self.filled..).unwrap_or_default();
        for (d, &x) in rest.iter_mut().zip(xs) {
            d.write(x);
        }
        self.filled = (self.filled + xs.len()).min(self.buf.len());
    }

    /// Hands the next `n` elements to `f`, which writes them in place and returns true
    /// (they count as written), or returns false having written nothing that counts.
    /// False when fewer than `n` elements remain.
    ///
    /// # Safety
    /// When `f` returns true it must have initialised all `n` elements it was given.
    pub(crate) unsafe fn fill_with(
        &mut self,
        n: usize,
        f: impl FnOnce(&mut [MaybeUninit<T>]) -> bool,
    ) -> bool {
        let Some(end) = self.filled.checked_add(n).filter(|&e| e <= self.buf.len()) else {
            return false;
        };
        let Some(dst) = self.buf.get_mut(self.filled..end) else {
            return false;
        };
        if f(dst) {
            self.filled = end;
            true
        } else {
            false
        }
    }

    /// Hands the rest of the chunk to `first` as a sink of its own, zeroes whatever it left
    /// unwritten, and returns `first`'s result with the same elements, now initialised,
    /// for the caller to update in place; the whole chunk then counts as written.
    pub(crate) fn write_then_update<R>(
        &mut self,
        first: impl FnOnce(&mut Sink<T>) -> R,
    ) -> (R, &mut [T]) {
        let len = self.buf.len();
        let rest = self.buf.get_mut(self.filled..).unwrap_or_default();
        let mut inner = Sink {
            buf: rest,
            filled: 0,
        };
        let r = first(&mut inner);
        self.filled = len;
        (r, inner.into_zeroed_rest())
    }

    /// The chunk, its unwritten tail zeroed.
    fn into_zeroed_rest(mut self) -> &'a mut [T] {
        let buf = std::mem::take(&mut self.buf);
        for x in buf.get_mut(self.filled..).unwrap_or_default() {
            x.write(T::default());
        }
        // SAFETY: `push` and `fill_with` initialised `..filled`, the loop above the rest;
        // `MaybeUninit<T>` has the size, alignment and layout of `T`.
        unsafe { &mut *(buf as *mut [MaybeUninit<T>] as *mut [T]) }
    }

    /// The whole chunk, zeroed, for work that writes it out of order.
    pub(crate) fn into_zeroed(mut self) -> &'a mut [T] {
        let buf = std::mem::take(&mut self.buf);
        for x in buf.iter_mut() {
            x.write(T::default());
        }
        // SAFETY: every element was initialised just above, and `MaybeUninit<T>` has
        // the size, alignment and layout of `T`.
        unsafe { &mut *(buf as *mut [MaybeUninit<T>] as *mut [T]) }
    }

    /// The chunk's length.
    pub(crate) fn len(&self) -> usize {
        self.buf.len()
    }
}

impl<T: Copy + Default> Drop for Sink<'_, T> {
    fn drop(&mut self) {
        for x in self.buf.get_mut(self.filled..).unwrap_or_default() {
            x.write(T::default());
        }
    }
}

/// A vector of `n` elements written by `work(state, chunk index, sink)` over chunks of
/// `chunk_len` (> 0), in parallel when `min` allows, with no zeroing pass for what the
/// work writes (measured: the in-cache zeroing of [`filled_in_chunks`] was 10-11% of the
/// fused-elementwise and softmax benchmarks). `min` is the fewest chunks per task
/// (`usize::MAX`: one thread). A run with a cancel token or deadline is polled before
/// each chunk: after a stop the rest are zeroed, not computed.
pub(crate) fn written_in_chunks<S, T: Copy + Default + Send>(
    n: usize,
    chunk_len: usize,
    min: usize,
    init: impl Fn() -> S + Sync + Send,
    work: impl Fn(&mut S, usize, Sink<T>) + Sync + Send,
) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(n);
    let len = chunk_len.max(1);
    // A run's stop is polled before each chunk (of a kernel longer than one); a chunk
    // skipped after a stop is zeroed by its `Sink` and never used: the executor reports
    // the stop after the instruction (`limits/stop.rs`).
    let stop = match n > len {
        true => Stop::current(),
        false => Stop::default(),
    };
    let go = |s: &mut S, c: usize, buf: &mut [MaybeUninit<T>]| {
        if !stop.stopped() {
            work(s, c, Sink { buf, filled: 0 });
        } else {
            drop(Sink { buf, filled: 0 });
        }
    };
    if let Some(spare) = out.spare_capacity_mut().get_mut(..n) {
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
        // SAFETY: the chunks above cover `spare[..n]`, and each was handed to `work` as a
        // `Sink`, whose drop initialises every element the work did not write (a panic
        // in `work` unwinds past this line, so `set_len` never runs on a partial write).
        unsafe { out.set_len(n) };
    }
    out
}

/// As [`written_in_chunks`] in parallel, over this thread and `partner`: each takes the
/// next chunk until none is left (a chunk's values do not depend on which thread wrote
/// it). `None` if `work` panicked on either thread (every chunk is still initialised: a
/// chunk cut short or never started is zeroed by its `Sink`).
pub(crate) fn written_by_two<S, T: Copy + Default + Send>(
    n: usize,
    chunk_len: usize,
    partner: &crate::partner::Partner,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize, Sink<T>) + Sync,
) -> Option<Vec<T>> {
    let mut out: Vec<T> = Vec::with_capacity(n);
    let len = chunk_len.max(1);
    let stop = match n > len {
        true => Stop::current(),
        false => Stop::default(),
    };
    let spare = out.spare_capacity_mut().get_mut(..n)?;
    let sinks = spare
        .chunks_mut(len)
        .map(|buf| Sink { buf, filled: 0 })
        .enumerate()
        .collect();
    let finished = partner.each_item(sinks, &init, |s, (c, sink)| {
        if !stop.stopped() {
            work(s, c, sink);
        }
    });
    // SAFETY: every chunk of `spare[..n]` was handed to a `Sink`, and every `Sink` has
    // been dropped by now (by the work, by the closure when stopped, or by `each_item`
    // for one left undone), whose drop initialises every element the work did not write
    // (also when the work panicked: its unwind drops the `Sink`).
    unsafe { out.set_len(n) };
    finished.then_some(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    /// Chunk `c` written as `c * 1000 + i`, its first `len - short` elements only.
    fn work(short: usize) -> impl Fn(&mut (), usize, Sink<u32>) + Sync {
        move |_, c, mut s| {
            let n = s.buf.len().saturating_sub(short);
            let v: Vec<u32> = (0..n as u32).map(|i| c as u32 * 1000 + i).collect();
            s.push(&v);
        }
    }

    /// Shared with the partner thread: the same vector as on one thread, for lengths on
    /// and off chunk boundaries, every element written once, unwritten ones zeroed.
    #[test]
    fn two_threads_write_what_one_does() {
        let p = crate::partner::Partner::start().unwrap();
        for (n, len, short) in [(0, 7, 0), (5, 7, 0), (7, 7, 0), (100, 7, 0), (1000, 64, 3)] {
            let one = written_in_chunks(n, len, usize::MAX, || (), work(short));
            for _ in 0..50 {
                let two = written_by_two(n, len, &p, || (), work(short)).unwrap();
                assert_eq!(two, one, "n {n}, chunks of {len}");
            }
        }
    }

    /// A panic in one chunk's work: `None`, and the vector was still fully initialised
    /// (nothing is read uninitialised: the call returns, the partner is reusable).
    #[test]
    fn a_panicking_chunk_is_reported() {
        let p = crate::partner::Partner::start().unwrap();
        let bad = |_: &mut (), c: usize, mut s: Sink<u32>| {
            s.push(&[1, 2]);
            if c == 3 {
                panic!("chunk 3");
            }
        };
        assert!(written_by_two(100, 10, &p, || (), bad).is_none());
        let ok = written_by_two(30, 10, &p, || (), work(0)).unwrap();
        assert_eq!(ok.len(), 30);
    }
}
