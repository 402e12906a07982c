//! Random numbers: rng (uniform, normal), Bernoulli samples and rng-bit-generator.

use super::{WithDims, XlaBuilder, XlaOp};
use crate::ir::{Op, RngAlgorithm, RngDistribution};
use crate::shape::Shape;
use std::borrow::Borrow;

impl XlaBuilder {
    /// Uniform samples on `[a, b)` of `shape` (`a`, `b` scalars of its element type).
    pub fn rng_uniform(&self, a: impl Borrow<XlaOp>, b: impl Borrow<XlaOp>, shape: Shape) -> XlaOp {
        self.emit(
            Op::Rng {
                distribution: RngDistribution::Uniform,
            },
            &[a.borrow(), b.borrow()],
            Some(shape),
        )
    }

    /// Normal samples with mean `mu` and standard deviation `sigma`, of `shape`.
    pub fn rng_normal(
        &self,
        mu: impl Borrow<XlaOp>,
        sigma: impl Borrow<XlaOp>,
        shape: Shape,
    ) -> XlaOp {
        self.emit(
            Op::Rng {
                distribution: RngDistribution::Normal,
            },
            &[mu.borrow(), sigma.borrow()],
            Some(shape),
        )
    }

    /// Bernoulli samples (1 with probability `mean`, else 0) of `shape`: a uniform sample
    /// on `[0, 1)` of `mean`'s type compared with `mean`, converted to `shape`'s element
    /// type (as XLA's client library builds it).
    pub fn rng_bernoulli(&self, mean: impl Borrow<XlaOp>, shape: Shape) -> XlaOp {
        let mean = mean.borrow();
        let Some(ms) = self.shape_of("rng", mean) else {
            return self.poisoned();
        };
        let zero = self.constant_like(mean, 0.0);
        let one = self.constant_like(mean, 1.0);
        let u = self.rng_uniform(&zero, &one, ms.with_dims(shape.dims().to_vec()));
        let m = self.broadcast_in_dim(mean, shape.dims(), &[]);
        let hit = self.lt(&u, &m);
        self.convert_element_type(&hit, shape.element_type())
    }

    /// Random bits of `shape` from `initial_state` with `algorithm` → `(new_state, bits)`.
    pub fn rng_bit_generator(
        &self,
        algorithm: RngAlgorithm,
        initial_state: impl Borrow<XlaOp>,
        shape: Shape,
    ) -> XlaOp {
        let state = initial_state.borrow();
        let Some(s) = self.shape_of("rng-bit-generator", state) else {
            return self.poisoned();
        };
        self.emit(
            Op::RngBitGenerator { algorithm },
            &[state],
            Some(Shape::tuple(vec![s, shape])),
        )
    }
}
