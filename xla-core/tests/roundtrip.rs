//! Print/parse round trips: for every conformance module, `parse(print(parse(text)))` equals
//! `parse(text)` and the module verifies; and the same on random well-formed modules.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use std::path::{Path, PathBuf};
use xla_core::attrs::*;
use xla_core::ir::{CompId, Computation, InstrId, Instruction, Module, Op};
use xla_core::literal::LiteralValue;
use xla_core::shape::{Layout, Shape};
use xla_core::text::{parse_module, print_module, with_default_layouts};
use xla_core::types::PrimitiveType::{self, *};
use xla_core::verify::verify_module;
use xla_core::Literal;

#[path = "roundtrip/builder_gen.rs"]
mod builder_gen;
mod common;

fn conformance_modules() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/conformance");
    let mut out = Vec::new();
    for split in ["public", "grad_public"] {
        let dir = std::fs::read_dir(root.join(split)).expect("testdata/conformance split");
        for entry in dir {
            let path = entry.unwrap().path().join("module.hlo");
            if path.exists() {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Fills default layouts into every instruction and constant shape, so that a module whose
/// text had no layouts compares equal to its printed form (which always has them).
fn normalize(mut m: Module) -> Module {
    for comp in &mut m.computations {
        for ins in &mut comp.instructions {
            ins.shape = with_default_layouts(&ins.shape);
            if let Op::Constant { literal } = &mut ins.op {
                if let LiteralValue::Array(data) = literal.value() {
                    let shape = with_default_layouts(literal.shape());
                    *literal = Literal::from_array_data(shape, data.clone()).unwrap();
                }
            }
        }
    }
    m
}

/// Prints, re-parses and compares; returns the printed text.
fn assert_round_trip(m: &Module, what: &str) -> String {
    let printed = print_module(m);
    let reparsed = parse_module(&printed)
        .unwrap_or_else(|e| panic!("{what}: printed text does not parse: {e}\n{printed}"));
    let (a, b) = (normalize(m.clone()), normalize(reparsed));
    if a != b {
        // Name the first differing instruction to make failures readable.
        for (ca, cb) in a.computations.iter().zip(&b.computations) {
            for (ia, ib) in ca.instructions.iter().zip(&cb.instructions) {
                assert_eq!(
                    ia, ib,
                    "{what}: instruction differs after round trip\n{printed}"
                );
            }
        }
        assert_eq!(a, b, "{what}: module differs after round trip\n{printed}");
    }
    printed
}

#[test]
fn conformance_modules_round_trip_and_verify() {
    let paths = conformance_modules();
    assert!(paths.len() >= 449, "found only {} modules", paths.len());
    let mut failures = Vec::new();
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap();
        let what = path.display().to_string();
        let module = match parse_module(&text) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{what}: does not parse: {e}"));
                continue;
            }
        };
        if let Err(e) = verify_module(&module) {
            failures.push(format!("{what}: does not verify:\n{e}"));
        }
        let printed = assert_round_trip(&module, &what);
        // Printing is canonical: printing the re-parsed module gives the same text.
        let again = print_module(&parse_module(&printed).unwrap());
        assert_eq!(again, printed, "{what}: printing is not a fixed point");
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every module of the suite except the `syntax_*` variants is exactly what XLA's printer
/// wrote (JAX's `as_text`, or XLA re-printing a hand-written module), so printing the parsed
/// module must reproduce the file byte for byte.
#[test]
fn printing_reproduces_xla_text_exactly() {
    let mut differ = Vec::new();
    let paths = conformance_modules();
    for path in &paths {
        let case = path
            .parent()
            .and_then(|p| p.file_name())
            .unwrap()
            .to_string_lossy();
        if case.starts_with("syntax_") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let printed = print_module(&parse_module(&text).unwrap());
        if printed != text {
            let line = printed.lines().zip(text.lines()).find(|(a, b)| a != b);
            differ.push(format!("{case}: first differing line {line:?}"));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} differ:\n{}",
        differ.len(),
        paths.len(),
        differ.join("\n")
    );
}

// ----- random modules -----

fn arr(ty: PrimitiveType, dims: &[i64]) -> Shape {
    with_default_layouts(&Shape::array(ty, dims.to_vec()))
}

/// Builds a random but well-formed module from a list of steps: each step picks an operation
/// kind and operands among the values built so far, and adds instructions whose shapes are
/// valid for them.
struct Gen {
    ins: Vec<Instruction>,
    values: Vec<usize>,
}

impl Gen {
    fn push(&mut self, op: Op, operands: &[usize], shape: Shape) -> usize {
        let name = format!("v{}", self.ins.len());
        let operands = operands.iter().map(|&i| InstrId(i)).collect();
        self.ins.push(Instruction {
            name,
            op,
            operands,
            shape,
        });
        self.ins.len() - 1
    }

    fn shape(&self, id: usize) -> &Shape {
        &self.ins[id].shape
    }

    fn value(&mut self, op: Op, operands: &[usize], shape: Shape) -> usize {
        let id = self.push(op, operands, shape);
        self.values.push(id);
        id
    }

    fn scalar_const(&mut self, ty: PrimitiveType, seed: u64) -> usize {
        let specials = [
            0.0f32,
            -0.0,
            1.5,
            -2.25,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            1e-30,
            3.4e38,
            0.1,
        ];
        let lit = match ty {
            F32 => Literal::scalar(specials[(seed % specials.len() as u64) as usize]),
            S32 => Literal::scalar((seed as i32).wrapping_mul(7919)),
            _ => Literal::scalar(seed.is_multiple_of(2)),
        };
        self.push(Op::Constant { literal: lit }, &[], arr(ty, &[]))
    }

    fn step(&mut self, kind: u8, a: usize, b: usize, seed: u64) {
        let x = self.values[a % self.values.len()];
        let y = self.values[b % self.values.len()];
        let xs = self.shape(x).clone();
        let (ty, dims) = (xs.element_type(), xs.dims().to_vec());
        let rank = dims.len();
        match kind % 12 {
            0 => {
                let op = match ty {
                    F32 => [
                        UnaryOp::Neg,
                        UnaryOp::Exp,
                        UnaryOp::Tanh,
                        UnaryOp::Abs,
                        UnaryOp::Floor,
                    ][(seed % 5) as usize],
                    S32 => [UnaryOp::Neg, UnaryOp::Abs, UnaryOp::Not, UnaryOp::Popcnt]
                        [(seed % 4) as usize],
                    _ => UnaryOp::Not,
                };
                self.value(Op::Unary(op), &[x], xs);
            }
            1 => {
                let other = if self.shape(y).compatible(&xs) { y } else { x };
                let op = match ty {
                    Pred => [BinaryOp::And, BinaryOp::Or, BinaryOp::Xor][(seed % 3) as usize],
                    _ => [
                        BinaryOp::Add,
                        BinaryOp::Mul,
                        BinaryOp::Max,
                        BinaryOp::Sub,
                        BinaryOp::Rem,
                    ][(seed % 5) as usize],
                };
                self.value(Op::Binary(op), &[x, other], xs);
            }
            2 if ty != Pred => {
                let other = if self.shape(y).compatible(&xs) { y } else { x };
                let dir = ComparisonDirection::ALL[(seed % 6) as usize];
                let ct = if seed.is_multiple_of(3) && ty == F32 {
                    Some(ComparisonType::TotalOrder)
                } else {
                    None
                };
                let c = self.value(
                    Op::Compare {
                        direction: dir,
                        comparison_type: ct,
                    },
                    &[x, other],
                    arr(Pred, &dims),
                );
                self.value(Op::Select, &[c, x, other], xs);
            }
            3 => {
                let c = self.scalar_const(ty, seed);
                let bc = self.push(Op::Broadcast { dimensions: vec![] }, &[c], xs.clone());
                let op = if ty == Pred {
                    BinaryOp::And
                } else {
                    BinaryOp::Add
                };
                self.value(Op::Binary(op), &[x, bc], xs);
            }
            4 if rank >= 2 => {
                let mut perm: Vec<i64> = (0..rank as i64).collect();
                perm.rotate_left((seed as usize % (rank - 1)) + 1);
                let out: Vec<i64> = perm.iter().map(|&p| dims[p as usize]).collect();
                let mut shape = arr(ty, &out);
                if let Shape::Array(s) = &mut shape {
                    // XLA gives transposes the layout that keeps the bytes in place.
                    let inv: Vec<i64> = (0..rank as i64)
                        .rev()
                        .map(|d| perm.iter().position(|&p| p == d).unwrap() as i64)
                        .collect();
                    s.layout = Some(Layout {
                        minor_to_major: inv,
                    });
                }
                self.value(Op::Transpose { permutation: perm }, &[x], shape);
            }
            5 => {
                let n: i64 = dims.iter().product();
                self.value(Op::Reshape, &[x], arr(ty, &[n]));
            }
            6 if rank >= 1 => {
                let start: Vec<i64> = dims
                    .iter()
                    .map(|&d| (seed % d.max(1) as u64) as i64)
                    .collect();
                let stride: Vec<i64> = (0..rank).map(|i| 1 + ((seed >> i) & 1) as i64).collect();
                let out: Vec<i64> = (0..rank)
                    .map(|i| (dims[i] - start[i] + stride[i] - 1) / stride[i])
                    .collect();
                self.value(
                    Op::Slice {
                        start,
                        limit: dims.clone(),
                        stride,
                    },
                    &[x],
                    arr(ty, &out),
                );
            }
            7 if rank >= 1 && ty != Pred => {
                let init = self.scalar_const(ty, 0);
                let to_apply = CompId(if ty == F32 { 0 } else { 1 });
                let d = (seed as usize) % rank;
                let out: Vec<i64> = dims
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| i != d)
                    .map(|(_, &v)| v)
                    .collect();
                self.value(
                    Op::Reduce {
                        dimensions: vec![d as i64],
                        to_apply,
                    },
                    &[x, init],
                    arr(ty, &out),
                );
            }
            8 if rank >= 1 => {
                let d = (seed as usize) % rank;
                let mut out = dims.clone();
                out[d] *= 2;
                self.value(
                    Op::Concatenate {
                        dimension: d as i64,
                    },
                    &[x, x],
                    arr(ty, &out),
                );
            }
            9 if rank >= 1 => {
                let pv = self.scalar_const(ty, seed);
                let padding: Vec<PadDim> = (0..rank)
                    .map(|i| {
                        let s = seed >> (3 * i);
                        PadDim {
                            low: (s % 3) as i64 - 1,
                            high: ((s >> 1) % 3) as i64,
                            interior: ((s >> 2) % 2) as i64,
                        }
                    })
                    .collect();
                let out: Vec<i64> = (0..rank)
                    .map(|i| {
                        dims[i]
                            + padding[i].low
                            + padding[i].high
                            + (dims[i] - 1).max(0) * padding[i].interior
                    })
                    .collect();
                if out.iter().all(|&d| d >= 0) {
                    self.value(Op::Pad { padding }, &[x, pv], arr(ty, &out));
                }
            }
            10 if (1..=2).contains(&rank) && ty != Pred => {
                let lc = vec![rank as i64 - 1];
                let out: Vec<i64> = dims[..rank - 1]
                    .iter()
                    .chain(&dims[..rank - 1])
                    .copied()
                    .collect();
                let dims_nums = DotDims {
                    lhs_contracting_dims: lc.clone(),
                    rhs_contracting_dims: lc,
                    ..Default::default()
                };
                let precision = PrecisionConfig {
                    operand_precision: if seed.is_multiple_of(2) {
                        vec![]
                    } else {
                        vec![Precision::Highest; 2]
                    },
                };
                self.value(
                    Op::Dot {
                        dims: dims_nums,
                        precision,
                    },
                    &[x, x],
                    arr(ty, &out),
                );
            }
            11 => {
                let to = if ty == F32 { S32 } else { F32 };
                self.value(Op::Convert, &[x], arr(to, &dims));
            }
            _ => {
                let mut out = vec![2];
                out.extend(&dims);
                self.value(
                    Op::Broadcast {
                        dimensions: (1..=rank as i64).collect(),
                    },
                    &[x],
                    arr(ty, &out),
                );
            }
        }
    }
}

fn random_module(params: &[(bool, Vec<i64>)], steps: &[(u8, usize, usize, u64)]) -> Module {
    let mut g = Gen {
        ins: Vec::new(),
        values: Vec::new(),
    };
    // Parameters in a shuffled order, as JAX prints them.
    for (k, (is_f32, dims)) in params.iter().enumerate().rev() {
        let ty = if *is_f32 { F32 } else { S32 };
        g.value(Op::Parameter { number: k as i64 }, &[], arr(ty, dims));
    }
    for &(kind, a, b, seed) in steps {
        g.step(kind, a, b, seed);
    }
    let last: Vec<usize> = g.values.iter().rev().take(3).copied().collect();
    let shapes: Vec<Shape> = last.iter().map(|&i| g.shape(i).clone()).collect();
    let root = g.push(Op::Tuple, &last, Shape::Tuple(shapes));
    let main = Computation {
        name: "main".into(),
        instructions: g.ins,
        root: InstrId(root),
    };
    Module {
        name: "random".into(),
        computations: vec![
            common::scalar_binary("add_f32", Op::Binary(BinaryOp::Add), F32, F32),
            common::scalar_binary("add_s32", Op::Binary(BinaryOp::Add), S32, S32),
            main,
        ],
        entry: CompId(2),
        config: Default::default(),
    }
}

fn params_strategy() -> impl Strategy<Value = Vec<(bool, Vec<i64>)>> {
    prop::collection::vec((any::<bool>(), prop::collection::vec(1i64..4, 0..4)), 1..4)
}

fn steps_strategy() -> impl Strategy<Value = Vec<(u8, usize, usize, u64)>> {
    prop::collection::vec(
        (any::<u8>(), any::<usize>(), any::<usize>(), any::<u64>()),
        0..25,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_modules_round_trip(params in params_strategy(), steps in steps_strategy()) {
        let m = random_module(&params, &steps);
        prop_assert_eq!(verify_module(&m), Ok(()));
        let printed = assert_round_trip(&m, "random module");
        let reparsed = parse_module(&printed).unwrap();
        prop_assert_eq!(verify_module(&reparsed), Ok(()));
    }
}

/// With `XLA_RT_DUMP=DIR`, writes 200 random IR modules' and 100 builder modules' printed
/// text to `DIR/rand_N.hlo` and `DIR/builder_N.hlo`, to
/// be checked by real XLA's parser (`hlo_module_from_text`); does nothing otherwise.
#[test]
fn dump_random_modules_for_real_xla() {
    let Some(dir) = std::env::var_os("XLA_RT_DUMP") else {
        return;
    };
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = (params_strategy(), steps_strategy());
    for i in 0..200 {
        let (params, steps) = strategy.new_tree(&mut runner).unwrap().current();
        let text = print_module(&random_module(&params, &steps));
        std::fs::write(Path::new(&dir).join(format!("rand_{i}.hlo")), text).unwrap();
    }
    let steps = prop::collection::vec(
        (any::<u8>(), any::<usize>(), any::<usize>(), any::<u64>()),
        0..12,
    );
    for i in 0..100 {
        let steps = steps.new_tree(&mut runner).unwrap().current();
        let text = print_module(&builder_gen::build(1 + i % 3, &steps));
        std::fs::write(Path::new(&dir).join(format!("builder_{i}.hlo")), text).unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Modules made with the builder print, parse back to the same module, and verify.
    #[test]
    fn builder_modules_round_trip(
        params in 1usize..4,
        steps in prop::collection::vec((any::<u8>(), any::<usize>(), any::<usize>(), any::<u64>()), 0..12),
    ) {
        let m = builder_gen::build(params, &steps);
        prop_assert_eq!(verify_module(&m), Ok(()));
        let printed = assert_round_trip(&m, "builder module");
        prop_assert_eq!(verify_module(&parse_module(&printed).unwrap()), Ok(()));
    }
}
