//! Dot (general dimension numbers, integer accumulation per declared type) and convolution
//! (padding, dilations, reversal, feature and batch groups, dimension labels).

use super::{run, vals};
use xla_core::Literal;

#[test]
fn dot_matmul_and_s8_accumulates_in_s32() {
    let hlo = "HloModule t\nENTRY e {\n  a = f32[2,3] parameter(0)\n  b = f32[3,2] parameter(1)\n  ROOT d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n";
    let a = Literal::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]).unwrap();
    let b = Literal::from_vec(&[3, 2], vec![7f32, 8., 9., 10., 11., 12.]).unwrap();
    assert_eq!(
        vals::<f32>(&run(hlo, &[a, b]).unwrap()),
        [58., 64., 139., 154.]
    );
    let hlo = "HloModule t\nENTRY e {\n  a = s8[2] parameter(0)\n  b = s8[2] parameter(1)\n  ROOT d = s32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n}\n";
    let got: Vec<i32> = vals(
        &run(
            hlo,
            &[Literal::vec1(&[100i8, -128]), Literal::vec1(&[100i8, -128])],
        )
        .unwrap(),
    );
    assert_eq!(got, [10000 + 16384]);
}

#[test]
fn dot_general_batch_dims_anywhere() {
    // out[b] = sum_k lhs[k, b] * rhs[b, k].
    let hlo = "HloModule t\nENTRY e {\n  a = f32[3,2] parameter(0)\n  b = f32[2,3] parameter(1)\n  ROOT d = f32[2] dot(a, b), lhs_batch_dims={1}, lhs_contracting_dims={0}, rhs_batch_dims={0}, rhs_contracting_dims={1}\n}\n";
    let a = Literal::from_vec(&[3, 2], vec![1f32, 2., 3., 4., 5., 6.]).unwrap();
    let b = Literal::from_vec(&[2, 3], vec![1f32, 1., 1., 2., 2., 2.]).unwrap();
    assert_eq!(vals::<f32>(&run(hlo, &[a, b]).unwrap()), [9., 24.]);
    // No contracting dims: an outer product.
    let hlo = "HloModule t\nENTRY e {\n  a = s32[2] parameter(0)\n  b = s32[3] parameter(1)\n  ROOT d = s32[2,3] dot(a, b), lhs_contracting_dims={}, rhs_contracting_dims={}\n}\n";
    let got: Vec<i32> =
        vals(&run(hlo, &[Literal::vec1(&[1, 2]), Literal::vec1(&[3, 4, 5])]).unwrap());
    assert_eq!(got, [3, 4, 5, 6, 8, 10]);
}

fn conv1d(x: &[f32], k: &[f32], window: &str, n_out: usize) -> Vec<f32> {
    let (n, m) = (x.len(), k.len());
    let hlo = format!("HloModule t\nENTRY e {{\n  x = f32[1,1,{n}] parameter(0)\n  k = f32[1,1,{m}] parameter(1)\n  ROOT c = f32[1,1,{n_out}] convolution(x, k), window={{{window}}}, dim_labels=bf0_oi0->bf0\n}}\n");
    let x = Literal::from_vec(&[1, 1, n as i64], x.to_vec()).unwrap();
    let k = Literal::from_vec(&[1, 1, m as i64], k.to_vec()).unwrap();
    vals(&run(&hlo, &[x, k]).unwrap())
}

#[test]
fn convolution_window_options() {
    let x = [1f32, 2., 3., 4., 5.];
    assert_eq!(conv1d(&x, &[1., 1.], "size=2", 4), [3., 5., 7., 9.]);
    assert_eq!(conv1d(&x, &[1., 1.], "size=2 stride=2", 2), [3., 7.]);
    assert_eq!(
        conv1d(&x, &[1., 1.], "size=2 pad=-1_1", 4),
        [5., 7., 9., 5.]
    );
    assert_eq!(
        conv1d(&x, &[1., 1.], "size=2 lhs_dilate=2", 8),
        [1., 2., 2., 3., 3., 4., 4., 5.]
    );
    assert_eq!(
        conv1d(&x, &[1., 1.], "size=2 rhs_dilate=2", 3),
        [4., 6., 8.]
    );
    assert_eq!(conv1d(&[1., 2., 3.], &[1., 2.], "size=2", 2), [5., 8.]);
    assert_eq!(
        conv1d(&[1., 2., 3.], &[1., 2.], "size=2 rhs_reversal=1", 2),
        [4., 7.]
    );
}

#[test]
fn convolution_feature_and_batch_groups() {
    // Two groups of one channel each: out channel g = kernel[g] * in channel g.
    let hlo = "HloModule t\nENTRY e {\n  x = f32[1,2,3] parameter(0)\n  k = f32[2,1,1] parameter(1)\n  ROOT c = f32[1,2,3] convolution(x, k), window={size=1}, dim_labels=bf0_oi0->bf0, feature_group_count=2\n}\n";
    let x = Literal::from_vec(&[1, 2, 3], vec![1f32, 2., 3., 10., 20., 30.]).unwrap();
    let k = Literal::from_vec(&[2, 1, 1], vec![2f32, 3.]).unwrap();
    assert_eq!(
        vals::<f32>(&run(hlo, &[x.clone(), k.clone()]).unwrap()),
        [2., 4., 6., 30., 60., 90.]
    );
    // Batch groups: the batch splits into two groups, output feature g uses group g.
    let hlo = "HloModule t\nENTRY e {\n  x = f32[2,1,3] parameter(0)\n  k = f32[2,1,1] parameter(1)\n  ROOT c = f32[1,2,3] convolution(x, k), window={size=1}, dim_labels=bf0_oi0->bf0, batch_group_count=2\n}\n";
    let xb = Literal::from_vec(&[2, 1, 3], vec![1f32, 2., 3., 10., 20., 30.]).unwrap();
    assert_eq!(
        vals::<f32>(&run(hlo, &[xb, k]).unwrap()),
        [2., 4., 6., 30., 60., 90.]
    );
}

#[test]
fn convolution_channels_last_layout() {
    // NWC input, WIO kernel, NWC output: a 2-channel sum over a width-2 window.
    let hlo = "HloModule t\nENTRY e {\n  x = f32[1,3,2] parameter(0)\n  k = f32[2,2,1] parameter(1)\n  ROOT c = f32[1,2,1] convolution(x, k), window={size=2}, dim_labels=b0f_0io->b0f\n}\n";
    let x = Literal::from_vec(&[1, 3, 2], vec![1f32, 10., 2., 20., 3., 30.]).unwrap();
    let k = Literal::from_vec(&[2, 2, 1], vec![1f32, 1., 1., 1.]).unwrap();
    assert_eq!(vals::<f32>(&run(hlo, &[x, k]).unwrap()), [33., 55.]);
}

#[test]
fn dot_in_half_and_complex_types() {
    use half::bf16;
    use num_complex::Complex32 as C;
    let hlo = "HloModule t\nENTRY e {\n  a = bf16[3] parameter(0)\n  b = bf16[3] parameter(1)\n  ROOT d = bf16[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n}\n";
    let a: Vec<bf16> = [1.0f32, 2.0, 3.0]
        .iter()
        .map(|&x| bf16::from_f32(x))
        .collect();
    assert_eq!(
        vals::<bf16>(&run(hlo, &[Literal::vec1(&a), Literal::vec1(&a)]).unwrap()),
        [bf16::from_f32(14.0)]
    );
    let hlo = "HloModule t\nENTRY e {\n  a = c64[2] parameter(0)\n  b = c64[2] parameter(1)\n  ROOT d = c64[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n}\n";
    let a = [C::new(1., 1.), C::new(0., 2.)];
    let b = [C::new(2., 0.), C::new(0., 1.)];
    // (1+i)*2 + (2i)*(i) = 2+2i - 2 = 2i; no conjugation.
    assert_eq!(
        vals::<C>(&run(hlo, &[Literal::vec1(&a), Literal::vec1(&b)]).unwrap()),
        [C::new(0., 2.)]
    );
}
