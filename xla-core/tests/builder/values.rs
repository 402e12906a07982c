//! Operator overloading, method forms and sub-computations.

use super::*;

// ----- operator overloading -----

#[test]
fn operators_build_elementwise_ops() {
    type OpRow = (fn(XlaOp, XlaOp) -> XlaOp, Op);
    let float_rows: Vec<OpRow> = vec![
        (|x, y| x + y, Op::Binary(BinaryOp::Add)),
        (|x, y| x - y, Op::Binary(BinaryOp::Sub)),
        (|x, y| x * y, Op::Binary(BinaryOp::Mul)),
        (|x, y| x / y, Op::Binary(BinaryOp::Div)),
        (|x, y| x % y, Op::Binary(BinaryOp::Rem)),
        (|x, _| -x, Op::Unary(UnaryOp::Neg)),
    ];
    for (f, op) in float_rows {
        let (_, r) = build(|b| f(param(b, 0, f32s(&[2])), param(b, 1, f32s(&[2]))));
        assert_eq!(r.op, op);
    }
    type IntRow = (fn(XlaOp, XlaOp) -> XlaOp, Op, PrimitiveType);
    let int_rows: Vec<IntRow> = vec![
        (|x, y| x & y, Op::Binary(BinaryOp::And), S32),
        (|x, y| x | y, Op::Binary(BinaryOp::Or), S32),
        (|x, y| x ^ y, Op::Binary(BinaryOp::Xor), S32),
        (|x, y| x << y, Op::Binary(BinaryOp::ShiftLeft), S32),
        (
            |x, y| x >> y,
            Op::Binary(BinaryOp::ShiftRightArithmetic),
            S32,
        ),
        (|x, y| x >> y, Op::Binary(BinaryOp::ShiftRightLogical), U32),
        (|x, _| !x, Op::Unary(UnaryOp::Not), Pred),
    ];
    for (f, op, ty) in int_rows {
        let (_, r) = build(|b| f(param(b, 0, arr(ty, &[2])), param(b, 1, arr(ty, &[2]))));
        assert_eq!(r.op, op, "{ty}");
    }
}

#[test]
fn operators_on_references_and_scalars() {
    let (m, r) = build(|b| {
        let x = param(b, 0, f32s(&[2, 3]));
        let y = param(b, 1, f32s(&[2, 3]));
        (&x * &y + &x) * 2.0 - 1.0f32
    });
    assert_eq!(r.op, Op::Binary(BinaryOp::Sub));
    assert_eq!(r.shape, f32s(&[2, 3]));
    // both scalar constants take x's element type f32, even the f64 literal 2.0
    let consts: Vec<&Instruction> = entry(&m)
        .instructions
        .iter()
        .filter(|i| matches!(i.op, Op::Constant { .. }))
        .collect();
    assert_eq!(consts.len(), 2);
    assert!(consts.iter().all(|c| c.shape == Shape::scalar(F32)));

    let (m, r) = build(|b| 1.0f64 / param(b, 0, arr(F64, &[3])));
    let lhs = entry(&m).instr(r.operands[0]);
    assert_eq!(lhs.op, Op::Broadcast { dimensions: vec![] });
    let c = entry(&m).instr(lhs.operands[0]);
    assert_eq!(
        c.op,
        Op::Constant {
            literal: Literal::scalar(1.0f64)
        }
    );

    let (m, r) = build(|b| param(b, 0, arr(S32, &[])) * 3i32 + 4i64);
    assert_eq!(r.shape, arr(S32, &[]));
    assert_eq!(count(&m, Opcode::Broadcast), 0);
}

#[test]
fn method_forms_on_values() {
    let (_, r) = build(|b| param(b, 0, f32s(&[2])).exp().tanh().sqrt());
    assert_eq!(r.op, Op::Unary(UnaryOp::Sqrt));
    let (_, r) = build(|b| param(b, 0, f32s(&[2])).max(&param(b, 1, f32s(&[2]))));
    assert_eq!(r.op, Op::Binary(BinaryOp::Max));
    let (_, r) = build(|b| {
        param(b, 0, f32s(&[2, 3]))
            .transpose(&[1, 0])
            .reshape(&[6])
            .convert(S32)
    });
    assert_eq!(r.shape, arr(S32, &[6]));
}

// ----- sub-computations -----

#[test]
fn closures_build_sub_computations() {
    let (m, r) = build(|b| {
        let x = param(b, 0, f32s(&[4, 5]));
        b.reduce(
            &x,
            b.constant_r0(0.0f32),
            &[0],
            binary(|sb, a, c| sb.add(a, sb.mul(&c, &c))),
        )
    });
    assert_eq!(r.shape, f32s(&[5]));
    let Op::Reduce { to_apply, .. } = r.op else {
        panic!()
    };
    let reducer = m.computation(to_apply);
    assert!(reducer.name.starts_with("reducer."), "{}", reducer.name);
    assert_eq!(
        reducer.parameter_shapes(),
        vec![Shape::scalar(F32), Shape::scalar(F32)]
    );
    assert_eq!(
        reducer.root_instruction().unwrap().op,
        Op::Binary(BinaryOp::Add)
    );
}

#[test]
fn sub_builder_computations_are_shared_and_pruned() {
    let b = XlaBuilder::new("main");
    let add = {
        let sb = b.sub_builder("add");
        let x = sb.parameter(0, Shape::scalar(F32), "x");
        let y = sb.parameter(1, Shape::scalar(F32), "y");
        sb.build_sub(&(x + y)).unwrap()
    };
    let unused = {
        let sb = b.sub_builder("unused");
        let x = sb.parameter(0, Shape::scalar(F32), "x");
        sb.build_sub(&x).unwrap()
    };
    assert_eq!(add.program_shape().to_string(), "(f32[], f32[]) -> f32[]");
    let p = param(&b, 0, f32s(&[3, 4]));
    let zero = b.constant_r0(0.0f32);
    let r0 = b.reduce(&p, &zero, &[0], &add);
    let r1 = b.reduce(&p, &zero, &[1], &add);
    let root = b.tuple([r0, r1]);
    let m = b.build_with_root(&root).unwrap();
    assert_eq!(
        m.computations.len(),
        2,
        "the unused computation {} is pruned",
        unused.name()
    );
    assert_eq!(m.computations[0].name, add.name());
    assert!(m.computations.iter().all(|c| c.name != unused.name()));
    // every call points at the add computation, renumbered to 0
    let called: Vec<_> = entry(&m)
        .instructions
        .iter()
        .flat_map(|i| i.op.called_computations())
        .collect();
    assert_eq!(called, vec![xla_core::CompId(0); 2]);
    assert_eq!(
        root.shape().unwrap(),
        Shape::tuple(vec![f32s(&[4]), f32s(&[3])])
    );
}

#[test]
fn nested_closures_put_callees_first() {
    let (m, _) = build(|b| {
        let x = param(b, 0, f32s(&[3]));
        b.call(
            [&x],
            unary(|sb, v| sb.reduce(v, sb.constant_r0(0.0f32), &[0], Combiner::Max)),
        )
    });
    let names: Vec<&str> = m
        .computations
        .iter()
        .map(|c| c.name.split('.').next().unwrap())
        .collect();
    assert_eq!(names, ["max_F32", "callee", "test"]);
    for (i, c) in m.computations.iter().enumerate() {
        for called in c
            .instructions
            .iter()
            .flat_map(|ins| ins.op.called_computations())
        {
            assert!(called.0 < i, "{} calls a later computation", c.name);
        }
    }
}

#[test]
fn combiners_for_each_element_type() {
    for (c, ty, op) in [
        (Combiner::Add, F32, BinaryOp::Add),
        (Combiner::Mul, S32, BinaryOp::Mul),
        (Combiner::Max, F64, BinaryOp::Max),
        (Combiner::Min, U8, BinaryOp::Min),
        (Combiner::And, Pred, BinaryOp::And),
        (Combiner::Or, Pred, BinaryOp::Or),
    ] {
        let (m, r) =
            build(|b| b.reduce_all(param(b, 0, arr(ty, &[2, 2])), param(b, 1, arr(ty, &[])), c));
        let Op::Reduce {
            to_apply,
            dimensions,
        } = &r.op
        else {
            panic!()
        };
        assert_eq!(dimensions, &[0, 1]);
        let comp = m.computation(*to_apply);
        assert_eq!(comp.root_instruction().unwrap().op, Op::Binary(op));
        assert_eq!(comp.result_shape(), Some(&arr(ty, &[])));
    }
}

#[test]
fn bare_closures_are_binary_computations() {
    let (m, r) = build(|b| {
        let x = param(b, 0, f32s(&[4, 5]));
        b.reduce(
            &x,
            b.constant_r0(0.0f32),
            &[0],
            |sb: &XlaBuilder, a: XlaOp, c: XlaOp| sb.max(a, c),
        )
    });
    let Op::Reduce { to_apply, .. } = r.op else {
        panic!()
    };
    assert_eq!(
        m.computation(to_apply).root_instruction().unwrap().op,
        Op::Binary(BinaryOp::Max)
    );
}
