//! The element types a fused kernel computes in (f32 and f64), and the few functions
//! whose f32 versions follow XLA's own algorithms rather than the C library's.

use super::kern::{table_for, Table, LANES, V};
use crate::math;
use crate::scalar::Real;
use std::mem::MaybeUninit;
use std::sync::OnceLock;

/// An element type of fused kernels. Predicates live in the same registers as 0 / 1.
pub(crate) trait Lane: Real + Default + Send + Sync + 'static {
    /// `exp`, as the unfused kernel computes it for this type.
    fn lexp(self) -> Self;
    /// `tanh`, likewise.
    fn ltanh(self) -> Self;
    /// `log`, likewise.
    fn lln(self) -> Self;
    /// ln(1 + x) (XLA's approximation for f32).
    fn llog1p(self) -> Self;
    /// `logistic`, likewise.
    fn llogistic(self) -> Self;
    /// The block ops of this type for this CPU.
    fn table() -> &'static Table<Self>;
    /// The values as f32, when this type is f32 (generated code reads f32 only).
    fn as_f32(v: &[Self]) -> Option<&[f32]>;
    /// Values of this type as f32, writable, when this type is f32.
    fn as_f32_mut(v: &mut [Self]) -> Option<&mut [f32]>;
    /// An output range of this type as f32, when this type is f32.
    fn as_f32_uninit(v: &mut [MaybeUninit<Self>]) -> Option<&mut [MaybeUninit<f32>]>;
    /// Fold lanes of this type as f32, when this type is f32.
    fn as_f32_lanes(b: &mut [Self; LANES]) -> Option<&mut [f32; LANES]>;
    /// An f32 block as this type, when this type is f32.
    fn from_f32_block(b: &[f32; V]) -> Option<&[Self; V]>;
    /// A compare result as a 0/1 mask.
    #[inline(always)]
    fn mask(c: bool) -> Self {
        if c {
            Self::one()
        } else {
            Self::zero()
        }
    }
}

impl Lane for f32 {
    #[inline(always)]
    fn lexp(self) -> f32 {
        math::exp_f32(self)
    }
    #[inline(always)]
    fn ltanh(self) -> f32 {
        math::tanh_f32(self)
    }
    #[inline(always)]
    fn lln(self) -> f32 {
        math::ln_f32(self)
    }
    #[inline(always)]
    fn llog1p(self) -> f32 {
        math::log1p_f32(self)
    }
    #[inline(always)]
    fn llogistic(self) -> f32 {
        math::logistic_f32(self)
    }
    fn as_f32(v: &[f32]) -> Option<&[f32]> {
        Some(v)
    }
    fn from_f32_block(b: &[f32; V]) -> Option<&[f32; V]> {
        Some(b)
    }
    fn as_f32_lanes(b: &mut [f32; LANES]) -> Option<&mut [f32; LANES]> {
        Some(b)
    }
    fn as_f32_mut(v: &mut [f32]) -> Option<&mut [f32]> {
        Some(v)
    }
    fn as_f32_uninit(v: &mut [MaybeUninit<f32>]) -> Option<&mut [MaybeUninit<f32>]> {
        Some(v)
    }
    fn table() -> &'static Table<f32> {
        static T: OnceLock<Table<f32>> = OnceLock::new();
        T.get_or_init(|| table_for(super::run::simd_level()))
    }
}

impl Lane for f64 {
    #[inline(always)]
    fn lexp(self) -> f64 {
        self.exp()
    }
    #[inline(always)]
    fn ltanh(self) -> f64 {
        self.tanh()
    }
    #[inline(always)]
    fn lln(self) -> f64 {
        self.ln()
    }
    #[inline(always)]
    fn llog1p(self) -> f64 {
        self.ln_1p()
    }
    #[inline(always)]
    fn llogistic(self) -> f64 {
        1.0 / (1.0 + (-self).exp())
    }
    fn as_f32(_: &[f64]) -> Option<&[f32]> {
        None
    }
    fn from_f32_block(_: &[f32; V]) -> Option<&[f64; V]> {
        None
    }
    fn as_f32_lanes(_: &mut [f64; LANES]) -> Option<&mut [f32; LANES]> {
        None
    }
    fn as_f32_mut(_: &mut [f64]) -> Option<&mut [f32]> {
        None
    }
    fn as_f32_uninit(_: &mut [MaybeUninit<f64>]) -> Option<&mut [MaybeUninit<f32>]> {
        None
    }
    fn table() -> &'static Table<f64> {
        static T: OnceLock<Table<f64>> = OnceLock::new();
        T.get_or_init(|| table_for(super::run::simd_level()))
    }
}
