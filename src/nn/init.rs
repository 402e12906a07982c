//! Weight initialisers on the host, as `jax.nn.initializers` defines them, drawn from
//! [`Rng`](crate::train::Rng) (seeded, the same numbers on every machine). The fans of a
//! weight of `dims` are those of [`Rng::glorot_uniform`](crate::train::Rng::glorot_uniform):
//! `[in, out]` for a dense kernel, `[.., in, out]` (HWIO) for a convolution kernel, whose
//! fans are multiplied by the spatial size.
//!
//! | function | JAX | distribution |
//! | --- | --- | --- |
//! | [`glorot_uniform`] | `glorot_uniform()` | `U(±√(6 / (fan_in + fan_out)))` |
//! | [`glorot_normal`] | `glorot_normal()` | truncated normal, variance `2 / (fan_in + fan_out)` |
//! | [`he_uniform`] | `he_uniform()` | `U(±√(6 / fan_in))` |
//! | [`he_normal`] | `he_normal()` | truncated normal, variance `2 / fan_in` |
//! | [`lecun_normal`] | `lecun_normal()` (flax `Dense`'s default) | truncated normal, variance `1 / fan_in` |
//! | [`normal`] | `normal(stddev)` | `N(0, stddev²)` |
//!
//! "Truncated normal" is JAX's: a standard normal cut to `[-2, 2]`, scaled so that the
//! variance is the one named (the cut normal's deviation is 0.87962566).
//!
//! ```
//! use xla::train::Rng;
//! let mut rng = Rng::new(0);
//! let w = xla::nn::init::he_normal(&mut rng, &[256, 128])?;
//! let v = w.data::<f32>().unwrap_or(&[]);
//! let var = v.iter().map(|x| x * x).sum::<f32>() / v.len() as f32;
//! assert!((var / (2.0 / 256.0) - 1.0).abs() < 0.05);
//! # Ok::<(), xla::train::TrainError>(())
//! ```

use crate::train::rng::{element_count, fans};
use crate::train::{Rng, TrainError};
use xla_core::Literal;

/// The deviation of a standard normal cut to `[-2, 2]`.
const TRUNCATED_STDDEV: f64 = 0.879_625_661_034_239_8;

/// `glorot_uniform`: `U(±√(6 / (fan_in + fan_out)))`.
///
/// # Errors
/// If `dims` is empty or has a dim that is not positive.
pub fn glorot_uniform(rng: &mut Rng, dims: &[i64]) -> Result<Literal, TrainError> {
    rng.glorot_uniform(dims)
}

/// `glorot_normal`: a truncated normal of variance `2 / (fan_in + fan_out)`.
///
/// # Errors
/// As [`glorot_uniform`].
pub fn glorot_normal(rng: &mut Rng, dims: &[i64]) -> Result<Literal, TrainError> {
    let (fan_in, fan_out) = fans(dims)?;
    truncated(rng, dims, 2.0 / (fan_in + fan_out) as f64)
}

/// `he_uniform`: `U(±√(6 / fan_in))`.
///
/// # Errors
/// As [`glorot_uniform`].
pub fn he_uniform(rng: &mut Rng, dims: &[i64]) -> Result<Literal, TrainError> {
    let (fan_in, _) = fans(dims)?;
    let limit = (6.0 / fan_in as f64).sqrt() as f32;
    rng.uniform_literal(dims, -limit, limit)
}

/// `he_normal`: a truncated normal of variance `2 / fan_in` (for ReLU layers).
///
/// # Errors
/// As [`glorot_uniform`].
pub fn he_normal(rng: &mut Rng, dims: &[i64]) -> Result<Literal, TrainError> {
    let (fan_in, _) = fans(dims)?;
    truncated(rng, dims, 2.0 / fan_in as f64)
}

/// `lecun_normal`: a truncated normal of variance `1 / fan_in`.
///
/// # Errors
/// As [`glorot_uniform`].
pub fn lecun_normal(rng: &mut Rng, dims: &[i64]) -> Result<Literal, TrainError> {
    let (fan_in, _) = fans(dims)?;
    truncated(rng, dims, 1.0 / fan_in as f64)
}

/// `normal(stddev)`: `N(0, stddev²)` (flax's embedding default is `stddev = 1`).
///
/// # Errors
/// If a dim is negative.
pub fn normal(rng: &mut Rng, dims: &[i64], stddev: f32) -> Result<Literal, TrainError> {
    rng.normal_literal(dims, 0.0, stddev)
}

/// Standard normals cut to `[-2, 2]` (redrawn outside), scaled to `variance`.
fn truncated(rng: &mut Rng, dims: &[i64], variance: f64) -> Result<Literal, TrainError> {
    let n = element_count("truncated normal", dims)?;
    let scale = variance.sqrt() / TRUNCATED_STDDEV;
    let values = (0..n)
        .map(|_| loop {
            let z = rng.normal_f64();
            if z.abs() <= 2.0 {
                break (z * scale) as f32;
            }
        })
        .collect();
    Ok(Literal::from_vec(dims, values)?)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// The sample variance and the largest magnitude.
    fn stats(l: &Literal) -> (f64, f64) {
        let v = l.data::<f32>().unwrap();
        let var = v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>() / v.len() as f64;
        let max = v.iter().fold(0.0f64, |m, x| m.max(f64::from(x.abs())));
        (var, max)
    }

    #[test]
    fn variances_and_bounds_are_jaxs() {
        let mut rng = Rng::new(3);
        // An HWIO kernel: fan_in = 3·3·32 = 288, fan_out = 3·3·64 = 576.
        let dims = [3, 3, 32, 64];
        let (fan_in, fan_out) = (288.0, 576.0);
        let cases: [(&str, Literal, f64, f64); 5] = [
            (
                "he_normal",
                he_normal(&mut rng, &dims).unwrap(),
                2.0 / fan_in,
                2.0 / TRUNCATED_STDDEV,
            ),
            (
                "lecun_normal",
                lecun_normal(&mut rng, &dims).unwrap(),
                1.0 / fan_in,
                2.0 / TRUNCATED_STDDEV,
            ),
            (
                "glorot_normal",
                glorot_normal(&mut rng, &dims).unwrap(),
                2.0 / (fan_in + fan_out),
                2.0 / TRUNCATED_STDDEV,
            ),
            // U(±a) has variance a²/3 and magnitude below a = √3 deviations.
            (
                "he_uniform",
                he_uniform(&mut rng, &dims).unwrap(),
                2.0 / fan_in,
                3f64.sqrt(),
            ),
            (
                "glorot_uniform",
                glorot_uniform(&mut rng, &dims).unwrap(),
                2.0 / (fan_in + fan_out),
                3f64.sqrt(),
            ),
        ];
        for (name, l, want_var, max_in_stddevs) in cases {
            assert_eq!(l.shape().dims(), &dims);
            let (var, max) = stats(&l);
            // 18,432 samples: the variance's relative error is about 1-2%.
            assert!(
                (var / want_var - 1.0).abs() < 0.05,
                "{name}: variance {var} vs {want_var}"
            );
            assert!(
                max <= max_in_stddevs * want_var.sqrt() * 1.0001,
                "{name}: max {max}"
            );
            assert!(
                max > 0.9 * max_in_stddevs * want_var.sqrt(),
                "{name}: max {max} (too narrow)"
            );
        }
        let (var, _) = stats(&normal(&mut rng, &[100, 100], 0.5).unwrap());
        assert!((var / 0.25 - 1.0).abs() < 0.05);
    }

    #[test]
    fn bad_dims_are_errors_and_a_seed_repeats() {
        let mut rng = Rng::new(1);
        assert!(he_normal(&mut rng, &[]).is_err());
        assert!(lecun_normal(&mut rng, &[3, 0]).is_err());
        let a = he_normal(&mut Rng::new(5), &[4, 4]).unwrap();
        let b = he_normal(&mut Rng::new(5), &[4, 4]).unwrap();
        assert_eq!(a.data::<f32>(), b.data::<f32>());
    }
}
