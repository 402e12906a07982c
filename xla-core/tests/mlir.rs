//! The StableHLO reader (`xla_core::mlir`): pretty and generic forms give the same module,
//! attributes XLA and JAX add are skipped, regions capture outer values, bad input is one
//! located error and never a panic. Running the programs is tested in `xla-cpu`
//! (`tests/conformance.rs`, `tests/stablehlo_jax.rs`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "mlir/errors.rs"]
mod errors;
#[path = "mlir/forms.rs"]
mod forms;
#[path = "mlir/fuzz.rs"]
mod fuzz;
