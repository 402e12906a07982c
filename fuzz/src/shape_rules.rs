//! The `shape_rules` fuzz target: random shapes and dimension numbers through the
//! builder's shape rules, the ones `#[computation]` checks a program with at compile
//! time (dot-general, convolution, reduce-window, gather, scatter, slice, pad,
//! broadcast, reshape, transpose). No input may panic, and whatever the builder accepts
//! the module verifier must accept too, with the same result shape.

use xla::core::builder::{Combiner, ConvOptions, Padding, XlaBuilder, XlaOp};
use xla::core::ir::{ConvDimensionNumbers, DotDims, GatherDims, PadDim, ScatterDims};
use xla::core::verify::verify_module;
use xla::{PrimitiveType, Shape};

/// Reads small numbers off the input; past its end every read is 0.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let (&b, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        b
    }
    /// `0..n`.
    fn below(&mut self, n: u8) -> i64 {
        i64::from(self.byte() % n.max(1))
    }
    /// `-1..=5`: dimension numbers and sizes, mostly valid, sometimes out of range.
    fn small(&mut self) -> i64 {
        self.below(7) - 1
    }
    /// A list of 0 to 3 [`Bytes::small`] numbers.
    fn list(&mut self) -> Vec<i64> {
        let n = self.below(4);
        (0..n).map(|_| self.small()).collect()
    }
    /// A list of `n` numbers from `f`.
    fn list_of(&mut self, n: usize, mut f: impl FnMut(&mut Self) -> i64) -> Vec<i64> {
        (0..n).map(|_| f(self)).collect()
    }
    /// Array dims: rank 0 to 4, sizes 0 to 4.
    fn dims(&mut self) -> Vec<i64> {
        let rank = usize::try_from(self.below(5)).unwrap_or(0);
        self.list_of(rank, |r| r.below(5))
    }
}

/// Runs one input (see the module doc).
pub fn shape_rules(data: &[u8]) {
    let mut r = Bytes(data);
    let b = XlaBuilder::new("shape_rules");
    let ty = if r.below(2) == 0 {
        PrimitiveType::F32
    } else {
        PrimitiveType::S32
    };
    let x_dims = r.dims();
    let x = b.parameter(0, Shape::array(ty, x_dims.clone()), "x");
    let second = |r: &mut Bytes<'_>, ty| b.parameter(1, Shape::array(ty, r.dims()), "y");
    let rank = x_dims.len();
    let op = match r.below(10) {
        0 => {
            let y = second(&mut r, ty);
            let dims = DotDims {
                lhs_batch_dims: r.list(),
                lhs_contracting_dims: r.list(),
                rhs_batch_dims: r.list(),
                rhs_contracting_dims: r.list(),
            };
            b.dot_general(&x, &y, &dims)
        }
        1 => convolution(&b, &x, &mut r, ty),
        2 => {
            let init = b.parameter(1, Shape::scalar(ty), "init");
            let (sizes, strides) = (r.list_of(rank, Bytes::small), r.list_of(rank, Bytes::small));
            let padding = if r.below(2) == 0 {
                Padding::Valid
            } else {
                Padding::Same
            };
            b.reduce_window(&x, &init, &sizes, &strides, padding, Combiner::Add)
        }
        3 => {
            let indices = second(&mut r, PrimitiveType::S32);
            let dims = GatherDims {
                offset_dims: r.list(),
                collapsed_slice_dims: r.list(),
                start_index_map: r.list(),
                index_vector_dim: r.small(),
                operand_batching_dims: r.list(),
                start_indices_batching_dims: r.list(),
                slice_sizes: r.list_of(rank, Bytes::small),
                ..GatherDims::default()
            };
            b.gather(&x, &indices, &dims)
        }
        4 => {
            let indices = second(&mut r, PrimitiveType::S32);
            let updates = b.parameter(2, Shape::array(ty, r.dims()), "u");
            let dims = ScatterDims {
                update_window_dims: r.list(),
                inserted_window_dims: r.list(),
                scatter_dims_to_operand_dims: r.list(),
                index_vector_dim: r.small(),
                input_batching_dims: r.list(),
                scatter_indices_batching_dims: r.list(),
                ..ScatterDims::default()
            };
            b.scatter(&x, &indices, &updates, &dims, Combiner::Add)
        }
        5 => {
            let n = rank + usize::from(r.below(4) == 0);
            let start = r.list_of(n, Bytes::small);
            let limit = r.list_of(n, Bytes::small);
            let strides = r.list_of(n, Bytes::small);
            b.slice(&x, &start, &limit, &strides)
        }
        6 => {
            let value = b.parameter(1, Shape::scalar(ty), "v");
            let pads: Vec<PadDim> = (0..rank)
                .map(|_| PadDim {
                    low: r.small() - 1,
                    high: r.small() - 1,
                    interior: r.small(),
                })
                .collect();
            b.pad(&x, &value, &pads)
        }
        7 => {
            let out = r.dims();
            let bdims = r.list_of(rank, Bytes::small);
            b.broadcast_in_dim(&x, &out, &bdims)
        }
        8 => {
            let sizes = r.dims();
            b.reshape(&x, &sizes)
        }
        _ => {
            let perm = r.list_of(rank, Bytes::small);
            b.transpose(&x, &perm)
        }
    };
    agree(&b, &op);
}

/// A convolution with random dimension numbers, window and group counts.
fn convolution(b: &XlaBuilder, x: &XlaOp, r: &mut Bytes<'_>, ty: PrimitiveType) -> XlaOp {
    let k = b.parameter(1, Shape::array(ty, r.dims()), "k");
    let spatial = usize::try_from(r.below(3)).unwrap_or(0);
    let dnums = ConvDimensionNumbers {
        input_batch_dimension: r.small(),
        input_feature_dimension: r.small(),
        input_spatial_dimensions: r.list_of(spatial, Bytes::small),
        kernel_input_feature_dimension: r.small(),
        kernel_output_feature_dimension: r.small(),
        kernel_spatial_dimensions: r.list_of(spatial, Bytes::small),
        output_batch_dimension: r.small(),
        output_feature_dimension: r.small(),
        output_spatial_dimensions: r.list_of(spatial, Bytes::small),
    };
    let strides = r.list_of(spatial, Bytes::small);
    let padding: Vec<(i64, i64)> = (0..spatial).map(|_| (r.small(), r.small())).collect();
    let options = ConvOptions::new()
        .strides(&strides)
        .padding(&padding)
        .lhs_dilation(&r.list_of(spatial, Bytes::small))
        .rhs_dilation(&r.list_of(spatial, Bytes::small))
        .dimension_numbers(dnums)
        .feature_group_count(r.small())
        .batch_group_count(r.small());
    b.conv_general_dilated(x, &k, &options)
}

/// What the builder accepted (`op`'s shape) the verifier accepts, with the same shape.
fn agree(b: &XlaBuilder, op: &XlaOp) {
    let Ok(shape) = b.get_shape(op) else {
        return;
    };
    let m = match b.build_with_root(op) {
        Ok(m) => m,
        Err(e) => panic!("the builder accepted {shape} but cannot build it: {e}"),
    };
    if let Err(e) = verify_module(&m) {
        panic!("the builder accepted {shape} but the verifier rejects the module: {e}");
    }
    let root = m
        .entry_computation()
        .and_then(|c| c.get(c.root))
        .map(|i| i.shape.clone());
    assert_eq!(root.as_ref(), Some(&shape), "the module's root differs");
}
