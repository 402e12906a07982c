//! Normalisation, linear algebra, transforms and sorting: batch-norm, cholesky,
//! triangular-solve, fft, sort, top-k.

use super::callee::Callee;
use super::{collect_ops, refs, XlaBuilder, XlaOp};
use crate::ir::{FftType, Op, TriangularSolveOptions};
use crate::shape::Shape;
use std::borrow::Borrow;

impl XlaBuilder {
    /// Batch normalisation for training → `(output, batch_mean, batch_var)`.
    pub fn batch_norm_training(
        &self,
        operand: impl Borrow<XlaOp>,
        scale: impl Borrow<XlaOp>,
        offset: impl Borrow<XlaOp>,
        epsilon: f32,
        feature_index: i64,
    ) -> XlaOp {
        let op = Op::BatchNormTraining {
            epsilon,
            feature_index,
        };
        self.emit(
            op,
            &[operand.borrow(), scale.borrow(), offset.borrow()],
            None,
        )
    }

    /// Batch normalisation with given mean and variance.
    #[allow(clippy::too_many_arguments)]
    pub fn batch_norm_inference(
        &self,
        operand: impl Borrow<XlaOp>,
        scale: impl Borrow<XlaOp>,
        offset: impl Borrow<XlaOp>,
        mean: impl Borrow<XlaOp>,
        variance: impl Borrow<XlaOp>,
        epsilon: f32,
        feature_index: i64,
    ) -> XlaOp {
        let op = Op::BatchNormInference {
            epsilon,
            feature_index,
        };
        let ops = [
            operand.borrow(),
            scale.borrow(),
            offset.borrow(),
            mean.borrow(),
            variance.borrow(),
        ];
        self.emit(op, &ops, None)
    }

    /// Gradients of batch normalisation → `(grad_operand, grad_scale, grad_offset)`.
    #[allow(clippy::too_many_arguments)]
    pub fn batch_norm_grad(
        &self,
        operand: impl Borrow<XlaOp>,
        scale: impl Borrow<XlaOp>,
        mean: impl Borrow<XlaOp>,
        variance: impl Borrow<XlaOp>,
        grad_output: impl Borrow<XlaOp>,
        epsilon: f32,
        feature_index: i64,
    ) -> XlaOp {
        let op = Op::BatchNormGrad {
            epsilon,
            feature_index,
        };
        let ops = [
            operand.borrow(),
            scale.borrow(),
            mean.borrow(),
            variance.borrow(),
            grad_output.borrow(),
        ];
        self.emit(op, &ops, None)
    }

    /// The Cholesky factor of (a batch of) symmetric positive-definite matrices: `L` with
    /// `lower`, else `U`.
    pub fn cholesky(&self, a: impl Borrow<XlaOp>, lower: bool) -> XlaOp {
        self.emit(Op::Cholesky { lower }, &[a.borrow()], None)
    }

    /// Solves `op(a) x = b` (left side) or `x op(a) = b` for triangular `a`.
    pub fn triangular_solve(
        &self,
        a: impl Borrow<XlaOp>,
        b: impl Borrow<XlaOp>,
        options: TriangularSolveOptions,
    ) -> XlaOp {
        self.emit(
            Op::TriangularSolve(options),
            &[a.borrow(), b.borrow()],
            None,
        )
    }

    /// A fast Fourier transform over the trailing `fft_length.len()` dimensions.
    pub fn fft(&self, operand: impl Borrow<XlaOp>, fft_type: FftType, fft_length: &[i64]) -> XlaOp {
        self.emit(
            Op::Fft {
                fft_type,
                fft_length: fft_length.to_vec(),
            },
            &[operand.borrow()],
            None,
        )
    }

    /// Sorts `operands` together along `dimension` (`-1`: the last) with `comparator`
    /// `(a0, b0, a1, b1, ...) -> pred` ("a before b"); a tuple for several operands.
    pub fn sort<I>(
        &self,
        operands: I,
        dimension: i64,
        is_stable: bool,
        comparator: impl Callee,
    ) -> XlaOp
    where
        I: IntoIterator,
        I::Item: Borrow<XlaOp>,
    {
        let ops = collect_ops(operands);
        let Some(shapes) = self.shapes_of("sort", &refs(&ops)) else {
            return self.poisoned();
        };
        let rank = shapes.first().map_or(0, Shape::rank) as i64;
        let dimension = if dimension == -1 { rank - 1 } else { dimension };
        let params: Vec<Shape> = shapes
            .iter()
            .flat_map(|s| {
                [
                    Shape::scalar(s.element_type()),
                    Shape::scalar(s.element_type()),
                ]
            })
            .collect();
        let Some(to_apply) = self.callee(comparator, "comparator", &params) else {
            return self.poisoned();
        };
        self.emit(
            Op::Sort {
                dimension,
                is_stable,
                to_apply,
            },
            &refs(&ops),
            None,
        )
    }

    /// The `k` largest (or smallest) elements along the last dimension and their S32
    /// indices, as a tuple.
    pub fn top_k(&self, operand: impl Borrow<XlaOp>, k: i64, largest: bool) -> XlaOp {
        self.emit(Op::TopK { k, largest }, &[operand.borrow()], None)
    }
}
