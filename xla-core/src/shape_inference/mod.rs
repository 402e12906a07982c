//! Shape inference: pure functions from operand shapes and typed attributes to a result
//! shape, one file per op family. No IR, no builder, no spans: the builder, the verifier,
//! the text parser and the `#[computation]` macro (at compile time) all call these same rules.
//!
//! Every violated rule is a [`ShapeError`] naming the operation, the operand shapes in XLA
//! notation and the rule, e.g.
//! `dot: contracting dimension sizes differ: lhs f32[2,3] dim 1 is 3, rhs f32[4,5] dim 0 is 4`.
//!
//! | family | rules |
//! | --- | --- |
//! | [`elementwise`] | `unary`, `binary`, `compare`, `select`, `clamp`, `convert`, `bitcast_convert`, `reduce_precision`, `map`, and `broadcast_plan` for the builder's implicit broadcasting |
//! | [`structural`] | `parameter`, `constant`, `iota`, `tuple`, `get_tuple_element`, `broadcast`, `reshape`, `transpose`, `reverse`, `slice`, `dynamic_slice`, `dynamic_update_slice`, `concatenate`, `pad`, `bitcast`, `copy`, `optimization_barrier`, `get_dimension_size`, `set_dimension_size`; builder-level `broadcast_in_front` (Broadcast) and `collapse` (Collapse) |
//! | [`indexing`] | `gather`, `scatter`, `sort`, `topk` |
//! | [`contraction`] | `dot`, `convolution` (and `contraction_type`, `check_precision`) |
//! | [`window`] | `reduce`, `reduce_window`, `select_and_scatter`, `window_output_dims`, `check_reducer` |
//! | [`linalg`] | `batch_norm_training`, `batch_norm_inference`, `batch_norm_grad`, `cholesky`, `triangular_solve`, `fft` |
//! | [`control`] | `call`, `conditional`, `while_loop`, `custom_call` |
//! | [`collective`] | `all_gather`, `all_reduce`, `reduce_scatter`, `all_to_all`, `collective_permute`, `replica_id`, `partition_id`, `after_all`, `add_dependency`, `send`, `send_done`, `recv`, `recv_done`, `infeed`, `outfeed`, `group_size`; builder-level `all_to_all_split` |
//! | [`rng`] | `rng`, `rng_bit_generator`, `rng_get_and_update_state` |
//!
//! [`crate::ir::infer_shape`] dispatches an [`Op`](crate::ir::Op) to these.
//!
//! ```
//! use xla_core::attrs::DotDims;
//! use xla_core::shape_inference::contraction::dot;
//! use xla_core::{PrimitiveType::F32, Shape};
//!
//! let dims = DotDims { lhs_contracting_dims: vec![1], rhs_contracting_dims: vec![0], ..DotDims::default() };
//! let (a, b) = (Shape::array(F32, vec![2, 3]), Shape::array(F32, vec![3, 5]));
//! assert_eq!(dot(&a, &b, &dims, None).unwrap().to_string(), "f32[2,5]");
//! let err = dot(&a, &Shape::array(F32, vec![4, 5]), &dims, None).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "dot: contracting dimension sizes differ: lhs f32[2,3] dim 1 is 3, rhs f32[4,5] dim 0 is 4"
//! );
//! ```

mod error;
mod rules;
mod validators;

pub mod collective;
pub mod contraction;
pub mod control;
pub mod elementwise;
pub mod indexing;
pub mod linalg;
pub mod rng;
pub mod structural;
pub mod window;

pub use error::{ShapeError, ShapeRule};
pub use rules::{
    BroadcastRule, CalleeRule, CollectiveRule, ContractionRule, ConvertRule, GatherRule,
    LinalgRule, OperandsRule, SliceRule, WindowRule,
};
pub use validators::*;

use crate::shape::Shape;

/// The signature of a computation: parameter shapes and result shape. Rules for ops that
/// call computations (reduce, sort, while, ...) check the callee through this.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramShape {
    /// Parameter shapes in parameter order.
    pub parameters: Vec<Shape>,
    /// Result shape.
    pub result: Shape,
}

impl std::fmt::Display for ProgramShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("(")?;
        for (i, p) in self.parameters.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{p}")?;
        }
        write!(f, ") -> {}", self.result)
    }
}
