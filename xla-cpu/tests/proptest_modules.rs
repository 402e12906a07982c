//! Grammar-aware generation: random valid modules, built with the builder from a random
//! program of elementwise ops, broadcasts of scalars and reductions over f32[R,C]
//! parameters, run on the fused path (fusion, generated code) and on the reference path
//! (one instruction at a time, reference kernels); the two agree within float tolerance.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use xla_core::attrs::{BinaryOp, UnaryOp};
use xla_core::builder::{Combiner, XlaBuilder, XlaOp};
use xla_core::{Literal, PrimitiveType, Shape};
use xla_cpu::Executable;

/// One step of a generated program; operands are indices into the values so far.
#[derive(Clone, Debug)]
enum Step {
    Unary(UnaryOp, usize),
    Binary(BinaryOp, usize, usize),
    /// `value op broadcast(constant)`.
    Scaled(BinaryOp, usize, i8),
    /// Reduce the columns (add or max), then broadcast back along them.
    RowReduce(bool, usize),
}

const UNARY: [UnaryOp; 6] = [
    UnaryOp::Neg,
    UnaryOp::Abs,
    UnaryOp::Tanh,
    UnaryOp::Sin,
    UnaryOp::Logistic,
    UnaryOp::Exp,
];
const BINARY: [BinaryOp; 5] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Max,
    BinaryOp::Min,
];

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0..UNARY.len(), any::<usize>()).prop_map(|(o, a)| Step::Unary(UNARY[o], a)),
        (0..BINARY.len(), any::<usize>(), any::<usize>())
            .prop_map(|(o, a, b)| Step::Binary(BINARY[o], a, b)),
        (0..BINARY.len(), any::<usize>(), -4i8..=4)
            .prop_map(|(o, a, c)| Step::Scaled(BINARY[o], a, c)),
        (any::<bool>(), any::<usize>()).prop_map(|(m, a)| Step::RowReduce(m, a)),
    ]
}

/// The module of `steps` over two f32[r,c] parameters; the root is the tanh of the last
/// value (keeps results bounded).
fn build(steps: &[Step], r: i64, c: i64) -> xla_core::Module {
    let b = XlaBuilder::new("generated");
    let shape = Shape::array(PrimitiveType::F32, vec![r, c]);
    let mut vs: Vec<XlaOp> = vec![
        b.parameter(0, shape.clone(), "x"),
        b.parameter(1, shape, "y"),
    ];
    for s in steps {
        let pick = |i: usize| vs[i % vs.len()].clone();
        let v = match s {
            Step::Unary(op, a) => {
                // exp only of a bounded value
                let x = pick(*a);
                let x = if *op == UnaryOp::Exp { b.tanh(&x) } else { x };
                b.unary_op(*op, &x)
            }
            Step::Binary(op, a1, a2) => b.binary_op(*op, &pick(*a1), &pick(*a2), &[]),
            Step::Scaled(op, a, k) => {
                let k = b.constant_r0(f32::from(*k) * 0.5);
                b.binary_op(*op, &pick(*a), &k, &[])
            }
            Step::RowReduce(max, a) => {
                let (comb, init) = if *max {
                    (Combiner::Max, f32::NEG_INFINITY)
                } else {
                    (Combiner::Add, 0.0)
                };
                let red = b.reduce(pick(*a), b.constant_r0(init), &[1], comb);
                b.binary_op(BinaryOp::Add, &pick(*a), &red, &[0])
            }
        };
        vs.push(v);
    }
    let last = vs.last().cloned().unwrap();
    let root = b.tanh(&last);
    b.build_with_root(&root).unwrap()
}

fn input(r: i64, c: i64, seed: u32) -> Literal {
    let n = (r * c) as usize;
    let v: Vec<f32> = (0..n)
        .map(|i| {
            ((i as u32).wrapping_mul(2654435761).wrapping_add(seed) % 2001) as f32 / 1000.0 - 1.0
        })
        .collect();
    Literal::vec1(&v).reshape(&[r, c]).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn fused_and_reference_paths_agree(
        steps in proptest::collection::vec(step(), 1..10),
        r in 1i64..6,
        c in 1i64..40,
        seed in any::<u32>(),
    ) {
        let m = build(&steps, r, c);
        let exe = Executable::compile(&m).unwrap();
        let (x, y) = (input(r, c, seed), input(r, c, seed ^ 0x5bd1));
        let fused = exe.execute(&[x.clone(), y.clone()]).unwrap();
        let reference = exe.execute_unfused(&[&x, &y]).unwrap();
        let (f, g) = (fused.data::<f32>().unwrap(), reference.data::<f32>().unwrap());
        prop_assert_eq!(f.len(), g.len());
        for (i, (a, b)) in f.iter().zip(g).enumerate() {
            let close = (a - b).abs() <= 1e-4 + 1e-4 * b.abs() || (a.is_nan() && b.is_nan());
            prop_assert!(close, "element {}: fused {} vs reference {}\n{}", i, a, b, xla_core::text::print_module(&m));
        }
    }
}
