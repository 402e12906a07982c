//! Batched matrix products `[B,M,K] x [B,K,N] -> [B,M,N]`: f32/f64/c64/c128 through faer
//! (operands viewed in place, row- or column-major), every other ring type through a
//! cache-friendly loop.
//!
//! Parallelism is split over independent outputs only (whole batches, or faer's blocks of
//! one product, which never split a sum), so results do not depend on the thread count.

use crate::buffer::{written_in_chunks, Sink};
use crate::invariant;
use crate::limits::stop::Stop;
use crate::parallel::Parallel;
use crate::scalar::Ring;
use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use num_complex::{Complex32, Complex64};
use rayon::prelude::*;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};

/// Work of fewer multiply-adds than this stays on one thread. Measured with
/// `benches/linalg.rs` on two loaded cores: 128³ runs 2x slower on two threads than on one
/// (waking the pool costs tens of microseconds), 256³ 1.5x faster.
pub(crate) const MIN_PAR_FLOPS: usize = 1 << 23;

/// At two threads, products of at least this many multiply-adds are shared with the
/// partner thread instead (`partner.rs`: a hand-off of under a microsecond while it spins;
/// if it is parked, this thread takes every block itself rather than wait).
pub(crate) const MIN_PAIR_FLOPS: usize = 1 << 18;

/// An element type faer multiplies.
pub(crate) trait FaerElem:
    faer::traits::ComplexField
    + Copy
    + Send
    + Sync
    + Default
    + std::ops::Add<Output = Self>
    + std::ops::Mul<Output = Self>
{
    /// The multiplicative identity.
    const ONE: Self;
    /// Not a number (NaN in every component).
    const NAN: Self;
    /// Whether `x` is finite (in every component).
    fn finite(x: Self) -> bool;
    /// `matvec`'s dot product of each of eight rows with `xs` (its order of operations).
    fn dot_rows(rows: [&[Self]; 8], xs: &[Self]) -> [Self; 8] {
        super::matvec::dot_rows(rows, xs)
    }
}

impl FaerElem for f32 {
    const ONE: Self = 1.0;
    const NAN: Self = f32::NAN;
    fn finite(x: Self) -> bool {
        x.is_finite()
    }
    #[inline(always)]
    fn dot_rows(rows: [&[Self]; 8], xs: &[Self]) -> [Self; 8] {
        super::matvec::dot_rows_f32(rows, xs)
    }
}
impl FaerElem for f64 {
    const ONE: Self = 1.0;
    const NAN: Self = f64::NAN;
    fn finite(x: Self) -> bool {
        x.is_finite()
    }
}
impl FaerElem for Complex32 {
    const ONE: Self = Complex32::new(1.0, 0.0);
    const NAN: Self = Complex32::new(f32::NAN, f32::NAN);
    fn finite(x: Self) -> bool {
        x.re.is_finite() & x.im.is_finite()
    }
}
impl FaerElem for Complex64 {
    const ONE: Self = Complex64::new(1.0, 0.0);
    const NAN: Self = Complex64::new(f64::NAN, f64::NAN);
    fn finite(x: Self) -> bool {
        x.re.is_finite() & x.im.is_finite()
    }
}

/// How one matrix of a batch is stored in its slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Orient {
    /// Row-major: element `(i, j)` at `i * cols + j`.
    RowMajor,
    /// Column-major (the row-major transpose): element `(i, j)` at `j * rows + i`.
    ColMajor,
}

/// A `rows x cols` view of `s` (which holds exactly `rows * cols` elements).
pub(crate) fn view<T>(s: &[T], rows: usize, cols: usize, o: Orient) -> MatRef<'_, T> {
    match o {
        Orient::RowMajor => MatRef::from_row_major_slice(s, rows, cols),
        Orient::ColMajor => MatRef::from_column_major_slice(s, rows, cols),
    }
}

/// Where the matrices of a batch sit in a buffer: matrix `b` starts at `offsets[b]`, its
/// elements one apart along rows (`RowMajor`: `(i, j)` at `i * stride + j`) or columns
/// (`ColMajor`: `(i, j)` at `j * stride + i`). Packed operands have `stride` = the row (or
/// column) length; a strided one reads a dot operand whose batch dims are not leading in
/// place (an attention product's keys `[seq, heads, dim]`) instead of transposing it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub offsets: Vec<usize>,
    pub orient: Orient,
    pub stride: usize,
}

impl Layout {
    /// `batch` packed `rows x cols` matrices stored as `o`.
    pub(crate) fn packed(o: Orient, batch: usize, rows: usize, cols: usize) -> Layout {
        let stride = match o {
            Orient::RowMajor => cols,
            Orient::ColMajor => rows,
        };
        Layout {
            offsets: (0..batch).map(|b| b * rows * cols).collect(),
            orient: o,
            stride,
        }
    }

    /// True when every `rows x cols` matrix lies inside a buffer of `len` elements.
    pub(crate) fn fits(&self, rows: usize, cols: usize, len: usize) -> bool {
        if rows == 0 || cols == 0 {
            return true;
        }
        let (outer, inner) = match self.orient {
            Orient::RowMajor => (rows, cols),
            Orient::ColMajor => (cols, rows),
        };
        let last = (outer - 1)
            .checked_mul(self.stride)
            .and_then(|x| x.checked_add(inner - 1));
        self.offsets
            .iter()
            .all(|&o| last.and_then(|l| l.checked_add(o)).is_some_and(|e| e < len))
    }

    /// The `rows x cols` view of matrix `b` of `s` (checked by [`Layout::fits`]).
    pub(crate) fn view<'a, T>(
        &self,
        s: &'a [T],
        b: usize,
        rows: usize,
        cols: usize,
    ) -> MatRef<'a, T> {
        let what = "batched matmul offsets";
        let s = invariant::tail(s, invariant::at(&self.offsets, b, what), what);
        match self.orient {
            Orient::RowMajor => {
                MatRef::from_row_major_slice_with_stride(s, rows, cols, self.stride)
            }
            Orient::ColMajor => {
                MatRef::from_column_major_slice_with_stride(s, rows, cols, self.stride)
            }
        }
    }
}

/// Products of at most this many multiply-adds run as plain loops: faer's dispatch costs
/// more than such a product (a fifth of an adaptive ODE solve whose products are f32[7] by
/// f32[7,2] went to it).
pub(crate) const TINY: usize = 256;

/// `dst = lhs * rhs` with faer (tiny products in plain loops, sums in `k` order). The
/// interpreter and native loops both come here, so their results stay the same bits.
pub(crate) fn gemm<T: FaerElem>(
    dst: MatMut<'_, T>,
    lhs: MatRef<'_, T>,
    rhs: MatRef<'_, T>,
    par: Par,
) {
    gemm_acc(dst, lhs, rhs, par, Accum::Replace);
}

/// [`gemm`], or with `Accum::Add` `dst = dst + lhs * rhs`: each element's product summed
/// as [`gemm`] sums it, then added to `dst` once (`dot_add.rs` says why that is the same
/// bits as a separate add for the sizes it is used at).
pub(crate) fn gemm_acc<T: FaerElem>(
    mut dst: MatMut<'_, T>,
    lhs: MatRef<'_, T>,
    rhs: MatRef<'_, T>,
    par: Par,
    accum: Accum,
) {
    let (m, n, k) = (dst.nrows(), dst.ncols(), lhs.ncols());
    if m.saturating_mul(n).saturating_mul(k) > TINY || rhs.nrows() != k {
        if (m == 1 || n == 1) && k > 1 && rhs.nrows() == k {
            let done = match accum {
                Accum::Replace => {
                    super::matvec::matvec(faer::reborrow::ReborrowMut::rb_mut(&mut dst), lhs, rhs)
                }
                Accum::Add => {
                    // The product into a column of its own, then added: the same sums as
                    // `matvec` writes for the plain product.
                    let mut tmp = faer::Mat::<T>::zeros(m, n);
                    let done = super::matvec::matvec(tmp.as_mut(), lhs, rhs);
                    if done {
                        for j in 0..n {
                            for i in 0..m {
                                dst[(i, j)] = dst[(i, j)] + tmp[(i, j)];
                            }
                        }
                    }
                    done
                }
            };
            if done {
                return;
            }
        }
        return matmul(dst, accum, lhs, rhs, T::ONE, par);
    }
    for i in 0..m {
        for j in 0..n {
            let mut acc = T::default();
            for p in 0..k {
                acc = acc + lhs[(i, p)] * rhs[(p, j)];
            }
            dst[(i, j)] = match accum {
                Accum::Replace => acc,
                Accum::Add => dst[(i, j)] + acc,
            };
        }
    }
}

/// `dst = lhs * rhs` using `par`: small products run sequentially; large ones are split
/// into independent blocks of output rows or columns (the larger dimension), each one
/// sequential product, run in the pool. One fork-join per product, no barriers inside it
/// (faer's own parallel matmul synchronises per block, which costs dearly on a loaded
/// machine), and every output element is the same sum as in a sequential run. With an
/// active `stop` (taken by the kernel before it split its work, never read here: a pool
/// task may run on a thread that holds another run's stop) a large product runs in tiles
/// with a poll between them (`limits/stop.rs`).
pub(crate) fn gemm_par<T: FaerElem>(
    dst: MatMut<'_, T>,
    lhs: MatRef<'_, T>,
    rhs: MatRef<'_, T>,
    par: Parallel<'_>,
    stop: &Stop,
) {
    // A plain product is always completed (a block that panicked is redone here).
    let _ = gemm_par_acc(dst, lhs, rhs, (par, stop), Accum::Replace);
}

/// [`gemm_par`] with the choice of [`gemm_acc`] (`Accum::Add`: `dst += lhs * rhs`).
/// False when a block panicked on the partner thread during an accumulation (which cannot
/// be redone: other blocks may have added already); `dst` is then unusable.
pub(crate) fn gemm_par_acc<T: FaerElem>(
    dst: MatMut<'_, T>,
    lhs: MatRef<'_, T>,
    rhs: MatRef<'_, T>,
    (par, stop): (Parallel<'_>, &Stop),
    accum: Accum,
) -> bool {
    let (m, n, k) = (dst.nrows(), dst.ncols(), lhs.ncols());
    let macs = m.saturating_mul(n).saturating_mul(k);
    if macs > STOP_TILE && stop.is_active() {
        gemm_tiles(dst, lhs, rhs, par, (stop, STOP_TILE, accum));
        return true;
    }
    let threads = par.threads();
    let pair = par.pair().filter(|_| macs >= MIN_PAIR_FLOPS);
    if threads <= 1 || (macs < MIN_PAR_FLOPS && pair.is_none()) {
        gemm_acc(dst, lhs, rhs, Par::Seq, accum);
        return true;
    }
    let mut dst = dst;
    let jobs = split_product(
        faer::reborrow::ReborrowMut::rb_mut(&mut dst),
        lhs,
        rhs,
        threads,
    );
    let Some(p) = pair else {
        par.install(|| {
            jobs.into_par_iter()
                .for_each(|(d, l, r)| gemm_acc(d, l, r, Par::Seq, accum));
        });
        return true;
    };
    let done = p.each_item(
        jobs,
        || (),
        |_, (d, l, r)| {
            gemm_acc(d, l, r, Par::Seq, accum);
        },
    );
    if done {
        return true;
    }
    // A block panicked on the partner: the whole product again on this thread (an
    // accumulation cannot be redone: its blocks may have added already).
    match accum {
        Accum::Replace => {
            gemm(dst, lhs, rhs, Par::Seq);
            true
        }
        Accum::Add => false,
    }
}

/// A product's independent blocks: `2 * threads` bands of output columns or rows (the
/// larger dimension), each of a multiple of 16 and at least 64 of them where the
/// dimension allows, else at least 16.
#[allow(clippy::type_complexity)]
fn split_product<'a, T: FaerElem>(
    dst: MatMut<'a, T>,
    lhs: MatRef<'a, T>,
    rhs: MatRef<'a, T>,
    threads: usize,
) -> Vec<(MatMut<'a, T>, MatRef<'a, T>, MatRef<'a, T>)> {
    let split = |len: usize| {
        let least = if len >= 4 * 64 { 64 } else { 16 };
        let pieces = (2 * threads).min(len.div_ceil(least)).max(1);
        len.div_ceil(pieces).next_multiple_of(16)
    };
    let mut jobs = Vec::new();
    if dst.ncols() >= dst.nrows() {
        let (mut d, mut r) = (dst, rhs);
        let step = split(d.ncols());
        while d.ncols() > step {
            let (d0, d1) = d.split_at_col_mut(step);
            let (r0, r1) = r.split_at_col(step);
            jobs.push((d0, lhs, r0));
            (d, r) = (d1, r1);
        }
        jobs.push((d, lhs, r));
    } else {
        let (mut d, mut l) = (dst, lhs);
        let step = split(d.nrows());
        while d.nrows() > step {
            let (d0, d1) = d.split_at_row_mut(step);
            let (l0, l1) = l.split_at_row(step);
            jobs.push((d0, l0, rhs));
            (d, l) = (d1, l1);
        }
        jobs.push((d, l, rhs));
    }
    jobs
}

/// Multiply-adds of one tile of a product run under a token or deadline ([`gemm_tiles`]):
/// 2^28 take 5-30 ms on one core of this machine, the interval at which such a product
/// notices a stop.
pub(crate) const STOP_TILE: usize = 1 << 28;

/// `dst = lhs * rhs` as [`gemm_par`], in output tiles of about `tile` ([`STOP_TILE`])
/// multiply-adds (each tile one sequential product over the whole `k`, so every output
/// element is the same sum as untiled), polling `stop` before each tile. Once it says
/// stop, the remaining tiles are skipped and `dst` is left unfinished: the caller's check
/// after the instruction turns that into [`crate::CpuError::Stopped`].
fn gemm_tiles<T: FaerElem>(
    dst: MatMut<'_, T>,
    lhs: MatRef<'_, T>,
    rhs: MatRef<'_, T>,
    par: Parallel<'_>,
    (stop, tile, accum): (&Stop, usize, Accum),
) {
    let (m, n, k) = (dst.nrows(), dst.ncols(), lhs.ncols());
    // Square tiles, sides a multiple of 16 and at least 16 (64 and more for STOP_TILE:
    // packing stays a small share).
    let side = ((tile / k.max(1)) as f64).sqrt() as usize;
    let side = (side / 16 * 16).max(16);
    let mut jobs = Vec::new();
    let (mut rows, mut l) = (dst, lhs);
    loop {
        let step = side.min(rows.nrows());
        let (top, rest) = rows.split_at_row_mut(step);
        let (lt, lr) = l.split_at_row(step);
        let (mut cols, mut r) = (top, rhs);
        loop {
            let cs = side.min(cols.ncols());
            let (left, right) = cols.split_at_col_mut(cs);
            let (r0, r1) = r.split_at_col(cs);
            jobs.push((left, lt, r0));
            if right.ncols() == 0 {
                break;
            }
            (cols, r) = (right, r1);
        }
        if rest.nrows() == 0 {
            break;
        }
        (rows, l) = (rest, lr);
    }
    let one = |(d, l, r): (MatMut<'_, T>, MatRef<'_, T>, MatRef<'_, T>)| {
        if !stop.stopped() {
            gemm_acc(d, l, r, Par::Seq, accum);
        }
    };
    if par.threads() <= 1 || m * n * k < MIN_PAR_FLOPS {
        jobs.into_iter().for_each(one);
    } else {
        par.install(|| jobs.into_par_iter().for_each(one));
    }
}

/// Batched product through faer; `l` holds `B` matrices `M x K` laid out as `ll`, `r`
/// holds `B` matrices `K x N` laid out as `rl` (both checked with [`Layout::fits`]).
/// Returns `[B, M, N]` row-major.
///
/// The output is not zeroed first: each lane's product overwrites its block
/// (`Accum::Replace`). The zero fill cost a memset of the whole output per product (a batched
/// module's `f32[4,784,512]`, 6.4 MB, streamed through the cache and read back).
pub(crate) fn bmm_faer<T: FaerElem>(
    (l, ll): (&[T], &Layout),
    (r, rl): (&[T], &Layout),
    bmkn: [usize; 4],
    par: Parallel<'_>,
) -> Vec<T> {
    let [b, m, k, n] = bmkn;
    let len = b * m * n;
    if len == 0 || k == 0 || !ll.fits(m, k, l.len()) || !rl.fits(k, n, r.len()) {
        return vec![T::default(); len];
    }
    let repacked = row_major_lhs((l, ll), bmkn, par);
    let (l, ll) = match &repacked {
        Some((v, lay)) => (&v[..], lay),
        None => (l, ll),
    };
    let per = m * n * k;
    // A stopped product's block is left to its `Sink`, which zeroes it (never used: the
    // executor reports the stop after the instruction).
    let stop = batch_stop(b, per);
    let one = |bi: usize, sink: &mut Sink<T>, p: Parallel<'_>| {
        if stop.stopped() {
            return;
        }
        let lhs = ll.view(l, bi, m, k);
        let rhs = rl.view(r, bi, k, n);
        let write = |o: &mut [MaybeUninit<T>]| {
            // SAFETY: `o` is `m * n` elements (`fill_with` hands exactly that many), so
            // the row-major `m x n` view stays inside it; nothing else refers to them.
            let dst = unsafe {
                MatMut::from_raw_parts_mut(o.as_mut_ptr().cast::<T>(), m, n, n as isize, 1)
            };
            gemm_par(dst, lhs, rhs, p, &stop);
            true
        };
        // SAFETY: with `k >= 1` every path of `gemm_par` writes each of the `m * n`
        // elements before any read of it: faer's `Accum::Replace` overwrites (later blocks
        // of `k` add to what the first wrote), the tiny loop and `matvec` assign every
        // element. A panic unwinds out before the chunk counts as written, and the
        // `Sink` then zeroes it.
        unsafe { sink.fill_with(m * n, write) };
    };
    let threads = par.threads();
    let chunked = |min: usize, p: Parallel<'_>| {
        written_in_chunks(
            len,
            m * n,
            min,
            || (),
            |_, bi, mut sink| one(bi, &mut sink, p),
        )
    };
    let pair = par.pair().filter(|_| b * per >= MIN_PAIR_FLOPS);
    let whole = b > 1 && (b >= 2 * threads || per < MIN_PAR_FLOPS);
    if let (Some(p), true) = (pair, whole) {
        // Whole products shared with the partner thread.
        let one = |_: &mut (), bi: usize, mut sink: Sink<T>| one(bi, &mut sink, Parallel::SEQ);
        if let Some(out) = crate::buffer::written_by_two(len, m * n, p, || (), one) {
            return out;
        }
        // A product panicked on the partner: all of them again on this thread.
        chunked(usize::MAX, Parallel::SEQ)
    } else if pair.is_some() {
        chunked(usize::MAX, par)
    } else if threads <= 1 || b * per < MIN_PAR_FLOPS {
        chunked(usize::MAX, Parallel::SEQ)
    } else if whole {
        par.install(|| chunked(1, Parallel::SEQ))
    } else {
        chunked(usize::MAX, par)
    }
}

/// The stop a batch of `b` products of `per` multiply-adds polls between products: many
/// products that each fit in a tile poll between them (`limits/stop.rs`).
fn batch_stop(b: usize, per: usize) -> Stop {
    match b.saturating_mul(per) > STOP_TILE {
        true => Stop::current(),
        false => Stop::default(),
    }
}

/// `acc += l · r` for the `B` products of [`bmm_faer`] (`acc` row-major `[B, M, N]`, the
/// product's result layout): each product accumulates into its block of `acc` in place
/// ([`gemm_par_acc`]), whole products shared with the partner thread when there are
/// several. False when a block panicked on the partner (`acc` is then unusable) or an
/// operand does not fit its layout.
pub(crate) fn bmm_faer_add<T: FaerElem>(
    (l, ll): (&[T], &Layout),
    (r, rl): (&[T], &Layout),
    bmkn: [usize; 4],
    acc: &mut [T],
    par: Parallel<'_>,
) -> bool {
    let [b, m, k, n] = bmkn;
    if acc.len() != b * m * n || !ll.fits(m, k, l.len()) || !rl.fits(k, n, r.len()) {
        return false;
    }
    if acc.is_empty() || k == 0 {
        return true;
    }
    let repacked = row_major_lhs((l, ll), bmkn, par);
    let (l, ll) = match &repacked {
        Some((v, lay)) => (&v[..], lay),
        None => (l, ll),
    };
    let per = m * n * k;
    let stop = batch_stop(b, per);
    let one = |bi: usize, block: &mut [T], p: Parallel<'_>| {
        if stop.stopped() {
            return true;
        }
        let dst = MatMut::from_row_major_slice_mut(block, m, n);
        gemm_par_acc(
            dst,
            ll.view(l, bi, m, k),
            rl.view(r, bi, k, n),
            (p, &stop),
            Accum::Add,
        )
    };
    let blocks: Vec<(usize, &mut [T])> = acc.chunks_mut(m * n).enumerate().collect();
    let pair = par.pair().filter(|_| b * per >= MIN_PAIR_FLOPS);
    match pair {
        Some(p) if b > 1 && (b >= 2 * par.threads() || per < MIN_PAR_FLOPS) => {
            let ok = AtomicBool::new(true);
            let done = p.each_item(
                blocks,
                || (),
                |_, (bi, block)| {
                    if !one(bi, block, Parallel::SEQ) {
                        ok.store(false, Ordering::Relaxed);
                    }
                },
            );
            done && ok.load(Ordering::Relaxed)
        }
        _ => blocks
            .into_iter()
            .fold(true, |ok, (bi, block)| ok && one(bi, block, par)),
    }
}

/// A column-major lhs is copied row-major before its product from this many rows...
const REPACK_ROWS: usize = 1024;
/// ... and this many elements (4 MiB of f32, twice this machine's L2) ...
const REPACK_ELEMENTS: usize = 1 << 20;
/// ... when the product has this many columns (fewer: the copy costs about as much as the
/// product).
const REPACK_COLS: usize = 32;

/// A row-major copy of a large column-major `lhs` ([`REPACK_ROWS`], [`REPACK_ELEMENTS`],
/// [`REPACK_COLS`]; `None`: use it in place). faer writes a row-major result by computing its transpose, where such an
/// lhs becomes a row-major right operand, and runs that at half speed from about 1,024 rows
/// (f32 `[1024 x 1024]ᵀ · [1024 x 256]` on one core: 77-82 GFLOP/s column-major, 155-164
/// row-major; at 2 threads 5.1 → 3.5 ms with the copy; 1,024 rows of 4 KiB strides also
/// alias in the cache, but padding the stride recovers only part). At 512 rows the copy
/// costs more than it saves (`[256 x 512]ᵀ · [256 x 784]`: 1.10 → 1.30 ms), and so it does
/// for an lhs that fits in the L2 cache (`[256 x 1024]ᵀ · [256 x 256]`: 0.72 → 0.88 ms;
/// one core ran it at 142 GFLOP/s column-major, 162 row-major), but not for one of 4 MiB
/// or more (`[256 x 4096]ᵀ · [256 x 256]`: 87 against 155 GFLOP/s). A weight gradient
/// `xᵀ · δ` over many features and examples is such a product.
/// The blocked transposing copy (`strided`) costs about one pass over the lhs. The product's
/// bits do not change: faer sums each element over `k` in the same order whichever way the
/// lhs is stored (`tests::a_repacked_lhs_gives_the_same_bits`).
fn row_major_lhs<T: Copy + Default + Send + Sync>(
    (l, ll): (&[T], &Layout),
    [b, m, k, n]: [usize; 4],
    par: Parallel<'_>,
) -> Option<(Vec<T>, Layout)> {
    if ll.orient != Orient::ColMajor
        || m < REPACK_ROWS
        || m.saturating_mul(k) < REPACK_ELEMENTS
        || n < REPACK_COLS
    {
        return None;
    }
    // Memory the allocator refuses means no copy (the product reads the lhs in place),
    // never an abort: the room is reserved fallibly before the copy allocates it.
    let mut out: Vec<T> = Vec::new();
    out.try_reserve_exact(b.checked_mul(m)?.checked_mul(k)?)
        .ok()?;
    let strides = [1, isize::try_from(ll.stride).ok()?];
    let one = |at: usize| {
        let base = isize::try_from(at).ok()?;
        super::strided::copy_typed(l, base, &[m, k], &strides, par)
    };
    let out = match ll.offsets.as_slice() {
        [at] => {
            drop(out);
            one(*at)?
        }
        all => {
            for &at in all {
                out.extend(one(at)?);
            }
            out
        }
    };
    Some((out, Layout::packed(Orient::RowMajor, b, m, k)))
}

/// Batched product of canonical row-major operands for any ring type: `i-k-j` loop order
/// (rows of `r` stream through the cache), sums in `k` order.
pub(crate) fn bmm_ring<T: Ring>(l: &[T], r: &[T], bmkn: [usize; 4]) -> Vec<T> {
    let [b, m, k, n] = bmkn;
    let mut out = vec![T::zero(); b * m * n];
    if n == 0 {
        return out;
    }
    for (bi, ob) in out.chunks_mut((m * n).max(1)).enumerate().take(b) {
        for (mi, orow) in ob.chunks_mut(n).enumerate() {
            let lrow = &l[(bi * m + mi) * k..(bi * m + mi + 1) * k];
            for (ki, &x) in lrow.iter().enumerate() {
                let rrow = &r[(bi * k + ki) * n..(bi * k + ki + 1) * n];
                for (o, &y) in orow.iter_mut().zip(rrow) {
                    *o = o.add(x.mul(y));
                }
            }
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::limits::{CancelToken, ExecuteOptions};
    use crate::parallel::Threads;
    use std::time::Duration;

    /// Row-major views of `l` (`m × k`) and `r` (`k × n`) and their product on one thread.
    fn sequential<'a>(
        l: &'a [f32],
        r: &'a [f32],
        (m, k, n): (usize, usize, usize),
    ) -> (MatRef<'a, f32>, MatRef<'a, f32>, Vec<f32>) {
        let lhs = MatRef::from_row_major_slice(l, m, k);
        let rhs = MatRef::from_row_major_slice(r, k, n);
        let mut want = vec![0f32; m * n];
        gemm(
            MatMut::from_row_major_slice_mut(&mut want, m, n),
            lhs,
            rhs,
            Par::Seq,
        );
        (lhs, rhs, want)
    }

    /// NaN, ±inf and ±0 written at `at(0)`, ..., `at(4)` (each taken modulo the length).
    fn plant_specials(l: &mut [f32], at: impl Fn(usize) -> usize) {
        let len = l.len();
        for (i, v) in [f32::NAN, f32::INFINITY, -0.0, 0.0, f32::NEG_INFINITY]
            .into_iter()
            .enumerate()
        {
            l[at(i) % len] = v;
        }
    }

    fn values(n: usize, seed: u32) -> Vec<f32> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (x >> 8) as f32 / (1 << 24) as f32 - 0.5
            })
            .collect()
    }

    /// Tiles of 16,384 multiply-adds split a 250x300 (k = 150) product into many tiles,
    /// ragged at the edges; every element is the same sum as the untiled product, at 1 and
    /// 2 threads (the product is large enough for the pool).
    #[test]
    fn tiles_give_the_untiled_bits() {
        let (m, k, n) = (250, 150, 300);
        let (l, r) = (values(m * k, 1), values(k * n, 2));
        let (lhs, rhs, want) = sequential(&l, &r, (m, k, n));
        let far = Stop::new(&ExecuteOptions::new().with_timeout(Duration::from_secs(600)));
        for threads in [1, 2] {
            let t = Threads::new(threads);
            let mut got = vec![f32::NAN; m * n];
            let dst = MatMut::from_row_major_slice_mut(&mut got, m, n);
            gemm_tiles(dst, lhs, rhs, t.parallel(), (&far, 1 << 14, Accum::Replace));
            assert!(got
                .iter()
                .zip(&want)
                .all(|(a, b)| a.to_bits() == b.to_bits()));
        }
    }

    /// A column-major lhs of 1,024+ rows is copied row-major before its product
    /// (`row_major_lhs`): the product has the bits of faer's product on the lhs read in
    /// place, for a batch of two with a strided (padded) lhs, NaN/±inf/±0 among the
    /// values, at 1 and 2 threads; and the copy is really taken for such a shape.
    #[test]
    fn a_repacked_lhs_gives_the_same_bits() {
        let (b, m, k, n) = (2, 1100, 960, 40);
        let ld = m + 8;
        let mut l = values(b * ld * k, 5);
        plant_specials(&mut l, |i| i * 977);
        let r = values(b * k * n, 6);
        let ll = Layout {
            offsets: vec![0, ld * k],
            orient: Orient::ColMajor,
            stride: ld,
        };
        let rl = Layout::packed(Orient::RowMajor, b, k, n);
        assert!(row_major_lhs((&l, &ll), [b, m, k, n], Parallel::SEQ).is_some());
        let mut want = vec![0f32; b * m * n];
        for (bi, w) in want.chunks_mut(m * n).enumerate() {
            let dst = MatMut::from_row_major_slice_mut(w, m, n);
            gemm(dst, ll.view(&l, bi, m, k), rl.view(&r, bi, k, n), Par::Seq);
        }
        for threads in [1, 2] {
            let t = Threads::new(threads);
            let got = bmm_faer((&l, &ll), (&r, &rl), [b, m, k, n], t.parallel());
            assert_eq!(got.len(), want.len());
            assert!(got
                .iter()
                .zip(&want)
                .all(|(a, b)| a.to_bits() == b.to_bits()));
        }
    }

    /// Products of at least [`MIN_PAIR_FLOPS`] multiply-adds at two threads are split
    /// into bands shared with the partner thread (`gemm_par`): every element has the
    /// bits of the sequential product, NaN/±inf/±0 among the values, for long, wide and
    /// square outputs of sizes that split unevenly and matrix-vector products, each split
    /// in several bands.
    #[test]
    fn products_shared_with_the_partner_give_the_sequential_bits() {
        let shapes = [
            (1000, 64, 64),
            (64, 1000, 64),
            (64, 1000, 48),
            (100, 50, 1000),
            (333, 77, 129),
            (17, 4096, 30),
            // Matrix-vector products (`matvec` per band).
            (1, 1024, 256),
            (1024, 256, 1),
        ];
        for (case, &(m, k, n)) in shapes.iter().enumerate() {
            assert!(m * n * k >= MIN_PAIR_FLOPS, "{m}x{k}x{n}");
            let mut l = values(m * k, 7 + case as u32);
            plant_specials(&mut l, |i| i * 7919 + case);
            let r = values(k * n, 31 + case as u32);
            let (lhs, rhs, mut want) = sequential(&l, &r, (m, k, n));
            let t = Threads::new(2);
            let par = t.parallel();
            assert!(par.pair().is_some());
            for round in 0..20 {
                let mut got = vec![f32::NAN; m * n];
                let dst = MatMut::from_row_major_slice_mut(&mut got, m, n);
                gemm_par(dst, lhs, rhs, par, &Stop::default());
                let same = got
                    .iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()));
                assert!(same, "{m}x{k}x{n}, round {round}");
            }
            let jobs = split_product(
                MatMut::from_row_major_slice_mut(&mut want, m, n),
                lhs,
                rhs,
                2,
            );
            assert!(jobs.len() > 1, "{m}x{k}x{n} in one block");
        }
    }

    /// A batch of small products at two threads is shared with the partner thread product
    /// by product (`bmm_faer`): the bits of each product computed alone, NaN/±inf/±0
    /// among the values, for batch sizes that split unevenly.
    #[test]
    fn batches_shared_with_the_partner_give_the_sequential_bits() {
        for (b, m, k, n) in [(16, 32, 32, 32), (5, 48, 40, 33), (3, 64, 64, 64)] {
            assert!(b * m * n * k >= MIN_PAIR_FLOPS && m * n * k < MIN_PAR_FLOPS);
            let mut l = values(b * m * k, 11);
            plant_specials(&mut l, |i| i * 613);
            let r = values(b * k * n, 12);
            let ll = Layout::packed(Orient::RowMajor, b, m, k);
            let rl = Layout::packed(Orient::RowMajor, b, k, n);
            let mut want = vec![0f32; b * m * n];
            for (bi, w) in want.chunks_mut(m * n).enumerate() {
                let dst = MatMut::from_row_major_slice_mut(w, m, n);
                gemm(dst, ll.view(&l, bi, m, k), rl.view(&r, bi, k, n), Par::Seq);
            }
            let t = Threads::new(2);
            assert!(t.parallel().pair().is_some());
            for _ in 0..10 {
                let got = bmm_faer((&l, &ll), (&r, &rl), [b, m, k, n], t.parallel());
                assert_eq!(got.len(), want.len());
                assert!(got
                    .iter()
                    .zip(&want)
                    .all(|(a, b)| { a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()) }));
            }
        }
    }

    /// A stop already set skips every tile: the destination is left as it was.
    #[test]
    fn a_cancelled_product_skips_its_tiles() {
        let (m, k, n) = (64, 64, 64);
        let (l, r) = (values(m * k, 3), values(k * n, 4));
        let token = CancelToken::new();
        token.cancel();
        let stop = Stop::new(&ExecuteOptions::new().with_cancel(token));
        let mut got = vec![7f32; m * n];
        let dst = MatMut::from_row_major_slice_mut(&mut got, m, n);
        let (lhs, rhs) = (
            MatRef::from_row_major_slice(&l, m, k),
            MatRef::from_row_major_slice(&r, k, n),
        );
        gemm_tiles(dst, lhs, rhs, Parallel::SEQ, (&stop, 4096, Accum::Replace));
        assert!(got.iter().all(|&x| x == 7.0));
    }
}
