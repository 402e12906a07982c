//! Kernels, one file per op family; each dispatches on the element type once and runs a
//! generic loop.

pub(crate) mod arg_reduce;
pub mod collective;
pub(crate) mod combiner;
pub(crate) mod comparator;
pub(crate) mod complex_div;
mod complex_simd;
mod complex_fma;
pub mod contraction;
pub mod control;
pub mod conv;
pub(crate) mod conv_depthwise;
pub(crate) mod conv_rows;
pub(crate) mod conv_small;
pub(crate) mod conv_tap_grads;
pub(crate) mod conv_taps;
pub(crate) mod conv_subpixel;
pub(crate) mod dot_add;
pub(crate) mod dot_perm;
pub mod elementwise;
pub mod fft;
pub(crate) mod host;
mod index_rows;
pub mod indexing;
pub(crate) mod lapack;
pub(crate) mod lapack_apply;
pub(crate) mod lapack_eigen;
pub(crate) mod lapack_eigh_nan;
pub(crate) mod lapack_getrf_cplx;
pub(crate) mod lapack_getrf_nan;
pub(crate) mod lapack_householder;
pub(crate) mod lapack_iamax;
pub(crate) mod lapack_ormtr;
pub(crate) mod lapack_potrf_nan;
pub(crate) mod lapack_hqr;
pub(crate) mod lapack_hqr_cplx;
pub(crate) mod lapack_scalar;
pub(crate) mod lapack_scale;
pub(crate) mod lapack_schur;
pub(crate) mod lapack_scratch;
pub(crate) mod lapack_sytrd_blocked;
pub mod linalg;
pub mod matmul;
pub(crate) mod matvec;
pub(crate) mod reduce_fast;
pub(crate) mod reduce_tree;
pub mod rng;
pub mod sort;
mod sort_polled;
pub(crate) mod strided;
mod transpose8;
pub mod structural;
pub mod window;
pub(crate) mod window_fast;
pub(crate) mod window_nd;
pub(crate) mod window_plan;
pub(crate) mod window_scan;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod fast_tests;
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::expect_used)]
mod window_tests;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod conv_tests;
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::expect_used)]
mod dot_perm_tests;

/// How a profile names an instruction's op: the op's name, except for the custom-calls
/// this crate's own rewrites put in (`dot+add` for a product accumulated in place,
/// `dot` for a product written in transposed order), which are not calls of anything.
pub(crate) fn step_name(op: &xla_core::ir::Op) -> &'static str {
    match op {
        xla_core::ir::Op::CustomCall { config, .. } if config.target == dot_add::TARGET => {
            "dot+add"
        }
        xla_core::ir::Op::CustomCall { config, .. } if config.target == dot_perm::TARGET => "dot",
        op => op.name(),
    }
}
