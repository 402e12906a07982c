//! Worked examples from XLA's operation semantics (`operation-semantics-early.en.txt`).

use super::{run, vals};
use xla_core::Literal;

fn b4x3() -> Literal {
    Literal::from_vec(&[4, 3], (0..12).map(|v| v as f32).collect()).unwrap()
}

#[test]
fn slice_and_dynamic_slice_2d() {
    let hlo = "HloModule t\nENTRY e {\n  b = f32[4,3] parameter(0)\n  ROOT s = f32[2,2] slice(b), slice={[2:4], [1:3]}\n}\n";
    assert_eq!(
        vals::<f32>(&run(hlo, &[b4x3()]).unwrap()),
        [7., 8., 10., 11.]
    );
    let hlo = "HloModule t\nENTRY e {\n  b = f32[4,3] parameter(0)\n  i = s32[] parameter(1)\n  j = s32[] parameter(2)\n  ROOT s = f32[2,2] dynamic-slice(b, i, j), dynamic_slice_sizes={2,2}\n}\n";
    let got: Vec<f32> =
        vals(&run(hlo, &[b4x3(), Literal::scalar(2i32), Literal::scalar(1i32)]).unwrap());
    assert_eq!(got, [7., 8., 10., 11.]);
}

#[test]
fn dynamic_update_slice_2d() {
    let hlo = "HloModule t\nENTRY e {\n  b = f32[4,3] parameter(0)\n  u = f32[3,2] parameter(1)\n  i = s32[] parameter(2)\n  ROOT s = f32[4,3] dynamic-update-slice(b, u, i, i)\n}\n";
    let u = Literal::from_vec(&[3, 2], vec![12f32, 13., 14., 15., 16., 17.]).unwrap();
    let got: Vec<f32> = vals(&run(hlo, &[b4x3(), u, Literal::scalar(1i32)]).unwrap());
    assert_eq!(got, [0., 1., 2., 3., 12., 13., 6., 14., 15., 9., 16., 17.]);
}

#[test]
fn reshape_out_of_order_collapse() {
    // Reshape(v, {1,2,0}, {8,3}) = reshape(transpose(v, {1,2,0})).
    let v: Vec<f32> = [
        10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27, 30, 31, 32, 35, 36, 37, 40, 41, 42, 45, 46,
        47,
    ]
    .iter()
    .map(|&x| x as f32)
    .collect();
    let hlo = "HloModule t\nENTRY e {\n  v = f32[4,2,3] parameter(0)\n  t = f32[2,3,4] transpose(v), dimensions={1,2,0}\n  ROOT r = f32[8,3] reshape(t)\n}\n";
    let got: Vec<f32> = vals(&run(hlo, &[Literal::from_vec(&[4, 2, 3], v).unwrap()]).unwrap());
    let want: Vec<f32> = [
        10, 20, 30, 40, 11, 21, 31, 41, 12, 22, 32, 42, 15, 25, 35, 45, 16, 26, 36, 46, 17, 27, 37,
        47,
    ]
    .iter()
    .map(|&x| x as f32)
    .collect();
    assert_eq!(got, want);
}

#[test]
fn reduce_3d_example() {
    let add = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n";
    let x: Vec<f32> = (0..24).map(|i| (i % 6 + 1) as f32).collect();
    let cases: &[(&str, &str, &[f32])] = &[
        ("0", "f32[2,3]", &[4., 8., 12., 16., 20., 24.]),
        ("2", "f32[4,2]", &[6., 15., 6., 15., 6., 15., 6., 15.]),
        ("0,1", "f32[3]", &[20., 28., 36.]),
        ("0,1,2", "f32[]", &[84.]),
    ];
    for (dims, shape, want) in cases {
        let hlo = format!("HloModule t\n{add}ENTRY e {{\n  x = f32[4,2,3] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = {shape} reduce(x, z), dimensions={{{dims}}}, to_apply=add\n}}\n");
        let got: Vec<f32> =
            vals(&run(&hlo, &[Literal::from_vec(&[4, 2, 3], x.clone()).unwrap()]).unwrap());
        assert_eq!(&got, want, "dimensions={{{dims}}}");
    }
}

#[test]
fn reduce_window_2x3_max_pool() {
    let max = "max {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT m = f32[] maximum(a, b)\n}\n";
    let hlo = format!("HloModule t\n{max}ENTRY e {{\n  x = f32[4,6] parameter(0)\n  z = f32[] constant(-inf)\n  ROOT r = f32[2,2] reduce-window(x, z), window={{size=2x3 stride=2x3}}, to_apply=max\n}}\n");
    let x: Vec<f32> = (0..24).map(|i| ((i * 7) % 24) as f32).collect();
    let got: Vec<f32> =
        vals(&run(&hlo, &[Literal::from_vec(&[4, 6], x.clone()).unwrap()]).unwrap());
    let want: Vec<f32> = (0..4)
        .map(|w| {
            let (r0, c0) = (w / 2 * 2, w % 2 * 3);
            (0..6)
                .map(|k| x[(r0 + k / 3) * 6 + c0 + k % 3])
                .fold(f32::NEG_INFINITY, f32::max)
        })
        .collect();
    assert_eq!(got, want);
}
