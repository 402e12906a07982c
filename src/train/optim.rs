//! Optimisers applied on the host, for models whose computation returns gradients rather
//! than updated parameters: [`Sgd`] (with optional momentum) and [`Adam`]. Parameters and
//! gradients are `f32` or `f64` literals of equal shapes.
//!
//! ```
//! use xla::train::optim::Sgd;
//! use xla::Literal;
//!
//! let mut params = vec![Literal::vec1(&[1.0f32, 2.0])];
//! let grads = vec![Literal::vec1(&[0.5f32, -1.0])];
//! Sgd::new(0.1).step(&mut params, &grads)?;
//! assert_eq!(params[0].to_vec::<f32>()?, vec![0.95, 2.1]);
//! # Ok::<(), xla::train::TrainError>(())
//! ```

use super::error::{Result, TrainError};
use xla_core::literal::ArrayData;
use xla_core::Literal;

/// Checks that `params` and `grads` pair up with equal shapes of f32 or f64.
fn check(op: &'static str, params: &[Literal], grads: &[Literal]) -> Result<()> {
    if params.len() != grads.len() {
        return Err(TrainError::invalid(
            op,
            format!("{} parameters but {} gradients", params.len(), grads.len()),
        ));
    }
    for (i, (p, g)) in params.iter().zip(grads).enumerate() {
        let float = matches!(p.array_data(), Some(ArrayData::F32(_) | ArrayData::F64(_)));
        if !float || p.shape().without_layout() != g.shape().without_layout() {
            return Err(TrainError::invalid(
                op,
                format!(
                    "gradient {i} is {}, parameter is {} (need equal f32 or f64 shapes)",
                    g.shape(),
                    p.shape()
                ),
            ));
        }
    }
    Ok(())
}

/// Applies `f(index, param, grad)` to every element of every parameter, in f64.
fn for_each(
    params: &mut [Literal],
    grads: &[Literal],
    mut f: impl FnMut(usize, usize, &mut f64, f64),
) -> Result<()> {
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
    Ok(())
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

    /// Updates `params` in place with `grads`.
    ///
    /// # Errors
    /// If the counts differ, or a pair differs in shape or is not f32/f64.
    pub fn step(&mut self, params: &mut [Literal], grads: &[Literal]) -> Result<()> {
        check("Sgd::step", params, grads)?;
        if self.velocity.len() != params.len() {
            self.velocity = params
                .iter()
                .map(|p| vec![0.0; p.element_count()])
                .collect();
        }
        let (lr, mu, vel) = (self.learning_rate, self.momentum, &mut self.velocity);
        for_each(params, grads, |k, i, p, g| {
            if let Some(v) = vel.get_mut(k).and_then(|v| v.get_mut(i)) {
                *v = mu * *v + g;
                *p -= lr * *v;
            }
        })
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

    /// Updates `params` in place with `grads`.
    ///
    /// # Errors
    /// If the counts differ, or a pair differs in shape or is not f32/f64.
    pub fn step(&mut self, params: &mut [Literal], grads: &[Literal]) -> Result<()> {
        check("Adam::step", params, grads)?;
        if self.m.len() != params.len() {
            self.m = params
                .iter()
                .map(|p| vec![0.0; p.element_count()])
                .collect();
            self.v = self.m.clone();
            self.t = 0;
        }
        self.t = self.t.saturating_add(1);
        let (b1, b2, eps, lr) = (self.beta1, self.beta2, self.epsilon, self.learning_rate);
        let (c1, c2) = (1.0 - b1.powi(self.t), 1.0 - b2.powi(self.t));
        let (m, v) = (&mut self.m, &mut self.v);
        for_each(params, grads, |k, i, p, g| {
            let mi = m.get_mut(k).and_then(|m| m.get_mut(i));
            let vi = v.get_mut(k).and_then(|v| v.get_mut(i));
            if let (Some(mi), Some(vi)) = (mi, vi) {
                *mi = b1 * *mi + (1.0 - b1) * g;
                *vi = b2 * *vi + (1.0 - b2) * g * g;
                *p -= lr * (*mi / c1) / ((*vi / c2).sqrt() + eps);
            }
        })
    }
}
