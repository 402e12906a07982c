//! `xla::nn` against flax and optax: the fixtures in testdata/nn were made by
//! `scripts/make_nn_fixtures.py` (flax.linen Dense, LayerNorm, RMSNorm, Embed;
//! optax.softmax_cross_entropy and squared_error with their jax.grad; three optax.adam and
//! optax.sgd(momentum) updates) at two sizes each; each runs at both sizes from one
//! definition.
#![allow(clippy::unwrap_used)]

mod nn_common;

use nn_common::{close, fixture};
use xla::Literal;

#[test]
fn dense_matches_flax_at_two_batch_sizes() {
    for b in [3, 5] {
        let f = fixture(&format!("dense_b{b}"));
        let y = xla::nn::dense::apply(f["x"].clone(), f["w"].clone(), f["b"].clone()).unwrap();
        close(&y, &f["y"], 1e-6);
    }
}

#[test]
fn layer_norm_matches_flax_at_two_batch_sizes() {
    for b in [3, 5] {
        let f = fixture(&format!("layer_norm_b{b}"));
        let y = xla::nn::layer_norm::apply(f["x"].clone(), f["scale"].clone(), f["bias"].clone())
            .unwrap();
        close(&y, &f["y"], 1e-5);
    }
}

#[test]
fn softmax_cross_entropy_and_its_gradient_match_optax() {
    for b in [3, 5] {
        let f = fixture(&format!("softmax_cross_entropy_b{b}"));
        let (logits, labels) = (f["logits"].clone(), f["labels"].clone());
        let loss = xla::nn::softmax_cross_entropy::apply(logits.clone(), labels.clone()).unwrap();
        close(&loss, &f["loss"], 1e-6);
        let grad = xla::nn::softmax_cross_entropy::grad::apply(logits, labels).unwrap();
        close(&grad, &f["grad"], 1e-6);
    }
}

#[test]
fn layers_take_explicit_sizes_too() {
    let f = fixture("dense_b3");
    let data = |k: &str| f[k].data::<f32>().unwrap().to_vec();
    let y = xla::nn::dense::call::<3, 6, 4>(&data("x"), &data("w"), &data("b")).unwrap();
    close(&Literal::from_vec(&[3, 4], y).unwrap(), &f["y"], 1e-6);
    let err = xla::nn::dense::call::<3, 5, 4>(&data("x"), &data("w"), &data("b")).unwrap_err();
    assert!(!err.to_string().is_empty());
}

#[test]
fn rms_norm_matches_flax() {
    for b in [3, 5] {
        let f = fixture(&format!("rms_norm_b{b}"));
        let y = xla::nn::rms_norm::apply(f["x"].clone(), f["scale"].clone()).unwrap();
        close(&y, &f["y"], 1e-5);
    }
}

#[test]
fn embedding_matches_flax() {
    for n in [3, 5] {
        let f = fixture(&format!("embedding_n{n}"));
        let ids: Vec<i32> = f["ids"]
            .data::<f32>()
            .unwrap()
            .iter()
            .map(|v| *v as i32)
            .collect();
        let ids = Literal::from_vec(&[ids.len() as i64], ids).unwrap();
        let y = xla::nn::embedding::apply(f["table"].clone(), ids).unwrap();
        close(&y, &f["y"], 0.0);
    }
}

#[test]
fn mse_and_its_gradient_match_optax() {
    for b in [3, 5] {
        let f = fixture(&format!("mse_b{b}"));
        let (pred, target) = (f["pred"].clone(), f["target"].clone());
        close(
            &xla::nn::mse::apply(pred.clone(), target.clone()).unwrap(),
            &f["loss"],
            1e-6,
        );
        close(
            &xla::nn::mse::grad::apply(pred, target).unwrap(),
            &f["grad"],
            1e-6,
        );
    }
}

/// Three optimizer steps (gradients `g1`, `g2`, `g3` at t = 1, 2, 3) against optax's.
#[test]
fn adam_and_sgd_momentum_steps_match_optax() {
    let scalar = |v: f32| Literal::scalar(v);
    for n in [4i64, 9] {
        let f = fixture(&format!("adam_n{n}"));
        let zeros = Literal::from_vec(&[n], vec![0.0f32; n as usize]).unwrap();
        let mut state = vec![f["p"].clone(), zeros.clone(), zeros.clone()];
        for (t, g) in ["g1", "g2", "g3"].iter().enumerate() {
            let [p, m, v] = [&state[0], &state[1], &state[2]].map(Literal::clone);
            let out =
                xla::nn::adam::apply(p, f[*g].clone(), m, v, scalar(t as f32 + 1.0), scalar(0.01))
                    .unwrap();
            state = out.tuple_elements().unwrap().to_vec();
        }
        close(&state[0], &f["p3"], 1e-6);
        close(&state[1], &f["m3"], 1e-6);
        close(&state[2], &f["v3"], 1e-6);

        let f = fixture(&format!("sgd_momentum_n{n}"));
        let mut state = vec![f["p"].clone(), zeros.clone()];
        for g in ["g1", "g2", "g3"] {
            let [p, trace] = [&state[0], &state[1]].map(Literal::clone);
            let out =
                xla::nn::sgd_momentum::apply(p, f[g].clone(), trace, scalar(0.1), scalar(0.9))
                    .unwrap();
            state = out.tuple_elements().unwrap().to_vec();
        }
        close(&state[0], &f["p3"], 1e-6);
        close(&state[1], &f["trace3"], 1e-6);
    }
}

#[test]
fn convolutions_and_pools_match_flax_at_two_image_sizes() {
    for size in ["2x5x6", "1x4x3"] {
        let f = fixture(&format!("conv2d_nhwc_{size}"));
        close(
            &xla::nn::conv2d_nhwc::apply(f["x"].clone(), f["k"].clone()).unwrap(),
            &f["y"],
            1e-5,
        );
        let f = fixture(&format!("conv2d_nchw_{size}"));
        close(
            &xla::nn::conv2d_nchw::apply(f["x"].clone(), f["k"].clone()).unwrap(),
            &f["y"],
            1e-5,
        );
        let f = fixture(&format!("max_pool_{size}"));
        close(
            &xla::nn::max_pool_2x2::apply(f["x"].clone()).unwrap(),
            &f["y"],
            0.0,
        );
        let f = fixture(&format!("avg_pool_{size}"));
        close(
            &xla::nn::avg_pool_2x2::apply(f["x"].clone()).unwrap(),
            &f["y"],
            1e-6,
        );
    }
}

/// A model of this crate (another crate than xla) calling layers of `xla::nn` inside its
/// computation, generic over the batch, with its gradient through them.
#[xla::computation(grad(w, b))]
fn classifier<const B: usize>(
    x: Tensor<f32, B, 6>,
    scale: Tensor<f32, 6>,
    shift: Tensor<f32, 6>,
    w: Tensor<f32, 6, 10>,
    b: Tensor<f32, 10>,
    labels: Tensor<f32, B, 10>,
) -> f32 {
    let logits = xla::nn::dense(nn::layer_norm(x, scale, shift), w, b);
    nn::softmax_cross_entropy(logits, labels)
}

#[test]
fn layers_are_called_inside_a_computation_of_another_crate() {
    let f = fixture("softmax_cross_entropy_b3");
    let labels = f["labels"].data::<f32>().unwrap().to_vec();
    let x: Vec<f32> = (0..18).map(|i| (i as f32 * 0.7).sin()).collect();
    let w: Vec<f32> = (0..60).map(|i| (i as f32 * 0.3).cos() * 0.5).collect();
    let b: Vec<f32> = (0..10).map(|i| i as f32 * 0.1).collect();
    let (scale, shift): (Vec<f32>, Vec<f32>) = (0..6)
        .map(|i| (1.0 + i as f32 * 0.1, i as f32 * -0.05))
        .unzip();
    let loss = classifier::call::<3>(&x, &scale, &shift, &w, &b, &labels).unwrap();
    // The same through the layers' own modules, step by step.
    let lit = |d: &[i64], v: &[f32]| Literal::from_vec(d, v.to_vec()).unwrap();
    let normed =
        xla::nn::layer_norm::apply(lit(&[3, 6], &x), lit(&[6], &scale), lit(&[6], &shift)).unwrap();
    let logits = xla::nn::dense::apply(normed, lit(&[6, 10], &w), lit(&[10], &b)).unwrap();
    let want = xla::nn::softmax_cross_entropy::apply(logits, lit(&[3, 10], &labels)).unwrap();
    assert!(
        (loss - want.data::<f32>().unwrap()[0]).abs() < 1e-6,
        "{loss} vs {want:?}"
    );
    let (gw, gb) = classifier::grad::call::<3>(&x, &scale, &shift, &w, &b, &labels).unwrap();
    assert_eq!((gw.len(), gb.len()), (60, 10));
    // The bias gradient of a mean softmax cross-entropy sums to zero over the classes.
    assert!(gb.iter().sum::<f32>().abs() < 1e-6 && gb.iter().any(|g| *g != 0.0));
}

#[test]
fn batch_norm_matches_flax_in_training_and_inference() {
    for size in ["2x3x4", "3x2x2"] {
        let f = fixture(&format!("batch_norm_train_{size}"));
        let args = ["x", "scale", "bias", "mean", "var"].map(|k| f[k].clone());
        let out = xla::nn::batch_norm_train::run(&args).unwrap();
        let parts = out.tuple_elements().unwrap();
        close(&parts[0], &f["y"], 1e-5);
        close(&parts[1], &f["new_mean"], 1e-6);
        close(&parts[2], &f["new_var"], 1e-6);
        let f = fixture(&format!("batch_norm_infer_{size}"));
        let args = ["x", "scale", "bias", "mean", "var"].map(|k| f[k].clone());
        close(
            &xla::nn::batch_norm_infer::run(&args).unwrap(),
            &f["y"],
            1e-5,
        );
    }
}
