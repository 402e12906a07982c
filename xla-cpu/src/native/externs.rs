//! Host functions native code calls: the very functions the interpreter uses for
//! transcendental ops (so results match bit for bit), behind C ABI wrappers registered
//! as JIT symbols.

use super::program::Ty;
use crate::kernels::elementwise::fsign;
use crate::math;
use crate::scalar::Real;
use num_traits::Float;
use xla_core::attrs::{BinaryOp, UnaryOp};

macro_rules! wrappers {
    (unary { $($un:ident: $ut:ty = $ue:expr;)* } binary { $($bn:ident: $bt:ty = $be:expr;)* }) => {
        $(extern "C" fn $un(x: $ut) -> $ut { ($ue)(x) })*
        $(extern "C" fn $bn(x: $bt, y: $bt) -> $bt { ($be)(x, y) })*
        /// Every host function, by symbol name.
        pub(crate) fn symbols() -> Vec<(&'static str, *const u8)> {
            let mut v: Vec<(&'static str, *const u8)> = vec![
                $((stringify!($un), $un as extern "C" fn($ut) -> $ut as *const u8),)*
                $((stringify!($bn), $bn as extern "C" fn($bt, $bt) -> $bt as *const u8),)*
            ];
            v.extend(super::contraction::symbols());
            v.extend(super::slices::symbols());
            v.push((
                "native_host",
                super::host::native_host
                    as unsafe extern "C" fn(*mut u8, *const super::host::HostOp, *const super::program::Slot, usize)
                    as *const u8,
            ));
            fma::replace(&mut v);
            let poll: extern "C" fn(i64) -> i64 = super::poll::xla_native_poll;
            v.push(("xla_native_poll", poll as *const u8));
            v
        }
    };
}

wrappers! {
    unary {
        f32_exp: f32 = math::exp_f32;
        f32_log: f32 = math::ln_f32;
        f32_tanh: f32 = math::tanh_f32;
        f32_logistic: f32 = math::logistic_f32;
        f32_sin: f32 = <f32 as Float>::sin;
        f32_cos: f32 = <f32 as Float>::cos;
        f32_tan: f32 = <f32 as Float>::tan;
        f32_cbrt: f32 = <f32 as Float>::cbrt;
        f32_expm1: f32 = <f32 as Float>::exp_m1;
        f32_log1p: f32 = math::log1p_f32;
        f32_floor: f32 = <f32 as Float>::floor;
        f32_ceil: f32 = <f32 as Float>::ceil;
        f32_round: f32 = <f32 as Float>::round;
        f32_round_even: f32 = <f32 as Real>::round_even;
        f32_erf: f32 = <f32 as Real>::erf;
        f32_sign: f32 = fsign::<f32>;
        f64_exp: f64 = <f64 as Float>::exp;
        f64_log: f64 = <f64 as Float>::ln;
        f64_tanh: f64 = <f64 as Float>::tanh;
        f64_logistic: f64 = |x: f64| 1.0 / (1.0 + (-x).exp());
        f64_sin: f64 = <f64 as Float>::sin;
        f64_cos: f64 = <f64 as Float>::cos;
        f64_tan: f64 = <f64 as Float>::tan;
        f64_cbrt: f64 = <f64 as Float>::cbrt;
        f64_expm1: f64 = <f64 as Float>::exp_m1;
        f64_log1p: f64 = <f64 as Float>::ln_1p;
        f64_floor: f64 = <f64 as Float>::floor;
        f64_ceil: f64 = <f64 as Float>::ceil;
        f64_round: f64 = <f64 as Float>::round;
        f64_round_even: f64 = <f64 as Real>::round_even;
        f64_erf: f64 = <f64 as Real>::erf;
        f64_sign: f64 = fsign::<f64>;
    }
    binary {
        f32_pow: f32 = <f32 as Float>::powf;
        f32_rem: f32 = |x: f32, y: f32| x % y;
        f32_atan2: f32 = <f32 as Float>::atan2;
        f64_pow: f64 = <f64 as Float>::powf;
        f64_rem: f64 = |x: f64, y: f64| x % y;
        f64_atan2: f64 = <f64 as Float>::atan2;
    }
}

/// The f32 transcendentals again, compiled for FMA and SSE4.1 so their `mul_add` and
/// `floor` are single instructions instead of calls of the C library's `fmaf`/`floorf`
/// (measured: 35% of a scanned GRU cell's time went to those calls). Both compute the
/// correctly rounded fused product and the exact floor, so results are the same bits.
#[cfg(target_arch = "x86_64")]
mod fma {
    use crate::math;

    macro_rules! fast {
        ($($name:ident = $f:path;)*) => {
            $(
                /// # Safety
                /// Only called when the CPU has FMA and SSE4.1 (checked in `replace`).
                #[target_feature(enable = "fma,sse4.1")]
                unsafe extern "C" fn $name(x: f32) -> f32 {
                    $f(x)
                }
            )*

            /// Swaps in the FMA builds when the CPU has the features.
            pub(super) fn replace(v: &mut [(&'static str, *const u8)]) {
                if !(is_x86_feature_detected!("fma") && is_x86_feature_detected!("sse4.1")) {
                    return;
                }
                for (name, f) in v.iter_mut() {
                    $(
                        if *name == stringify!($name) {
                            *f = $name as unsafe extern "C" fn(f32) -> f32 as *const u8;
                        }
                    )*
                }
            }
        };
    }

    fast! {
        f32_exp = math::exp_f32;
        f32_tanh = math::tanh_f32;
        f32_logistic = math::logistic_f32;
        f32_log = math::ln_f32;
        f32_log1p = math::log1p_f32;
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod fma {
    /// No FMA builds off x86-64.
    pub(super) fn replace(_: &mut [(&'static str, *const u8)]) {}
}

/// The host function computing float unary `op` on `ty`, if one does.
pub(crate) fn unary_name(op: UnaryOp, ty: Ty) -> Option<&'static str> {
    use UnaryOp as U;
    let f32 = ty == Ty::F32;
    let pick = |a: &'static str, b: &'static str| Some(if f32 { a } else { b });
    if !ty.is_float() {
        return None;
    }
    match op {
        U::Exp => pick("f32_exp", "f64_exp"),
        U::Log => pick("f32_log", "f64_log"),
        U::Tanh => pick("f32_tanh", "f64_tanh"),
        U::Logistic => pick("f32_logistic", "f64_logistic"),
        U::Sin => pick("f32_sin", "f64_sin"),
        U::Cos => pick("f32_cos", "f64_cos"),
        U::Tan => pick("f32_tan", "f64_tan"),
        U::Cbrt => pick("f32_cbrt", "f64_cbrt"),
        U::Expm1 => pick("f32_expm1", "f64_expm1"),
        U::Log1p => pick("f32_log1p", "f64_log1p"),
        U::Floor => pick("f32_floor", "f64_floor"),
        U::Ceil => pick("f32_ceil", "f64_ceil"),
        U::RoundNearestAfz => pick("f32_round", "f64_round"),
        U::RoundNearestEven => pick("f32_round_even", "f64_round_even"),
        U::Erf => pick("f32_erf", "f64_erf"),
        U::Sign => pick("f32_sign", "f64_sign"),
        U::Abs
        | U::Neg
        | U::Sqrt
        | U::Rsqrt
        | U::Imag
        | U::Real
        | U::IsFinite
        | U::Clz
        | U::Not
        | U::Popcnt => None,
    }
}

/// The host function computing float binary `op` on `ty`, if one does.
pub(crate) fn binary_name(op: BinaryOp, ty: Ty) -> Option<&'static str> {
    use BinaryOp as B;
    let f32 = ty == Ty::F32;
    let pick = |a: &'static str, b: &'static str| Some(if f32 { a } else { b });
    if !ty.is_float() {
        return None;
    }
    match op {
        B::Pow => pick("f32_pow", "f64_pow"),
        B::Rem => pick("f32_rem", "f64_rem"),
        B::Atan2 => pick("f32_atan2", "f64_atan2"),
        B::Add
        | B::Sub
        | B::Mul
        | B::Div
        | B::Max
        | B::Min
        | B::Complex
        | B::And
        | B::Or
        | B::Xor
        | B::ShiftLeft
        | B::ShiftRightArithmetic
        | B::ShiftRightLogical => None,
    }
}
