//! The LAPACK custom calls (`kernels/lapack.rs`) inside a native loop: the loop's code
//! calls back into the host with the state buffer and the call's description, which runs
//! the very functions the interpreter runs (so results are the same bits) on the slots.

use super::emit::Em;
use super::lower::Lowerer;
use super::program::{Inst, Slot, SlotId, Ty, Val};
use crate::kernels::lapack::{attr, getrf_slices, potrf_slices, trsm_options};
use crate::kernels::linalg::trsm_k;
use crate::parallel::Parallel;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder};
use xla_core::attrs::{CustomCallConfig, TriangularSolveOptions};
use xla_core::Shape;

/// Which LAPACK routine, with its sizes.
#[derive(Clone, Debug)]
pub(crate) enum HostKind {
    /// LU of `m`×`n` matrices: results `(lu, pivots, info)`.
    Getrf { m: usize, n: usize },
    /// Cholesky of `n`×`n` matrices: results `(factor, info)`.
    Potrf { n: usize, lower: bool },
    /// Triangular solve of `m`×`m` and `r`×`c` matrices: result `x`.
    Trsm {
        o: TriangularSolveOptions,
        mrc: (usize, usize, usize),
    },
}

/// One host call: the routine, its element type, operand and result slots.
#[derive(Clone, Debug)]
pub(crate) struct HostOp {
    pub kind: HostKind,
    pub f64: bool,
    pub ins: Vec<SlotId>,
    pub outs: Vec<SlotId>,
}

fn dims(s: &Shape) -> Option<Vec<usize>> {
    crate::index::dims_of(s).ok()
}

/// Lowers a LAPACK custom call, when it is one native code can call.
pub(crate) fn lower(
    lw: &mut Lowerer<'_>,
    config: &CustomCallConfig,
    shapes: &[&Shape],
    opv: &[Val],
    shape: &Shape,
    out: &mut Vec<Inst>,
) -> Option<Val> {
    let kind = config
        .target
        .strip_prefix("lapack_")?
        .strip_suffix("_ffi")?;
    let f64 = match kind.get(..1)? {
        "s" => false,
        "d" => true,
        _ => return None,
    };
    let ins = opv
        .iter()
        .map(|v| match v {
            Val::Leaf(s) => Some(*s),
            Val::Tuple(_) => None,
        })
        .collect::<Option<Vec<_>>>()?;
    let want = if f64 { Ty::F64 } else { Ty::F32 };
    if ins.iter().any(|&s| lw.info(s).map(|i| i.ty) != Some(want)) {
        return None;
    }
    let d0 = dims(shapes.first()?)?;
    let (m, n) = match d0.as_slice() {
        [.., m, n] => (*m, *n),
        _ => return None,
    };
    let cfg = &config.backend_config;
    let kind = match kind.get(1..)? {
        "getrf" => HostKind::Getrf { m, n },
        "potrf" if m == n => HostKind::Potrf {
            n,
            lower: attr(cfg, "uplo")? == 'L',
        },
        "trsm" if m == n => {
            let d1 = dims(shapes.get(1)?)?;
            let (r, c) = match d1.as_slice() {
                [.., r, c] => (*r, *c),
                _ => return None,
            };
            HostKind::Trsm {
                o: trsm_options(cfg).ok()?,
                mrc: (m, r, c),
            }
        }
        _ => return None,
    };
    let dst = lw.fresh(shape)?;
    let mut outs = Vec::new();
    dst.leaves(&mut outs);
    out.push(Inst::Host(Box::new(HostOp {
        kind,
        f64,
        ins,
        outs,
    })));
    Some(dst)
}

/// Reads slot `s` of the state as `n` values.
///
/// # Safety
/// `state` must be the state buffer the program's slots index, alive for the call.
unsafe fn read<T: Copy>(state: *const u8, s: &Slot) -> Vec<T> {
    // SAFETY: the slot lies inside the buffer (checked at lowering) and is 64-byte
    // aligned; its elements are `T` (the slot's type, checked at lowering).
    unsafe { std::slice::from_raw_parts(state.add(s.off).cast::<T>(), s.n).to_vec() }
}

/// Writes `v` into slot `s` (at most its length).
///
/// # Safety
/// As for [`read`]; no reference into the slot may be alive.
unsafe fn write<T: Copy>(state: *mut u8, s: &Slot, v: &[T]) {
    // SAFETY: as in `read`; the slice is the only access to those bytes meanwhile.
    let d = unsafe { std::slice::from_raw_parts_mut(state.add(s.off).cast::<T>(), s.n) };
    for (d, x) in d.iter_mut().zip(v) {
        *d = *x;
    }
}

impl HostOp {
    /// # Safety
    /// `state` is the program's state buffer and `slots` its slot table.
    unsafe fn run_typed<T: crate::kernels::lapack_scalar::Scalar + num_traits::Float>(
        &self,
        state: *mut u8,
        slots: &[Slot],
    ) -> Option<()> {
        let slot = |k: &SlotId| slots.get(*k);
        let x: Vec<T> = unsafe { read(state, slot(self.ins.first()?)?) };
        match &self.kind {
            HostKind::Getrf { m, n } => {
                let (lu, piv, info) = getrf_slices(&x, *m, *n);
                let [l, p, i] = self.outs.as_slice() else {
                    return None;
                };
                unsafe {
                    write(state, slot(l)?, &lu);
                    write(state, slot(p)?, &piv);
                    write(state, slot(i)?, &info);
                }
            }
            HostKind::Potrf { n, lower } => {
                let (f, info) = potrf_slices(&x, *n, *lower);
                let [l, i] = self.outs.as_slice() else {
                    return None;
                };
                unsafe {
                    write(state, slot(l)?, &f);
                    write(state, slot(i)?, &info);
                }
            }
            HostKind::Trsm { o, mrc } => {
                let b: Vec<T> = unsafe { read(state, slot(self.ins.get(1)?)?) };
                let r = trsm_k(&x, &b, *mrc, o, Parallel::SEQ);
                unsafe { write(state, slot(self.outs.first()?)?, &r) };
            }
        }
        Some(())
    }
}

/// The host function native code calls for [`Inst::Host`].
///
/// # Safety
/// `state` is the state buffer of the program that owns `op` and the `n` slots at `slots`.
pub(crate) unsafe extern "C" fn native_host(
    state: *mut u8,
    op: *const HostOp,
    slots: *const Slot,
    n: usize,
) {
    // SAFETY: the emitted call passes the `HostOp` boxed in the program and the
    // program's slot table; both live (unchanged) as long as the compiled loop.
    let (op, slots) = unsafe { (&*op, std::slice::from_raw_parts(slots, n)) };
    let ran = if op.f64 {
        unsafe { op.run_typed::<f64>(state, slots) }
    } else {
        unsafe { op.run_typed::<f32>(state, slots) }
    };
    // Every slot was checked at lowering: a miss here is our bug, not the user's input.
    debug_assert!(
        ran.is_some(),
        "native host call {:?}: slot out of the table",
        op.kind
    );
}

/// Emits the call of [`native_host`] for `op`.
pub(crate) fn emit(em: &mut Em<'_, '_>, op: &HostOp) -> Option<()> {
    let ptr = em.ptr();
    let mut sig = em.signature();
    sig.params
        .extend([ptr, ptr, ptr, types::I64].map(AbiParam::new));
    let f = em.import("native_host", sig)?;
    let state = em.state();
    let opp = em.b.ins().iconst(ptr, op as *const HostOp as i64);
    let (tab, n) = em.slot_table();
    let tabp = em.b.ins().iconst(ptr, tab as i64);
    let nv = em.b.ins().iconst(types::I64, i64::try_from(n).ok()?);
    em.b.ins().call(f, &[state, opp, tabp, nv]);
    for &o in &op.outs {
        em.forget(o);
    }
    Some(())
}
