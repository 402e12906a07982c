//! A kernel's generated code called on inputs given per call, with nothing bound between
//! calls: a row chain's inputs are tile buffers and tile slices that change from tile to
//! tile, and one call covers a whole row (or tile) instead of a block. The checks are
//! those of the bound fast path (`fast.rs`'s `Bound`), made per call.

use super::jit::{Code, Scalar, CYCLIC_BASE};
use super::kern::LANES;
use super::run::In;
use super::stream::Stream;
use std::mem::MaybeUninit;

/// Reusable pointer and scalar tables for calls of one kernel's code.
pub(crate) struct Loose {
    ptrs: Vec<*const f32>,
    scalars: Vec<f32>,
    /// Per cyclic stream: the buffer a staged load is computed into per call.
    bufs: Vec<Vec<f32>>,
    /// Per cyclic stream: the table of row addresses of a `Stream::Pieces`.
    tables: Vec<Vec<*const f32>>,
}

impl Loose {
    /// Tables sized for `code`.
    pub(crate) fn new(code: &Code) -> Loose {
        Loose {
            ptrs: vec![std::ptr::null(); CYCLIC_BASE + code.cyclic.len()],
            scalars: vec![0.0; code.scalars.len()],
            bufs: vec![Vec::new(); code.cyclic.len()],
            tables: vec![Vec::new(); code.cyclic.len()],
        }
    }

    /// Readies a call on `ins` (a domain of `n` elements) for `start..start + total`:
    /// false when an input the code reads is too short or not f32, or a per-call scalar
    /// changes inside the range.
    fn prepare(
        &mut self,
        code: &Code,
        ins: &[In<f32>],
        n: usize,
        (start, total): (usize, usize),
    ) -> bool {
        if start.checked_add(total).is_none_or(|e| e > n) || ins.len() > CYCLIC_BASE {
            return false;
        }
        for &k in &code.streams {
            match (ins.get(k), self.ptrs.get_mut(k)) {
                (Some(In::Val(v)), Some(p)) if v.len() >= n => *p = v.as_ptr(),
                _ => return false,
            }
        }
        for (slot, c) in code.cyclic.iter().enumerate() {
            let Some(buf) = self.bufs.get_mut(slot) else {
                return false;
            };
            // A padded row has no buffer here (row chains do not take pads): not run.
            let at = |run: Option<&[f32]>| run.map(<[f32]>::as_ptr);
            let ptr = match (*c, c.input().and_then(|k| ins.get(k)), c.base(start)) {
                (Stream::Staged(l), ..) => at(super::stream::stage(l, ins, (start, total), buf)),
                (Stream::Pieces(m), Some(In::Val(v)), _) if v.len() >= m.need => {
                    let Some(t) = self.tables.get_mut(slot) else {
                        return false;
                    };
                    super::stream::pieces(&m, v, &[], (start, total), t)
                }
                (Stream::Repeats(s), Some(In::Val(v)), _) if v.len() >= s.need() => {
                    let Some(t) = self.tables.get_mut(slot) else {
                        return false;
                    };
                    super::stream::repeats(&s, v, (start, total), t)
                }
                (_, Some(In::Val(v)), Some(off)) if v.len() >= c.need() && c.fits(start, total) => {
                    at(v.get(off..off + total))
                }
                _ => None,
            };
            match (ptr, self.ptrs.get_mut(CYCLIC_BASE + slot)) {
                (Some(r), Some(p)) => *p = r,
                _ => return false,
            }
        }
        for (slot, s) in code.scalars.iter().enumerate() {
            let at = match *s {
                Scalar::First(k) => Some((k, 0)),
                Scalar::Run { input, inner, len } => {
                    (inner > 0 && len > 0 && start % inner + total <= inner)
                        .then(|| (input, (start / inner) % len))
                }
            };
            let v = at.and_then(|(k, i)| ins.get(k).filter(|x| x.len() > i).map(|x| x.get(i)));
            match (v, self.scalars.get_mut(slot)) {
                (Some(v), Some(d)) => *d = v,
                _ => return false,
            }
        }
        true
    }

    /// Writes the kernel's values at `start..start + out.len()` (a multiple of 16) into
    /// `out`; false (nothing written) when the code cannot run that range.
    pub(crate) fn eval(
        &mut self,
        code: &Code,
        ins: &[In<f32>],
        n: usize,
        start: usize,
        out: &mut [MaybeUninit<f32>],
    ) -> bool {
        // SAFETY: `out` holds `out.len()` writable f32 (writing through a raw pointer to
        // uninitialised memory is allowed).
        unsafe {
            self.run(
                code,
                ins,
                n,
                start,
                (out.as_mut_ptr().cast::<f32>(), out.len()),
            )
        }
    }

    /// As [`Loose::eval`], into initialised values.
    pub(crate) fn eval_into(
        &mut self,
        code: &Code,
        ins: &[In<f32>],
        n: usize,
        start: usize,
        out: &mut [f32],
    ) -> bool {
        // SAFETY: `out` holds `out.len()` writable f32.
        unsafe { self.run(code, ins, n, start, (out.as_mut_ptr(), out.len())) }
    }

    /// Updates `buf[start..start + len]` (`len` a multiple of 16) in place: the kernel's
    /// values there, where inputs `alias` read `buf` itself at the same index (`ins` holds
    /// an input of the right length for each, which is not read). False (nothing written)
    /// when the code cannot run the range or reads an aliased input other than as a stream
    /// at the same index.
    pub(crate) fn eval_in_place(
        &mut self,
        code: &Code,
        ins: &[In<f32>],
        (start, len): (usize, usize),
        buf: &mut [f32],
        alias: &[usize],
    ) -> bool {
        let n = buf.len();
        let elsewhere = |k: usize| {
            code.cyclic.iter().any(|c| c.input() == Some(k))
                || code.scalars.iter().any(|s| match *s {
                    Scalar::First(i) | Scalar::Run { input: i, .. } => i == k,
                })
        };
        if len == 0
            || !len.is_multiple_of(16)
            || alias
                .iter()
                .any(|&k| elsewhere(k) || !code.streams.contains(&k))
            || !self.prepare(code, ins, n, (start, len))
        {
            return false;
        }
        let base = buf.as_mut_ptr();
        for &k in alias {
            if let Some(p) = self.ptrs.get_mut(k) {
                *p = base.cast_const();
            }
        }
        // SAFETY: as in `run`, with every aliased stream pointed at `buf` (`n` elements,
        // `start + len <= n` checked by `prepare`) and the output at `buf[start..]`. The
        // generated loop reads a stream's element `i` only in the step that writes output
        // element `i`, before that step's store (`jit.rs`: each step loads, computes, then
        // stores its 16 lanes), so updating in place reads every value before overwriting it.
        unsafe { code.call(&self.ptrs, base.add(start), start, len / 16, &self.scalars) };
        true
    }

    /// # Safety
    /// `out` must be valid for writing `total` f32.
    unsafe fn run(
        &mut self,
        code: &Code,
        ins: &[In<f32>],
        n: usize,
        start: usize,
        (out, total): (*mut f32, usize),
    ) -> bool {
        if total == 0 || !total.is_multiple_of(16) || !self.prepare(code, ins, n, (start, total)) {
            return false;
        }
        // SAFETY: `prepare` pointed every stream at an f32 input of at least `n` elements
        // with `start + total <= n`, every cyclic stream at `total` readable values (a
        // `Stream::Pieces` at a table of its rows' addresses, `stream::pieces`), and
        // filled one scalar per slot; `out` holds `total` writable f32 (the caller).
        unsafe { code.call(&self.ptrs, out, start, total / 16, &self.scalars) };
        true
    }

    /// Folds whole groups of `LANES` values at `start..start + len` into `lanes` with fold
    /// code; the number of values folded (0 when the code cannot run the range).
    pub(crate) fn fold(
        &mut self,
        code: &Code,
        ins: &[In<f32>],
        n: usize,
        (start, len): (usize, usize),
        lanes: &mut [f32; LANES],
    ) -> usize {
        let total = len / LANES * LANES;
        if total == 0 || !self.prepare(code, ins, n, (start, total)) {
            return 0;
        }
        // SAFETY: as in `eval`, for the `total` values `prepare` checked; `lanes` holds
        // `LANES` f32, and the caller passes fold code (a kernel's `fold_jit`).
        unsafe { code.fold(&self.ptrs, lanes, start, total / LANES, &self.scalars) };
        total
    }
}
