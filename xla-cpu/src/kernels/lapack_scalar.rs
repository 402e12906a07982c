//! The element types of the LAPACK built-ins (`s`, `d`, `c`, `z`: f32, f64, c64, c128) as
//! one trait, a small row-major matrix, and LAPACK's Householder reflectors (`xLARFG`,
//! `xLARF`) that the Householder-based targets (geqrf, orgqr, gehrd, sytrd) are written in,
//! so their reflectors and `tau`s are LAPACK's own (same signs, same scaling).

use super::matmul::FaerElem;
use crate::error::{internal, CpuError, Result};
use crate::limits::stop::Poll;
use num_complex::Complex;
use num_traits::{Float, Num, One, Zero};
use std::ops::Neg;
use xla_core::literal::ArrayData;
use xla_core::{Literal, Shape};

/// A LAPACK element type: real (`s`, `d`) or complex (`c`, `z`).
pub(crate) trait Scalar:
    FaerElem + Num + num_traits::NumAssign + Neg<Output = Self> + Copy + std::fmt::Debug
{
    /// The real type of the components (f32 or f64).
    type R: Float + Scalar<R = Self::R> + Default;
    /// Whether the type is complex.
    const COMPLEX: bool;
    /// The complex conjugate (the value itself for reals).
    fn cj(self) -> Self;
    /// The real part.
    fn re(self) -> Self::R;
    /// The imaginary part (zero for reals).
    fn im(self) -> Self::R;
    /// `re + i·im` (`im` dropped for reals).
    fn parts(re: Self::R, im: Self::R) -> Self;
    /// As a complex number.
    fn cplx(self) -> Complex<Self::R> {
        Complex::new(self.re(), self.im())
    }
    /// `|x|²`.
    fn abs2(self) -> Self::R {
        self.re() * self.re() + self.im() * self.im()
    }
    /// `|re| + |im|`, LAPACK's `CABS1` (pivot choice of `izamax`).
    fn abs1(self) -> Self::R {
        self.re().abs() + self.im().abs()
    }
    /// `x·r` for a real `r`.
    fn scale(self, r: Self::R) -> Self {
        Self::parts(self.re() * r, self.im() * r)
    }
    /// A vector of this type as array data.
    fn wrap(v: Vec<Self>) -> ArrayData;
    /// A vector of complex numbers of this precision as array data.
    fn wrap_cplx(v: Vec<Complex<Self::R>>) -> ArrayData;
    /// The elements of `d` when it holds this type.
    fn slice(d: &ArrayData) -> Option<&[Self]>;
    /// One half.
    fn half() -> Self::R {
        Self::R::one() / (Self::R::one() + Self::R::one())
    }
}

macro_rules! real_scalar {
    ($t:ty, $var:ident, $cvar:ident) => {
        impl Scalar for $t {
            type R = $t;
            const COMPLEX: bool = false;
            fn cj(self) -> Self {
                self
            }
            fn re(self) -> Self {
                self
            }
            fn im(self) -> Self {
                0.0
            }
            fn parts(re: Self, _im: Self) -> Self {
                re
            }
            fn wrap(v: Vec<Self>) -> ArrayData {
                ArrayData::$var(v)
            }
            fn wrap_cplx(v: Vec<Complex<Self>>) -> ArrayData {
                ArrayData::$cvar(v)
            }
            fn slice(d: &ArrayData) -> Option<&[Self]> {
                match d {
                    ArrayData::$var(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}
real_scalar!(f32, F32, C64);
real_scalar!(f64, F64, C128);

macro_rules! complex_scalar {
    ($t:ty, $var:ident) => {
        impl Scalar for Complex<$t> {
            type R = $t;
            const COMPLEX: bool = true;
            fn cj(self) -> Self {
                self.conj()
            }
            fn re(self) -> $t {
                self.re
            }
            fn im(self) -> $t {
                self.im
            }
            fn parts(re: $t, im: $t) -> Self {
                Complex::new(re, im)
            }
            fn wrap(v: Vec<Self>) -> ArrayData {
                ArrayData::$var(v)
            }
            fn wrap_cplx(v: Vec<Complex<$t>>) -> ArrayData {
                ArrayData::$var(v)
            }
            fn slice(d: &ArrayData) -> Option<&[Self]> {
                match d {
                    ArrayData::$var(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}
complex_scalar!(f32, C64);
complex_scalar!(f64, C128);

/// Runs `$f::<T>($data_slice, args...)` for the element type of `$data` (f32, f64, c64,
/// c128); any other type is an error naming `$what`.
macro_rules! by_type {
    ($data:expr, $what:literal, $f:ident ( $($arg:expr),* )) => {
        match $data {
            ArrayData::F32(v) => $f::<f32>(v, $($arg),*),
            ArrayData::F64(v) => $f::<f64>(v, $($arg),*),
            ArrayData::C64(v) => $f::<num_complex::Complex32>(v, $($arg),*),
            ArrayData::C128(v) => $f::<num_complex::Complex64>(v, $($arg),*),
            other => Err($crate::error::CpuError::UnsupportedType {
                op: concat!("custom-call ", $what),
                ty: other.element_type(),
            }),
        }
    };
}
pub(crate) use by_type;

/// One row-major `rows`×`cols` matrix.
#[derive(Clone, Debug)]
pub(crate) struct Dense<T> {
    pub rows: usize,
    pub cols: usize,
    pub d: Vec<T>,
}

impl<T: Scalar> Dense<T> {
    /// A copy of `d` (at least `rows * cols` long) as a matrix.
    pub fn from(d: &[T], rows: usize, cols: usize) -> Result<Self> {
        let d = d
            .get(..rows * cols)
            .ok_or_else(|| internal("matrix data holds rows * cols elements"))?
            .to_vec();
        Ok(Dense { rows, cols, d })
    }
    /// Element `(i, j)` (zero outside the matrix).
    pub fn at(&self, i: usize, j: usize) -> T {
        if i < self.rows && j < self.cols {
            crate::invariant::at_or(
                &self.d,
                i * self.cols + j,
                "Dense: rows * cols elements",
                T::zero(),
            )
        } else {
            T::zero()
        }
    }
    /// Sets element `(i, j)` (ignored outside the matrix).
    pub fn set(&mut self, i: usize, j: usize, v: T) {
        if i < self.rows && j < self.cols {
            if let Some(x) = self.d.get_mut(i * self.cols + j) {
                *x = v;
            }
        }
    }
    /// Column `j` from row `r0` to row `r1` (exclusive).
    pub fn col(&self, j: usize, r0: usize, r1: usize) -> Vec<T> {
        (r0..r1).map(|i| self.at(i, j)).collect()
    }
    /// Writes `v` into column `j` from row `r0`.
    pub fn set_col(&mut self, j: usize, r0: usize, v: &[T]) {
        for (k, &x) in v.iter().enumerate() {
            self.set(r0 + k, j, x);
        }
    }
    /// `C := (I - tau v vᴴ) C` on rows `r0..r0+len(v)`, columns `c0..c1`.
    pub fn reflect_left(&mut self, v: &[T], tau: T, r0: usize, c0: usize, c1: usize) {
        if tau == T::zero() {
            return;
        }
        for j in c0..c1 {
            let mut w = T::zero();
            for (k, &vk) in v.iter().enumerate() {
                w += vk.cj() * self.at(r0 + k, j);
            }
            let w = tau * w;
            for (k, &vk) in v.iter().enumerate() {
                let x = self.at(r0 + k, j) - vk * w;
                self.set(r0 + k, j, x);
            }
        }
    }
    /// `C := C (I - tau v vᴴ)` on rows `r0..r1`, columns `c0..c0+len(v)`.
    pub fn reflect_right(&mut self, v: &[T], tau: T, r0: usize, r1: usize, c0: usize) {
        if tau == T::zero() {
            return;
        }
        for i in r0..r1 {
            let mut w = T::zero();
            for (k, &vk) in v.iter().enumerate() {
                w += self.at(i, c0 + k) * vk;
            }
            let w = tau * w;
            for (k, &vk) in v.iter().enumerate() {
                let x = self.at(i, c0 + k) - w * vk.cj();
                self.set(i, c0 + k, x);
            }
        }
    }
}

/// `x / r` for a real `r`, component by component (Fortran's complex-by-real division).
/// `num_complex` divides by `r + 0i` through `r²`, which underflows for `|r|` below
/// ~1e-154 (f64): the Schur form of a matrix scaled to LAPACK's 6.7e-139 gets there.
pub(crate) fn div_re<T: Scalar>(x: T, r: T::R) -> T {
    T::parts(x.re() / r, x.im() / r)
}

/// `a / b` by Smith's algorithm (as gfortran divides complex numbers): no `|b|²`, so no
/// underflow or overflow for tiny or huge `b`. Real types divide directly.
pub(crate) fn cdiv<T: Scalar>(a: T, b: T) -> T {
    if !T::COMPLEX {
        return a / b;
    }
    let (c, d) = (b.re(), b.im());
    if c.abs() >= d.abs() {
        let r = d / c;
        let den = c + d * r;
        T::parts((a.re() + a.im() * r) / den, (a.im() - a.re() * r) / den)
    } else {
        let r = c / d;
        let den = c * r + d;
        T::parts((a.re() * r + a.im()) / den, (a.im() * r - a.re()) / den)
    }
}

/// `sqrt(|alpha|² + Σ|x|²)` without underflow: the plain sum of squares when it is at
/// least `MIN_POSITIVE / eps` (a square that underflows is then below its rounding) or
/// not finite (a NaN or infinity propagates as LAPACK's does), else scaled by the largest
/// component (LAPACK's `xNRM2`/`xLAPY3` are scale-safe).
fn norm_safe<T: Scalar>(alpha: T, x: &[T]) -> T::R {
    let comps = || {
        [alpha.re(), alpha.im()]
            .into_iter()
            .chain(x.iter().flat_map(|v| [v.re(), v.im()]))
    };
    let xnorm2 = x.iter().fold(T::R::zero(), |s, &v| s + v.abs2());
    let plain = alpha.re() * alpha.re() + alpha.im() * alpha.im() + xnorm2;
    let floor = T::R::min_positive_value() / T::R::epsilon();
    if plain >= floor || !plain.is_finite() {
        return plain.sqrt();
    }
    let big = comps().fold(T::R::zero(), |m, c| m.max(c.abs()));
    if big == T::R::zero() {
        return big;
    }
    big * comps()
        .fold(T::R::zero(), |s, c| s + (c / big) * (c / big))
        .sqrt()
}

/// LAPACK's `xLARFG`: the reflector `H = I - tau v vᴴ` (`v[0] = 1`) with
/// `Hᴴ [alpha; x] = [beta; 0]`, `beta` real. Overwrites `x` with `v[1..]` and returns
/// `(beta, tau)`; `tau = 0` (H = I) when `x` is zero and `alpha` real.
pub(crate) fn larfg<T: Scalar>(alpha: T, x: &mut [T]) -> (T, T) {
    let zero_tail = x
        .iter()
        .all(|v| v.re() == T::R::zero() && v.im() == T::R::zero());
    if zero_tail && alpha.im() == T::R::zero() {
        return (alpha, T::zero());
    }
    let (ar, ai) = (alpha.re(), alpha.im());
    let norm = norm_safe(alpha, x);
    let beta = if ar >= T::R::zero() { -norm } else { norm };
    let tau = T::parts((beta - ar) / beta, -ai / beta);
    let inv = cdiv(T::one(), alpha - T::parts(beta, T::R::zero()));
    for v in x.iter_mut() {
        *v *= inv;
    }
    (T::parts(beta, T::R::zero()), tau)
}

/// `(count, rows, cols)` of a batch of matrices with dimensions `dims`.
pub(crate) fn batch_dims(dims: &[usize], what: &str) -> Result<(usize, usize, usize)> {
    match dims {
        [b @ .., m, n] => Ok((b.iter().product(), *m, *n)),
        _ => Err(not_matrices(what, dims, "a batch of matrices")),
    }
}

/// The run's stop polled before each matrix of a batch of `b` matrices `m`×`n`, counted
/// as about `m·n·min(m, n)` operations each (`limits/stop.rs`): a batch of small matrices
/// polls every few matrices, one of large matrices before each.
pub(crate) struct BatchPoll {
    poll: Poll,
    per: usize,
}

impl BatchPoll {
    /// The poll of a batch of `b` matrices `m`×`n`.
    pub(crate) fn new(b: usize, m: usize, n: usize) -> BatchPoll {
        let per = m.saturating_mul(n).saturating_mul(m.min(n)).max(1);
        BatchPoll {
            poll: Poll::new(b.saturating_mul(per)),
            per,
        }
    }

    /// Counts one matrix.
    ///
    /// # Errors
    /// [`CpuError::Stopped`] when the run must stop.
    pub(crate) fn next(&mut self) -> Result<()> {
        self.poll.tick(self.per)
    }
}

/// A [`CpuError::MatrixShape`] of `custom-call {what}`.
pub(crate) fn not_matrices(what: &str, dims: &[usize], needed: &'static str) -> CpuError {
    CpuError::MatrixShape {
        op: format!("custom-call {what}"),
        dims: dims.to_vec(),
        needed,
    }
}

/// The `n` element shapes of tuple result `out` of target `what`.
pub(crate) fn tuple_of<'a>(out: &'a Shape, n: usize, what: &str) -> Result<&'a [Shape]> {
    match out {
        Shape::Tuple(t) if t.len() == n => Ok(t),
        _ => Err(crate::error::result_shape(
            format!("custom-call {what}"),
            format!("a {n}-tuple"),
            out,
        )),
    }
}

/// A tuple literal of `data` in `shapes`.
pub(crate) fn pack(shapes: &[Shape], data: Vec<ArrayData>) -> Result<Literal> {
    let parts = shapes
        .iter()
        .zip(data)
        .map(|(s, d)| crate::index::make(s, d))
        .collect::<Result<Vec<_>>>()?;
    Ok(Literal::tuple(parts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn larfg_zeroes_the_tail_like_lapack() {
        // dlarfg(3, alpha=3, x=[4, 0]): beta = -5, tau = 1.6, v = [1, 0.5, 0].
        let mut x = [4.0f64, 0.0];
        let (beta, tau) = larfg(3.0, &mut x);
        assert_eq!((beta, tau), (-5.0, 1.6));
        assert_eq!(x, [0.5, 0.0]);
        // Complex alpha with zero tail still reflects (beta real).
        let mut y: [Complex<f64>; 0] = [];
        let (b, t) = larfg(Complex::new(0.0, 2.0), &mut y);
        assert_eq!(b, Complex::new(-2.0, 0.0));
        assert_eq!(t, Complex::new(1.0, 1.0));
    }
}
