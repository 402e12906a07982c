//! Convolutions with lhs dilation (Flax's `ConvTranspose`, the input gradient of a strided
//! convolution, and their kernel gradients) split into ordinary convolutions: the
//! "sub-pixel" decomposition.
//!
//! Along a spatial dim with lhs dilation `d`, output `o` and window tap `k` read lhs position
//! `p = o * stride + k * rhs_dilation - padding_low`, which is a real lhs element only when
//! `d` divides `p`. Whether it does depends only on `o mod m` (`m = d / gcd(stride, d)`) and
//! `k mod kstep` (`kstep = d / gcd(rhs_dilation, d)`), so the outputs `r, r + m, r + 2m, ...`
//! all read the taps `k0, k0 + kstep, ...` and nothing else: an ordinary convolution of the
//! undilated lhs with the kernel's taps `k0, k0 + kstep, ...`, stride `m * stride / d`, rhs
//! dilation `kstep * rhs_dilation / d` and padding `-(r * stride + k0 * rhs_dilation -
//! padding_low) / d`. Each class (one residue per spatial dim) runs as that convolution
//! through the usual products, and its output is placed into every `m`-th output element.
//! The products then skip the zeros between dilated lhs elements (3/4 of the work of a 2-D
//! stride-2 transposed convolution). Outputs no tap reaches stay zero, as in the reference.
//!
//! Each class's product is deterministic, so results do not depend on the thread count.

use super::contraction::ConvPlan;
use super::conv::{conv_gemm, out_roles};
use super::matmul::FaerElem;
use super::strided::copy_typed;
use crate::index::{count, for_each_index, strides};
use crate::parallel::Parallel;
use xla_core::attrs::WindowDim;

/// Most classes (ordinary convolutions) one convolution is split into; beyond this the
/// lhs-dilated convolution takes the general products.
const MAX_CLASSES: usize = 256;

/// One residue class along one spatial dim.
#[derive(Clone, Debug)]
struct DimClass {
    /// Outputs `r, r + m, ...`, `count` of them.
    r: usize,
    m: usize,
    count: usize,
    /// Taps `k0, k0 + kstep, ...` (the window of `win`).
    k0: usize,
    kstep: usize,
    /// The window of the ordinary convolution over the undilated lhs.
    win: WindowDim,
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// The classes of spatial dim `s` with `osize` outputs; `None` when the window is not one
/// the decomposition handles (non-positive stride or dilation).
fn dim_classes(p: &ConvPlan, s: usize, osize: usize) -> Option<Vec<DimClass>> {
    let w = p.win.get(s)?;
    let size = i64::try_from(p.lhs_spatial.get(s)?.0).ok()?;
    let ksize = p.rhs_spatial.get(s)?.0;
    let (st, wd, bd, pl) = (w.stride, w.window_dilation, w.base_dilation, w.padding_low);
    if st <= 0 || wd <= 0 || bd <= 0 || size == 0 {
        return None;
    }
    let m = bd / gcd(st, bd);
    let kstep = bd / gcd(wd, bd);
    let mut out = Vec::new();
    for r in 0..usize::try_from(m).ok()?.min(osize) {
        let n = (osize - r).div_ceil(m as usize);
        let first = |k: usize| r as i64 * st + k as i64 * wd - pl;
        let Some(k0) = (0..ksize).find(|&k| first(k).rem_euclid(bd) == 0) else {
            continue;
        };
        let taps = (ksize - 1 - k0) / kstep as usize + 1;
        let mut win = WindowDim::new(taps as i64);
        win.stride = m * st / bd;
        win.window_dilation = kstep * wd / bd;
        win.padding_low = -first(k0).div_euclid(bd);
        // Not read by the kernels; set so that the window yields `n` outputs.
        win.padding_high =
            (n as i64 - 1) * win.stride + (taps as i64 - 1) * win.window_dilation + 1
                - size
                - win.padding_low;
        out.push(DimClass {
            r,
            m: m as usize,
            count: n,
            k0,
            kstep: kstep as usize,
            win,
        });
    }
    Some(out)
}

/// The taps of class `cls` of the kernel, copied into a dense array whose dims keep the
/// kernel's order, and `q` (a copy of the plan) changed to read it.
fn sub_kernel<T: Copy + Default + Send + Sync>(
    r: &[T],
    p: &ConvPlan,
    cls: &[&DimClass],
    oc: usize,
    q: &mut ConvPlan,
) -> Option<Vec<T>> {
    // (size, source stride, original stride) per kernel dim: input feature, output
    // feature, then the spatial dims.
    let mut dims = vec![
        (p.kic, p.rhs_in_stride as isize, p.rhs_in_stride),
        (oc, p.rhs_out_stride as isize, p.rhs_out_stride),
    ];
    let mut base = 0isize;
    for ((c, &(size, stride)), w) in cls.iter().zip(&p.rhs_spatial).zip(&p.win) {
        let n = usize::try_from(c.win.size).ok()?;
        let step = (c.kstep * stride) as isize;
        if w.window_reversal {
            base += ((size - 1 - c.k0) * stride) as isize;
            dims.push((n, -step, stride));
        } else {
            base += (c.k0 * stride) as isize;
            dims.push((n, step, stride));
        }
    }
    // The copy's dims in the kernel's order (outermost first).
    let mut order: Vec<usize> = (0..dims.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(dims.get(i).map_or(0, |d| d.2)));
    let picked: Vec<(usize, isize, usize)> =
        order.iter().filter_map(|&i| dims.get(i).copied()).collect();
    let sizes: Vec<usize> = picked.iter().map(|d| d.0).collect();
    let src: Vec<isize> = picked.iter().map(|d| d.1).collect();
    let w = copy_typed(r, base, &sizes, &src, Parallel::SEQ)?;
    let mut dense = vec![0; dims.len()];
    for (&i, st) in order.iter().zip(strides(&sizes)) {
        *dense.get_mut(i)? = st;
    }
    let (&[si, so], spatial) = dense.split_first_chunk::<2>()?;
    (q.rhs_in_stride, q.rhs_out_stride) = (si, so);
    if spatial.len() != q.rhs_spatial.len() {
        return None;
    }
    for ((x, d), &st) in q
        .rhs_spatial
        .iter_mut()
        .zip(dims.iter().skip(2))
        .zip(spatial)
    {
        *x = (d.0, st);
    }
    Some(w)
}

/// Writes `sub` (dense over `dims`) into `out` at `base + sum(index * dst[d])`.
fn place<T: Copy>(sub: &[T], dims: &[usize], base: usize, dst: &[usize], out: &mut [T]) {
    // Dims of size 1 dropped, so that the inner loop runs along a longer one.
    let (dims, dst): (Vec<usize>, Vec<usize>) =
        dims.iter().zip(dst).filter(|(&d, _)| d != 1).unzip();
    let Some((&last, outer)) = dims.split_last() else {
        if let (Some(o), Some(&v)) = (out.get_mut(base), sub.first()) {
            *o = v;
        }
        return;
    };
    let ls = dst.last().copied().unwrap_or(0);
    let mut rows = sub.chunks(last.max(1));
    for_each_index(outer, |i| {
        let Some(src) = rows.next() else { return };
        let at = base + i.iter().zip(&dst).map(|(a, b)| a * b).sum::<usize>();
        for (j, &v) in src.iter().enumerate() {
            if let Some(o) = out.get_mut(at + j * ls) {
                *o = v;
            }
        }
    });
}

/// One class: its ordinary convolution, placed into `out`; `None` when the products
/// declined it (see [`conv_gemm`]).
fn run_class<T: FaerElem>(
    (l, r): (&[T], &[T]),
    p: &ConvPlan,
    cls: &[&DimClass],
    out: &mut [T],
    par: Parallel<'_>,
) -> Option<()> {
    let (.., oc, _, _, _) = out_roles(p);
    let mut q = p.clone();
    let w = sub_kernel(r, p, cls, oc, &mut q)?;
    let ost = strides(&p.out_dims);
    let (mut base, mut dst) = (0, ost.clone());
    let dims = q.out_dims.iter_mut().zip(dst.iter_mut()).zip(&ost);
    for (((size, step), &st), &(role, s)) in dims.zip(&p.out_role) {
        if role == 2 {
            let c = cls.get(s)?;
            (*size, *step) = (c.count, c.m * st);
            base += c.r * st;
        }
    }
    for (x, c) in q.win.iter_mut().zip(cls) {
        *x = c.win.clone();
    }
    let sub = conv_gemm(l, &w, &q, par)?;
    place(&sub, &q.out_dims, base, &dst, out);
    Some(())
}

/// The convolution through the sub-pixel decomposition (see the module docs); `None` when
/// no spatial dim has lhs dilation, the window is one it does not handle, or a class's
/// product declined (the caller then takes the general path).
pub(crate) fn conv_subpixel<T: FaerElem>(
    l: &[T],
    r: &[T],
    p: &ConvPlan,
    par: Parallel<'_>,
) -> Option<Vec<T>> {
    if p.win.iter().all(|w| w.base_dilation == 1) || count(&p.out_dims) == 0 {
        return None;
    }
    let (.., osizes, _) = out_roles(p);
    let classes = (0..p.win.len())
        .map(|s| dim_classes(p, s, *osizes.get(s)?))
        .collect::<Option<Vec<_>>>()?;
    let per: Vec<usize> = classes.iter().map(Vec::len).collect();
    if count(&per) > MAX_CLASSES {
        return None;
    }
    let mut out = vec![T::default(); count(&p.out_dims)];
    let mut ok = true;
    for_each_index(&per, |i| {
        let cls: Vec<&DimClass> = classes
            .iter()
            .zip(i)
            .filter_map(|(c, &j)| c.get(j))
            .collect();
        ok = ok && run_class((l, r), p, &cls, &mut out, par).is_some();
    });
    ok.then_some(out)
}
