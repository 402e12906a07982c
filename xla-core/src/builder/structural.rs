//! Structural ops: broadcast, reshape, collapse, transpose, rev, slices, concatenate, pad,
//! tuples, dynamic dimension sizes.

use super::{collect_ops, refs, ScalarValue, WithDims, XlaBuilder, XlaOp};
use crate::ir::{Op, PadDim};
use crate::shape::Shape;
use crate::shape_inference::{dimension_out_of_range, ShapeError, ShapeRule, SliceRule};
use std::borrow::Borrow;

impl XlaBuilder {
    /// Adds dimensions of `sizes` in front of the operand's (XLA's `Broadcast`):
    /// `f32[2,3]` broadcast with `[4]` is `f32[4,2,3]`.
    pub fn broadcast(&self, operand: impl Borrow<XlaOp>, sizes: &[i64]) -> XlaOp {
        let operand = operand.borrow();
        let Some(s) = self.shape_of("broadcast", operand) else {
            return self.poisoned();
        };
        let dims: Vec<i64> = sizes.iter().chain(s.dims()).copied().collect();
        let n = sizes.len() as i64;
        let map: Vec<i64> = (n..n + s.rank() as i64).collect();
        self.emit(
            Op::Broadcast { dimensions: map },
            &[operand],
            Some(s.with_dims(dims)),
        )
    }

    /// Broadcasts to `out_dims`, operand dimension `i` becoming result dimension
    /// `broadcast_dimensions[i]` (XLA's `BroadcastInDim`; size-1 dims may expand).
    pub fn broadcast_in_dim(
        &self,
        operand: impl Borrow<XlaOp>,
        out_dims: &[i64],
        broadcast_dimensions: &[i64],
    ) -> XlaOp {
        let operand = operand.borrow();
        let Some(s) = self.shape_of("broadcast", operand) else {
            return self.poisoned();
        };
        let op = Op::Broadcast {
            dimensions: broadcast_dimensions.to_vec(),
        };
        self.emit(op, &[operand], Some(s.with_dims(out_dims.to_vec())))
    }

    /// An array of `shape` filled with `value` (a scalar constant broadcast; XLA's `Full`).
    pub fn full(&self, shape: &Shape, value: impl ScalarValue) -> XlaOp {
        let scalar = self.constant_scalar(shape.element_type(), value);
        if shape.is_scalar() {
            return scalar;
        }
        self.broadcast(&scalar, shape.dims())
    }

    /// An array of `shape` filled with zeros (XLA's `Zeros`).
    pub fn zeros(&self, shape: &Shape) -> XlaOp {
        self.full(shape, 0)
    }

    /// An array of `prototype`'s shape filled with `value` (XLA's `FullLike`).
    pub fn full_like(&self, prototype: &XlaOp, value: impl ScalarValue) -> XlaOp {
        match self.shape_of("broadcast", prototype) {
            Some(s) => self.full(&s, value),
            None => self.poisoned(),
        }
    }

    /// Zeros of `prototype`'s shape (XLA's `ZerosLike`).
    pub fn zeros_like(&self, prototype: &XlaOp) -> XlaOp {
        self.full_like(prototype, 0)
    }

    /// Reshapes to `new_sizes` (row-major order).
    pub fn reshape(&self, operand: impl Borrow<XlaOp>, new_sizes: &[i64]) -> XlaOp {
        let operand = operand.borrow();
        let Some(s) = self.shape_of("reshape", operand) else {
            return self.poisoned();
        };
        self.emit(
            Op::Reshape,
            &[operand],
            Some(s.with_dims(new_sizes.to_vec())),
        )
    }

    /// Transposes by `dimensions`, then reshapes to `new_sizes` (XLA's `Reshape` with
    /// dimensions: the transpose is left out when `dimensions` is the identity).
    pub fn reshape_with_dims(
        &self,
        operand: impl Borrow<XlaOp>,
        dimensions: &[i64],
        new_sizes: &[i64],
    ) -> XlaOp {
        let operand = operand.borrow();
        let identity = dimensions.iter().enumerate().all(|(i, &d)| d == i as i64);
        if identity {
            return self.reshape(operand, new_sizes);
        }
        let t = self.transpose(operand, dimensions);
        self.reshape(&t, new_sizes)
    }

    /// Merges the consecutive `dimensions` into one (XLA's `Collapse`, a reshape):
    /// `f32[2,3,4]` collapsed over `[0,1]` is `f32[6,4]`. Fewer than two dimensions give
    /// the operand back unchanged, as in XLA.
    pub fn collapse(&self, operand: impl Borrow<XlaOp>, dimensions: &[i64]) -> XlaOp {
        let operand = operand.borrow();
        let Some(s) = self.shape_of("reshape", operand) else {
            return self.poisoned();
        };
        let rank = s.rank() as i64;
        let consecutive = dimensions.windows(2).all(|w| w[1] == w[0] + 1);
        if let Some(&d) = dimensions.iter().find(|&&d| !(0..rank).contains(&d)) {
            let what = "collapse dimension";
            return self.fail(dimension_out_of_range("reshape", 0, what, d, &s));
        }
        if !consecutive {
            let rule = SliceRule::CollapseDims {
                dims: dimensions.to_vec(),
                shape: s.clone(),
            };
            return self.fail(ShapeError::rule_at("reshape", 0, ShapeRule::Slice(rule)));
        }
        // As XLA: collapsing fewer than two dimensions changes nothing.
        let Some(&first) = dimensions.first().filter(|_| dimensions.len() > 1) else {
            return operand.clone();
        };
        let last = first + dimensions.len() as i64;
        let dims = s.dims();
        let mut out: Vec<i64> = dims[..first as usize].to_vec();
        out.push(dims[first as usize..last as usize].iter().product());
        out.extend_from_slice(&dims[last as usize..]);
        self.reshape(operand, &out)
    }

    /// Permutes dimensions: result dimension `i` is operand dimension `permutation[i]`.
    pub fn transpose(&self, operand: impl Borrow<XlaOp>, permutation: &[i64]) -> XlaOp {
        self.emit(
            Op::Transpose {
                permutation: permutation.to_vec(),
            },
            &[operand.borrow()],
            None,
        )
    }

    /// Reverses the order of elements along `dimensions` (XLA's `Rev`).
    pub fn rev(&self, operand: impl Borrow<XlaOp>, dimensions: &[i64]) -> XlaOp {
        self.emit(
            Op::Reverse {
                dimensions: dimensions.to_vec(),
            },
            &[operand.borrow()],
            None,
        )
    }

    /// The strided slice `[start, limit)` with `strides` per dimension.
    pub fn slice(
        &self,
        operand: impl Borrow<XlaOp>,
        start: &[i64],
        limit: &[i64],
        strides: &[i64],
    ) -> XlaOp {
        let op = Op::Slice {
            start: start.to_vec(),
            limit: limit.to_vec(),
            stride: strides.to_vec(),
        };
        self.emit(op, &[operand.borrow()], None)
    }

    /// Slices one dimension `dimno`, keeping the others whole.
    pub fn slice_in_dim(
        &self,
        operand: impl Borrow<XlaOp>,
        start: i64,
        limit: i64,
        stride: i64,
        dimno: i64,
    ) -> XlaOp {
        let operand = operand.borrow();
        let Some(s) = self.shape_of("slice", operand) else {
            return self.poisoned();
        };
        if dimno < 0 || dimno as usize >= s.rank() {
            return self.fail(dimension_out_of_range("slice", 0, "dimension", dimno, &s));
        }
        let d = dimno as usize;
        let mut starts = vec![0; s.rank()];
        let mut limits = s.dims().to_vec();
        let mut strides = vec![1; s.rank()];
        (starts[d], limits[d], strides[d]) = (start, limit, stride);
        self.slice(operand, &starts, &limits, &strides)
    }

    /// Slices `slice_sizes` starting at the (clamped) scalar `start_indices`.
    pub fn dynamic_slice<I>(
        &self,
        operand: impl Borrow<XlaOp>,
        start_indices: I,
        slice_sizes: &[i64],
    ) -> XlaOp
    where
        I: IntoIterator,
        I::Item: Borrow<XlaOp>,
    {
        let mut ops = vec![operand.borrow().clone()];
        ops.extend(collect_ops(start_indices));
        self.emit(
            Op::DynamicSlice {
                slice_sizes: slice_sizes.to_vec(),
            },
            &refs(&ops),
            None,
        )
    }

    /// Overwrites the slice of `operand` at the (clamped) `start_indices` with `update`.
    pub fn dynamic_update_slice<I>(
        &self,
        operand: impl Borrow<XlaOp>,
        update: impl Borrow<XlaOp>,
        start_indices: I,
    ) -> XlaOp
    where
        I: IntoIterator,
        I::Item: Borrow<XlaOp>,
    {
        let mut ops = vec![operand.borrow().clone(), update.borrow().clone()];
        ops.extend(collect_ops(start_indices));
        self.emit(Op::DynamicUpdateSlice, &refs(&ops), None)
    }

    /// Concatenates `operands` along `dimension` (XLA's `ConcatInDim`).
    pub fn concat_in_dim<I>(&self, operands: I, dimension: i64) -> XlaOp
    where
        I: IntoIterator,
        I::Item: Borrow<XlaOp>,
    {
        let ops = collect_ops(operands);
        self.emit(Op::Concatenate { dimension }, &refs(&ops), None)
    }

    /// Pads with `padding_value`: low/high edge padding (negative removes) and interior
    /// padding per dimension.
    pub fn pad(
        &self,
        operand: impl Borrow<XlaOp>,
        padding_value: impl Borrow<XlaOp>,
        padding: &[PadDim],
    ) -> XlaOp {
        let op = Op::Pad {
            padding: padding.to_vec(),
        };
        self.emit(op, &[operand.borrow(), padding_value.borrow()], None)
    }

    /// Pads dimension `dimno` only, at its edges.
    pub fn pad_in_dim(
        &self,
        operand: impl Borrow<XlaOp>,
        padding_value: impl Borrow<XlaOp>,
        dimno: i64,
        low: i64,
        high: i64,
    ) -> XlaOp {
        let operand = operand.borrow();
        let Some(s) = self.shape_of("pad", operand) else {
            return self.poisoned();
        };
        let padding: Vec<PadDim> = (0..s.rank() as i64)
            .map(|d| {
                if d == dimno {
                    PadDim {
                        low,
                        high,
                        interior: 0,
                    }
                } else {
                    PadDim {
                        low: 0,
                        high: 0,
                        interior: 0,
                    }
                }
            })
            .collect();
        self.pad(operand, padding_value, &padding)
    }

    /// A tuple of `elements`.
    pub fn tuple<I>(&self, elements: I) -> XlaOp
    where
        I: IntoIterator,
        I::Item: Borrow<XlaOp>,
    {
        let ops = collect_ops(elements);
        self.emit(Op::Tuple, &refs(&ops), None)
    }

    /// Element `index` of a tuple.
    pub fn get_tuple_element(&self, tuple: impl Borrow<XlaOp>, index: i64) -> XlaOp {
        self.emit(Op::GetTupleElement { index }, &[tuple.borrow()], None)
    }

    /// The (possibly dynamic) size of `dimension`, as an S32 scalar.
    pub fn get_dimension_size(&self, operand: impl Borrow<XlaOp>, dimension: i64) -> XlaOp {
        self.emit(
            Op::GetDimensionSize { dimension },
            &[operand.borrow()],
            None,
        )
    }

    /// Makes `dimension` dynamic with the S32 scalar `size` as its size.
    pub fn set_dimension_size(
        &self,
        operand: impl Borrow<XlaOp>,
        size: impl Borrow<XlaOp>,
        dimension: i64,
    ) -> XlaOp {
        self.emit(
            Op::SetDimensionSize { dimension },
            &[operand.borrow(), size.borrow()],
            None,
        )
    }

    /// Passes `operand` through, blocking reordering of computations across it.
    pub fn optimization_barrier(&self, operand: impl Borrow<XlaOp>) -> XlaOp {
        self.emit(Op::OptimizationBarrier, &[operand.borrow()], None)
    }

    /// A copy of `operand`.
    pub fn copy(&self, operand: impl Borrow<XlaOp>) -> XlaOp {
        self.emit(Op::Copy, &[operand.borrow()], None)
    }
}
