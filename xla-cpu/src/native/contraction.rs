//! `dot` on f32/f64: operands laid out exactly as the interpreter hands them to faer
//! (in place when their dims allow, else a row-major permuted copy), then a call of the
//! same faer product (`kernels/matmul.rs`), so every sum runs in the same order.

use super::emit::{clif, Em, Ix};
use super::lower::Lowerer;
use super::program::{Inst, SlotId, Ty};
use super::structural::runs_of;
use crate::kernels::contraction::{dot_split, in_place};
use crate::kernels::matmul::{gemm, view, Orient, TINY};
use cranelift_codegen::ir::{types, AbiParam, InstBuilder};
use faer::{MatMut, Par};
use xla_core::attrs::DotDims;
use xla_core::Shape;

fn dims_of(s: &Shape) -> Option<Vec<usize>> {
    crate::index::dims_of(s).ok()
}

/// The operand as `[batch, first, second]` matrices: in place, or a permuted copy.
fn operand(
    lw: &mut Lowerer<'_>,
    x: SlotId,
    dims: &[usize],
    groups: [&[usize]; 3],
    out: &mut Vec<Inst>,
) -> Option<(SlotId, Orient)> {
    let [b, first, second] = groups;
    if let Some(o) = in_place(b, first, second) {
        return Some((x, o));
    }
    let order: Vec<usize> = b.iter().chain(first).chain(second).copied().collect();
    let mut st = vec![1usize; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        st[d] = st[d + 1] * dims[d + 1];
    }
    let odims: Vec<usize> = order
        .iter()
        .map(|&d| dims.get(d).copied())
        .collect::<Option<_>>()?;
    let ost: Vec<usize> = order
        .iter()
        .map(|&d| st.get(d).copied())
        .collect::<Option<_>>()?;
    let n: usize = odims.iter().product();
    let info = lw.info(x)?;
    let t = lw.slot(info.ty, n)?;
    let mut map = Vec::with_capacity(n);
    let mut idx = vec![0usize; odims.len()];
    for _ in 0..n {
        map.push((x, idx.iter().zip(&ost).map(|(i, s)| i * s).sum()));
        crate::index::advance(&mut idx, &odims);
    }
    out.push(Inst::Move {
        dst: t,
        runs: runs_of(&map),
    });
    Some((t, Orient::RowMajor))
}

/// Lowers `dot(l, r)` into `dst`.
pub(crate) fn lower(
    lw: &mut Lowerer<'_>,
    dd: &DotDims,
    [l, r]: [SlotId; 2],
    shapes: [&Shape; 2],
    dst: SlotId,
    out: &mut Vec<Inst>,
) -> Option<()> {
    let ty = lw.info(dst)?.ty;
    if !ty.is_float() || lw.info(l)?.ty != ty || lw.info(r)?.ty != ty {
        return None;
    }
    let (ld, rd) = (dims_of(shapes[0])?, dims_of(shapes[1])?);
    let [lb, lf, lc, rb, rf, rc] = dot_split(&ld, &rd, dd, (shapes[0], shapes[1])).ok()?;
    let size = |dims: &[usize], ds: &[usize]| {
        ds.iter()
            .try_fold(1usize, |p, &d| p.checked_mul(*dims.get(d)?))
    };
    let bmkn = [
        size(&ld, &lb)?,
        size(&ld, &lf)?,
        size(&ld, &lc)?,
        size(&rd, &rf)?,
    ];
    let [b, m, k, n] = bmkn;
    let count = |x: usize, y: usize, z: usize| x.checked_mul(y)?.checked_mul(z);
    if count(b, m, n)? != lw.info(dst)?.n
        || count(b, m, k)? != lw.info(l)?.n
        || count(b, k, n)? != lw.info(r)?.n
    {
        return None;
    }
    let (ls, lo) = operand(lw, l, &ld, [&lb, &lf, &lc], out)?;
    let (rs, ro) = operand(lw, r, &rd, [&rb, &rc, &rf], out)?;
    out.push(Inst::Dot {
        lhs: ls,
        rhs: rs,
        dst,
        orient: [lo, ro],
        bmkn,
    });
    Some(())
}

/// Emits the call of the product.
pub(crate) fn emit(em: &mut Em<'_, '_>, ins: &Inst) -> Option<()> {
    let Inst::Dot {
        lhs,
        rhs,
        dst,
        orient,
        bmkn,
    } = ins
    else {
        return None;
    };
    if inline(em, ins).is_some() {
        return Some(());
    }
    let name = if em.slot(*dst)?.ty == Ty::F32 {
        "dot_f32"
    } else {
        "dot_f64"
    };
    let ptr = em.ptr();
    let mut sig = cranelift_codegen::ir::Signature::new(em.b.func.signature.call_conv);
    sig.params.extend([ptr, ptr, ptr].map(AbiParam::new));
    sig.params.push(AbiParam::new(types::I32));
    sig.params.extend([types::I64; 4].map(AbiParam::new));
    let f = em.import(name, sig)?;
    let (a, b, d) = (em.addr(*lhs)?, em.addr(*rhs)?, em.addr(*dst)?);
    let bit = |o: Orient| i64::from(o == Orient::ColMajor);
    let fl =
        em.b.ins()
            .iconst(types::I32, bit(orient[0]) | (bit(orient[1]) << 1));
    let mut args = vec![a, b, d, fl];
    for x in bmkn {
        args.push(em.b.ins().iconst(types::I64, i64::try_from(*x).ok()?));
    }
    em.b.ins().call(f, &args);
    em.forget(*dst);
    Some(())
}

/// A product of at most [`TINY`] multiply-adds in all, emitted in place of the call: the
/// very sums `gemm` makes for such products (from +0, `acc + l * r` in `k` order), with
/// the operands and sums in registers (a call cost more than the arithmetic in an ODE
/// solver's loop of 5×9 by 9×2 products). `None` (nothing emitted) for larger ones.
fn inline(em: &mut Em<'_, '_>, ins: &Inst) -> Option<()> {
    let Inst::Dot {
        lhs,
        rhs,
        dst,
        orient,
        bmkn,
    } = ins
    else {
        return None;
    };
    let [b, m, k, n] = *bmkn;
    if b.checked_mul(m)?.checked_mul(n)?.checked_mul(k)? > TINY {
        return None;
    }
    let ty = clif(em.slot(*dst)?.ty);
    // Element (i, j) of an `rows x cols` matrix laid out as `o`.
    let at = |o: Orient, rows: usize, cols: usize, i: usize, j: usize| match o {
        Orient::RowMajor => i * cols + j,
        Orient::ColMajor => j * rows + i,
    };
    for bi in 0..b {
        for i in 0..m {
            for j in 0..n {
                let mut acc = if ty == types::F32 {
                    em.b.ins().f32const(0.0)
                } else {
                    em.b.ins().f64const(0.0)
                };
                for p in 0..k {
                    let x = em.load(*lhs, Ix::C(bi * m * k + at(orient[0], m, k, i, p)))?;
                    let y = em.load(*rhs, Ix::C(bi * k * n + at(orient[1], k, n, p, j)))?;
                    let prod = em.b.ins().fmul(x, y);
                    acc = em.b.ins().fadd(acc, prod);
                }
                em.store(*dst, Ix::C((bi * m + i) * n + j), acc)?;
            }
        }
    }
    Some(())
}

fn orient(flags: i32, bit: i32) -> Orient {
    if flags & bit != 0 {
        Orient::ColMajor
    } else {
        Orient::RowMajor
    }
}

/// `bmm_faer`'s sequential path on raw slots.
///
/// # Safety
/// `l`, `r` and `out` point to `b*m*k`, `b*k*n` and `b*m*n` valid elements, and `out`
/// overlaps neither operand (lowering gives the result a slot of its own).
unsafe fn dot<T: crate::kernels::matmul::FaerElem>(
    l: *const T,
    r: *const T,
    out: *mut T,
    flags: i32,
    bmkn: [i64; 4],
) {
    let [b, m, k, n] = bmkn.map(|x| usize::try_from(x).unwrap_or(0));
    // SAFETY: see the function's contract.
    let (l, r, o) = unsafe {
        (
            std::slice::from_raw_parts(l, b * m * k),
            std::slice::from_raw_parts(r, b * k * n),
            std::slice::from_raw_parts_mut(out, b * m * n),
        )
    };
    if o.is_empty() || k == 0 {
        o.fill(T::default());
        return;
    }
    let (lo, ro) = (orient(flags, 1), orient(flags, 2));
    let run = move || {
        for (bi, ob) in o.chunks_mut(m * n).enumerate() {
            let (Some(ls), Some(rs)) = (
                l.get(bi * m * k..(bi + 1) * m * k),
                r.get(bi * k * n..(bi + 1) * k * n),
            ) else {
                return;
            };
            gemm(
                MatMut::from_row_major_slice_mut(ob, m, n),
                view(ls, m, k, lo),
                view(rs, k, n, ro),
                Par::Seq,
            );
        }
    };
    // A panic must not unwind into generated code; the result is then left as it is.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run));
}

extern "C" fn dot_f32(
    l: *const f32,
    r: *const f32,
    o: *mut f32,
    fl: i32,
    b: i64,
    m: i64,
    k: i64,
    n: i64,
) {
    // SAFETY: called only by generated code with the slots of a lowered dot.
    unsafe { dot(l, r, o, fl, [b, m, k, n]) }
}

extern "C" fn dot_f64(
    l: *const f64,
    r: *const f64,
    o: *mut f64,
    fl: i32,
    b: i64,
    m: i64,
    k: i64,
    n: i64,
) {
    // SAFETY: as `dot_f32`.
    unsafe { dot(l, r, o, fl, [b, m, k, n]) }
}

/// The product functions, by symbol name.
pub(crate) fn symbols() -> Vec<(&'static str, *const u8)> {
    type F32 = extern "C" fn(*const f32, *const f32, *mut f32, i32, i64, i64, i64, i64);
    type F64 = extern "C" fn(*const f64, *const f64, *mut f64, i32, i64, i64, i64, i64);
    vec![
        ("dot_f32", dot_f32 as F32 as *const u8),
        ("dot_f64", dot_f64 as F64 as *const u8),
    ]
}
