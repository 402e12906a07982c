//! Printer tests: each attribute spelled as real XLA (jaxlib 0.10.2's HLO printer with
//! `short_parsable()` options) prints it. Expected lines were produced by XLA re-printing
//! hand-written modules.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use xla_core::attrs::*;
use xla_core::ir::{CompId, Computation, InstrId, Instruction, Module, Op};
use xla_core::shape::{ArrayShape, Layout, Shape};
use xla_core::text::print_module;
use xla_core::types::PrimitiveType::*;
use xla_core::Literal;

mod common;
use common::{arr, dnums, ins, pd, wd};

/// The callees available to the instruction under test: `add` (CompId 0), `ge` (1),
/// `comp` (2: f32[4] -> f32[4] negate).
fn callees() -> Vec<Computation> {
    let ge = Op::Compare {
        direction: ComparisonDirection::Ge,
        comparison_type: None,
    };
    let comp = Computation {
        name: "comp".into(),
        instructions: vec![
            ins("comp.a", Op::Parameter { number: 0 }, &[], arr(F32, &[4])),
            ins("comp.n", Op::Unary(UnaryOp::Neg), &[0], arr(F32, &[4])),
        ],
        root: InstrId(1),
    };
    vec![
        common::scalar_binary("add", Op::Binary(BinaryOp::Add), F32, F32),
        common::scalar_binary("ge", ge, F32, Pred),
        comp,
    ]
}

const ADD: CompId = CompId(0);
const GE: CompId = CompId(1);
const COMP: CompId = CompId(2);

/// Prints a module whose entry has one parameter `pN` per operand shape and root `r = op`,
/// and returns what follows `ROOT r = ` (shape, opcode, operands and attributes).
fn root_line(op: Op, shape: Shape, operands: &[Shape]) -> String {
    let mut instructions: Vec<Instruction> = operands
        .iter()
        .enumerate()
        .map(|(i, s)| {
            ins(
                &format!("p{i}"),
                Op::Parameter { number: i as i64 },
                &[],
                s.clone(),
            )
        })
        .collect();
    let ids: Vec<usize> = (0..operands.len()).collect();
    instructions.push(ins("r", op, &ids, shape));
    let root = InstrId(instructions.len() - 1);
    let mut computations = callees();
    computations.push(Computation {
        name: "main".into(),
        instructions,
        root,
    });
    let module = Module {
        name: "m".into(),
        computations,
        entry: CompId(3),
        config: Default::default(),
    };
    let text = print_module(&module);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("ROOT r = "))
        .expect("root line");
    line.trim_start()
        .trim_start_matches("ROOT r = ")
        .to_string()
}

fn check(cases: Vec<(Op, Shape, Vec<Shape>, &str)>) {
    for (op, shape, operands, want) in cases {
        let name = op.name();
        assert_eq!(root_line(op, shape, &operands), want, "op {name}");
    }
}

#[test]
fn module_header_and_computation_order() {
    let m = Module {
        name: "jit_fn".into(),
        computations: callees(),
        entry: COMP,
        config: Default::default(),
    };
    let text = print_module(&m);
    let want = "HloModule jit_fn, entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n\n\
add {\n  add.a = f32[] parameter(0)\n  add.b = f32[] parameter(1)\n  ROOT add.r = f32[] add(add.a, add.b)\n}\n\n\
ge {\n  ge.a = f32[] parameter(0)\n  ge.b = f32[] parameter(1)\n  ROOT ge.r = pred[] compare(ge.a, ge.b), direction=GE\n}\n\n\
ENTRY comp {\n  comp.a = f32[4]{0} parameter(0)\n  ROOT comp.n = f32[4]{0} negate(comp.a)\n}\n\n";
    assert_eq!(text, want);
}

#[test]
fn callees_are_printed_before_callers() {
    // entry (0) calls comp (2), which is stored after it.
    let mut comps = vec![Computation {
        name: "main".into(),
        instructions: vec![
            ins("x", Op::Parameter { number: 0 }, &[], arr(F32, &[4])),
            ins(
                "c",
                Op::Call {
                    to_apply: CompId(1),
                    composite: None,
                },
                &[0],
                arr(F32, &[4]),
            ),
        ],
        root: InstrId(1),
    }];
    comps.push(callees().remove(2));
    let text = print_module(&Module {
        name: "m".into(),
        computations: comps,
        entry: CompId(0),
        config: Default::default(),
    });
    let comp_at = text.find("\ncomp {").expect("comp printed");
    let entry_at = text.find("ENTRY main {").expect("entry printed");
    assert!(comp_at < entry_at, "{text}");
}

#[test]
fn layouts_default_and_explicit() {
    let mut transposed = arr(F32, &[4, 2, 3]);
    if let Shape::Array(ArrayShape { layout, .. }) = &mut transposed {
        *layout = Some(Layout {
            minor_to_major: vec![0, 2, 1],
        });
    }
    let tuple6 = Shape::tuple(vec![arr(F32, &[2]); 6]);
    check(vec![
        (
            Op::Copy,
            arr(F32, &[2, 3, 4, 5]),
            vec![arr(F32, &[2, 3, 4, 5])],
            "f32[2,3,4,5]{3,2,1,0} copy(p0)",
        ),
        (
            Op::Copy,
            arr(S32, &[]),
            vec![arr(S32, &[])],
            "s32[] copy(p0)",
        ),
        (
            Op::Transpose {
                permutation: vec![0, 2, 1],
            },
            transposed,
            vec![arr(F32, &[4, 3, 2])],
            "f32[4,2,3]{0,2,1} transpose(p0), dimensions={0,2,1}",
        ),
        (
            Op::Tuple,
            tuple6,
            vec![arr(F32, &[2]); 6],
            "(f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, /*index=5*/f32[2]{0}) \
             tuple(p0, p1, p2, p3, p4, p5)",
        ),
        (Op::AfterAll, Shape::Token, vec![], "token[] after-all()"),
    ]);
}

#[test]
fn elementwise_and_leaf_attributes() {
    let f4 = arr(F32, &[4]);
    check(vec![
        (
            Op::Binary(BinaryOp::ShiftRightLogical),
            arr(U32, &[4]),
            vec![arr(U32, &[4]); 2],
            "u32[4]{0} shift-right-logical(p0, p1)",
        ),
        (
            Op::Unary(UnaryOp::Expm1),
            f4.clone(),
            vec![f4.clone()],
            "f32[4]{0} exponential-minus-one(p0)",
        ),
        (
            Op::Compare {
                direction: ComparisonDirection::Lt,
                comparison_type: None,
            },
            arr(Pred, &[4]),
            vec![f4.clone(); 2],
            "pred[4]{0} compare(p0, p1), direction=LT",
        ),
        (
            Op::Compare {
                direction: ComparisonDirection::Lt,
                comparison_type: Some(ComparisonType::TotalOrder),
            },
            arr(Pred, &[4]),
            vec![f4.clone(); 2],
            "pred[4]{0} compare(p0, p1), direction=LT, type=TOTALORDER",
        ),
        (
            Op::Iota { dimension: 1 },
            arr(S32, &[2, 3]),
            vec![],
            "s32[2,3]{1,0} iota(), iota_dimension=1",
        ),
        (
            Op::ReducePrecision {
                exponent_bits: 5,
                mantissa_bits: 10,
            },
            f4.clone(),
            vec![f4.clone()],
            "f32[4]{0} reduce-precision(p0), exponent_bits=5, mantissa_bits=10",
        ),
        (
            Op::Map {
                dimensions: vec![0],
                to_apply: ADD,
            },
            f4.clone(),
            vec![f4.clone(); 2],
            "f32[4]{0} map(p0, p1), dimensions={0}, to_apply=add",
        ),
        (
            Op::Clamp,
            f4.clone(),
            vec![arr(F32, &[]), f4.clone(), arr(F32, &[])],
            "f32[4]{0} clamp(p0, p1, p2)",
        ),
        (
            Op::Parameter { number: 7 },
            f4.clone(),
            vec![],
            "f32[4]{0} parameter(7)",
        ),
    ]);
}

#[test]
fn structural_attributes() {
    let x = arr(F32, &[4, 6]);
    check(vec![
        (
            Op::Broadcast { dimensions: vec![] },
            arr(F32, &[2, 3]),
            vec![arr(F32, &[])],
            "f32[2,3]{1,0} broadcast(p0), dimensions={}",
        ),
        (
            Op::GetTupleElement { index: 1 },
            arr(S32, &[3]),
            vec![Shape::tuple(vec![arr(F32, &[3]), arr(S32, &[3])])],
            "s32[3]{0} get-tuple-element(p0), index=1",
        ),
        (
            Op::Slice {
                start: vec![0, 1],
                limit: vec![4, 4],
                stride: vec![2, 1],
            },
            arr(F32, &[2, 3]),
            vec![x.clone()],
            "f32[2,3]{1,0} slice(p0), slice={[0:4:2], [1:4:1]}",
        ),
        (
            Op::Slice {
                start: vec![0, 1],
                limit: vec![6, 2],
                stride: vec![1, 1],
            },
            arr(S32, &[6, 1]),
            vec![arr(S32, &[6, 2])],
            "s32[6,1]{1,0} slice(p0), slice={[0:6], [1:2]}",
        ),
        (
            Op::Pad {
                padding: vec![pd(1, 1, 0), pd(0, 1, 0)],
            },
            arr(F32, &[8, 8]),
            vec![arr(F32, &[6, 7]), arr(F32, &[])],
            "f32[8,8]{1,0} pad(p0, p1), padding=1_1x0_1",
        ),
        (
            Op::DynamicSlice {
                slice_sizes: vec![2, 2],
            },
            arr(F32, &[2, 2]),
            vec![x.clone(), arr(S32, &[]), arr(S32, &[])],
            "f32[2,2]{1,0} dynamic-slice(p0, p1, p2), dynamic_slice_sizes={2,2}",
        ),
        (
            Op::Pad {
                padding: vec![pd(-2, -1, 1), pd(2, -3, 0)],
            },
            arr(S32, &[4, 4]),
            vec![arr(S32, &[3, 5]), arr(S32, &[])],
            "s32[4,4]{1,0} pad(p0, p1), padding=-2_-1_1x2_-3_0",
        ),
        (
            Op::Concatenate { dimension: 1 },
            arr(F32, &[4, 12]),
            vec![x.clone(); 2],
            "f32[4,12]{1,0} concatenate(p0, p1), dimensions={1}",
        ),
        (
            Op::Reverse {
                dimensions: vec![0, 1],
            },
            x.clone(),
            vec![x.clone()],
            "f32[4,6]{1,0} reverse(p0), dimensions={0,1}",
        ),
        (
            Op::GetDimensionSize { dimension: 0 },
            arr(S32, &[]),
            vec![x.clone()],
            "s32[] get-dimension-size(p0), dimensions={0}",
        ),
        (
            Op::OptimizationBarrier,
            Shape::tuple(vec![arr(S32, &[]), arr(F32, &[4])]),
            vec![Shape::tuple(vec![arr(S32, &[]), arr(F32, &[4])])],
            "(s32[], f32[4]{0}) opt-barrier(p0)",
        ),
    ]);
}

#[test]
fn window_and_convolution_attributes() {
    let x = arr(F32, &[4, 6]);
    let full = Window {
        dims: vec![wd(2, 2, 0, 0, 1, 1, false), wd(2, 2, 0, 0, 1, 1, false)],
    };
    let rev = Window {
        dims: vec![wd(2, 1, 1, 1, 1, 1, true), wd(2, 1, 1, 1, 1, 1, false)],
    };
    let conv = |window: Window, dnums, fg, bg, precision: Vec<Precision>| {
        Op::Convolution(ConvConfig {
            window,
            dnums,
            feature_group_count: fg,
            batch_group_count: bg,
            precision: PrecisionConfig {
                operand_precision: precision,
            },
        })
    };
    let nhwc = dnums(0, 3, vec![1, 2], 2, 3, vec![0, 1], 0, 3, vec![1, 2]);
    let odd = dnums(3, 2, vec![0, 1], 3, 0, vec![1, 2], 1, 0, vec![2, 3]);
    let stride_pad = Window {
        dims: vec![wd(3, 2, 1, 1, 1, 1, false); 2],
    };
    let dilated = Window {
        dims: vec![wd(3, 2, 2, 1, 1, 2, false)],
    };
    let lhs_dil = Window {
        dims: vec![wd(2, 1, 1, 0, 1, 1, false), wd(2, 1, 0, 1, 2, 1, false)],
    };
    check(vec![
        (
            Op::ReduceWindow { window: full, to_apply: ADD },
            arr(F32, &[2, 3]),
            vec![x.clone(), arr(F32, &[])],
            "f32[2,3]{1,0} reduce-window(p0, p1), window={size=2x2 stride=2x2}, to_apply=add",
        ),
        (
            Op::ReduceWindow { window: rev, to_apply: ADD },
            arr(F32, &[5, 7]),
            vec![x.clone(), arr(F32, &[])],
            "f32[5,7]{1,0} reduce-window(p0, p1), window={size=2x2 pad=1_1x1_1 rhs_reversal=1x0}, to_apply=add",
        ),
        (
            Op::SelectAndScatter { window: Window { dims: vec![wd(2, 2, 0, 0, 1, 1, false); 2] }, select: GE, scatter: ADD },
            x.clone(),
            vec![x.clone(), arr(F32, &[2, 3]), arr(F32, &[])],
            "f32[4,6]{1,0} select-and-scatter(p0, p1, p2), window={size=2x2 stride=2x2}, select=ge, scatter=add",
        ),
        (
            conv(stride_pad, nhwc.clone(), 1, 1, vec![Precision::Highest, Precision::Default]),
            arr(F32, &[1, 4, 4, 2]),
            vec![arr(F32, &[1, 8, 8, 2]), arr(F32, &[3, 3, 2, 2])],
            "f32[1,4,4,2]{3,2,1,0} convolution(p0, p1), window={size=3x3 stride=2x2 pad=1_1x1_1}, \
             dim_labels=b01f_01io->b01f, operand_precision={highest,default}",
        ),
        (
            conv(Window { dims: vec![wd(3, 1, 0, 0, 1, 1, false); 2] }, nhwc, 3, 1, vec![]),
            arr(F32, &[1, 4, 4, 3]),
            vec![arr(F32, &[1, 6, 6, 3]), arr(F32, &[3, 3, 1, 3])],
            "f32[1,4,4,3]{3,2,1,0} convolution(p0, p1), window={size=3x3}, dim_labels=b01f_01io->b01f, \
             feature_group_count=3",
        ),
        (
            conv(Window { dims: vec![wd(3, 1, 0, 0, 1, 1, false); 2] }, ConvDimensionNumbers::nchw(2), 1, 2, vec![]),
            arr(F32, &[2, 4, 3, 3]),
            vec![arr(F32, &[4, 3, 5, 5]), arr(F32, &[4, 3, 3, 3])],
            "f32[2,4,3,3]{3,2,1,0} convolution(p0, p1), window={size=3x3}, dim_labels=bf01_oi01->bf01, \
             batch_group_count=2",
        ),
        (
            conv(dilated, ConvDimensionNumbers::nchw(1), 1, 1, vec![]),
            arr(F32, &[1, 3, 6]),
            vec![arr(F32, &[1, 2, 12]), arr(F32, &[3, 2, 3])],
            "f32[1,3,6]{2,1,0} convolution(p0, p1), window={size=3 stride=2 pad=2_1 rhs_dilate=2}, dim_labels=bf0_oi0->bf0",
        ),
        (
            conv(lhs_dil, odd, 1, 1, vec![]),
            arr(F32, &[2, 1, 4, 4]),
            vec![arr(F32, &[3, 2, 2, 1]), arr(F32, &[2, 2, 2, 2])],
            "f32[2,1,4,4]{3,2,1,0} convolution(p0, p1), window={size=2x2 pad=1_0x0_1 lhs_dilate=1x2}, \
             dim_labels=01fb_o01i->fb01",
        ),
    ]);
}

#[test]
fn dot_gather_scatter_attributes() {
    let x = arr(F32, &[4, 6]);
    let dot = |lb: Vec<i64>, lc: Vec<i64>, rb: Vec<i64>, rc: Vec<i64>, p: Vec<Precision>| Op::Dot {
        dims: DotDims {
            lhs_batch_dims: lb,
            lhs_contracting_dims: lc,
            rhs_batch_dims: rb,
            rhs_contracting_dims: rc,
        },
        precision: PrecisionConfig {
            operand_precision: p,
        },
    };
    let gather = GatherDims {
        offset_dims: vec![1],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 1,
        slice_sizes: vec![1, 6],
        indices_are_sorted: true,
        ..Default::default()
    };
    let batched_gather = GatherDims {
        offset_dims: vec![],
        collapsed_slice_dims: vec![1],
        start_index_map: vec![1],
        index_vector_dim: 1,
        operand_batching_dims: vec![0],
        start_indices_batching_dims: vec![0],
        slice_sizes: vec![1, 1],
        indices_are_sorted: false,
    };
    let scatter = ScatterDims {
        update_window_dims: vec![],
        inserted_window_dims: vec![1],
        scatter_dims_to_operand_dims: vec![1],
        index_vector_dim: 1,
        input_batching_dims: vec![0],
        scatter_indices_batching_dims: vec![0],
        indices_are_sorted: true,
        unique_indices: true,
    };
    check(vec![
        (
            dot(vec![], vec![1], vec![], vec![1], vec![]),
            arr(F32, &[4, 4]),
            vec![x.clone(); 2],
            "f32[4,4]{1,0} dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={1}",
        ),
        (
            dot(vec![], vec![], vec![], vec![], vec![]),
            arr(F32, &[4, 6, 4, 6]),
            vec![x.clone(); 2],
            "f32[4,6,4,6]{3,2,1,0} dot(p0, p1), lhs_contracting_dims={}, rhs_contracting_dims={}",
        ),
        (
            dot(vec![1], vec![0], vec![0], vec![2], vec![Precision::Highest, Precision::Highest]),
            arr(F32, &[12, 32, 24]),
            vec![arr(F32, &[16, 12, 32]), arr(F32, &[12, 24, 16])],
            "f32[12,32,24]{2,1,0} dot(p0, p1), lhs_batch_dims={1}, lhs_contracting_dims={0}, rhs_batch_dims={0}, \
             rhs_contracting_dims={2}, operand_precision={highest,highest}",
        ),
        (
            Op::Gather(gather),
            x.clone(),
            vec![x.clone(), arr(S32, &[4, 1])],
            "f32[4,6]{1,0} gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, \
             index_vector_dim=1, slice_sizes={1,6}, indices_are_sorted=true",
        ),
        (
            Op::Gather(batched_gather),
            arr(F32, &[4]),
            vec![arr(F32, &[4, 4]), arr(S32, &[4, 1])],
            "f32[4]{0} gather(p0, p1), offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, \
             operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=1, slice_sizes={1,1}",
        ),
        (
            Op::Scatter { dims: scatter, to_apply: ADD },
            arr(F32, &[4, 4]),
            vec![arr(F32, &[4, 4]), arr(S32, &[4, 1]), arr(F32, &[4])],
            "f32[4,4]{1,0} scatter(p0, p1, p2), update_window_dims={}, inserted_window_dims={1}, \
             scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, \
             index_vector_dim=1, indices_are_sorted=true, unique_indices=true, to_apply=add",
        ),
    ]);
}

#[test]
fn linalg_sort_and_normalisation_attributes() {
    let m = arr(F32, &[4, 4]);
    let v = arr(F32, &[4]);
    let bn_out = Shape::tuple(vec![m.clone(), v.clone(), v.clone()]);
    let ts = |left_side, lower, unit_diagonal, transpose_a| {
        Op::TriangularSolve(TriangularSolveOptions {
            left_side,
            lower,
            unit_diagonal,
            transpose_a,
        })
    };
    check(vec![
        (Op::Cholesky { lower: true }, m.clone(), vec![m.clone()], "f32[4,4]{1,0} cholesky(p0), lower=true"),
        (Op::Cholesky { lower: false }, m.clone(), vec![m.clone()], "f32[4,4]{1,0} cholesky(p0)"),
        (
            ts(false, false, false, Transpose::NoTranspose),
            m.clone(),
            vec![m.clone(); 2],
            "f32[4,4]{1,0} triangular-solve(p0, p1), transpose_a=NO_TRANSPOSE",
        ),
        (
            ts(true, true, true, Transpose::Adjoint),
            m.clone(),
            vec![m.clone(); 2],
            "f32[4,4]{1,0} triangular-solve(p0, p1), left_side=true, lower=true, unit_diagonal=true, transpose_a=ADJOINT",
        ),
        (
            Op::BatchNormTraining { epsilon: 0.001, feature_index: 1 },
            bn_out.clone(),
            vec![m.clone(), v.clone(), v.clone()],
            "(f32[4,4]{1,0}, f32[4]{0}, f32[4]{0}) batch-norm-training(p0, p1, p2), epsilon=0.001, feature_index=1",
        ),
        (
            Op::BatchNormInference { epsilon: 1e-5, feature_index: 1 },
            m.clone(),
            vec![m.clone(), v.clone(), v.clone(), v.clone(), v.clone()],
            "f32[4,4]{1,0} batch-norm-inference(p0, p1, p2, p3, p4), epsilon=1e-05, feature_index=1",
        ),
        (
            Op::Fft { fft_type: FftType::Ifft, fft_length: vec![4] },
            arr(C64, &[4]),
            vec![arr(C64, &[4])],
            "c64[4]{0} fft(p0), fft_type=IFFT, fft_length={4}",
        ),
        (
            Op::Sort { dimension: 0, is_stable: true, to_apply: GE },
            v.clone(),
            vec![v.clone()],
            "f32[4]{0} sort(p0), dimensions={0}, is_stable=true, to_apply=ge",
        ),
        (Op::Sort { dimension: 0, is_stable: false, to_apply: GE }, v.clone(), vec![v.clone()], "f32[4]{0} sort(p0), dimensions={0}, to_apply=ge"),
        (
            Op::TopK { k: 2, largest: false },
            Shape::tuple(vec![arr(F32, &[2]), arr(S32, &[2])]),
            vec![v.clone()],
            "(f32[2]{0}, s32[2]{0}) topk(p0), k=2, largest=false",
        ),
    ]);
}

#[test]
fn control_flow_attributes() {
    let v = arr(F32, &[4]);
    let state = Shape::tuple(vec![arr(S32, &[]), v.clone()]);
    let composite = Composite {
        name: "my.op".into(),
        attributes: "{n = 1 : i32}".into(),
        version: 1,
    };
    check(vec![
        (Op::Call { to_apply: COMP, composite: None }, v.clone(), vec![v.clone()], "f32[4]{0} call(p0), to_apply=comp"),
        (
            Op::Call { to_apply: COMP, composite: Some(composite) },
            v.clone(),
            vec![v.clone()],
            "f32[4]{0} call(p0), to_apply=comp, is_composite=true, \
             frontend_attributes={composite.attributes={n = 1 : i32},composite.name=\"my.op\",composite.version=\"1\"}",
        ),
        (
            Op::Conditional { branches: vec![COMP, COMP] },
            v.clone(),
            vec![arr(Pred, &[]), v.clone(), v.clone()],
            "f32[4]{0} conditional(p0, p1, p2), true_computation=comp, false_computation=comp",
        ),
        (
            Op::Conditional { branches: vec![COMP, COMP] },
            v.clone(),
            vec![arr(S32, &[]), v.clone(), v.clone()],
            "f32[4]{0} conditional(p0, p1, p2), branch_computations={comp, comp}",
        ),
        (
            Op::While { condition: GE, body: COMP },
            state.clone(),
            vec![state],
            "(s32[], f32[4]{0}) while(p0), condition=ge, body=comp",
        ),
        (
            Op::CustomCall {
                config: CustomCallConfig {
                    target: "foo".into(),
                    backend_config: "cfg".into(),
                    has_side_effect: true,
                    api_version: "API_VERSION_STATUS_RETURNING".into(),
                },
                called: vec![],
            },
            v.clone(),
            vec![v.clone()],
            "f32[4]{0} custom-call(p0), custom_call_target=\"foo\", custom_call_has_side_effect=true, \
             api_version=API_VERSION_STATUS_RETURNING, backend_config=\"cfg\"",
        ),
        (
            Op::CustomCall { config: CustomCallConfig { target: "bar".into(), ..Default::default() }, called: vec![COMP] },
            v.clone(),
            vec![v.clone()],
            "f32[4]{0} custom-call(p0), custom_call_target=\"bar\", called_computations={comp}",
        ),
    ]);
}

#[test]
fn rng_and_collective_attributes() {
    let m = arr(F32, &[4, 4]);
    let groups = |g: Vec<Vec<i64>>| ReplicaGroups { groups: g };
    let cfg = |g, channel_id, use_global_device_ids, constrain_layout| CollectiveConfig {
        replica_groups: groups(g),
        channel_id,
        use_global_device_ids,
        constrain_layout,
    };
    let rbg = Shape::tuple(vec![arr(U64, &[2]), arr(U32, &[4])]);
    check(vec![
        (
            Op::Rng { distribution: RngDistribution::Uniform },
            arr(F32, &[3, 2]),
            vec![arr(F32, &[]); 2],
            "f32[3,2]{1,0} rng(p0, p1), distribution=rng_uniform",
        ),
        (
            Op::RngBitGenerator { algorithm: RngAlgorithm::ThreeFry },
            rbg,
            vec![arr(U64, &[2])],
            "(u64[2]{0}, u32[4]{0}) rng-bit-generator(p0), algorithm=rng_three_fry",
        ),
        (Op::RngGetAndUpdateState { delta: 4096 }, arr(U64, &[2]), vec![], "u64[2]{0} rng-get-and-update-state(), delta=4096"),
        (
            Op::AllReduce { config: cfg(vec![vec![0]], Some(3), true, true), to_apply: ADD },
            m.clone(),
            vec![m.clone()],
            "f32[4,4]{1,0} all-reduce(p0), channel_id=3, replica_groups={{0}}, constrain_layout=true, \
             use_global_device_ids=true, to_apply=add",
        ),
        (
            Op::AllReduce { config: cfg(vec![], None, false, false), to_apply: ADD },
            m.clone(),
            vec![m.clone()],
            "f32[4,4]{1,0} all-reduce(p0), replica_groups={}, to_apply=add",
        ),
        (
            Op::AllGather { dimension: 0, config: cfg(vec![vec![0]], Some(4), true, true) },
            m.clone(),
            vec![m.clone()],
            "f32[4,4]{1,0} all-gather(p0), channel_id=4, replica_groups={{0}}, constrain_layout=true, dimensions={0}, \
             use_global_device_ids=true",
        ),
        (
            Op::ReduceScatter { dimension: 1, config: cfg(vec![vec![0]], Some(5), true, true), to_apply: ADD },
            m.clone(),
            vec![m.clone()],
            "f32[4,4]{1,0} reduce-scatter(p0), channel_id=5, replica_groups={{0}}, constrain_layout=true, \
             use_global_device_ids=true, dimensions={1}, to_apply=add",
        ),
        (
            Op::AllToAll { dimension: Some(0), config: cfg(vec![vec![0], vec![1]], Some(6), false, true) },
            m.clone(),
            vec![m.clone()],
            "f32[4,4]{1,0} all-to-all(p0), channel_id=6, replica_groups={{0},{1}}, constrain_layout=true, dimensions={0}",
        ),
        (
            Op::CollectivePermute { source_target_pairs: vec![(0, 1), (1, 0)], channel_id: Some(2) },
            m.clone(),
            vec![m.clone()],
            "f32[4,4]{1,0} collective-permute(p0), channel_id=2, source_target_pairs={{0,1},{1,0}}",
        ),
        (Op::ReplicaId, arr(U32, &[]), vec![], "u32[] replica-id()"),
    ]);
}

#[test]
fn communication_attributes() {
    let m = arr(F32, &[4, 4]);
    let send = Shape::tuple(vec![m.clone(), arr(U32, &[]), Shape::Token]);
    check(vec![
        (
            Op::Send {
                channel_id: 5,
                is_host_transfer: true,
            },
            send.clone(),
            vec![m.clone(), Shape::Token],
            "(f32[4,4]{1,0}, u32[], token[]) send(p0, p1), channel_id=5, is_host_transfer=true",
        ),
        (
            Op::RecvDone {
                channel_id: 6,
                is_host_transfer: false,
            },
            Shape::tuple(vec![m.clone(), Shape::Token]),
            vec![send],
            "(f32[4,4]{1,0}, token[]) recv-done(p0), channel_id=6",
        ),
        (
            Op::Infeed {
                config: "abc".into(),
            },
            Shape::tuple(vec![Shape::tuple(vec![m.clone()]), Shape::Token]),
            vec![Shape::Token],
            "((f32[4,4]{1,0}), token[]) infeed(p0), infeed_config=\"abc\"",
        ),
        (
            Op::Outfeed {
                config: "def".into(),
                outfeed_shape: Some(m.clone()),
            },
            Shape::Token,
            vec![m.clone(), Shape::Token],
            "token[] outfeed(p0, p1), outfeed_shape=f32[4,4]{1,0}, outfeed_config=\"def\"",
        ),
    ]);
}

#[test]
fn constants() {
    let lit = Literal::vec1(&[13u32, 15, 26, 6]);
    let op = Op::Constant { literal: lit };
    assert_eq!(
        root_line(op, arr(U32, &[4]), &[]),
        "u32[4]{0} constant({13, 15, 26, 6})"
    );
    let op = Op::Constant {
        literal: Literal::scalar(f32::NEG_INFINITY),
    };
    assert_eq!(root_line(op, arr(F32, &[]), &[]), "f32[] constant(-inf)");
    let op = Op::Constant {
        literal: Literal::scalar(true),
    };
    assert_eq!(root_line(op, arr(Pred, &[]), &[]), "pred[] constant(true)");
}

#[test]
fn invalid_references_do_not_panic() {
    let comp = Computation {
        name: "main".into(),
        instructions: vec![ins(
            "c",
            Op::Call {
                to_apply: CompId(9),
                composite: None,
            },
            &[4],
            arr(F32, &[]),
        )],
        root: InstrId(3),
    };
    let text = print_module(&Module {
        name: "bad".into(),
        computations: vec![comp],
        entry: CompId(0),
        config: Default::default(),
    });
    assert!(
        text.contains("call(<invalid operand 4>), to_apply=<invalid computation 9>"),
        "{text}"
    );
}
