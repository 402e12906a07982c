//! LAPACK's scaling of matrices with extreme norms, as `xGEES` does it around the Schur
//! iteration: a matrix whose largest entry (`xLANGE('M')`) is below
//! `smlnum = sqrt(safmin) / eps` or above `bignum = 1 / smlnum` is scaled (`xLASCL`) to
//! that bound first and its Schur form scaled back after, so tiny and huge matrices
//! neither underflow nor overflow (f32: below 9.1e-13 or above 1.1e12; f64: below 6.7e-139
//! or above 1.5e138). An infinite entry makes the factor 0: the infinities become NaN,
//! the rest zero, and scaling back multiplies by `inf` (zeros become NaN too), as in
//! LAPACK. A NaN anywhere makes the norm NaN: no scaling.

use super::lapack_scalar::{Dense, Scalar};
use num_traits::{Float, One, Zero};

/// `xLASCL`'s multipliers taking `cfrom` to `cto` without over- or underflow, in order.
pub(crate) fn lascl_factors<R: Float>(cfrom: R, cto: R) -> Vec<R> {
    let small = R::min_positive_value();
    let big = R::one() / small;
    let (mut cfromc, mut ctoc) = (cfrom, cto);
    let mut muls = Vec::new();
    while muls.len() < 64 {
        let cfrom1 = cfromc * small;
        let (mul, done) = if cfrom1 == cfromc {
            (ctoc / cfromc, true)
        } else {
            let cto1 = ctoc / big;
            if cto1 == ctoc {
                (ctoc, true)
            } else if cfrom1.abs() > ctoc.abs() && ctoc != R::zero() {
                cfromc = cfrom1;
                (small, false)
            } else if cto1.abs() > cfromc.abs() {
                ctoc = cto1;
                (big, false)
            } else {
                (ctoc / cfromc, true)
            }
        };
        muls.push(mul);
        if done {
            break;
        }
    }
    muls
}

/// Multiplies the entries `(i, j)` of `a` with `keep(i, j)` by `cto / cfrom` (`xLASCL`).
pub(crate) fn lascl<T: Scalar>(
    a: &mut Dense<T>,
    cfrom: T::R,
    cto: T::R,
    keep: impl Fn(usize, usize) -> bool,
) {
    for mul in lascl_factors(cfrom, cto) {
        for i in 0..a.rows {
            for j in 0..a.cols {
                if keep(i, j) {
                    a.set(i, j, a.at(i, j).scale(mul));
                }
            }
        }
    }
}

/// `(anrm, cscale)` when `xGEES` scales `a` (already scaled in place), else `None`.
pub(crate) fn gees_scale<T: Scalar>(a: &mut Dense<T>) -> Option<(T::R, T::R)> {
    let eps = T::R::epsilon();
    let smlnum = T::R::min_positive_value().sqrt() / eps;
    let bignum = T::R::one() / smlnum;
    let mut anrm = T::R::zero();
    for &x in &a.d {
        let t = x.re().hypot(x.im());
        if anrm < t || t.is_nan() {
            anrm = t;
        }
    }
    if anrm.is_nan() {
        return None;
    }
    let cscale = if anrm > T::R::zero() && anrm < smlnum {
        smlnum
    } else if anrm > bignum {
        bignum
    } else {
        return None;
    };
    lascl(a, anrm, cscale, |_, _| true);
    Some((anrm, cscale))
}
