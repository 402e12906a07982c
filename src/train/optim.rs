//! Optimisers applied on the host, for models whose computation returns gradients rather
//! than updated parameters: [`Sgd`] (with optional momentum) and [`Adam`]. Parameters and
//! gradients are `f32` or `f64` arrays of equal shapes, or tuples of them nested any way
//! (a model's per-layer parameters, `((k1, g1, b1), (w, b))`): the step runs on the array
//! leaves, depth first (see [`super::tree`]), as if they were passed flat.
//!
//! ```
//! use xla::train::optim::Sgd;
//! use xla::Literal;
//!
//! let mut params = vec![Literal::vec1(&[1.0f32, 2.0])];
//! let grads = vec![Literal::vec1(&[0.5f32, -1.0])];
//! Sgd::new(0.1).step(&mut params, &grads)?;
//! assert_eq!(params[0].to_vec::<f32>()?, vec![0.95, 2.1]);
//!
//! // Per-layer tuples: the gradient has the parameters' structure.
//! let layer = |a: f32, b: f32| Literal::tuple(vec![Literal::vec1(&[a]), Literal::scalar(b)]);
//! let mut params = vec![Literal::tuple(vec![layer(1.0, 2.0), layer(3.0, 4.0)])];
//! let grads = vec![Literal::tuple(vec![layer(1.0, -1.0), layer(0.0, 2.0)])];
//! Sgd::new(0.5).step(&mut params, &grads)?;
//! let want = vec![Literal::tuple(vec![layer(0.5, 2.5), layer(3.0, 3.0)])];
//! assert_eq!(params, want);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::error::{Result, TrainError};
use super::tree;
use xla_core::literal::ArrayData;
use xla_core::Literal;

/// Checks that `params` and `grads` have the same tuple structure and that their leaves
/// pair up with equal shapes of f32 or f64.
fn check(op: &'static str, params: &[Literal], grads: &[Literal]) -> Result<()> {
    tree::check_same_structure(op, ("parameters", params), ("gradients", grads))?;
    for ((path, p), (_, g)) in tree::leaves(params).into_iter().zip(tree::leaves(grads)) {
        let float = matches!(p.array_data(), Some(ArrayData::F32(_) | ArrayData::F64(_)));
        if !float || p.shape().without_layout() != g.shape().without_layout() {
            return Err(TrainError::invalid(
                op,
                format!(
                    "gradient {path} is {}, parameter is {} (need equal f32 or f64 shapes)",
                    g.shape(),
                    p.shape()
                ),
            ));
        }
    }
    Ok(())
}

/// Runs `f(leaf, index, param, grad)` on every element of every leaf of `params` (in
/// place, in f64) with the same leaf of `grads`; the caller has run [`check`].
fn update(params: &mut [Literal], grads: &[Literal], f: impl FnMut(usize, usize, &mut f64, f64)) {
    let grads: Vec<&Literal> = tree::leaves(grads).into_iter().map(|(_, g)| g).collect();
    tree::with_leaves(params, |leaves| for_each(leaves, &grads, f));
}

/// A zero per element of every leaf of `params`: an optimiser's fresh state.
fn zeros_like(params: &[Literal]) -> Vec<Vec<f64>> {
    tree::leaves(params)
        .into_iter()
        .map(|(_, p)| vec![0.0; p.element_count()])
        .collect()
}

/// Applies `f(index, param, grad)` to every element of every parameter, in f64.
fn for_each(
    params: &mut [Literal],
    grads: &[&Literal],
    mut f: impl FnMut(usize, usize, &mut f64, f64),
) {
    for (k, (p, g)) in params.iter_mut().zip(grads).enumerate() {
        let grad: Vec<f64> = match g.array_data() {
            Some(ArrayData::F32(v)) => v.iter().map(|&x| f64::from(x)).collect(),
            Some(ArrayData::F64(v)) => v.clone(),
            _ => Vec::new(),
        };
        match p.array_data_mut() {
            Some(ArrayData::F32(v)) => {
                for (i, (x, &gi)) in v.iter_mut().zip(&grad).enumerate() {
                    let mut y = f64::from(*x);
                    f(k, i, &mut y, gi);
                    *x = y as f32;
                }
            }
            Some(ArrayData::F64(v)) => {
                for (i, (x, &gi)) in v.iter_mut().zip(&grad).enumerate() {
                    f(k, i, x, gi);
                }
            }
            _ => {}
        }
    }
}

/// Stochastic gradient descent: `v = momentum * v + g; p -= lr * v`.
#[derive(Clone, Debug, Default)]
pub struct Sgd {
    /// Step size.
    pub learning_rate: f64,
    /// Momentum (0 for plain SGD).
    pub momentum: f64,
    velocity: Vec<Vec<f64>>,
}

impl Sgd {
    /// Plain SGD with step size `learning_rate`.
    pub fn new(learning_rate: f64) -> Sgd {
        Sgd {
            learning_rate,
            ..Sgd::default()
        }
    }

    /// SGD with momentum.
    pub fn with_momentum(learning_rate: f64, momentum: f64) -> Sgd {
        Sgd {
            learning_rate,
            momentum,
            velocity: Vec::new(),
        }
    }

    /// Updates `params` in place with `grads` (arrays, or tuples nested alike: the step
    /// runs on their leaves, as on the flat list of them).
    ///
    /// # Errors
    /// If the counts or the tuple structures differ (naming the leaf path), or a pair of
    /// leaves differs in shape or is not f32/f64.
    pub fn step(&mut self, params: &mut [Literal], grads: &[Literal]) -> Result<()> {
        check("Sgd::step", params, grads)?;
        if self.velocity.len() != tree::leaf_count(params) {
            self.velocity = zeros_like(params);
        }
        let (lr, mu, vel) = (self.learning_rate, self.momentum, &mut self.velocity);
        update(params, grads, |k, i, p, g| {
            if let Some(v) = vel.get_mut(k).and_then(|v| v.get_mut(i)) {
                *v = mu * *v + g;
                *p -= lr * *v;
            }
        });
        Ok(())
    }
}

/// Adam (Kingma & Ba 2015) with bias correction, as optax and PyTorch compute it:
/// `p -= lr * m̂ / (sqrt(v̂) + eps)`.
#[derive(Clone, Debug)]
pub struct Adam {
    /// Step size.
    pub learning_rate: f64,
    /// Decay of the first moment (0.9).
    pub beta1: f64,
    /// Decay of the second moment (0.999).
    pub beta2: f64,
    /// Added to the root of the second moment (1e-8).
    pub epsilon: f64,
    t: i32,
    m: Vec<Vec<f64>>,
    v: Vec<Vec<f64>>,
}

impl Adam {
    /// Adam with the usual constants and step size `learning_rate`.
    pub fn new(learning_rate: f64) -> Adam {
        Adam {
            learning_rate,
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
            t: 0,
            m: Vec::new(),
            v: Vec::new(),
        }
    }

    /// Updates `params` in place with `grads` (arrays, or tuples nested alike: the step
    /// runs on their leaves, as on the flat list of them).
    ///
    /// # Errors
    /// If the counts or the tuple structures differ (naming the leaf path), or a pair of
    /// leaves differs in shape or is not f32/f64.
    pub fn step(&mut self, params: &mut [Literal], grads: &[Literal]) -> Result<()> {
        check("Adam::step", params, grads)?;
        if self.m.len() != tree::leaf_count(params) {
            self.m = zeros_like(params);
            self.v = self.m.clone();
            self.t = 0;
        }
        self.t = self.t.saturating_add(1);
        let (b1, b2, eps, lr) = (self.beta1, self.beta2, self.epsilon, self.learning_rate);
        let (c1, c2) = (1.0 - b1.powi(self.t), 1.0 - b2.powi(self.t));
        let (m, v) = (&mut self.m, &mut self.v);
        update(params, grads, |k, i, p, g| {
            let mi = m.get_mut(k).and_then(|m| m.get_mut(i));
            let vi = v.get_mut(k).and_then(|v| v.get_mut(i));
            if let (Some(mi), Some(vi)) = (mi, vi) {
                *mi = b1 * *mi + (1.0 - b1) * g;
                *vi = b2 * *vi + (1.0 - b2) * g * g;
                *p -= lr * (*mi / c1) / ((*vi / c2).sqrt() + eps);
            }
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::Rng;

    /// Random `f32` leaves with NaN, ±inf and ±0 among them.
    fn leaves(rng: &mut Rng, shapes: &[&[i64]]) -> Vec<Literal> {
        let specials = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0];
        shapes
            .iter()
            .map(|dims| {
                let n = dims.iter().product::<i64>() as usize;
                let mut v: Vec<f32> = (0..n).map(|_| rng.uniform_f32() * 4.0 - 2.0).collect();
                if let Some(x) = v.get_mut(rng.below(n.max(1))) {
                    *x = specials[rng.below(specials.len())];
                }
                Literal::from_vec(dims, v).unwrap_or_else(|_| Literal::scalar(0f32))
            })
            .collect()
    }

    /// `((a, b, c), (d, e), f)` from six leaves.
    fn nest(flat: &[Literal]) -> Vec<Literal> {
        let t = |r: std::ops::Range<usize>| Literal::tuple(flat[r].to_vec());
        vec![t(0..3), t(3..5), flat[5].clone()]
    }

    fn bits(lits: &[Literal]) -> Vec<Vec<u32>> {
        tree::leaves(lits)
            .into_iter()
            .map(|(_, l)| {
                l.to_vec::<f32>()
                    .unwrap_or_default()
                    .iter()
                    .map(|x| x.to_bits())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn nested_steps_are_the_flat_steps_bit_for_bit() {
        let shapes: [&[i64]; 6] = [&[4, 1, 3, 3], &[4], &[4], &[8, 3], &[3], &[]];
        let mut rng = Rng::new(7);
        let mut flat = leaves(&mut rng, &shapes);
        let mut nested = nest(&flat);
        let (mut adam_flat, mut adam_nested) = (Adam::new(0.01), Adam::new(0.01));
        let (mut sgd_flat, mut sgd_nested) =
            (Sgd::with_momentum(0.1, 0.9), Sgd::with_momentum(0.1, 0.9));
        for _ in 0..3 {
            let grads = leaves(&mut rng, &shapes);
            let nested_grads = nest(&grads);
            assert!(adam_flat.step(&mut flat, &grads).is_ok());
            assert!(adam_nested.step(&mut nested, &nested_grads).is_ok());
            assert_eq!(bits(&flat), bits(&nested));
            assert!(sgd_flat.step(&mut flat, &grads).is_ok());
            assert!(sgd_nested.step(&mut nested, &nested_grads).is_ok());
            assert_eq!(bits(&flat), bits(&nested));
        }
        // The structure is kept.
        assert_eq!(nested[1].tuple_elements().map(<[Literal]>::len), Some(2));
    }

    #[test]
    fn a_structure_mismatch_names_the_leaf_path_and_changes_nothing() {
        let shapes: [&[i64]; 6] = [&[2], &[2], &[2], &[3], &[3], &[]];
        let mut rng = Rng::new(1);
        let flat = leaves(&mut rng, &shapes);
        let mut params = nest(&flat);
        let before = params.clone();
        let mut grads = nest(&flat);
        grads[1] = Literal::tuple(vec![flat[3].clone()]);
        let e = Adam::new(0.1)
            .step(&mut params, &grads)
            .err()
            .map(|e| e.to_string());
        let e = e.unwrap_or_default();
        assert!(e.contains("Adam::step") && e.contains("leaf path 1"), "{e}");
        assert!(
            e.contains("(f32[3], f32[3])") && e.contains("(f32[3])"),
            "{e}"
        );
        let mut grads = nest(&flat);
        grads[0] = Literal::tuple(vec![flat[0].clone(), flat[1].clone(), flat[3].clone()]);
        let e = Sgd::new(0.1)
            .step(&mut params, &grads)
            .err()
            .map(|e| e.to_string());
        let e = e.unwrap_or_default();
        assert!(
            e.contains("gradient 0.2 is f32[3], parameter is f32[2]"),
            "{e}"
        );
        assert_eq!(bits(&params), bits(&before));
    }
}
