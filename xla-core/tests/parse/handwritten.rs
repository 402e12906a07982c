//! Hand-written modules: constants of every kind and operations the suite does not use.

use super::*;

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

/// Forms XLA's printer produces outside the suite: memory-space layouts on scalars, empty
/// arrays printed with fewer braces, `/*i0=N*/` comments in literals, send/recv without a
/// channel, a custom-call literal attribute, windowless reduce-window and convolution.
#[test]
fn other_printer_forms() {
    let m = parse_module(
        r#"HloModule forms, entry_computation_layout={()->f32[]}

%sum (l: f32[], r: f32[]) -> f32[] {
  %l = f32[] parameter(0), parameter_replication={true}
  %r = f32[] parameter(1)
  ROOT %s = f32[] add(f32[] %l, f32[] %r)
}

ENTRY %e () -> f32[] {
  %u = u32[]{:S(2)} constant(7)
  %empty = f32[2,0,4,3]{3,2,1,0} constant({ { /*i0=0*/ }, { /*i0=1*/ } })
  %c4 = f32[2,1,1,2]{3,2,1,0} constant({ { /*i0=0*/ { /*i1=0*/ {1, 2} } }, { /*i0=1*/ { /*i1=0*/ {3, 4} } } })
  %tok = token[] after-all()
  %recv = (f32[], u32[], token[]) recv(token[] %tok)
  %cc = f32[] custom-call(), custom_call_target="lit", literal=f32[] 0.1
  %one = f32[] constant(1)
  %rw = f32[] reduce-window(f32[] %one, f32[] %one), to_apply=%sum
  %x = f32[1,2] constant({ { 1, 2 } })
  %k = f32[2,2] constant({ { 1, 0 }, { 0, 1 } })
  %conv = f32[1,2]{0,1} convolution(f32[1,2] %x, f32[2,2] %k), dim_labels=bf_io->bf
  %rev = f32[1,4,4,1] convolution(f32[1,2,2,1] %y, f32[3,3,1,1] %w), window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2 rhs_reversal=1x0}, dim_labels=b01f_01oi->b01f
  %y = f32[1,2,2,1] parameter(0)
  %w = f32[3,3,1,1] parameter(1)
  ROOT %r = f32[] add(%rw, %cc)
}
"#,
    )
    .unwrap();
    let u = &instr(&m, "u").shape;
    assert_eq!(
        u.as_array()
            .unwrap()
            .layout
            .as_ref()
            .unwrap()
            .minor_to_major,
        Vec::<i64>::new()
    );
    let Op::Constant { literal } = &instr(&m, "empty").op else {
        panic!()
    };
    assert_eq!(
        (literal.shape().dims(), literal.data::<f32>().unwrap().len()),
        (&[2, 0, 4, 3][..], 0)
    );
    let Op::Constant { literal } = &instr(&m, "c4").op else {
        panic!()
    };
    assert_eq!(literal.data::<f32>(), Some(&[1.0f32, 2.0, 3.0, 4.0][..]));
    assert_eq!(
        instr(&m, "recv").op,
        Op::Recv {
            channel_id: 0,
            is_host_transfer: false
        }
    );
    assert_eq!(
        m.entry_computation()
            .unwrap()
            .root_instruction()
            .unwrap()
            .operands
            .len(),
        2
    );
    let Op::ReduceWindow { window, .. } = &instr(&m, "rw").op else {
        panic!()
    };
    assert!(window.dims.is_empty());
    let Op::Convolution(conv) = &instr(&m, "conv").op else {
        panic!()
    };
    assert!(conv.window.dims.is_empty());
    assert_eq!(conv.dnums.input_spatial_dimensions, Vec::<i64>::new());
    let Op::Convolution(conv) = &instr(&m, "rev").op else {
        panic!()
    };
    let rev: Vec<_> = conv
        .window
        .dims
        .iter()
        .map(|d| (d.window_reversal, d.base_dilation, d.padding_high))
        .collect();
    assert_eq!(rev, vec![(true, 2, 2), (false, 2, 2)]);
    assert_eq!(
        (
            conv.dnums.kernel_input_feature_dimension,
            conv.dnums.kernel_output_feature_dimension
        ),
        (3, 2)
    );
}

#[test]
fn call_accepts_calls_attribute() {
    let m = parse_module(
        "HloModule m\nf (p: f32[]) -> f32[], execution_thread=\"host\" {\n  ROOT p = f32[] parameter(0)\n}\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT c = f32[] call(x), calls=f\n}\n",
    )
    .unwrap();
    let Op::Call {
        to_apply,
        composite,
    } = &instr(&m, "c").op
    else {
        panic!()
    };
    assert_eq!((comp_name(&m, *to_apply), composite), ("f", &None));
    let err = parse_module("HloModule m\nENTRY e {\n  ROOT c = f32[] call()\n}\n").unwrap_err();
    assert_eq!(err.to_string(), "3:18: call 'c' needs attribute 'to_apply'");
}

/// XLA's canonical printer reuses names per computation and prints called computations
/// inline, so the same instruction name can own inline computations at several levels.
#[test]
fn nested_inline_computations_with_reused_names() {
    let m = parse_module(
        "HloModule m\nENTRY e {\n  tmp_0 = f32[] parameter(0)\n  ROOT tmp_1 = f32[] call(f32[] tmp_0), to_apply=\n  {\n    \
         tmp_0 = f32[] parameter(0)\n    ROOT tmp_1 = f32[] call(f32[] tmp_0), to_apply=\n    {\n      \
         ROOT tmp_0 = f32[] parameter(0)\n    }\n  }\n}\n",
    )
    .unwrap();
    let names: Vec<_> = m.computations.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["tmp_1.to_apply.1", "tmp_1.to_apply", "e"]);
    let Op::Call { to_apply, .. } = &m.computations[1].instructions[1].op else {
        panic!()
    };
    assert_eq!(*to_apply, CompId(0));
}
