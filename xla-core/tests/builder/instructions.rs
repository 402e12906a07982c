//! Each method adds the right instruction: opcode, attributes, shape, names.

use super::*;

fn shape_rows() -> Vec<Row> {
    let mut rows = super::rows_elementwise::rows();
    rows.extend(super::rows_contraction::rows());
    rows.extend(super::rows_other::rows());
    rows
}

#[test]
fn every_method_adds_the_right_instruction() {
    let mut failures = Vec::new();
    for (name, f, opcode, shape) in shape_rows() {
        let b = XlaBuilder::new("t");
        let root = f(&b);
        match b.build_with_root(&root) {
            Ok(m) => {
                if let Err(e) = xla_core::verify::verify_module(&m) {
                    failures.push(format!("{name}: does not verify: {:?}", e.problems));
                }
                let r = entry(&m).root_instruction().unwrap();
                if r.op.name() != opcode || r.shape.to_string() != shape {
                    failures.push(format!(
                        "{name}: got {} {}, want {opcode} {shape}",
                        r.op.name(),
                        r.shape
                    ));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn instruction_names_are_unique_module_wide_and_xla_like() {
    let (m, root) = build(|b| {
        let x = param(b, 0, f32s(&[2]));
        b.reduce(x.exp(), b.constant_r0(0.0f32), &[0], Combiner::Add)
    });
    let mut names: Vec<&str> = m
        .computations
        .iter()
        .flat_map(|c| c.instructions.iter().map(|i| i.name.as_str()))
        .collect();
    names.extend(m.computations.iter().map(|c| c.name.as_str()));
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n, "{names:?}");
    assert!(root.name.starts_with("reduce."), "{}", root.name);
    let e = entry(&m);
    assert_eq!(e.instructions[0].name, "p0.1");
    assert!(e.instructions[1].name.starts_with("exponential."));
    assert!(e.name.starts_with("test."));
    assert_eq!(m.name, "test");
    // callee first, entry last
    assert_eq!(m.entry.0, m.computations.len() - 1);
    assert!(
        m.computations[0].name.starts_with("add_F32."),
        "{}",
        m.computations[0].name
    );
    let add = &m.computations[0];
    assert_eq!(add.instructions.len(), 3);
    assert!(add.instructions[0].name.starts_with("lhs."));
    assert!(add.instructions[1].name.starts_with("rhs."));
}

#[test]
fn binary_broadcast_inserts_broadcast_instructions() {
    let (m, root) =
        build(|b| b.add_with_broadcast(param(b, 0, f32s(&[2, 3])), param(b, 1, f32s(&[3])), &[1]));
    let e = entry(&m);
    assert_eq!(root.op, Op::Binary(BinaryOp::Add));
    let bc = e.instr(root.operands[1]);
    assert_eq!(
        bc.op,
        Op::Broadcast {
            dimensions: vec![1]
        }
    );
    assert_eq!(bc.shape, f32s(&[2, 3]));
    assert_eq!(e.instr(root.operands[0]).op, Op::Parameter { number: 0 });

    // scalars broadcast implicitly (XLA's builder emits a broadcast with no dimensions)
    let (m, root) = build(|b| param(b, 0, f32s(&[2, 3])) * 2.0f32);
    let bc = entry(&m).instr(root.operands[1]);
    assert_eq!(bc.op, Op::Broadcast { dimensions: vec![] });
    assert_eq!(count(&m, Opcode::Constant), 1);

    // same shapes: no broadcast
    let (m, _) = build(|b| b.mul(param(b, 0, f32s(&[2])), param(b, 1, f32s(&[2]))));
    assert_eq!(count(&m, Opcode::Broadcast), 0);
}

#[test]
fn compare_directions_and_total_order() {
    type Cmp = fn(&XlaBuilder, XlaOp, XlaOp) -> XlaOp;
    let rows: Vec<(Cmp, ComparisonDirection, bool)> = vec![
        (|b, x, y| b.eq(x, y), ComparisonDirection::Eq, false),
        (|b, x, y| b.ne(x, y), ComparisonDirection::Ne, false),
        (|b, x, y| b.ge(x, y), ComparisonDirection::Ge, false),
        (|b, x, y| b.gt(x, y), ComparisonDirection::Gt, false),
        (|b, x, y| b.le(x, y), ComparisonDirection::Le, false),
        (|b, x, y| b.lt(x, y), ComparisonDirection::Lt, false),
        (
            |b, x, y| b.eq_total_order(x, y),
            ComparisonDirection::Eq,
            true,
        ),
        (
            |b, x, y| b.ne_total_order(x, y),
            ComparisonDirection::Ne,
            true,
        ),
        (
            |b, x, y| b.ge_total_order(x, y),
            ComparisonDirection::Ge,
            true,
        ),
        (
            |b, x, y| b.gt_total_order(x, y),
            ComparisonDirection::Gt,
            true,
        ),
        (
            |b, x, y| b.le_total_order(x, y),
            ComparisonDirection::Le,
            true,
        ),
        (
            |b, x, y| b.lt_total_order(x, y),
            ComparisonDirection::Lt,
            true,
        ),
    ];
    for (f, direction, total) in rows {
        for ty in [F32, S32] {
            let (_, root) = build(|b| f(b, param(b, 0, arr(ty, &[2])), param(b, 1, arr(ty, &[2]))));
            let comparison_type = (total && ty == F32).then_some(ComparisonType::TotalOrder);
            assert_eq!(
                root.op,
                Op::Compare {
                    direction,
                    comparison_type
                },
                "{direction} {ty}"
            );
            assert_eq!(root.shape, arr(Pred, &[2]));
        }
    }
}

#[test]
fn every_unary_method_emits_its_opcode() {
    type Un = fn(&XlaBuilder, &XlaOp) -> XlaOp;
    let rows: Vec<(Un, UnaryOp, PrimitiveType)> = vec![
        (|b, x| b.abs(x), UnaryOp::Abs, F32),
        (|b, x| b.cbrt(x), UnaryOp::Cbrt, F32),
        (|b, x| b.ceil(x), UnaryOp::Ceil, F32),
        (|b, x| b.clz(x), UnaryOp::Clz, S32),
        (|b, x| b.cos(x), UnaryOp::Cos, F32),
        (|b, x| b.erf(x), UnaryOp::Erf, F32),
        (|b, x| b.exp(x), UnaryOp::Exp, F32),
        (|b, x| b.expm1(x), UnaryOp::Expm1, F32),
        (|b, x| b.floor(x), UnaryOp::Floor, F32),
        (|b, x| b.imag(x), UnaryOp::Imag, C64),
        (|b, x| b.is_finite(x), UnaryOp::IsFinite, F32),
        (|b, x| b.log(x), UnaryOp::Log, F32),
        (|b, x| b.log1p(x), UnaryOp::Log1p, F32),
        (|b, x| b.logistic(x), UnaryOp::Logistic, F32),
        (|b, x| b.neg(x), UnaryOp::Neg, F32),
        (|b, x| b.not(x), UnaryOp::Not, Pred),
        (|b, x| b.population_count(x), UnaryOp::Popcnt, U32),
        (|b, x| b.real(x), UnaryOp::Real, C64),
        (|b, x| b.round(x), UnaryOp::RoundNearestAfz, F32),
        (
            |b, x| b.round_nearest_even(x),
            UnaryOp::RoundNearestEven,
            F32,
        ),
        (|b, x| b.rsqrt(x), UnaryOp::Rsqrt, F32),
        (|b, x| b.sign(x), UnaryOp::Sign, F32),
        (|b, x| b.sin(x), UnaryOp::Sin, F32),
        (|b, x| b.sqrt(x), UnaryOp::Sqrt, F32),
        (|b, x| b.tan(x), UnaryOp::Tan, F32),
        (|b, x| b.tanh(x), UnaryOp::Tanh, F32),
    ];
    assert_eq!(rows.len(), UnaryOp::ALL.len());
    for (f, op, ty) in rows {
        let (_, root) = build(|b| f(b, &param(b, 0, arr(ty, &[3]))));
        assert_eq!(root.op, Op::Unary(op));
    }
}

#[test]
fn every_binary_method_emits_its_opcode_with_and_without_broadcast() {
    type Bin = fn(&XlaBuilder, &XlaOp, &XlaOp) -> XlaOp;
    type BinB = fn(&XlaBuilder, &XlaOp, &XlaOp, &[i64]) -> XlaOp;
    let rows: Vec<(Bin, BinB, BinaryOp, PrimitiveType)> = vec![
        (
            |b, x, y| b.add(x, y),
            |b, x, y, d| b.add_with_broadcast(x, y, d),
            BinaryOp::Add,
            F32,
        ),
        (
            |b, x, y| b.sub(x, y),
            |b, x, y, d| b.sub_with_broadcast(x, y, d),
            BinaryOp::Sub,
            F32,
        ),
        (
            |b, x, y| b.mul(x, y),
            |b, x, y, d| b.mul_with_broadcast(x, y, d),
            BinaryOp::Mul,
            F32,
        ),
        (
            |b, x, y| b.div(x, y),
            |b, x, y, d| b.div_with_broadcast(x, y, d),
            BinaryOp::Div,
            F32,
        ),
        (
            |b, x, y| b.pow(x, y),
            |b, x, y, d| b.pow_with_broadcast(x, y, d),
            BinaryOp::Pow,
            F32,
        ),
        (
            |b, x, y| b.rem(x, y),
            |b, x, y, d| b.rem_with_broadcast(x, y, d),
            BinaryOp::Rem,
            F32,
        ),
        (
            |b, x, y| b.max(x, y),
            |b, x, y, d| b.max_with_broadcast(x, y, d),
            BinaryOp::Max,
            F32,
        ),
        (
            |b, x, y| b.min(x, y),
            |b, x, y, d| b.min_with_broadcast(x, y, d),
            BinaryOp::Min,
            F32,
        ),
        (
            |b, x, y| b.and(x, y),
            |b, x, y, d| b.and_with_broadcast(x, y, d),
            BinaryOp::And,
            S32,
        ),
        (
            |b, x, y| b.or(x, y),
            |b, x, y, d| b.or_with_broadcast(x, y, d),
            BinaryOp::Or,
            S32,
        ),
        (
            |b, x, y| b.xor(x, y),
            |b, x, y, d| b.xor_with_broadcast(x, y, d),
            BinaryOp::Xor,
            S32,
        ),
        (
            |b, x, y| b.shift_left(x, y),
            |b, x, y, d| b.shift_left_with_broadcast(x, y, d),
            BinaryOp::ShiftLeft,
            S32,
        ),
        (
            |b, x, y| b.shift_right_arithmetic(x, y),
            |b, x, y, d| b.shift_right_arithmetic_with_broadcast(x, y, d),
            BinaryOp::ShiftRightArithmetic,
            S32,
        ),
        (
            |b, x, y| b.shift_right_logical(x, y),
            |b, x, y, d| b.shift_right_logical_with_broadcast(x, y, d),
            BinaryOp::ShiftRightLogical,
            S32,
        ),
        (
            |b, x, y| b.atan2(x, y),
            |b, x, y, d| b.atan2_with_broadcast(x, y, d),
            BinaryOp::Atan2,
            F32,
        ),
        (
            |b, x, y| b.complex(x, y),
            |b, x, y, d| b.complex_with_broadcast(x, y, d),
            BinaryOp::Complex,
            F32,
        ),
    ];
    assert_eq!(rows.len(), BinaryOp::ALL.len());
    for (f, fb, op, ty) in rows {
        let (_, root) = build(|b| {
            f(
                b,
                &param(b, 0, arr(ty, &[2, 3])),
                &param(b, 1, arr(ty, &[2, 3])),
            )
        });
        assert_eq!(root.op, Op::Binary(op));
        let (m, root) = build(|b| {
            fb(
                b,
                &param(b, 0, arr(ty, &[2])),
                &param(b, 1, arr(ty, &[2, 3])),
                &[0],
            )
        });
        assert_eq!(root.op, Op::Binary(op));
        assert_eq!(root.shape.dims(), &[2, 3]);
        assert_eq!(
            entry(&m).instr(root.operands[0]).op,
            Op::Broadcast {
                dimensions: vec![0]
            }
        );
    }
}

#[test]
fn attributes_are_recorded() {
    let (_, r) = build(|b| b.broadcast(param(b, 0, f32s(&[2, 3])), &[4, 5]));
    assert_eq!(
        r.op,
        Op::Broadcast {
            dimensions: vec![2, 3]
        }
    );
    assert_eq!(r.shape, f32s(&[4, 5, 2, 3]));

    let (m, r) = build(|b| b.reshape_with_dims(param(b, 0, f32s(&[2, 3])), &[1, 0], &[6]));
    assert_eq!(
        entry(&m).instr(r.operands[0]).op,
        Op::Transpose {
            permutation: vec![1, 0]
        }
    );
    let (m, _) = build(|b| b.reshape_with_dims(param(b, 0, f32s(&[2, 3])), &[0, 1], &[6]));
    assert_eq!(count(&m, Opcode::Transpose), 0);

    let (_, r) = build(|b| b.slice_in_dim(param(b, 0, f32s(&[4, 6])), 1, 5, 2, 1));
    assert_eq!(
        r.op,
        Op::Slice {
            start: vec![0, 1],
            limit: vec![4, 5],
            stride: vec![1, 2]
        }
    );

    let (_, r) = build(|b| b.dot(param(b, 0, f32s(&[2, 3])), param(b, 1, f32s(&[3]))));
    let Op::Dot { dims, .. } = &r.op else {
        panic!("{:?}", r.op)
    };
    assert_eq!(
        (
            dims.lhs_contracting_dims.as_slice(),
            dims.rhs_contracting_dims.as_slice()
        ),
        (&[1i64][..], &[0i64][..])
    );

    let (_, r) = build(|b| {
        b.conv(
            param(b, 0, f32s(&[1, 2, 5, 5])),
            param(b, 1, f32s(&[3, 2, 3, 3])),
            &[2, 2],
            Padding::Same,
        )
    });
    let Op::Convolution(c) = &r.op else {
        panic!("{:?}", r.op)
    };
    assert_eq!(c.dnums, ConvDimensionNumbers::nchw(2));
    assert_eq!(
        c.window
            .dims
            .iter()
            .map(|d| (d.size, d.stride, d.padding_low, d.padding_high))
            .collect::<Vec<_>>(),
        vec![(3, 2, 1, 1); 2]
    );

    let (_, r) = build(|b| {
        let o = ConvOptions::new()
            .lhs_dilation(&[2])
            .rhs_dilation(&[3])
            .batch_group_count(2)
            .dimension_numbers(ConvDimensionNumbers::nchw(1));
        b.conv_general_dilated(
            param(b, 0, f32s(&[4, 2, 9])),
            param(b, 1, f32s(&[2, 2, 2])),
            &o,
        )
    });
    let Op::Convolution(c) = &r.op else {
        panic!("{:?}", r.op)
    };
    assert_eq!(
        (
            c.window.dims[0].base_dilation,
            c.window.dims[0].window_dilation,
            c.batch_group_count
        ),
        (2, 3, 2)
    );

    let (_, r) = build(|b| {
        b.sort(
            [param(b, 0, f32s(&[2, 5]))],
            -1,
            true,
            binary(|sb, a, c| sb.gt(a, c)),
        )
    });
    let Op::Sort {
        dimension,
        is_stable,
        ..
    } = r.op
    else {
        panic!()
    };
    assert_eq!((dimension, is_stable), (1, true));

    let (_, r) = build(|b| {
        b.composite_call(
            [param(b, 0, f32s(&[4]))],
            unary(|_, x| x.tanh()),
            "my.tanh",
            "{k = 1 : i32}",
            2,
        )
    });
    let Op::Call {
        composite: Some(c), ..
    } = &r.op
    else {
        panic!("{:?}", r.op)
    };
    assert_eq!(
        (c.name.as_str(), c.attributes.as_str(), c.version),
        ("my.tanh", "{k = 1 : i32}", 2)
    );
}

#[test]
fn all_to_all_with_different_dimensions_is_reshape_all_to_all_transpose_reshape() {
    let (m, _) = build(|b| {
        b.all_to_all(
            param(b, 0, f32s(&[4, 16])),
            1,
            0,
            4,
            &CollectiveConfig::default(),
        )
    });
    let ops: Vec<&str> = entry(&m).instructions.iter().map(|i| i.op.name()).collect();
    assert_eq!(
        ops,
        ["parameter", "reshape", "all-to-all", "transpose", "reshape"]
    );
    let shapes: Vec<String> = entry(&m)
        .instructions
        .iter()
        .map(|i| i.shape.to_string())
        .collect();
    assert_eq!(
        shapes,
        [
            "f32[4,16]",
            "f32[4,4,4]",
            "f32[4,4,4]",
            "f32[4,4,4]",
            "f32[16,4]"
        ]
    );
    assert_eq!(
        entry(&m).instructions[3].op,
        Op::Transpose {
            permutation: vec![1, 0, 2]
        }
    );
}

#[test]
fn send_recv_infeed_chains() {
    let (m, _) = build(|b| b.send(param(b, 0, f32s(&[2])), 3));
    let ops: Vec<&str> = entry(&m).instructions.iter().map(|i| i.op.name()).collect();
    assert_eq!(ops, ["parameter", "after-all", "send", "send-done"]);
    assert_eq!(
        entry(&m).instructions[2].shape.to_string(),
        "(f32[2], u32[], token[])"
    );
    let (m, _) = build(|b| b.recv(f32s(&[2]), 3));
    let ops: Vec<&str> = entry(&m).instructions.iter().map(|i| i.op.name()).collect();
    assert_eq!(ops, ["after-all", "recv", "recv-done", "get-tuple-element"]);
}

#[test]
fn make_padding_same_and_valid() {
    assert_eq!(
        make_padding(&[5, 5], &[3, 3], &[1, 1], Padding::Same),
        vec![(1, 1), (1, 1)]
    );
    assert_eq!(make_padding(&[5], &[3], &[2], Padding::Same), vec![(1, 1)]);
    assert_eq!(make_padding(&[6], &[3], &[2], Padding::Same), vec![(0, 1)]);
    assert_eq!(make_padding(&[4], &[2], &[1], Padding::Same), vec![(0, 1)]);
    assert_eq!(
        make_padding(&[4, 6], &[2, 3], &[2, 3], Padding::Valid),
        vec![(0, 0), (0, 0)]
    );
}

#[test]
fn names_are_sanitized_for_hlo_text() {
    let b = XlaBuilder::new("my module");
    let x = b.parameter(0, f32s(&[2]), "input x/1");
    let y = b.parameter(1, f32s(&[2]), "");
    let z = b.parameter(2, f32s(&[2]), "2nd");
    let _ = b.tuple([x, y, z]);
    let m = b.build().unwrap();
    assert_eq!(m.name, "my_module");
    let names: Vec<&str> = entry(&m)
        .instructions
        .iter()
        .map(|i| i.name.as_str())
        .collect();
    assert_eq!(names, ["input_x_1.1", "parameter.2", "_2nd.3", "tuple.4"]);
    assert_eq!(entry(&m).name, "my_module.5");
}
