//! The HLO text parser against the conformance modules, hand-written edge cases and error
//! positions, and a mutation test that it never panics.

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

/// A module whose entry computation has the instructions `body`.
fn entry(body: &str) -> Module {
    let text = format!("HloModule t\n\nENTRY main {{\n{body}\n}}\n");
    parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn constant(decl: &str) -> Literal {
    let m = entry(&format!("  ROOT c = {decl}"));
    match &m
        .entry_computation()
        .unwrap()
        .root_instruction()
        .unwrap()
        .op
    {
        Op::Constant { literal } => literal.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn constant_literals() {
    let c = constant("f32[2,2]{1,0} constant({ { 1.5, -2.25 }, { inf, nan } })");
    let v = c.data::<f32>().unwrap();
    assert_eq!(&v[..3], &[1.5, -2.25, f32::INFINITY]);
    assert_eq!(v[3].to_bits(), 0x7fc0_0000);
    assert_eq!(c.shape().dims(), &[2, 2]);
    assert_eq!(
        constant("pred[3] constant({1, 0, 1})").data::<bool>(),
        Some(&[true, false, true][..])
    );
    assert_eq!(
        constant("pred[2] constant({true, false})").data::<bool>(),
        Some(&[true, false][..])
    );
    assert_eq!(
        constant("pred[] constant(true)").data::<bool>(),
        Some(&[true][..])
    );
    assert_eq!(
        constant("f32[] constant(1e-05)").data::<f32>(),
        Some(&[1e-5f32][..])
    );
    assert_eq!(
        constant("f32[] constant(-3.5233877e-06)").data::<f32>(),
        Some(&[-3.5233877e-06f32][..])
    );
    assert_eq!(
        constant("f64[] constant(0.1)").data::<f64>(),
        Some(&[0.1f64][..])
    );
    assert_eq!(
        constant("f32[] constant(-0)").data::<f32>().unwrap()[0].to_bits(),
        0x8000_0000
    );
    assert_eq!(
        constant("f32[] constant(-nan)").data::<f32>().unwrap()[0].to_bits(),
        0xffc0_0000
    );
    assert_eq!(
        constant("f32[] constant(nan(0x1))").data::<f32>().unwrap()[0].to_bits(),
        0x7f80_0001
    );
    assert_eq!(
        constant("f64[] constant(-inf)").data::<f64>(),
        Some(&[f64::NEG_INFINITY][..])
    );
    assert_eq!(
        constant("u64[] constant(18446744073709551615)").data::<u64>(),
        Some(&[u64::MAX][..])
    );
    assert_eq!(
        constant("s64[] constant(-9223372036854775808)").data::<i64>(),
        Some(&[i64::MIN][..])
    );
    assert_eq!(
        constant("s8[2] constant({-128, 127})").data::<i8>(),
        Some(&[-128i8, 127][..])
    );
    assert_eq!(
        constant("bf16[] constant(1.5)").data::<half::bf16>(),
        Some(&[half::bf16::from_f32(1.5)][..])
    );
    assert_eq!(
        constant("f16[] constant(-2)").data::<half::f16>(),
        Some(&[half::f16::from_f32(-2.0)][..])
    );
    let c = constant("c64[2] constant({(1, 2), (-0.5, inf)})");
    let z = c.data::<num_complex::Complex32>().unwrap();
    assert_eq!(
        (z[0].re, z[0].im, z[1].re, z[1].im),
        (1.0, 2.0, -0.5, f32::INFINITY)
    );
    assert_eq!(
        constant("c128[] constant((3, -4))")
            .data::<num_complex::Complex64>()
            .unwrap()[0]
            .im,
        -4.0
    );
    assert_eq!(constant("f32[0] constant({})").data::<f32>(), Some(&[][..]));
    assert_eq!(
        constant("f32[2,0] constant({ {}, {} })").shape().dims(),
        &[2, 0]
    );
    let t = constant("(f32[], s32[2]) constant((1.5, {3, 4}))");
    let parts = t.tuple_elements().unwrap();
    assert_eq!(
        (parts[0].data::<f32>(), parts[1].data::<i32>()),
        (Some(&[1.5f32][..]), Some(&[3, 4][..]))
    );
}

#[test]
fn ops_outside_the_suite() {
    let m = parse_module(
        r#"HloModule ops, is_scheduled=true, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(f32[] %a, f32[] %b)
}

ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4]{0:T(128)} parameter(0), sharding={replicated}, metadata={op_name="x" source_file="a.py" source_line=3}
  %ar = f32[4]{0} all-reduce(%x), replica_groups={{0,1},{2,3}}, channel_id=3, use_global_device_ids=true, to_apply=%add
  %ag = f32[8]{0} all-gather(%ar), dimensions={0}, replica_groups=[2,2]<=[4], constrain_layout=true
  %cp = f32[4]{0} collective-permute(%ar), source_target_pairs={{0,1},{1,0}}, channel_id=2
  %tok = token[] after-all()
  %snd = (f32[4]{0}, u32[], token[]) send(%cp, %tok), channel_id=5, is_host_transfer=true
  %sd = token[] send-done(%snd), channel_id=5, is_host_transfer=true
  %cc = f32[4]{0} custom-call(%x), custom_call_target="my_fn", backend_config={key = 1 : i32}, api_version=API_VERSION_TYPED_FFI, custom_call_has_side_effect=true, operand_layout_constraints={f32[4]{0}}, output_to_operand_aliasing={{}: (0, {})}
  %comp = f32[4]{0} call(%x), to_apply=%add, is_composite=true, frontend_attributes={composite.attributes={n = 1 : i32},composite.name="my.op",composite.version="2"}
  %rng = f32[4]{0} rng(%x, %x), distribution=rng_normal
  %dyn = f32[<=4]{0} set-dimension-size(%x, %ds), dimensions={0}
  %ds = s32[] get-dimension-size(%x), dimensions={0}
  %ofd = token[] outfeed(%x, %tok), outfeed_shape=f32[4]{0}, outfeed_config="cfg"
  %ps = f32[6]{0} pad(%x, %a0), padding=1_1_0, statistics={visualizing_index=1,stat-index-1=0.5}
  %a0 = f32[] constant(0), control-predecessors={%tok}
  ROOT %out = f32[4]{0} add(%ar, %cc), frontend_attributes={_xla_x="y"}
}
"#,
    )
    .unwrap();
    let get = |n: &str| instr(&m, n).op.clone();
    let add = m.find("add").unwrap();
    let Op::AllReduce { config, to_apply } = get("ar") else {
        panic!()
    };
    assert_eq!(to_apply, add);
    assert_eq!(config.replica_groups.groups, vec![vec![0, 1], vec![2, 3]]);
    assert_eq!(
        (
            config.channel_id,
            config.use_global_device_ids,
            config.constrain_layout
        ),
        (Some(3), true, false)
    );
    let Op::AllGather { dimension, config } = get("ag") else {
        panic!()
    };
    assert_eq!(
        (
            dimension,
            config.replica_groups.groups,
            config.constrain_layout
        ),
        (0, vec![vec![0, 1], vec![2, 3]], true)
    );
    assert_eq!(
        get("cp"),
        Op::CollectivePermute {
            source_target_pairs: vec![(0, 1), (1, 0)],
            channel_id: Some(2)
        }
    );
    assert_eq!(
        get("snd"),
        Op::Send {
            channel_id: 5,
            is_host_transfer: true
        }
    );
    let Op::CustomCall { config, called } = get("cc") else {
        panic!()
    };
    assert_eq!(config.target, "my_fn");
    assert_eq!(config.backend_config, "{key = 1 : i32}");
    assert_eq!(
        (
            config.api_version.as_str(),
            config.has_side_effect,
            called.len()
        ),
        ("API_VERSION_TYPED_FFI", true, 0)
    );
    let Op::Call {
        composite: Some(c),
        to_apply,
    } = get("comp")
    else {
        panic!()
    };
    assert_eq!(to_apply, add);
    assert_eq!(
        (c.name.as_str(), c.attributes.as_str(), c.version),
        ("my.op", "{n = 1 : i32}", 2)
    );
    assert_eq!(
        get("rng"),
        Op::Rng {
            distribution: RngDistribution::Normal
        }
    );
    let dyn_shape = instr(&m, "dyn").shape.as_array().unwrap().clone();
    assert_eq!((dyn_shape.dims, dyn_shape.dynamic), (vec![4], vec![true]));
    let Op::Outfeed {
        config,
        outfeed_shape,
    } = get("ofd")
    else {
        panic!()
    };
    assert_eq!(
        (config.as_str(), outfeed_shape.map(|s| s.to_string())),
        ("cfg", Some("f32[4]".to_string()))
    );
    assert_eq!(
        get("ps"),
        Op::Pad {
            padding: vec![PadDim {
                low: 1,
                high: 1,
                interior: 0
            }]
        }
    );
    // The tiled layout keeps its dimension order; operands used before their definition
    // (%ds, %a0) are ordered first.
    let x = &instr(&m, "x").shape;
    assert_eq!(
        x.as_array()
            .unwrap()
            .layout
            .as_ref()
            .unwrap()
            .minor_to_major,
        vec![0]
    );
    let main = m.entry_computation().unwrap();
    let pos = |n: &str| main.find(n).unwrap();
    assert!(pos("ds") < pos("dyn") && pos("a0") < pos("ps"));
    assert_eq!(main.root_instruction().unwrap().name, "out");
}

#[test]
fn computations_referenced_before_definition_and_no_entry_marker() {
    let m = parse_module(
        "HloModule m\n\nmain {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=late\n}\n\n\
         late {\n  ROOT q = f32[] parameter(0)\n}\n\nlast {\n  ROOT z = f32[] parameter(0)\n}\n",
    )
    .unwrap();
    let order: Vec<_> = m.computations.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(order, vec!["late", "main", "last"]);
    // Without ENTRY, the last computation is the entry (as in XLA).
    assert_eq!(m.entry_computation().unwrap().name, "last");
}

#[test]
fn error_positions() {
    let m = "HloModule m\nENTRY e {\n";
    let cases: Vec<(String, &str)> = vec![
        (String::new(), "1:1: expected 'HloModule' but found end of input"),
        ("HloModule m\n".into(), "2:1: expected a computation but found end of input"),
        ("HloModule m /* x".into(), "1:13: unterminated comment '/*'"),
        (format!("{m}  p = f32[] parameter(0"), "3:24: expected ')' but found end of input"),
        (format!("{m}  p = f32[] parameter(0)\n"), "4:1: expected an instruction or '}' but found end of input"),
        (format!("{m}  p = f32[] parameter(0)\n  ROOT x = f32[] frobnicate(p)\n}}"), "4:18: unknown opcode 'frobnicate'"),
        (format!("{m}  p = f33[2] parameter(0)\n}}"), "3:7: expected a shape but found 'f33' (not an element type)"),
        (format!("{m}  p = f32[] parameter(0)\n  ROOT x = f32[] add(p, q)\n}}"), "4:25: unknown operand 'q' in computation 'e'"),
        (
            format!("{m}  p = f32[] parameter(0)\n  p = f32[] parameter(1)\n}}"),
            "4:3: instruction 'p' is defined twice (first at 3:3)",
        ),
        (
            format!("{m}  p = f32[] parameter(0)\n  ROOT r = f32[] reduce(p, p), dimensions={{}}, to_apply=sum\n}}"),
            "4:56: unknown computation 'sum'",
        ),
        (
            "HloModule m\nENTRY a {\n  ROOT p = f32[] parameter(0)\n}\nENTRY b {\n  ROOT p = f32[] parameter(0)\n}\n".into(),
            "5:1: a second ENTRY computation (the first is at 2:1)",
        ),
        (
            format!("{m}  ROOT p = f32[] parameter(0)\n  ROOT q = f32[] parameter(1)\n}}"),
            "4:3: a second ROOT in computation 'e'",
        ),
        (format!("{m}  ROOT c = f32[3] constant({{1, 2}})\n}}"), "3:33: literal: expected 3 elements in this dimension but found 2"),
        (format!("{m}  ROOT c = f32[2] constant({{1, 2, 3}})\n}}"), "3:35: literal: expected 2 elements in this dimension but found 3"),
        (format!("{m}  ROOT c = u8[] constant(256)\n}}"), "3:26: integer 256 is out of range for the element type"),
        (format!("{m}  ROOT c = f32[] constant(1.5.2)\n}}"), "3:27: expected a number but found '1.5.2'"),
        (format!("{m}  p = f32[] parameter(0)\n  ROOT b = f32[2] broadcast(p)\n}}"), "4:19: broadcast 'b' needs attribute 'dimensions'"),
        (format!("{m}  p = f32[2] parameter(0)\n  ROOT b = f32[2] reverse(p), dimensions={{0,}}\n}}"), "4:45: expected an integer but found '}'"),
        (format!("{m}  p = f32[] parameter(0)\n  ROOT c = f32[] compare(p, p), direction=XX\n}}"), "4:43: expected a comparison direction but found 'XX'"),
        (
            format!("{m}  p = f32[2] parameter(0)\n  ROOT c = f32[2] slice(p), slice={{[0:2}}\n}}"),
            "4:40: expected ']' but found '}'",
        ),
        (
            format!("{m}  a = f32[] add(b, b)\n  ROOT b = f32[] add(a, a)\n}}"),
            "3:3: instruction 'a' depends on itself (a cycle of operands)",
        ),
        (
            "HloModule m\nf {\n  ROOT p = f32[] call(), to_apply=g\n}\ng {\n  ROOT p = f32[] call(), to_apply=f\n}\n".into(),
            "2:1: computation 'f' calls itself (a cycle of calls)",
        ),
        (
            format!("{m}  p = f32[4] parameter(0)\n  ROOT r = f32[4] reduce-window(p, p), window={{size=2 stride=1x1}}, to_apply=e\n}}"),
            "4:62: window: 'stride' has 2 dimensions but size has 1",
        ),
        (
            format!("{m}  p = f32[4] parameter(0)\n  ROOT r = f32[4] convolution(p, p), dim_labels=bf0_oi0->bf\n}}"),
            "4:49: dim_labels 'bf0_oi0->bf': input, kernel and output must have the same number of spatial dimensions",
        ),
    ];
    for (text, want) in cases {
        let got = parse_module(&text).map(|_| ()).map_err(|e| e.to_string());
        assert_eq!(got, Err(want.to_string()), "{text}");
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    const N: usize = 10_000;
    let tuple = "(".repeat(N) + "f32[]" + &")".repeat(N);
    let err = parse_module(&format!(
        "HloModule m\nENTRY e {{\n  ROOT p = {tuple} parameter(0)\n}}"
    ))
    .unwrap_err();
    assert_eq!(err.kind, ParseErrorKind::TooDeep);
    // The entry computation's body uses COMPUTATION_DEPTH_COST levels; the first '(' is at
    // column 12.
    let levels = xla_core::text::MAX_DEPTH - xla_core::text::COMPUTATION_DEPTH_COST;
    assert_eq!((err.line, err.column), (3, 12 + levels));

    let inline = "ROOT c = f32[] call(), to_apply={\n".repeat(N)
        + "ROOT p = f32[] parameter(0)"
        + &"}".repeat(N);
    let err = parse_module(&format!("HloModule m\nENTRY e {{\n{inline}\n}}")).unwrap_err();
    assert_eq!(err.kind, ParseErrorKind::TooDeep);

    let operand = format!(
        "HloModule m\nENTRY e {{\n  ROOT p = f32[] add({}\n}}",
        "(".repeat(N)
    );
    assert_eq!(
        parse_module(&operand).unwrap_err().kind,
        ParseErrorKind::TooDeep
    );

    // Deeply nested braces in a skipped attribute and a rank-1000 literal need no recursion.
    let braces = "{".repeat(N) + &"}".repeat(N);
    let m = parse_module(&format!(
        "HloModule m\nENTRY e {{\n  ROOT p = f32[] parameter(0), metadata={braces}\n}}"
    ));
    assert!(m.is_ok());
    let dims = vec!["1"; 1000].join(",");
    let lit = "{".repeat(1000) + "7" + &"}".repeat(1000);
    let m = parse_module(&format!(
        "HloModule m\nENTRY e {{\n  ROOT c = f32[{dims}] constant({lit})\n}}"
    ))
    .unwrap();
    let Op::Constant { literal } = &m.computations[0].instructions[0].op else {
        panic!()
    };
    assert_eq!(literal.data::<f32>(), Some(&[7.0f32][..]));
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Truncations and byte mutations of every conformance module must return (Ok or Err),
/// never panic or overflow the stack.
#[test]
fn mutated_modules_never_panic() {
    const PIECES: &[&str] = &[
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ",",
        "=",
        ":",
        "%",
        "\"",
        "/*",
        "*/",
        "//",
        "\n",
        "-",
        "<=",
        "?",
        "x",
        "_",
        "0",
        "9",
        "-1",
        "ROOT ",
        "ENTRY ",
        "f32[]",
        "(f32[], s32[2])",
        "{1,0}",
        "nan",
        "inf",
        "99999999999999999999",
        "to_apply=",
        "window={size=",
        "dim_labels=",
        "}, body=\n{",
        "constant(",
        "parameter(",
        "tuple(",
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut inputs = 0usize;
    let mut accepted = 0usize;
    for split in ["public", "grad_public"] {
        for (_, text) in modules(split) {
            let bytes = text.as_bytes();
            let mut variants: Vec<Vec<u8>> = Vec::new();
            for k in 1..=16 {
                variants.push(bytes[..bytes.len() * k / 17].to_vec());
            }
            for _ in 0..24 {
                let mut v = bytes.to_vec();
                for _ in 0..1 + rng.below(3) {
                    let at = rng.below(v.len());
                    match rng.below(3) {
                        0 => {
                            let end = (at + 1 + rng.below(12)).min(v.len());
                            v.drain(at..end);
                        }
                        1 => {
                            let piece = PIECES[rng.below(PIECES.len())];
                            v.splice(at..at, piece.bytes());
                        }
                        _ => {
                            let piece = PIECES[rng.below(PIECES.len())];
                            let end = (at + 1).min(v.len());
                            v.splice(at..end, piece.bytes());
                        }
                    }
                }
                variants.push(v);
            }
            for v in variants {
                // The modules are ASCII, so every mutation is valid UTF-8.
                let s = String::from_utf8(v).unwrap();
                inputs += 1;
                if parse_module(&s).is_ok() {
                    accepted += 1;
                }
            }
        }
    }
    println!("mutation test: {inputs} inputs parsed without panic ({accepted} accepted)");
    assert_eq!(inputs, 449 * 40);
}
