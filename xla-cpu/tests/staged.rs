//! Kernels whose loads the generated code cannot read in place — a bias shorter than a
//! block, a value broadcast along rows shorter than a block, a pred mask, a broadcast
//! onto two short runs — run as code all the same: such a load is computed per call into
//! a buffer the code reads (`fusion/stream.rs`, `Stream::Staged`). Random modules of
//! such loads and elementwise ops, on inputs holding NaN, ±inf and ±0, are run fused and
//! compared bit for bit with the same module compiled without rewrites and run one
//! instruction at a time, at 1 and 2 threads.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType, Shape};

mod gen;
use gen::{bits, fused_gives, fused_matches_reference, shape_of, shape_text, values, Rng};
use xla_cpu::Executable;

/// A module being written: instruction lines and the parameters (type, dims).
#[derive(Default)]
struct Text {
    lines: Vec<String>,
    params: Vec<(PrimitiveType, Vec<i64>)>,
    next: usize,
}

impl Text {
    fn param(&mut self, ty: PrimitiveType, dims: &[i64]) -> String {
        let name = format!("p{}", self.params.len());
        let t = if ty == PrimitiveType::Pred {
            "pred"
        } else {
            "f32"
        };
        self.lines.push(format!(
            "{name} = {} parameter({})",
            shape_of(t, dims),
            self.params.len()
        ));
        self.params.push((ty, dims.to_vec()));
        name
    }

    fn push(&mut self, ty: &str, dims: &[i64], rhs: String) -> String {
        self.next += 1;
        let name = format!("v{}", self.next);
        self.lines
            .push(format!("{name} = {} {rhs}", shape_of(ty, dims)));
        name
    }

    /// `operand` (a parameter of dims `d` picked from `out` by `dims`) broadcast to `out`.
    fn broadcast(&mut self, ty: PrimitiveType, out: &[i64], dims: &[usize]) -> String {
        let d: Vec<i64> = dims.iter().map(|&k| out[k]).collect();
        let p = self.param(ty, &d);
        let list: Vec<String> = dims.iter().map(usize::to_string).collect();
        let t = if ty == PrimitiveType::Pred {
            "pred"
        } else {
            "f32"
        };
        self.push(
            t,
            out,
            format!("broadcast({p}), dimensions={{{}}}", list.join(",")),
        )
    }

    /// A random f32 operand of shape `d`: a full parameter, or a broadcast of a smaller one
    /// along the last dim (a bias), the first (a per-row value), the middle, or two runs.
    fn operand(&mut self, d: &[i64], rng: &mut Rng) -> String {
        let rank = d.len();
        match rng.next() % 5 {
            0 => self.param(PrimitiveType::F32, d),
            1 => self.broadcast(PrimitiveType::F32, d, &[rank - 1]),
            2 => self.broadcast(PrimitiveType::F32, d, &[0]),
            3 if rank == 3 => self.broadcast(PrimitiveType::F32, d, &[1]),
            _ if rank == 3 => self.broadcast(PrimitiveType::F32, d, &[0, 2]),
            _ => self.broadcast(PrimitiveType::F32, d, &[0]),
        }
    }

    /// A random mask of shape `d`: a pred parameter, one broadcast per row, or a compare.
    fn mask(&mut self, d: &[i64], rng: &mut Rng) -> String {
        match rng.next() % 3 {
            0 => self.param(PrimitiveType::Pred, d),
            1 => self.broadcast(PrimitiveType::Pred, d, &[0]),
            _ => {
                let a = self.operand(d, rng);
                let b = self.operand(d, rng);
                let dir = rng.pick(&["LT", "GE", "EQ", "NE"]);
                self.push("pred", d, format!("compare({a}, {b}), direction={dir}"))
            }
        }
    }
}

/// One random module: an f32[d] value combined with 2-4 operands by elementwise ops and
/// selects; the result is the value (sometimes with its negation, in a tuple).
/// A random module, its parameters, and whether its root is a reduce.
fn random_module(rng: &mut Rng) -> (String, Vec<(PrimitiveType, Vec<i64>)>, bool) {
    let rank = rng.range(2, 3) as usize;
    let last = rng.pick(&[1i64, 3, 10, 16, 32, 33, 64, 96, 100, 127, 128, 130, 256]);
    let mut d: Vec<i64> = (0..rank - 1).map(|_| rng.range(1, 40)).collect();
    d.push(last);
    let mut t = Text::default();
    let mut v = t.operand(&d, rng);
    for _ in 0..rng.range(2, 4) {
        let o = t.operand(&d, rng);
        v = if rng.next() % 3 == 0 {
            let m = t.mask(&d, rng);
            t.push("f32", &d, format!("select({m}, {v}, {o})"))
        } else {
            let op = rng.pick(&["add", "multiply", "subtract", "maximum", "minimum"]);
            t.push("f32", &d, format!("{op}({v}, {o})"))
        };
    }
    let mut regions = "";
    let root = match rng.next() % 4 {
        0 => {
            let n = t.push("f32", &d, format!("negate({v})"));
            let s = shape_text(&d);
            format!("ROOT out = ({s}, {s}) tuple({v}, {n})")
        }
        // A reduce of the kernel (fold code): over the last dim or the first.
        1 | 2 => {
            regions = "add { a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] add(a, b) }\n\n";
            let k = if rng.next() % 2 == 0 { rank - 1 } else { 0 };
            let kept: Vec<i64> = (0..rank).filter(|&j| j != k).map(|j| d[j]).collect();
            let z = t.push("f32", &[], "constant(0)".into());
            format!(
                "ROOT out = {} reduce({v}, {z}), dimensions={{{k}}}, to_apply=add",
                shape_text(&kept)
            )
        }
        _ => format!("ROOT out = {} exponential({v})", shape_text(&d)),
    };
    let body: Vec<String> = t.lines.iter().map(|l| format!("  {l}")).collect();
    let text = format!(
        "HloModule s\n\n{regions}ENTRY e {{\n{}\n  {root}\n}}\n",
        body.join("\n")
    );
    (text, t.params, !regions.is_empty())
}

fn input(ty: PrimitiveType, dims: &[i64], rng: &mut Rng) -> Literal {
    let n = dims.iter().product::<i64>() as usize;
    let data = match ty {
        PrimitiveType::Pred => ArrayData::Pred((0..n).map(|_| rng.next() % 2 == 0).collect()),
        _ => ArrayData::F32(values(n, rng)),
    };
    Literal::from_array_data(Shape::array(ty, dims.to_vec()), data).unwrap()
}

/// Runs `text` fused with generated code (at 1 and 2 threads) and on the fused kernels'
/// block interpreter, and checks they agree bit for bit; returns the ops the code run ran.
fn code_matches_interpreter(case: usize, text: &str, args: &[Literal]) -> Vec<String> {
    let m = xla_core::text::parse_module(text).unwrap();
    let refs: Vec<&Literal> = args.iter().collect();
    xla_cpu::set_codegen(false);
    let mut plain = Executable::compile(&m).unwrap();
    xla_cpu::set_codegen(true);
    plain.drop_native_loops();
    let want = bits(&plain.execute_borrowed(&refs).unwrap());
    fused_gives(case, text, args, &want)
}

/// `set_codegen` is process-wide: this file's only test flips it.
#[test]
fn random_kernels_with_staged_loads_match_the_reference() {
    let mut rng = Rng(0x57a9_ed00_1234_5678);
    let mut code = 0;
    let cases = 200;
    for case in 0..cases {
        let (text, params, reduce) = random_module(&mut rng);
        let args: Vec<Literal> = params
            .iter()
            .map(|(ty, d)| input(*ty, d, &mut rng))
            .collect();
        // A fused reduce folds in its own order (the reference's sums differ in last
        // bits): there the generated code is checked against the fused interpreter.
        let ran = if reduce {
            code_matches_interpreter(case, &text, &args)
        } else {
            fused_matches_reference(case, &text, &args)
        };
        if ran.iter().any(|op| op.contains("[code")) {
            code += 1;
        }
    }
    // Every kernel's operations have code here, whatever its loads (a few modules are
    // too small for a kernel of their own).
    assert!(
        code > cases * 9 / 10,
        "only {code} of {cases} cases ran as code"
    );
}
