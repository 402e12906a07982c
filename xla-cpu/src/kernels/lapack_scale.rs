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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn an_infinity_scales_by_zero_and_back_by_inf() {
        assert_eq!(lascl_factors(f64::INFINITY, 1e138), vec![0.0]);
        assert_eq!(lascl_factors(1e138, f64::INFINITY), vec![f64::INFINITY]);
        let mut a = Dense {
            rows: 2,
            cols: 2,
            d: vec![1.0f64, f64::INFINITY, -2.0, 3.0],
        };
        let (anrm, c) = gees_scale(&mut a).unwrap();
        assert!(anrm.is_infinite() && c > 1e137);
        assert!(a.d[1].is_nan() && a.d[0] == 0.0);
        assert!(a.d[2] == 0.0 && a.d[2].is_sign_negative());
    }

    #[test]
    fn huge_f32_scales_to_bignum_and_nan_does_not_scale() {
        let mut a = Dense {
            rows: 1,
            cols: 2,
            d: vec![3e30f32, -1e30],
        };
        let (anrm, c) = gees_scale(&mut a).unwrap();
        assert_eq!(anrm, 3e30);
        assert!((a.d[0] - c).abs() <= c * 1e-6, "{} {c}", a.d[0]);
        let mut b = Dense {
            rows: 1,
            cols: 2,
            d: vec![1.0f32, f32::NAN],
        };
        assert!(gees_scale(&mut b).is_none());
    }
}
