//! Cholesky, triangular-solve (reading only the relevant triangle), batch norm and FFT.

use super::{elem, run, vals};
use num_complex::Complex32 as C;
use xla_core::Literal;

fn close(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-5 * (1.0 + y.abs()))
}

#[test]
fn cholesky_lower_upper_batched_and_not_positive_definite() {
    let s2 = 2f32.sqrt();
    let hlo = |lower: bool| {
        format!("HloModule t\nENTRY e {{\n  a = f32[2,2,2] parameter(0)\n  ROOT c = f32[2,2,2] cholesky(a), lower={lower}\n}}\n")
    };
    // Junk (99) in the triangle that must not be read; the second matrix is not PD.
    let a = Literal::from_vec(&[2, 2, 2], vec![4f32, 99., 2., 3., 1., 2., 2., 1.]).unwrap();
    let l: Vec<f32> = vals(&run(&hlo(true), &[a]).unwrap());
    assert!(close(&l[..4], &[2., 0., 1., s2]), "{l:?}");
    assert!(l[4..].iter().all(|x| x.is_nan()), "{l:?}");
    let a = Literal::from_vec(&[2, 2, 2], vec![4f32, 2., 99., 3., 9., 0., 99., 16.]).unwrap();
    let u: Vec<f32> = vals(&run(&hlo(false), &[a]).unwrap());
    assert!(close(&u, &[2., 1., 0., s2, 3., 0., 0., 4.]), "{u:?}");
}

fn trsm(opts: &str, a: Vec<f32>, b: Vec<f32>, bdims: [i64; 2]) -> Vec<f32> {
    let [r, c] = bdims;
    let hlo = format!("HloModule t\nENTRY e {{\n  a = f32[2,2] parameter(0)\n  b = f32[{r},{c}] parameter(1)\n  ROOT x = f32[{r},{c}] triangular-solve(a, b), {opts}\n}}\n");
    vals(
        &run(
            &hlo,
            &[
                Literal::from_vec(&[2, 2], a).unwrap(),
                Literal::from_vec(&bdims, b).unwrap(),
            ],
        )
        .unwrap(),
    )
}

#[test]
fn triangular_solve_variants() {
    // Lower a = [[2, 0], [1, 1]] with junk 99 above the diagonal.
    let a = vec![2f32, 99., 1., 1.];
    assert_eq!(
        trsm(
            "left_side=true, lower=true, transpose_a=NO_TRANSPOSE",
            a.clone(),
            vec![2., 3.],
            [2, 1]
        ),
        [1., 2.]
    );
    assert_eq!(
        trsm(
            "left_side=true, lower=true, transpose_a=TRANSPOSE",
            a.clone(),
            vec![2., 3.],
            [2, 1]
        ),
        [-0.5, 3.]
    );
    assert_eq!(
        trsm(
            "left_side=false, lower=true, transpose_a=NO_TRANSPOSE",
            a.clone(),
            vec![4., 1.],
            [1, 2]
        ),
        [1.5, 1.]
    );
    // Unit diagonal: the diagonal (junk 9) is never read.
    assert_eq!(
        trsm(
            "left_side=true, lower=true, unit_diagonal=true, transpose_a=NO_TRANSPOSE",
            vec![9., 99., 1., 9.],
            vec![2., 3.],
            [2, 1]
        ),
        [2., 1.]
    );
    // Upper a = [[2, 1], [0, 4]] with junk below the diagonal.
    assert_eq!(
        trsm(
            "left_side=true, lower=false, transpose_a=NO_TRANSPOSE",
            vec![2., 1., 99., 4.],
            vec![4., 8.],
            [2, 1]
        ),
        [1., 2.]
    );
    assert_eq!(
        trsm(
            "left_side=true, lower=false, transpose_a=ADJOINT",
            vec![2., 1., 99., 4.],
            vec![2., 9.],
            [2, 1]
        ),
        [1., 2.]
    );
}

#[test]
fn batch_norm_training_inference_grad() {
    let hlo = "HloModule t\nENTRY e {\n  x = f32[2,2] parameter(0)\n  s = f32[2] parameter(1)\n  o = f32[2] parameter(2)\n  ROOT b = (f32[2,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0, feature_index=1\n}\n";
    let x = Literal::from_vec(&[2, 2], vec![1f32, 2., 3., 6.]).unwrap();
    let r = run(
        hlo,
        &[
            x.clone(),
            Literal::vec1(&[1f32, 2.]),
            Literal::vec1(&[0f32, 1.]),
        ],
    )
    .unwrap();
    assert_eq!(vals::<f32>(&elem(&r, 0)), [-1., -1., 1., 3.]);
    assert_eq!(vals::<f32>(&elem(&r, 1)), [2., 4.]);
    assert_eq!(vals::<f32>(&elem(&r, 2)), [1., 4.]);
    let hlo = "HloModule t\nENTRY e {\n  x = f32[2,2] parameter(0)\n  s = f32[2] parameter(1)\n  o = f32[2] parameter(2)\n  m = f32[2] parameter(3)\n  v = f32[2] parameter(4)\n  ROOT b = f32[2,2] batch-norm-inference(x, s, o, m, v), epsilon=0, feature_index=1\n}\n";
    let y: Vec<f32> = vals(
        &run(
            hlo,
            &[
                x.clone(),
                Literal::vec1(&[1f32, 1.]),
                Literal::vec1(&[0f32, 0.]),
                Literal::vec1(&[1f32, 2.]),
                Literal::vec1(&[4f32, 16.]),
            ],
        )
        .unwrap(),
    );
    assert_eq!(y, [0., 0., 1., 1.]);
    // grad with dy = 1 everywhere: grad_offset = N, grad_scale = sum(x - mean)/sigma = 0,
    // grad_x = scale/sigma * (1 - 1 - 0) = 0.
    let hlo = "HloModule t\nENTRY e {\n  x = f32[2,2] parameter(0)\n  s = f32[2] parameter(1)\n  m = f32[2] parameter(2)\n  v = f32[2] parameter(3)\n  dy = f32[2,2] parameter(4)\n  ROOT b = (f32[2,2], f32[2], f32[2]) batch-norm-grad(x, s, m, v, dy), epsilon=0, feature_index=1\n}\n";
    let dy = Literal::from_vec(&[2, 2], vec![1f32, 1., 1., 1.]).unwrap();
    let r = run(
        hlo,
        &[
            x,
            Literal::vec1(&[1f32, 1.]),
            Literal::vec1(&[2f32, 4.]),
            Literal::vec1(&[1f32, 4.]),
            dy,
        ],
    )
    .unwrap();
    assert_eq!(vals::<f32>(&elem(&r, 0)), [0., 0., 0., 0.]);
    assert_eq!(vals::<f32>(&elem(&r, 1)), [0., 0.]);
    assert_eq!(vals::<f32>(&elem(&r, 2)), [2., 2.]);
}

#[test]
fn fft_forward_inverse_real() {
    let hlo = "HloModule t\nENTRY e {\n  x = c64[4] parameter(0)\n  ROOT f = c64[4] fft(x), fft_type=FFT, fft_length={4}\n}\n";
    let x: Vec<C> = [0f32, 1., 0., 0.].iter().map(|&r| C::new(r, 0.)).collect();
    let got: Vec<C> = vals(&run(hlo, &[Literal::vec1(&x)]).unwrap());
    assert_eq!(
        got,
        [
            C::new(1., 0.),
            C::new(0., -1.),
            C::new(-1., 0.),
            C::new(0., 1.)
        ]
    );
    let hlo = "HloModule t\nENTRY e {\n  x = c64[4] parameter(0)\n  ROOT f = c64[4] fft(x), fft_type=IFFT, fft_length={4}\n}\n";
    let back: Vec<C> = vals(&run(hlo, &[Literal::vec1(&got)]).unwrap());
    assert_eq!(back, x);
    let hlo = "HloModule t\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT f = c64[3] fft(x), fft_type=RFFT, fft_length={4}\n}\n";
    let spec: Vec<C> = vals(&run(hlo, &[Literal::vec1(&[1f32, 2., 3., 4.])]).unwrap());
    assert_eq!(spec, [C::new(10., 0.), C::new(-2., 2.), C::new(-2., 0.)]);
    let hlo = "HloModule t\nENTRY e {\n  x = c64[3] parameter(0)\n  ROOT f = f32[4] fft(x), fft_type=IRFFT, fft_length={4}\n}\n";
    assert_eq!(
        vals::<f32>(&run(hlo, &[Literal::vec1(&spec)]).unwrap()),
        [1., 2., 3., 4.]
    );
    // 2-D FFT of a delta at the origin is all ones.
    let hlo = "HloModule t\nENTRY e {\n  x = c64[2,3] parameter(0)\n  ROOT f = c64[2,3] fft(x), fft_type=FFT, fft_length={2,3}\n}\n";
    let mut d = vec![C::new(0., 0.); 6];
    d[0] = C::new(1., 0.);
    let got: Vec<C> = vals(&run(hlo, &[Literal::from_vec(&[2, 3], d).unwrap()]).unwrap());
    assert_eq!(got, vec![C::new(1., 0.); 6]);
}
