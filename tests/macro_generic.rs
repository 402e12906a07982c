//! `#[computation]` generic over sizes: instantiation per size (bound from the arguments or
//! given explicitly), the cache, preconditions checked per size, bad input as errors, and
//! each instance bit for bit equal to the fixed-size computation.
#![allow(clippy::unwrap_used)]

use xla::computation;
use xla::Literal;

#[computation]
fn dense<const B: usize>(
    x: Tensor<f32, B, 4>,
    w: Tensor<f32, 4, 3>,
    b: Tensor<f32, 3>,
) -> Tensor<f32, B, 3> {
    relu(x.dot(w) + b)
}

#[test]
fn call_binds_sizes_explicitly_and_apply_from_shapes() {
    let x: Vec<f32> = (0..8).map(|i| i as f32 - 3.0).collect();
    let w: Vec<f32> = (0..12).map(|i| (i as f32) * 0.25 - 1.0).collect();
    let b = [0.5f32, -0.5, 0.0];
    let y = dense::call::<2>(&x, &w, &b).unwrap();
    let mut want = vec![0.0f32; 6];
    for r in 0..2 {
        for c in 0..3 {
            let s: f32 = (0..4).map(|k| x[r * 4 + k] * w[k * 3 + c]).sum();
            want[r * 3 + c] = (s + b[c]).max(0.0);
        }
    }
    assert_eq!(y, want);
    let out = dense::apply(
        Literal::from_vec(&[2, 4], x.clone()).unwrap(),
        Literal::from_vec(&[4, 3], w.clone()).unwrap(),
        Literal::from_vec(&[3], b.to_vec()).unwrap(),
    )
    .unwrap();
    assert_eq!(out.shape().to_string(), "f32[2,3]");
    assert_eq!(out.data::<f32>().unwrap(), &want[..]);
}

#[test]
fn hlo_is_a_function_of_the_sizes() {
    let h5 = dense::hlo(&[5]).unwrap();
    assert!(h5.contains("f32[5,4]"), "{h5}");
    assert!(h5.contains("f32[5,3]"), "{h5}");
    let h7 = dense::hlo(&[7]).unwrap();
    assert!(h7.contains("f32[7,3]"), "{h7}");
}

/// A 3×3 VALID convolution: needs `H ≥ 3`, a precondition checked once per size.
#[computation]
fn conv3<const H: usize, const W: usize>(
    x: Tensor<f32, 1, 1, H, W>,
    k: Tensor<f32, 1, 1, 3, 3>,
) -> Tensor<f32, 1, 1, { H - 2 }, { W - 2 }> {
    x.conv(k, [1, 1])
}

#[test]
fn a_precondition_is_checked_per_size_and_names_the_sizes() {
    let k = [1.0f32; 9];
    let y = conv3::call::<3, 4>(&[1.0; 12], &k).unwrap();
    assert_eq!(y, vec![9.0, 9.0]);
    // H = 2: the window covers no position, an empty result (XLA's rule).
    assert_eq!(
        conv3::call::<2, 4>(&[1.0; 8], &k).unwrap(),
        Vec::<f32>::new()
    );
    let err = conv3::call::<1, 4>(&[1.0; 4], &k).unwrap_err().to_string();
    assert!(
        err.starts_with(
            "conv3 at H = 1, W = 4: dimension `H-2` is -1: a dimension cannot be negative"
        ),
        "{err}"
    );
    // The failure is not cached: a good size still works, and the bad one fails again.
    assert_eq!(conv3::call::<3, 3>(&[2.0; 9], &k).unwrap(), vec![18.0]);
    assert!(conv3::call::<1, 4>(&[1.0; 4], &k).is_err());
}

#[test]
fn bad_arguments_are_errors_naming_the_size_and_values() {
    let x = Literal::from_vec(&[2, 4], vec![0.0f32; 8]).unwrap();
    let w = Literal::from_vec(&[4, 3], vec![0.0f32; 12]).unwrap();
    let b = Literal::from_vec(&[3], vec![0.0f32; 3]).unwrap();
    // Wrong trailing dim: the instance's shape check names the parameter.
    let bad_w = Literal::from_vec(&[5, 3], vec![0.0f32; 15]).unwrap();
    let err = dense::apply(x.clone(), bad_w, b.clone())
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "dense at B = 2: argument 1 (`w`) has shape f32[5,3] but the computation takes f32[4,3]"
    );
    // A rank mismatch where a size is read.
    let flat = Literal::from_vec(&[8], vec![0.0f32; 8]).unwrap();
    let err = dense::apply(flat, w.clone(), b.clone())
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "dense at B = 8: argument 0 (`x`) has shape f32[8] but the computation takes f32[8,4]"
    );
    // A slice of the wrong length for the explicit size.
    let err = dense::call::<3>(&[0.0; 8], &[0.0; 12], &[0.0; 3])
        .unwrap_err()
        .to_string();
    assert!(!err.is_empty());
    // An overflowing size.
    let err = dense::instance(&[usize::MAX]).unwrap_err().to_string();
    assert!(
        err.contains("size `B`") && err.contains("overflows"),
        "{err}"
    );
    let err = dense::instance(&[1, 2]).unwrap_err().to_string();
    assert_eq!(err, "dense: takes 1 sizes, found 2");
    let _ = (x, w, b);
}

/// `B` appears in two parameters: their shapes must agree on it.
#[computation]
fn pair<const B: usize>(x: Tensor<f32, B>, y: Tensor<f32, B, 2>) -> Tensor<f32, B, 2> {
    y * x.broadcast_in_dim([B, 2], [0])
}

#[test]
fn a_size_bound_to_two_values_is_an_error() {
    let x = Literal::from_vec(&[3], vec![1.0f32; 3]).unwrap();
    let y = Literal::from_vec(&[4, 2], vec![1.0f32; 8]).unwrap();
    let err = pair::apply(x, y).unwrap_err().to_string();
    assert_eq!(
        err,
        "pair: size `B` is 3 from `x` (dim 0) but 4 from `y` (dim 0)"
    );
    let y = pair::call::<2>(&[2.0, 3.0], &[1.0, 1.0, 1.0, 1.0]).unwrap();
    assert_eq!(y, vec![2.0, 2.0, 3.0, 3.0]);
}

/// `N` appears only as `{ 2 * N }`: it cannot be read from the arguments.
#[computation]
fn doubled<const N: usize>(x: Tensor<f32, { 2 * N }>) -> Tensor<f32, N, 2> {
    x.reshape([N, 2])
}

#[test]
fn a_size_no_dim_names_alone_must_be_given() {
    let x = Literal::from_vec(&[4], vec![1.0f32; 4]).unwrap();
    let err = doubled::run(&[x.clone()]).unwrap_err().to_string();
    assert!(
        err.starts_with("doubled: size `N` is not the whole of any parameter's dimension"),
        "{err}"
    );
    // `apply` takes it as a const argument; a value the shape contradicts is an error.
    let y = doubled::apply::<2>(x.clone()).unwrap();
    assert_eq!(y.shape().to_string(), "f32[2,2]");
    let err = doubled::apply::<3>(x).unwrap_err().to_string();
    assert!(err.contains("N = 3") && err.contains("f32[6]"), "{err}");
    assert_eq!(
        doubled::call::<2>(&[1.0, 2.0, 3.0, 4.0]).unwrap(),
        vec![1.0, 2.0, 3.0, 4.0]
    );
}

/// A layer generic over the batch, called by a generic model (the size passes through) and
/// by a fixed-size one (the size is fixed); the gradient goes through the calls.
#[computation]
fn layer<const B: usize, const I: usize, const O: usize>(
    x: Tensor<f32, B, I>,
    w: Tensor<f32, I, O>,
) -> Tensor<f32, B, O> {
    x.dot(w).tanh()
}

#[computation(grad(w1, w2))]
fn model<const B: usize>(
    x: Tensor<f32, B, 4>,
    w1: Tensor<f32, 4, 3>,
    w2: Tensor<f32, 3, 1>,
) -> f32 {
    layer(layer(x, w1), w2).sum()
}

#[computation(grad(w1, w2))]
fn model2(x: Tensor<f32, 2, 4>, w1: Tensor<f32, 4, 3>, w2: Tensor<f32, 3, 1>) -> f32 {
    layer(layer(x, w1), w2).sum()
}

#[test]
fn generic_computations_call_generic_computations() {
    let x: Vec<f32> = (0..8).map(|i| (i as f32 * 0.3).cos()).collect();
    let w1: Vec<f32> = (0..12).map(|i| (i as f32 * 0.7).sin()).collect();
    let w2 = [0.5f32, -0.25, 1.0];
    let want: f32 = {
        let h: Vec<f32> = (0..6)
            .map(|k| {
                let (r, c) = (k / 3, k % 3);
                (0..4)
                    .map(|j| x[r * 4 + j] * w1[j * 3 + c])
                    .sum::<f32>()
                    .tanh()
            })
            .collect();
        (0..2)
            .map(|r| (0..3).map(|c| h[r * 3 + c] * w2[c]).sum::<f32>().tanh())
            .sum()
    };
    let got = model::call::<2>(&x, &w1, &w2).unwrap();
    assert!((got - want).abs() < 1e-6, "{got} vs {want}");
    assert_eq!(got.to_bits(), model2::call(&x, &w1, &w2).unwrap().to_bits());
    // The fixed caller imported `layer` at B = 2, I = 4, O = 3 and at B = 2, I = 3, O = 1.
    assert!(model2::HLO.contains("f32[2,4]") && model2::HLO.contains("f32[3,1]"));
    // The gradient of the generic caller equals the fixed one's, bit for bit.
    let (g1, g2) = model::grad::call::<2>(&x, &w1, &w2).unwrap();
    let (f1, f2) = model2::grad::call(&x, &w1, &w2).unwrap();
    assert_eq!((g1.len(), g2.len()), (12, 3));
    assert!(g2.iter().any(|g| *g != 0.0));
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    assert_eq!((bits(&g1), bits(&g2)), (bits(&f1), bits(&f2)));
    // And at another size.
    let (g1, _) = model::grad::call::<1>(&x[..4], &w1, &w2).unwrap();
    assert!(g1.iter().all(|g| g.is_finite()));
}

#[test]
fn the_cache_is_shared_by_threads_and_builds_each_size_once() {
    let handles: Vec<_> = (0..4)
        .map(|t| {
            std::thread::spawn(move || {
                let x = vec![t as f32; 6 * 4];
                let y = dense::call::<6>(&x, &[1.0; 12], &[0.0; 3]).unwrap();
                (y, dense::instance(&[6]).unwrap())
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    for (t, (y, instance)) in results.iter().enumerate() {
        assert_eq!(y, &vec![4.0 * t as f32; 18]);
        assert!(
            std::sync::Arc::ptr_eq(instance, &results[0].1),
            "one instance per size"
        );
        assert_eq!(instance.sizes(), &[6]);
    }
}
