//! Reduce (variadic, generic computations), reduce-window (padding, dilations) and
//! select-and-scatter (overlapping windows, ties, padding).

use super::{elem, run, vals};
use xla_core::Literal;

const ADD: &str =
    "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n";

#[test]
fn reduce_sums_over_dimension_sets() {
    let hlo = format!("HloModule t\n{ADD}ENTRY e {{\n  x = f32[2,3,2] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[3] reduce(x, z), dimensions={{0,2}}, to_apply=add\n}}\n");
    let x = Literal::from_vec(&[2, 3, 2], (0..12).map(|v| v as f32).collect()).unwrap();
    let got: Vec<f32> = vals(&run(&hlo, &[x]).unwrap());
    assert_eq!(
        got,
        [0. + 1. + 6. + 7., 2. + 3. + 8. + 9., 4. + 5. + 10. + 11.]
    );
    // Reducing a size-0 dimension gives the init value.
    let hlo = format!("HloModule t\n{ADD}ENTRY e {{\n  x = f32[3,0] parameter(0)\n  z = f32[] constant(5)\n  ROOT r = f32[3] reduce(x, z), dimensions={{1}}, to_apply=add\n}}\n");
    let x = Literal::from_vec(&[3, 0], Vec::<f32>::new()).unwrap();
    assert_eq!(vals::<f32>(&run(&hlo, &[x]).unwrap()), [5., 5., 5.]);
}

#[test]
fn variadic_reduce_argmax_with_ties_and_nan() {
    let cmp = "argmax {\n  a = f32[] parameter(0)\n  ai = s32[] parameter(1)\n  b = f32[] parameter(2)\n  bi = s32[] parameter(3)\n  gt = pred[] compare(a, b), direction=GT\n  nan = pred[] compare(a, a), direction=NE\n  pick = pred[] or(gt, nan)\n  eq = pred[] compare(a, b), direction=EQ\n  lt = pred[] compare(ai, bi), direction=LT\n  tie = pred[] and(eq, lt)\n  pa = pred[] or(pick, tie)\n  v = f32[] select(pick, a, b)\n  i = s32[] select(pa, ai, bi)\n  ROOT t = (f32[], s32[]) tuple(v, i)\n}\n";
    let hlo = format!("HloModule t\n{cmp}ENTRY e {{\n  x = f32[2,4] parameter(0)\n  io = s32[2,4] iota(), iota_dimension=1\n  m = f32[] constant(-inf)\n  z = s32[] constant(0)\n  ROOT r = (f32[2], s32[2]) reduce(x, io, m, z), dimensions={{1}}, to_apply=argmax\n}}\n");
    let x = Literal::from_vec(&[2, 4], vec![1f32, 3., 3., 2., f32::NAN, 5., f32::NAN, 1.]).unwrap();
    let r = run(&hlo, &[x]).unwrap();
    let v: Vec<f32> = vals(&elem(&r, 0));
    assert_eq!(v[0], 3.);
    assert!(v[1].is_nan());
    assert_eq!(vals::<i32>(&elem(&r, 1)), [1, 0]);
}

fn rw(x: &[f32], window: &str, n_out: usize) -> Vec<f32> {
    let n = x.len();
    let hlo = format!("HloModule t\n{ADD}ENTRY e {{\n  x = f32[{n}] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[{n_out}] reduce-window(x, z), window={{{window}}}, to_apply=add\n}}\n");
    vals(&run(&hlo, &[Literal::vec1(x)]).unwrap())
}

#[test]
fn reduce_window_padding_and_dilations() {
    let x = [1f32, 2., 3., 4., 5.];
    assert_eq!(rw(&x, "size=2 pad=1_1", 6), [1., 3., 5., 7., 9., 5.]);
    assert_eq!(rw(&x, "size=2 stride=2", 2), [3., 7.]);
    assert_eq!(rw(&x, "size=2 rhs_dilate=2", 3), [4., 6., 8.]);
    // Base dilation: [1, _, 2, _, 3]; holes are skipped.
    assert_eq!(
        rw(&[1., 2., 3.], "size=2 lhs_dilate=2", 4),
        [1., 2., 2., 3.]
    );
    assert_eq!(rw(&x, "size=3 pad=-1_0", 2), [9., 12.]);
}

fn sas(x: &[f32], src: &[f32], window: &str, select: &str) -> Vec<f32> {
    let (n, m) = (x.len(), src.len());
    let sel = format!("sel {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction={select}\n}}\n");
    let hlo = format!("HloModule t\n{ADD}{sel}ENTRY e {{\n  x = f32[{n}] parameter(0)\n  s = f32[{m}] parameter(1)\n  z = f32[] constant(0)\n  ROOT r = f32[{n}] select-and-scatter(x, s, z), window={{{window}}}, select=sel, scatter=add\n}}\n");
    vals(&run(&hlo, &[Literal::vec1(x), Literal::vec1(src)]).unwrap())
}

#[test]
fn select_and_scatter_overlapping_ties_padding() {
    // Overlapping windows; GE ties: the first element in window order wins.
    assert_eq!(
        sas(&[1., 5., 2., 5., 3.], &[1., 10., 100.], "size=3", "GE"),
        [0., 11., 0., 100., 0.]
    );
    // LE selects the minimum.
    assert_eq!(
        sas(&[1., 5., 2., 5., 3.], &[1., 10., 100.], "size=3", "LE"),
        [1., 0., 110., 0., 0.]
    );
    // Padding positions are never selected.
    assert_eq!(
        sas(&[-4., -1., 3.], &[1., 2.], "size=2 stride=2 pad=1_0", "GE"),
        [1., 0., 2.]
    );
}

#[test]
fn reduce_and_reduce_window_through_the_interpreter() {
    // The combiner calls another computation, so it runs neither natively nor vectorised;
    // the result must equal the native one. The init 100 is not an identity: it is folded
    // in once per output, padding elements are skipped.
    let via_call = "viacall {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] call(a, b), to_apply=add\n}\n";
    let hlo = format!("HloModule t\n{ADD}{via_call}ENTRY e {{\n  x = f32[2,3] parameter(0)\n  z = f32[] constant(100)\n  r = f32[2] reduce(x, z), dimensions={{1}}, to_apply=viacall\n  w = f32[2,3] reduce-window(x, z), window={{size=1x2 pad=0_0x0_1}}, to_apply=viacall\n  ROOT t = (f32[2], f32[2,3]) tuple(r, w)\n}}\n");
    let x = Literal::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]).unwrap();
    let r = run(&hlo, &[x]).unwrap();
    assert_eq!(vals::<f32>(&elem(&r, 0)), [106., 115.]);
    assert_eq!(
        vals::<f32>(&elem(&r, 1)),
        [103., 105., 103., 109., 111., 106.]
    );
}

#[test]
fn select_and_scatter_with_a_generic_scatter_keeps_source_order() {
    // Overlapping windows select element 1 twice; subtract is not commutative, so the
    // source order shows: (0 - 1) - 10 = -11.
    let sel = "sel {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=GE\n}\nsub {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] subtract(a, b)\n}\n";
    let hlo = format!("HloModule t\n{sel}ENTRY e {{\n  x = f32[4] parameter(0)\n  s = f32[3] parameter(1)\n  z = f32[] constant(0)\n  ROOT r = f32[4] select-and-scatter(x, s, z), window={{size=2}}, select=sel, scatter=sub\n}}\n");
    let got: Vec<f32> = vals(
        &run(
            &hlo,
            &[
                Literal::vec1(&[1f32, 5., 2., 7.]),
                Literal::vec1(&[1f32, 10., 100.]),
            ],
        )
        .unwrap(),
    );
    assert_eq!(got, [0., -11., 0., -100.]);
}

#[test]
fn select_and_scatter_selector_paths_agree() {
    // The same GE selection, written three ways: a plain compare (native), compare-or-NaN
    // (vectorised), and through a call (one window at a time).
    let plain = "sel {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=GE\n}\n";
    let nan_aware = "sel {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ge = pred[] compare(a, b), direction=GE\n  nan = pred[] compare(a, a), direction=NE\n  ROOT c = pred[] or(ge, nan)\n}\n";
    let via_call = "ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=GE\n}\nsel {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] call(a, b), to_apply=ge\n}\n";
    for sel in [plain, nan_aware, via_call] {
        let hlo = format!("HloModule t\n{ADD}{sel}ENTRY e {{\n  x = f32[6] parameter(0)\n  s = f32[3] parameter(1)\n  z = f32[] constant(0)\n  ROOT r = f32[6] select-and-scatter(x, s, z), window={{size=3 stride=2 pad=1_0}}, select=sel, scatter=add\n}}\n");
        let got: Vec<f32> = vals(
            &run(
                &hlo,
                &[
                    Literal::vec1(&[3f32, 1., 3., 8., 2., 2.]),
                    Literal::vec1(&[1f32, 10., 100.]),
                ],
            )
            .unwrap(),
        );
        // Windows (padded by one on the left): {pad,3,1} -> 0, {1,3,8} -> 3, {8,2,2} -> 3.
        assert_eq!(got, [1., 0., 0., 110., 0., 0.], "{sel}");
    }
}

#[test]
fn reduce_in_f16_and_pred() {
    use half::f16;
    let add = "add {\n  a = f16[] parameter(0)\n  b = f16[] parameter(1)\n  ROOT s = f16[] add(a, b)\n}\nall {\n  a = pred[] parameter(0)\n  b = pred[] parameter(1)\n  ROOT s = pred[] and(a, b)\n}\n";
    let hlo = format!("HloModule t\n{add}ENTRY e {{\n  x = f16[4] parameter(0)\n  p = pred[2,2] parameter(1)\n  z = f16[] constant(0)\n  t = pred[] constant(true)\n  r = f16[] reduce(x, z), dimensions={{0}}, to_apply=add\n  q = pred[2] reduce(p, t), dimensions={{1}}, to_apply=all\n  ROOT o = (f16[], pred[2]) tuple(r, q)\n}}\n");
    let x: Vec<f16> = [1.5f32, 2.0, 65504.0, 32.0]
        .iter()
        .map(|&v| f16::from_f32(v))
        .collect();
    let p = Literal::from_vec(&[2, 2], vec![true, true, true, false]).unwrap();
    let r = run(&hlo, &[Literal::vec1(&x), p]).unwrap();
    assert_eq!(vals::<f16>(&elem(&r, 0)), [f16::INFINITY]);
    assert_eq!(vals::<bool>(&elem(&r, 1)), [true, false]);
}
