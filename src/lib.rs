//! xla-rs: a tensor DSL for Rust with XLA's semantics.
//!
//! This facade re-exports the crates of the workspace:
//! - [`core`] (`xla-core`): element types, shapes, literals, the HLO IR, shape inference,
//!   the builder, HLO text and the verifier;
//! - [`cpu`] (`xla-cpu`): runs HLO modules on the CPU;
//! - [`autodiff`] (`xla-autodiff`): gradient graphs;
//! - [`computation`] (`xla-macros`): the `#[computation]` attribute;
//! - [`train`] (feature `train`, on by default): data sets, checkpoints, progress bars and
//!   plots for training loops. A library user who needs neither it nor the `xla` command
//!   line (feature `cli`) depends on `xla-rs` with `default-features = false` and compiles
//!   none of their dependencies (plotters, indicatif, safetensors, clap, ...).

// `#[computation]`'s expansion names the facade `::xla`; inside this crate (xla::nn) that
// is the crate itself.
extern crate self as xla;

pub use xla_autodiff as autodiff;
pub use xla_core as core;
pub use xla_core::{Literal, Module, PrimitiveType, Shape};
pub use xla_cpu as cpu;
pub use xla_macros::computation;
pub mod generic;
pub mod nn;
#[cfg(feature = "train")]
pub mod train;

/// The README's code blocks, compiled and run as doc tests so the README stays true.
#[cfg(all(doctest, feature = "train"))]
#[doc = include_str!("../README.md")]
mod readme {}

/// The code blocks of `#[computation]`'s documentation (xla-macros/README.md, its crate docs),
/// run here: a proc-macro crate's own doc tests would build the facade a second time.
#[cfg(doctest)]
#[doc = include_str!("../xla-macros/README.md")]
mod macros_readme {}
