//! Existing IR in a builder: `add_op`, `import_computation`, `inline`; combiner reuse.

use super::*;

/// `main(x: f32[2,3]) = reduce(exp(x), 0, dims={1}, add)`.
fn source_module() -> Module {
    let b = XlaBuilder::new("source");
    let x = param(&b, 0, f32s(&[2, 3]));
    let r = b.reduce(x.exp(), b.constant_r0(0.0f32), &[1], Combiner::Add);
    b.build_with_root(&r).unwrap()
}

#[test]
fn inline_copies_a_body_onto_new_arguments() {
    let src = source_module();
    let (m, root) = build(|b| {
        let y = param(b, 0, f32s(&[2, 3]));
        let twice = &y * 2.0f32;
        b.inline(&src, src.entry, &[twice])
    });
    assert_eq!(root.shape, f32s(&[2]));
    let Op::Reduce { to_apply, .. } = root.op else {
        panic!("{:?}", root.op)
    };
    assert!(m.computation(to_apply).name.starts_with("add_F32."));
    let ops: Vec<&str> = entry(&m).instructions.iter().map(|i| i.op.name()).collect();
    assert_eq!(
        ops,
        [
            "parameter",
            "constant",
            "broadcast",
            "multiply",
            "exponential",
            "constant",
            "reduce"
        ]
    );
    let mut names: Vec<&str> = m
        .computations
        .iter()
        .flat_map(|c| c.instructions.iter().map(|i| i.name.as_str()))
        .collect();
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n);
}

#[test]
fn inline_with_too_few_arguments_is_an_error() {
    let src = source_module();
    let b = XlaBuilder::new("main");
    let r = b.inline(&src, src.entry, &[]);
    assert!(r.is_poisoned());
    let e = b.build().unwrap_err().to_string();
    assert!(e.contains("needs argument 0"), "{e}");
}

#[test]
fn imported_computations_are_usable_and_add_op_emits_any_op() {
    let src = source_module();
    let b = XlaBuilder::new("main");
    let add = b.import_computation(&src, xla_core::CompId(0)).unwrap();
    assert_eq!(add.program_shape().to_string(), "(f32[], f32[]) -> f32[]");
    let x = param(&b, 0, f32s(&[4]));
    let zero = b.constant_r0(0.0f32);
    let op = Op::Reduce {
        dimensions: vec![0],
        to_apply: add.id(),
    };
    let r = b.add_op(op, &[x, zero], None);
    assert_eq!(r.shape().unwrap(), Shape::scalar(F32));
    let m = b.build().unwrap();
    assert_eq!(m.computations.len(), 2);
    assert!(b.import_computation(&src, xla_core::CompId(9)).is_err());
}

#[test]
fn combiners_are_built_once_per_type() {
    let (m, _) = build(|b| {
        let x = param(b, 0, f32s(&[2, 3]));
        let zero = b.constant_r0(0.0f32);
        let a = b.reduce(&x, &zero, &[0], Combiner::Add);
        let c = b.reduce(&x, &zero, &[1], Combiner::Add);
        let i = b.reduce(
            param(b, 1, arr(S32, &[2])),
            b.constant_r0(0i32),
            &[0],
            Combiner::Add,
        );
        b.tuple([a, c, i])
    });
    let names: Vec<&str> = m
        .computations
        .iter()
        .map(|c| c.name.split('.').next().unwrap())
        .collect();
    assert_eq!(names, ["add_F32", "add_S32", "test"]);
}
