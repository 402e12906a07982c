//! Data movement through HLO text: size-0 dims, nested tuples, reshape to a scalar, interior
//! padding with a parameter padding value, iota of several dims.

use super::{elem, run, vals};
use xla_core::Literal;

#[test]
fn size_zero_dims_flow_through() {
    let hlo = "HloModule t\nENTRY e {\n  x = f32[0,3] parameter(0)\n  t = f32[3,0] transpose(x), dimensions={1,0}\n  n = f32[3,0] negate(t)\n  c = f32[] constant(1)\n  ROOT p = f32[3,2] pad(n, c), padding=0_0x1_1\n}\n";
    let x = Literal::from_vec(&[0, 3], Vec::<f32>::new()).unwrap();
    assert_eq!(vals::<f32>(&run(hlo, &[x]).unwrap()), [1.; 6]);
}

#[test]
fn nested_tuples_and_get_tuple_element() {
    let hlo = "HloModule t\nENTRY e {\n  a = s32[] parameter(0)\n  b = f32[2] parameter(1)\n  t = (s32[], f32[2]) tuple(a, b)\n  u = ((s32[], f32[2]), s32[]) tuple(t, a)\n  g = (s32[], f32[2]) get-tuple-element(u), index=0\n  h = f32[2] get-tuple-element(g), index=1\n  ROOT r = ((s32[], f32[2]), f32[2]) tuple(g, h)\n}\n";
    let r = run(hlo, &[Literal::scalar(7i32), Literal::vec1(&[1f32, 2.])]).unwrap();
    assert_eq!(vals::<i32>(&elem(&elem(&r, 0), 0)), [7]);
    assert_eq!(vals::<f32>(&elem(&r, 1)), [1., 2.]);
}

#[test]
fn reshape_iota_broadcast_pad() {
    let hlo =
        "HloModule t\nENTRY e {\n  x = f32[1,1] parameter(0)\n  ROOT r = f32[] reshape(x)\n}\n";
    assert_eq!(
        vals::<f32>(&run(hlo, &[Literal::from_vec(&[1, 1], vec![4f32]).unwrap()]).unwrap()),
        [4.]
    );
    let hlo = "HloModule t\nENTRY e {\n  ROOT i = u8[2,3] iota(), iota_dimension=0\n}\n";
    assert_eq!(vals::<u8>(&run(hlo, &[]).unwrap()), [0, 0, 0, 1, 1, 1]);
    let hlo = "HloModule t\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT b = f32[2,2] broadcast(x), dimensions={}\n}\n";
    assert_eq!(
        vals::<f32>(&run(hlo, &[Literal::scalar(3f32)]).unwrap()),
        [3.; 4]
    );
    // Interior padding with the padding value as a parameter, and a negative high edge.
    let hlo = "HloModule t\nENTRY e {\n  x = s32[2,2] parameter(0)\n  v = s32[] parameter(1)\n  ROOT p = s32[3,4] pad(x, v), padding=0_0_1x1_-1_2\n}\n";
    let x = Literal::from_vec(&[2, 2], vec![1i32, 2, 3, 4]).unwrap();
    assert_eq!(
        vals::<i32>(&run(hlo, &[x, Literal::scalar(-9i32)]).unwrap()),
        [-9, 1, -9, -9, -9, -9, -9, -9, -9, 3, -9, -9]
    );
}

#[test]
fn dynamic_update_slice_clamps_negative_and_large_starts() {
    let hlo = "HloModule t\nENTRY e {\n  x = s32[3,3] parameter(0)\n  u = s32[2,2] parameter(1)\n  i = s64[] parameter(2)\n  j = s64[] parameter(3)\n  ROOT d = s32[3,3] dynamic-update-slice(x, u, i, j)\n}\n";
    let x = Literal::from_vec(&[3, 3], vec![0i32; 9]).unwrap();
    let u = Literal::from_vec(&[2, 2], vec![1i32, 2, 3, 4]).unwrap();
    let got: Vec<i32> =
        vals(&run(hlo, &[x, u, Literal::scalar(-5i64), Literal::scalar(9i64)]).unwrap());
    assert_eq!(got, [0, 1, 2, 0, 3, 4, 0, 0, 0]);
}

#[test]
fn results_carry_no_layout() {
    let hlo = "HloModule t\nENTRY e {\n  x = f32[2,3]{1,0} parameter(0)\n  t = f32[3,2]{0,1} transpose(x), dimensions={1,0}\n  c = f32[2]{0} constant({1, 2})\n  ROOT r = (f32[3,2]{0,1}, f32[2]{0}) tuple(t, c)\n}\n";
    let x = Literal::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]).unwrap();
    let r = run(hlo, &[x]).unwrap();
    assert_eq!(r.shape().to_string_with_layout(), "(f32[3,2], f32[2])");
    assert_eq!(vals::<f32>(&elem(&r, 0)), [1., 4., 2., 5., 3., 6.]);
}
