//! Tests of the builder: one row per builder method (op, attributes and shape of the
//! instruction it adds, shapes from the spec's worked examples), error recording without
//! cascades, operator overloading, sub-computations and misuse.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use xla_core::builder::{
    binary, make_padding, nary, unary, BuildError, Combiner, ConvOptions, Padding, XlaBuilder,
    XlaOp,
};
use xla_core::ir::{
    BinaryOp, CollectiveConfig, ComparisonDirection, ComparisonType, ConvDimensionNumbers, DotDims,
    FftType, GatherDims, Op, Opcode, PadDim, ReplicaGroups, RngAlgorithm, ScatterDims, Transpose,
    TriangularSolveOptions, UnaryOp,
};
use xla_core::types::PrimitiveType::{self, *};
use xla_core::{Error, Instruction, Literal, Module, Shape};

fn arr(ty: PrimitiveType, dims: &[i64]) -> Shape {
    Shape::array(ty, dims.to_vec())
}

fn f32s(dims: &[i64]) -> Shape {
    arr(F32, dims)
}

fn param(b: &XlaBuilder, n: i64, shape: Shape) -> XlaOp {
    b.parameter(n, shape, &format!("p{n}"))
}

/// Builds a module whose entry root is what `f` returns, and returns it with its root.
fn build(f: impl FnOnce(&XlaBuilder) -> XlaOp) -> (Module, Instruction) {
    let b = XlaBuilder::new("test");
    let root = f(&b);
    let m = b.build_with_root(&root).unwrap_or_else(|e| panic!("{e}"));
    verified(&m);
    let entry = m.entry_computation().unwrap();
    let r = entry.root_instruction().unwrap().clone();
    (m, r)
}

/// Asserts that the verifier accepts `m`.
fn verified(m: &Module) {
    if let Err(e) = xla_core::verify::verify_module(m) {
        let problems: Vec<String> = e.problems.iter().map(|p| format!("{p:?}")).collect();
        panic!("{} does not verify:\n{}", m.name, problems.join("\n"));
    }
}

fn entry(m: &Module) -> &xla_core::Computation {
    m.entry_computation().unwrap()
}

fn count(m: &Module, opcode: Opcode) -> usize {
    entry(m)
        .instructions
        .iter()
        .filter(|i| i.op.opcode() == opcode)
        .count()
}

/// A row of the method table: `(method, build, root opcode, root shape)`.
type Row = (
    &'static str,
    fn(&XlaBuilder) -> XlaOp,
    &'static str,
    &'static str,
);

fn row_scatter() -> ScatterDims {
    ScatterDims {
        update_window_dims: vec![1],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..ScatterDims::default()
    }
}

#[path = "builder/errors.rs"]
mod errors;
#[path = "builder/import.rs"]
mod import;
#[path = "builder/instructions.rs"]
mod instructions;
#[path = "builder/rows_contraction.rs"]
mod rows_contraction;
#[path = "builder/rows_elementwise.rs"]
mod rows_elementwise;
#[path = "builder/rows_other.rs"]
mod rows_other;
#[path = "builder/values.rs"]
mod values;
