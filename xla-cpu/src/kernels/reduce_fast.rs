//! Fast `reduce` of one operand with a recognised combiner (add, multiply, maximum, ...):
//! strided loops instead of the generic group lists of `window.rs`.
//!
//! The operand's dims are first merged into runs of kept and reduced dims (size-1 dims
//! dropped). Then:
//! 1. if the innermost run is reduced, every contiguous row of it is folded (in parallel
//!    over rows; within a row, in [`LANES`] interleaved partial results combined in a fixed
//!    order, so SIMD can run it);
//! 2. the remaining reduced runs are folded by combining whole contiguous rows of the
//!    innermost kept run into their output row, in row-major order of the reduced indices
//!    (the order of the reference fold).
//!
//! A run with a token or deadline (`limits/stop.rs`) is polled every [`POLL`] elements:
//! between groups of rows, between blocks of a long row and of the accumulated rows.
//!
//! Work is split only over output elements, so results do not depend on the thread count.
//! Step 1's lane order differs from a left-to-right fold only in rounding for `add`/`mul`
//! on floats (XLA itself reduces in vectorised partial sums).

use super::elementwise::{fmax, fmin};
use crate::limits::stop::Stop;
use crate::parallel::Parallel;
use crate::scalar::Combine;
use rayon::prelude::*;
use xla_core::attrs::BinaryOp;
use xla_core::literal::{ArrayData, NativeData};
use xla_core::with_array_data;

/// Interleaved partial results per row fold.
const LANES: usize = 16;
/// Elements below which a reduce stays on one thread.
const PAR_MIN: usize = 1 << 15;
/// Elements between two polls of the run's stop conditions (a multiple of [`LANES`]).
const POLL: usize = 1 << 16;

/// Reduces `x` (of `dims`) over the dims flagged in `red`, starting from the scalar `init`.
/// `None` when `op` has no native combiner for the element type or `init` is not a scalar
/// of it (the caller then uses the general path).
pub(crate) fn reduce(
    x: &ArrayData,
    init: &ArrayData,
    dims: &[usize],
    red: &[bool],
    op: BinaryOp,
    par: Parallel<'_>,
) -> Option<ArrayData> {
    let runs = merge_runs(dims, red);
    if x.len() != dims.iter().product::<usize>() {
        return None;
    }
    if let Some(out) = super::reduce_tree::complex_reduce(x, init, dims, red, op) {
        return Some(out);
    }
    // Closures the compiler can inline (and vectorise) for the common float cases; a call
    // through the combiner's function pointer otherwise.
    match (x, op) {
        (ArrayData::F32(v), BinaryOp::Add) => typed(v, init, &runs, |a, b| a + b, par),
        (ArrayData::F32(v), BinaryOp::Max) => typed(v, init, &runs, fmax::<f32>, par),
        (ArrayData::F64(v), BinaryOp::Add) => typed(v, init, &runs, |a, b| a + b, par),
        (ArrayData::F64(v), BinaryOp::Max) => typed(v, init, &runs, fmax::<f64>, par),
        (ArrayData::F32(v), BinaryOp::Min) => typed(v, init, &runs, fmin::<f32>, par),
        (ArrayData::F64(v), BinaryOp::Min) => typed(v, init, &runs, fmin::<f64>, par),
        (ArrayData::F32(v), BinaryOp::Mul) => typed(v, init, &runs, |a, b| a * b, par),
        (ArrayData::F64(v), BinaryOp::Mul) => typed(v, init, &runs, |a, b| a * b, par),
        (ArrayData::S32(v), BinaryOp::Add) => typed(v, init, &runs, i32::wrapping_add, par),
        _ => with_array_data!(x, v => {
            let f = Combine::native(op)?;
            typed(v, init, &runs, f, par)
        }),
    }
}

fn typed<T, F>(
    v: &[T],
    init: &ArrayData,
    runs: &[(usize, bool)],
    f: F,
    par: Parallel<'_>,
) -> Option<ArrayData>
where
    T: NativeData + Send + Sync,
    F: Fn(T, T) -> T + Copy + Send + Sync,
{
    let init = *T::slice(init)?.first()?;
    Some(T::wrap(reduce_runs(v, init, runs, f, par)))
}

/// The operand's dims as runs of (element count, reduced?), outermost first, with size-1
/// dims dropped and neighbours of the same kind merged.
fn merge_runs(dims: &[usize], red: &[bool]) -> Vec<(usize, bool)> {
    let mut runs: Vec<(usize, bool)> = Vec::new();
    for (&d, &r) in dims.iter().zip(red) {
        if d == 1 {
            continue;
        }
        match runs.last_mut() {
            Some((n, lr)) if *lr == r => *n *= d,
            _ => runs.push((d, r)),
        }
    }
    runs
}

fn reduce_runs<T, F>(v: &[T], init: T, runs: &[(usize, bool)], f: F, par: Parallel<'_>) -> Vec<T>
where
    T: Copy + Send + Sync,
    F: Fn(T, T) -> T + Copy + Send + Sync,
{
    if v.is_empty() {
        let nout = runs.iter().filter(|r| !r.1).map(|r| r.0).product::<usize>();
        return vec![init; nout];
    }
    let stop = match v.len() >= POLL {
        true => Stop::current(),
        false => Stop::default(),
    };
    let mut runs = runs.to_vec();
    let folded: Vec<T>;
    let mut cur = v;
    if let Some(&(len, true)) = runs.last() {
        folded = match stop.is_active() {
            true => fold_rows_polled(v, len, f, init, (par, &stop)),
            false => fold_rows(v, len, f, init, par),
        };
        runs.pop();
        cur = &folded;
    }
    if runs.iter().all(|r| !r.1) {
        return cur.iter().map(|&p| f(init, p)).collect();
    }
    accumulate_rows(cur, init, &runs, (f, &stop))
}

/// [`fold_rows`] polling `stop` between groups of rows of about [`POLL`] elements (and
/// within rows longer than that): once it says stop, the rest are left `init`.
fn fold_rows_polled<T, F>(
    v: &[T],
    len: usize,
    f: F,
    init: T,
    (par, stop): (Parallel<'_>, &Stop),
) -> Vec<T>
where
    T: Copy + Send + Sync,
    F: Fn(T, T) -> T + Copy + Send + Sync,
{
    let group = (POLL / len.max(1)).max(1) * len.max(1);
    let fold = |g: &[T]| {
        let go = !stop.stopped();
        let fill = move |r: &[T]| {
            if go {
                fold_row_polled(r, f, init, stop)
            } else {
                init
            }
        };
        g.chunks_exact(len.max(1)).map(fill).collect::<Vec<T>>()
    };
    if v.len() < PAR_MIN || par.threads() <= 1 {
        return v.chunks(group).flat_map(fold).collect();
    }
    par.install(|| v.par_chunks(group).flat_map_iter(fold).collect())
}

/// Folds each contiguous row of `len` elements of `v` (without an init value).
fn fold_rows<T, F>(v: &[T], len: usize, f: F, init: T, par: Parallel<'_>) -> Vec<T>
where
    T: Copy + Send + Sync,
    F: Fn(T, T) -> T + Copy + Send + Sync,
{
    if v.len() < PAR_MIN || par.threads() <= 1 {
        return v.chunks_exact(len).map(|r| fold_row(r, f, init)).collect();
    }
    par.install(|| {
        v.par_chunks_exact(len)
            .with_min_len((PAR_MIN / len).max(1))
            .map(|r| fold_row(r, f, init))
            .collect()
    })
}

/// One row folded in [`LANES`] interleaved partials, combined pairwise in a fixed order.
/// `empty` is returned for an empty row (runs are never empty here).
fn fold_row<T: Copy, F: Fn(T, T) -> T + Copy>(row: &[T], f: F, empty: T) -> T {
    fold_row_polled(row, f, empty, &crate::limits::stop::NEVER)
}

/// [`fold_row`], polling `stop` between blocks of [`POLL`] elements (the same sums: the
/// blocks are whole groups of [`LANES`]); once stopped, the rest of the row is skipped.
fn fold_row_polled<T: Copy, F: Fn(T, T) -> T + Copy>(row: &[T], f: F, empty: T, stop: &Stop) -> T {
    let Some((&first, rest)) = row.split_first() else {
        return empty;
    };
    if row.len() < 2 * LANES {
        return rest.iter().fold(first, |a, &b| f(a, b));
    }
    let (head, tail) = row.split_at(LANES);
    let mut acc: [T; LANES] = std::array::from_fn(|i| head[i]);
    let (body, remainder) = tail.split_at(tail.len() / LANES * LANES);
    for (b, block) in body.chunks(POLL).enumerate() {
        if b > 0 && stop.stopped() {
            break;
        }
        for c in block.chunks_exact(LANES) {
            for i in 0..LANES {
                acc[i] = f(acc[i], c[i]);
            }
        }
    }
    for (i, &r) in remainder.iter().enumerate() {
        acc[i] = f(acc[i], r);
    }
    let mut w = LANES;
    while w > 1 {
        w /= 2;
        for i in 0..w {
            acc[i] = f(acc[i], acc[i + w]);
        }
    }
    acc[0]
}

/// Folds the rows of the innermost (kept) run of `v` into their output rows, starting from
/// `init`, visiting the reduced indices in row-major order.
fn accumulate_rows<T, F>(v: &[T], init: T, runs: &[(usize, bool)], (f, stop): (F, &Stop)) -> Vec<T>
where
    T: Copy,
    F: Fn(T, T) -> T + Copy,
{
    let k = runs.last().map_or(1, |r| r.0);
    let outer = &runs[..runs.len().saturating_sub(1)];
    // Output row stride of each outer run (0 for reduced runs).
    let mut ostride = vec![0usize; outer.len()];
    let mut s = 1usize;
    for (i, &(n, r)) in outer.iter().enumerate().rev() {
        if !r {
            ostride[i] = s;
            s *= n;
        }
    }
    let mut out = vec![init; s * k];
    let mut idx = vec![0usize; outer.len()];
    let mut orow = 0usize;
    // Rows between polls of `stop` (a run without one never polls).
    let every = match stop.is_active() {
        true => (POLL / k.max(1)).max(1),
        false => usize::MAX,
    };
    for (n, row) in v.chunks_exact(k).enumerate() {
        if n % every == every - 1 && stop.stopped() {
            break;
        }
        if let Some(dst) = out.get_mut(orow * k..(orow + 1) * k) {
            for (d, &x) in dst.iter_mut().zip(row) {
                *d = f(*d, x);
            }
        }
        // Advance the outer odometer, keeping `orow` in step.
        for i in (0..outer.len()).rev() {
            idx[i] += 1;
            orow += ostride[i];
            if idx[i] < outer[i].0 {
                break;
            }
            orow -= ostride[i] * idx[i];
            idx[i] = 0;
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::parallel::Threads;

    /// The reduce by its definition: each output folds its elements in row-major order of
    /// the reduced dims, starting from `init`.
    fn reference<T: Copy>(
        v: &[T],
        dims: &[usize],
        red: &[bool],
        init: T,
        f: fn(T, T) -> T,
    ) -> Vec<T> {
        let odims: Vec<usize> = (0..dims.len())
            .filter(|&d| !red[d])
            .map(|d| dims[d])
            .collect();
        let nout: usize = odims.iter().product();
        let mut out = vec![init; nout];
        let mut idx = vec![0usize; dims.len()];
        for &x in v {
            let mut o = 0;
            for d in 0..dims.len() {
                if !red[d] {
                    o = o * dims[d] + idx[d];
                }
            }
            out[o] = f(out[o], x);
            crate::index::advance(&mut idx, dims);
        }
        out
    }

    /// Shapes and reduced-dim sets covering every run pattern, incl. size-0 and size-1 dims.
    fn cases() -> Vec<(Vec<usize>, Vec<bool>)> {
        let t = true;
        let f = false;
        vec![
            (vec![64, 32, 28, 28], vec![t, f, t, t]),
            (vec![4096, 70], vec![f, t]),
            (vec![300, 513], vec![t, f]),
            (vec![3, 1, 5, 7, 2], vec![t, t, f, t, f]),
            (vec![5, 7, 9], vec![t, t, t]),
            (vec![5, 7, 9], vec![f, f, f]),
            (vec![5, 0, 9], vec![f, t, f]),
            (vec![5, 0, 9], vec![t, f, t]),
            (vec![1, 1], vec![t, f]),
            (vec![2, 33, 3, 40], vec![f, t, f, t]),
            (vec![100_000], vec![t]),
        ]
    }

    fn data(n: usize) -> Vec<f32> {
        (0..n)
            .map(|i| ((i * 7919 % 1000) as f32 - 500.0) / 64.0)
            .collect()
    }

    #[test]
    fn float_sum_matches_the_definition() {
        for (dims, red) in cases() {
            let n = dims.iter().product();
            let v = data(n);
            let x = ArrayData::F32(v.clone());
            let init = ArrayData::F32(vec![0.5]);
            let got = reduce(&x, &init, &dims, &red, BinaryOp::Add, Parallel::SEQ).unwrap();
            let want = reference(&v, &dims, &red, 0.5, |a, b| a + b);
            let ArrayData::F32(got) = got else { panic!() };
            assert_eq!(got.len(), want.len(), "{dims:?} {red:?}");
            for (g, w) in got.iter().zip(&want) {
                // Inputs are multiples of 1/64 well inside f32's exact range: every order
                // gives the same sum.
                assert_eq!(g, w, "{dims:?} {red:?}");
            }
        }
    }

    #[test]
    fn integer_and_pred_folds_are_exact() {
        for (dims, red) in cases() {
            let n = dims.iter().product();
            let v: Vec<i32> = (0..n).map(|i| (i as i32).wrapping_mul(1_000_003)).collect();
            let x = ArrayData::S32(v.clone());
            let init = ArrayData::S32(vec![i32::MAX]);
            let got = reduce(&x, &init, &dims, &red, BinaryOp::Add, Parallel::SEQ).unwrap();
            let want = reference(&v, &dims, &red, i32::MAX, i32::wrapping_add);
            let ArrayData::S32(got) = got else { panic!() };
            assert_eq!(got, want, "{dims:?} {red:?}");
            let p: Vec<bool> = (0..n).map(|i| i % 97 != 3).collect();
            let got = reduce(
                &ArrayData::Pred(p.clone()),
                &ArrayData::Pred(vec![true]),
                &dims,
                &red,
                BinaryOp::And,
                Parallel::SEQ,
            )
            .unwrap();
            let ArrayData::Pred(got) = got else { panic!() };
            assert_eq!(got, reference(&p, &dims, &red, true, |a, b| a & b));
        }
    }

    #[test]
    fn max_propagates_nan_and_prefers_positive_zero() {
        let v = [
            -0.0f32,
            0.0,
            -1.0,
            f32::NEG_INFINITY,
            1.0,
            f32::NAN,
            2.0,
            -0.0,
        ];
        let x = ArrayData::F32(v.iter().cycle().take(8 * 40).copied().collect());
        let init = ArrayData::F32(vec![f32::NEG_INFINITY]);
        let r = reduce(
            &x,
            &init,
            &[40, 8],
            &[true, false],
            BinaryOp::Max,
            Parallel::SEQ,
        )
        .unwrap();
        let ArrayData::F32(r) = r else { panic!() };
        assert_eq!(r[0].to_bits(), (-0.0f32).to_bits());
        assert_eq!(r[1].to_bits(), 0.0f32.to_bits());
        assert!(r[5].is_nan());
        assert_eq!(r[3], f32::NEG_INFINITY);
        let row = reduce(&x, &init, &[8 * 40], &[true], BinaryOp::Max, Parallel::SEQ).unwrap();
        let ArrayData::F32(row) = row else { panic!() };
        assert!(row[0].is_nan());
        let zeros: Vec<f32> = (0..100).map(|i| if i == 57 { 0.0 } else { -0.0 }).collect();
        let z = reduce(
            &ArrayData::F32(zeros),
            &init,
            &[100],
            &[true],
            BinaryOp::Max,
            Parallel::SEQ,
        );
        let Some(ArrayData::F32(z)) = z else { panic!() };
        assert_eq!(z[0].to_bits(), 0.0f32.to_bits());
    }

    /// Under a run with a deadline (far away) the polled loops give the same bits as the
    /// plain ones: long rows polled inside, short rows in groups, accumulated rows.
    #[test]
    fn polling_for_a_stop_changes_no_bit() {
        use crate::limits::{stop::Stop, ExecuteOptions};
        let far =
            Stop::new(&ExecuteOptions::new().with_timeout(std::time::Duration::from_secs(600)));
        let two = Threads::new(2);
        let mut all = cases();
        all.push((vec![3, 200_000], vec![false, true]));
        all.push((vec![70_000, 3], vec![true, false]));
        all.push((vec![40_000, 5], vec![false, true]));
        for (dims, red) in all {
            let n = dims.iter().product();
            let v: Vec<f32> = (0..n).map(|i| 1.0 / (1.0 + i as f32).sqrt()).collect();
            let (x, init) = (ArrayData::F32(v), ArrayData::F32(vec![0.0]));
            for par in [Parallel::SEQ, two.parallel()] {
                let a = reduce(&x, &init, &dims, &red, BinaryOp::Add, par).unwrap();
                let b = far
                    .install(|| reduce(&x, &init, &dims, &red, BinaryOp::Add, par))
                    .unwrap();
                let (ArrayData::F32(a), ArrayData::F32(b)) = (a, b) else {
                    panic!()
                };
                let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
                assert_eq!(bits(a), bits(b), "{dims:?} {red:?}");
            }
        }
    }

    #[test]
    fn results_do_not_depend_on_the_thread_count() {
        let two = Threads::new(2);
        for (dims, red) in cases() {
            let n = dims.iter().product();
            // Values whose sums round, so a different order would show.
            let v: Vec<f32> = (0..n).map(|i| 1.0 / (1.0 + i as f32).sqrt()).collect();
            let x = ArrayData::F32(v);
            let init = ArrayData::F32(vec![0.0]);
            let a = reduce(&x, &init, &dims, &red, BinaryOp::Add, Parallel::SEQ).unwrap();
            let b = reduce(&x, &init, &dims, &red, BinaryOp::Add, two.parallel()).unwrap();
            let (ArrayData::F32(a), ArrayData::F32(b)) = (a, b) else {
                panic!()
            };
            let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
            assert_eq!(bits(a), bits(b), "{dims:?} {red:?}");
        }
    }

    #[test]
    fn unsupported_combiners_fall_back() {
        let x = ArrayData::F32(vec![1.0; 4]);
        let init = ArrayData::F32(vec![0.0]);
        assert!(reduce(&x, &init, &[4], &[true], BinaryOp::Sub, Parallel::SEQ).is_none());
        let wrong_init = ArrayData::S32(vec![0]);
        assert!(reduce(&x, &wrong_init, &[4], &[true], BinaryOp::Add, Parallel::SEQ).is_none());
    }
}
