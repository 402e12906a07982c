//! The HLO text parser against the conformance modules (here), hand-written modules
//! (`parse/handwritten.rs`), error positions and nesting limits (`parse/errors.rs`), a
//! mutation test that it never panics (`parse/mutation.rs`), and printed constants parsing
//! back bit-exactly (`parse/roundtrip.rs`).

#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::{Path, PathBuf};
use xla_core::ir::*;
use xla_core::literal::Literal;
use xla_core::text::{parse_module, ParseErrorKind};
use xla_core::Shape;

fn conformance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/conformance")
}

/// Every `module.hlo` under `testdata/conformance/<split>/`, sorted by case name.
fn modules(split: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(conformance_dir().join(split)).unwrap() {
        let path = entry.unwrap().path().join("module.hlo");
        if path.exists() {
            let name = path
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.push((name, std::fs::read_to_string(&path).unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn every_conformance_module_parses() {
    let mut failures = Vec::new();
    let mut count = 0;
    for split in ["public", "grad_public"] {
        for (name, text) in modules(split) {
            count += 1;
            if let Err(e) = parse_module(&text) {
                failures.push(format!("{split}/{name}: {e}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(count, 420 + 29);
}

fn load(split: &str, case: &str) -> Module {
    let path = conformance_dir().join(split).join(case).join("module.hlo");
    parse_module(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The instruction named `name` in any computation of `m`.
fn instr<'a>(m: &'a Module, name: &str) -> &'a Instruction {
    m.computations
        .iter()
        .find_map(|c| c.find(name).map(|id| c.instr(id)))
        .unwrap_or_else(|| panic!("no instruction {name}"))
}

fn comp_name(m: &Module, id: CompId) -> &str {
    &m.computation(id).name
}

/// Lines that define an instruction: `[ROOT] name = ...`.
fn instruction_lines(text: &str) -> usize {
    text.lines()
        .map(|l| l.trim_start().trim_start_matches("ROOT "))
        .filter(|l| {
            l.split_once(' ')
                .is_some_and(|(name, rest)| !name.is_empty() && rest.starts_with("= "))
        })
        .count()
}

#[test]
fn structural_invariants_of_every_module() {
    for split in ["public", "grad_public"] {
        for (name, text) in modules(split) {
            let m = parse_module(&text).unwrap();
            let total: usize = m.computations.iter().map(|c| c.instructions.len()).sum();
            assert_eq!(total, instruction_lines(&text), "{name}: instruction count");
            assert!(m.entry_computation().is_some(), "{name}");
            for (ci, c) in m.computations.iter().enumerate() {
                assert!(c.root_instruction().is_some(), "{name}/{}", c.name);
                for (ii, ins) in c.instructions.iter().enumerate() {
                    assert!(
                        ins.operands.iter().all(|o| o.0 < ii),
                        "{name}: {} uses a later value",
                        ins.name
                    );
                    let called = ins.op.called_computations();
                    assert!(
                        called.iter().all(|k| k.0 < ci),
                        "{name}: {} calls a later computation",
                        ins.name
                    );
                }
            }
        }
    }
}

/// Number of array leaves of a shape (tuples flattened depth-first).
fn leaves(shape: &Shape) -> usize {
    match shape {
        Shape::Tuple(t) => t.iter().map(leaves).sum(),
        Shape::Array(_) | Shape::Token => 1,
    }
}

/// The entry computation's parameters match the case's `in*.npy` files and (for `public`)
/// its result's leaves match the `out*.npy` files.
#[test]
fn entry_signature_matches_case_files() {
    for split in ["public", "grad_public"] {
        for (name, text) in modules(split) {
            let m = parse_module(&text).unwrap();
            let files: Vec<String> = std::fs::read_dir(conformance_dir().join(split).join(&name))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            let count = |prefix: &str| {
                files
                    .iter()
                    .filter(|f| f.starts_with(prefix) && f.ends_with(".npy"))
                    .count()
            };
            let entry = m.entry_computation().unwrap();
            assert_eq!(
                entry.parameters().len(),
                count("in"),
                "{split}/{name}: parameters"
            );
            // grad_public outputs are gradients of the module, not its results.
            if split == "public" {
                let result = entry.result_shape().unwrap();
                assert_eq!(
                    leaves(result),
                    count("out"),
                    "{split}/{name}: result leaves"
                );
            }
        }
    }
}

#[test]
fn convolution_attributes() {
    let m = load("public", "conv_2d_odd_layout");
    let Op::Convolution(conv) = &instr(&m, "conv_general_dilated.1").op else {
        panic!()
    };
    let sizes: Vec<_> = conv
        .window
        .dims
        .iter()
        .map(|d| (d.size, d.stride, d.padding_low, d.padding_high))
        .collect();
    assert_eq!(sizes, vec![(2, 1, 0, 1), (2, 2, 1, 0)]);
    let d = &conv.dnums;
    // 01fb_o01i->b0f1
    assert_eq!(
        (
            d.input_batch_dimension,
            d.input_feature_dimension,
            d.input_spatial_dimensions.clone()
        ),
        (3, 2, vec![0, 1])
    );
    assert_eq!(
        (
            d.kernel_input_feature_dimension,
            d.kernel_output_feature_dimension
        ),
        (3, 0)
    );
    assert_eq!(d.kernel_spatial_dimensions, vec![1, 2]);
    assert_eq!(
        (
            d.output_batch_dimension,
            d.output_feature_dimension,
            d.output_spatial_dimensions.clone()
        ),
        (0, 2, vec![1, 3])
    );
    assert_eq!((conv.feature_group_count, conv.batch_group_count), (1, 1));

    let m = load("public", "conv_2d_feature_groups");
    let conv = m.entry_computation().unwrap().root_instruction().unwrap();
    let Op::Convolution(conv) = &conv.op else {
        panic!()
    };
    assert_eq!(conv.feature_group_count, 2);

    // window={size=3x3 stride=2x1 pad=1_-1x0_2 lhs_dilate=1x2 rhs_dilate=2x1}
    let m = load("public", "conv_2d_nchw_stride_negpad");
    let conv = m.entry_computation().unwrap().root_instruction().unwrap();
    let Op::Convolution(conv) = &conv.op else {
        panic!()
    };
    let w: Vec<_> = conv
        .window
        .dims
        .iter()
        .map(|d| {
            (
                d.size,
                d.stride,
                d.padding_low,
                d.padding_high,
                d.base_dilation,
                d.window_dilation,
            )
        })
        .collect();
    assert_eq!(w, vec![(3, 2, 1, -1, 1, 2), (3, 1, 0, 2, 2, 1)]);
    assert_eq!(conv.dnums, ConvDimensionNumbers::nchw(2));
}

#[test]
fn gather_scatter_window_attributes() {
    let m = load("public", "gather_take_along_axis");
    let Op::Gather(g) = &instr(&m, "gather.1").op else {
        panic!()
    };
    let want = GatherDims {
        offset_dims: vec![],
        collapsed_slice_dims: vec![1],
        start_index_map: vec![1],
        index_vector_dim: 2,
        operand_batching_dims: vec![0],
        start_indices_batching_dims: vec![0],
        slice_sizes: vec![1, 1],
        indices_are_sorted: false,
    };
    assert_eq!(g, &want);

    let m = load("public", "scatter_set_unique");
    let Op::Scatter { dims, to_apply } = &instr(&m, "scatter.5").op else {
        panic!()
    };
    assert_eq!(
        (
            dims.update_window_dims.clone(),
            dims.inserted_window_dims.clone(),
            dims.scatter_dims_to_operand_dims.clone()
        ),
        (vec![1], vec![0], vec![0])
    );
    assert_eq!(
        (
            dims.index_vector_dim,
            dims.unique_indices,
            dims.indices_are_sorted
        ),
        (1, true, false)
    );
    assert_eq!(comp_name(&m, *to_apply), "region_0.1");

    let m = load("public", "red_window_max_0");
    let Op::ReduceWindow { window, to_apply } = &instr(&m, "reduce_window_max.7").op else {
        panic!()
    };
    let w: Vec<_> = window
        .dims
        .iter()
        .map(|d| (d.size, d.stride, d.padding_low, d.padding_high))
        .collect();
    assert_eq!(
        w,
        vec![(1, 1, 0, 0), (2, 2, 0, 0), (2, 2, 0, 0), (1, 1, 0, 0)]
    );
    assert_eq!(comp_name(&m, *to_apply), "region_0.1");
}

#[test]
fn dot_fft_linalg_attributes() {
    let m = load("public", "dot_precision_highest");
    let Op::Dot { dims, precision } = &instr(&m, "dot_general.1").op else {
        panic!()
    };
    assert_eq!(
        (
            dims.lhs_contracting_dims.clone(),
            dims.rhs_contracting_dims.clone()
        ),
        (vec![1], vec![0])
    );
    assert_eq!(
        precision.operand_precision,
        vec![Precision::Highest, Precision::Highest]
    );

    let m = load("public", "dot_general_1");
    let Op::Dot { dims, precision } = &instr(&m, "dot_general.1").op else {
        panic!()
    };
    let want = DotDims {
        lhs_batch_dims: vec![1],
        lhs_contracting_dims: vec![2],
        rhs_batch_dims: vec![0],
        rhs_contracting_dims: vec![1],
    };
    assert_eq!((dims, precision.operand_precision.len()), (&want, 0));

    let m = load("public", "fft_2d");
    let Op::Fft {
        fft_type,
        fft_length,
    } = &instr(&m, "fft.1").op
    else {
        panic!()
    };
    assert_eq!((*fft_type, fft_length.clone()), (FftType::Fft, vec![4, 6]));

    let m = load(
        "public",
        "linalg_triangular_solve_left_upper_adjoint_nonunit",
    );
    let Op::TriangularSolve(t) = &instr(&m, "x").op else {
        panic!()
    };
    let want = TriangularSolveOptions {
        left_side: true,
        lower: false,
        unit_diagonal: false,
        transpose_a: Transpose::Adjoint,
    };
    assert_eq!(t, &want);
}

#[test]
fn conditional_with_pred_selector() {
    let m = load("public", "cond_pred_true_false_computations");
    let Op::Conditional { branches } = &instr(&m, "c.1").op else {
        panic!()
    };
    let names: Vec<_> = branches.iter().map(|&b| comp_name(&m, b)).collect();
    assert_eq!(names, vec!["on_true", "on_false"]);
    // Callee-first: `sum` (called by on_false) comes before on_false; main is last.
    let order: Vec<_> = m.computations.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(order, vec!["on_true", "sum", "on_false", "main"]);
    assert_eq!(m.entry_computation().unwrap().name, "main");
}

#[test]
fn constants_with_specials() {
    let m = load("public", "red_window_max_0");
    let Op::Constant { literal } = &instr(&m, "constant.1").op else {
        panic!()
    };
    assert_eq!(literal.data::<f32>(), Some(&[f32::NEG_INFINITY][..]));
    let m = load("public", "gather_take_fill");
    let Op::Constant { literal } = &instr(&m, "constant.6").op else {
        panic!()
    };
    assert!(literal.data::<f32>().unwrap()[0].is_nan());
    let m = load("public", "prog_prng_threefry");
    let Op::Constant { literal } = &instr(&m, "constant.160").op else {
        panic!()
    };
    assert_eq!(literal.data::<u32>(), Some(&[13u32, 15, 26, 6][..]));
}

#[test]
fn parameters_out_of_order_and_root_not_last() {
    let m = load("public", "syntax_long_form");
    let c = m.computation(m.find("closed_call.2").unwrap());
    let params: Vec<_> = c
        .parameters()
        .iter()
        .map(|&p| c.instr(p).name.as_str())
        .collect();
    assert_eq!(params, vec!["Arg_0.1", "Arg_1.1"]);

    let m = load("public", "irfft_1d");
    let c = m.computation(m.find("_pad.1").unwrap());
    let root = c.root_instruction().unwrap();
    assert_eq!(
        (root.name.as_str(), &root.op),
        ("Arg_0.1", &Op::Parameter { number: 0 })
    );
    assert_eq!(c.instructions.len(), 2);
}

/// The same program in the syntax variants parses to the same module.
#[test]
fn syntax_variants_agree() {
    let long = load("public", "syntax_long_form");
    let meta = load("public", "syntax_metadata");
    assert_eq!(long, meta);
    let strip = |m: &Module| -> Vec<Vec<(String, Shape)>> {
        m.computations
            .iter()
            .map(|c| {
                c.instructions
                    .iter()
                    .map(|i| (i.name.clone(), i.shape.without_layout()))
                    .collect()
            })
            .collect()
    };
    let bare = load("public", "syntax_no_layouts_comments");
    assert_eq!(strip(&long), strip(&bare));
    let ops = |m: &Module| -> Vec<&'static str> {
        m.entry_computation()
            .unwrap()
            .instructions
            .iter()
            .map(|i| i.op.name())
            .collect()
    };
    let canonical = load("public", "syntax_canonical");
    assert_eq!(ops(&canonical), ops(&long));
    // Inline computations become computations of their own (7 named + 8 inline).
    assert_eq!(canonical.computations.len(), 15);
    let explicit = load("public", "syntax_explicit_false_attributes");
    assert_eq!(instr(&explicit, "c").op, Op::Cholesky { lower: false });
    assert_eq!(
        instr(&explicit, "s").op.opcode(),
        xla_core::ir::Opcode::Sort
    );
    let Op::Sort {
        is_stable,
        dimension,
        ..
    } = instr(&explicit, "s").op
    else {
        panic!()
    };
    assert_eq!((is_stable, dimension), (false, 0));
}

#[path = "parse/errors.rs"]
mod errors;
#[path = "parse/handwritten.rs"]
mod handwritten;
#[path = "parse/mutation.rs"]
mod mutation;
#[path = "parse/roundtrip.rs"]
mod roundtrip;
