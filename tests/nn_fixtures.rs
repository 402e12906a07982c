//! `xla::nn` against flax and optax: the fixtures in testdata/nn were made by
//! `scripts/make_nn_fixtures.py` (flax.linen Dense and LayerNorm, optax.softmax_cross_entropy
//! and its jax.grad) at batch sizes 3 and 5; each layer runs at both sizes from one
//! definition.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use xla::Literal;

/// The arrays of one fixture file: `name dims... : values...` per line.
fn fixture(name: &str) -> HashMap<String, Literal> {
    let path = format!("{}/testdata/nn/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut out = HashMap::new();
    for line in text.lines() {
        let (head, values) = line.split_once(" : ").unwrap();
        let mut head = head.split(' ');
        let key = head.next().unwrap().to_string();
        let dims: Vec<i64> = head
            .filter(|d| !d.is_empty())
            .map(|d| d.parse().unwrap())
            .collect();
        let values: Vec<f32> = values.split(' ').map(|v| v.parse().unwrap()).collect();
        let lit = if dims.is_empty() {
            Literal::scalar(values[0])
        } else {
            Literal::from_vec(&dims, values).unwrap()
        };
        out.insert(key, lit);
    }
    out
}

/// Within `tol` of flax's values, relative to the value's size.
fn close(got: &Literal, want: &Literal, tol: f32) {
    assert_eq!(got.shape(), want.shape());
    for (g, w) in got
        .data::<f32>()
        .unwrap()
        .iter()
        .zip(want.data::<f32>().unwrap())
    {
        assert!((g - w).abs() <= tol * (1.0 + w.abs()), "{g} vs {w}");
    }
}

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
