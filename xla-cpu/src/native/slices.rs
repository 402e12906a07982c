//! The f32 transcendentals (exp, log, log1p, tanh, logistic) over whole slots: one host call per
//! instruction instead of one per element. Each element goes through the very function
//! the per-element call uses (`crate::math`), so results are the same bits; on x86-64 with
//! AVX2 and FMA the loop is compiled for them, so the compiler runs it eight lanes at a
//! time (the same fused multiply-adds, floors and selects per lane).

use super::emit::Em;
use super::program::{Inst, Ty};
use crate::math;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder};
use xla_core::attrs::UnaryOp;

/// Shortest slot given one call (shorter ones are unrolled per element, their values kept
/// in registers from one instruction to the next).
const MIN_ELEMS: usize = super::emit::UNROLL + 1;

macro_rules! slices {
    ($($name:ident = $f:path;)*) => {
        $(
            /// # Safety
            /// `x` and `y` each point at `n` f32 (slots of one state buffer; they may be
            /// the same slot: element `i` is read before it is written).
            unsafe extern "C" fn $name(x: *const f32, y: *mut f32, n: usize) {
                for i in 0..n {
                    // SAFETY: `i < n`, inside both slots (the caller).
                    unsafe { *y.add(i) = $f(*x.add(i)) };
                }
            }
        )*

        /// The host functions, by symbol name.
        pub(crate) fn symbols() -> Vec<(&'static str, *const u8)> {
            let mut v = vec![
                $((stringify!($name), $name as unsafe extern "C" fn(*const f32, *mut f32, usize) as *const u8),)*
            ];
            vector::replace(&mut v);
            v
        }

        /// The AVX2+FMA builds.
        #[cfg(target_arch = "x86_64")]
        mod vector {
            use crate::math;
            $(
                /// # Safety
                /// As the portable build, on a CPU with AVX2, FMA and SSE4.1 (checked in
                /// `replace`).
                #[target_feature(enable = "avx2,fma,sse4.1")]
                unsafe extern "C" fn $name(x: *const f32, y: *mut f32, n: usize) {
                    for i in 0..n {
                        // SAFETY: `i < n`, inside both slots (the caller).
                        unsafe { *y.add(i) = $f(*x.add(i)) };
                    }
                }
            )*

            /// Swaps in these builds when the CPU has the features.
            pub(super) fn replace(v: &mut [(&'static str, *const u8)]) {
                if !(is_x86_feature_detected!("avx2")
                    && is_x86_feature_detected!("fma")
                    && is_x86_feature_detected!("sse4.1"))
                {
                    return;
                }
                for (name, f) in v.iter_mut() {
                    $(
                        if *name == stringify!($name) {
                            *f = $name as unsafe extern "C" fn(*const f32, *mut f32, usize) as *const u8;
                        }
                    )*
                }
            }
        }

        #[cfg(not(target_arch = "x86_64"))]
        mod vector {
            /// Only the portable builds off x86-64.
            pub(super) fn replace(_: &mut [(&'static str, *const u8)]) {}
        }
    };
}

slices! {
    f32_exp_n = math::exp_f32;
    f32_log_n = math::ln_f32;
    f32_tanh_n = math::tanh_f32;
    f32_logistic_n = math::logistic_f32;
    f32_log1p_n = math::log1p_f32;
}

/// The slot function computing `op` on f32, if there is one.
fn name(op: UnaryOp) -> Option<&'static str> {
    // An `if` chain rather than a `match`: ops without one, including ops added later,
    // need no arm.
    Some(if op == UnaryOp::Exp {
        "f32_exp_n"
    } else if op == UnaryOp::Log {
        "f32_log_n"
    } else if op == UnaryOp::Tanh {
        "f32_tanh_n"
    } else if op == UnaryOp::Logistic {
        "f32_logistic_n"
    } else if op == UnaryOp::Log1p {
        "f32_log1p_n"
    } else {
        return None;
    })
}

/// Emits `ins` as one call when it is an f32 exp/log/tanh/logistic over a whole slot
/// longer than the unroll length; `None` (nothing emitted) otherwise.
pub(crate) fn emit(em: &mut Em<'_, '_>, ins: &Inst) -> Option<()> {
    let Inst::Unary { op, x, dst } = *ins else {
        return None;
    };
    let f = name(op)?;
    let (s, d) = (em.slot(x)?, em.slot(dst)?);
    if s.ty != Ty::F32 || d.ty != Ty::F32 || s.n != d.n || d.n < MIN_ELEMS {
        return None;
    }
    let ptr = em.ptr();
    let mut sig = cranelift_codegen::ir::Signature::new(em.b.func.signature.call_conv);
    sig.params.extend([ptr, ptr].map(AbiParam::new));
    sig.params.push(AbiParam::new(types::I64));
    let f = em.import(f, sig)?;
    let (a, b) = (em.addr(x)?, em.addr(dst)?);
    let n = em.b.ins().iconst(types::I64, i64::try_from(d.n).ok()?);
    em.b.ins().call(f, &[a, b, n]);
    em.forget(dst);
    Some(())
}
