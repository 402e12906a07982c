//! The recurrent cells, attention and dropout of `xla::nn` against flax, values and
//! gradients (scripts/make_nn_layer_fixtures.py: flax OptimizedLSTMCell, GRUCell and
//! MultiHeadDotProductAttention with a mask; each gradient is of `sum(out · r)` for a fixed
//! random `r`, w.r.t. every input and weight), each at two sizes from one definition.
#![allow(clippy::unwrap_used)]

mod nn_common;

use nn_common::{close, fixture};
use std::collections::HashMap;
use xla::computation;
use xla::Literal;

/// `sum(c'·rc) + sum(h'·rh)` after one LSTM step (3 inputs, 4 features).
#[computation(grad(x, c, h, wi, wh, b))]
#[allow(clippy::too_many_arguments)]
fn lstm_probe<const B: usize>(
    x: Tensor<f32, B, 3>,
    c: Tensor<f32, B, 4>,
    h: Tensor<f32, B, 4>,
    wi: Tensor<f32, 3, 16>,
    wh: Tensor<f32, 4, 16>,
    b: Tensor<f32, 16>,
    rc: Tensor<f32, B, 4>,
    rh: Tensor<f32, B, 4>,
) -> f32 {
    let (c2, h2) = nn::lstm_cell(x, c, h, wi, wh, b);
    (c2 * rc).sum() + (h2 * rh).sum()
}

/// `sum(h'·r)` after one GRU step.
#[computation(grad(x, h, wi, bi, wh, bhn))]
fn gru_probe<const B: usize>(
    x: Tensor<f32, B, 3>,
    h: Tensor<f32, B, 4>,
    wi: Tensor<f32, 3, 12>,
    bi: Tensor<f32, 12>,
    wh: Tensor<f32, 4, 12>,
    bhn: Tensor<f32, 4>,
    r: Tensor<f32, B, 4>,
) -> f32 {
    (nn::gru_cell(x, h, wi, bi, wh, bhn) * r).sum()
}

/// `sum(y·r)` of 2-head attention (depth 2, 6 features in, 5 out).
#[computation(grad(xq, xkv, wq, bq, wk, bk, wv, bv, wo, bo))]
#[allow(clippy::too_many_arguments)]
fn attention_probe<const B: usize, const Q: usize, const K: usize>(
    xq: Tensor<f32, B, Q, 6>,
    xkv: Tensor<f32, B, K, 6>,
    mask: Tensor<bool, B, Q, K>,
    wq: Tensor<f32, 6, 2, 2>,
    bq: Tensor<f32, 2, 2>,
    wk: Tensor<f32, 6, 2, 2>,
    bk: Tensor<f32, 2, 2>,
    wv: Tensor<f32, 6, 2, 2>,
    bv: Tensor<f32, 2, 2>,
    wo: Tensor<f32, 2, 2, 5>,
    bo: Tensor<f32, 5>,
    r: Tensor<f32, B, Q, 5>,
) -> f32 {
    (nn::multi_head_attention(xq, xkv, mask, wq, bq, wk, bk, wv, bv, wo, bo) * r).sum()
}

/// The fixture's arrays `names`, in order.
fn args(f: &HashMap<String, Literal>, names: &[&str]) -> Vec<Literal> {
    names.iter().map(|n| f[*n].clone()).collect()
}

/// The value and each gradient `g_NAME` of `value_and_grad`'s tuple against the fixture.
fn check_grads(out: &Literal, f: &HashMap<String, Literal>, wrt: &[&str], tol: f32) {
    let parts = out.tuple_elements().unwrap();
    close(&parts[0], &f["loss"], tol);
    assert_eq!(parts.len(), wrt.len() + 1);
    for (got, n) in parts[1..].iter().zip(wrt) {
        close(got, &f[&format!("g_{n}")], tol);
    }
}

#[test]
fn lstm_cell_matches_flax_values_and_gradients() {
    let names = ["x", "c", "h", "wi", "wh", "b"];
    for b in [2, 3] {
        let f = fixture(&format!("lstm_cell_b{b}"));
        let out = xla::nn::lstm_cell::run(&args(&f, &names)).unwrap();
        let parts = out.tuple_elements().unwrap();
        close(&parts[0], &f["c2"], 1e-6);
        close(&parts[1], &f["h2"], 1e-6);
        let probe = args(&f, &["x", "c", "h", "wi", "wh", "b", "rc", "rh"]);
        check_grads(
            &lstm_probe::value_and_grad::run(&probe).unwrap(),
            &f,
            &names,
            1e-5,
        );
    }
}

#[test]
fn gru_cell_matches_flax_values_and_gradients() {
    let names = ["x", "h", "wi", "bi", "wh", "bhn"];
    for b in [2, 3] {
        let f = fixture(&format!("gru_cell_b{b}"));
        let h2 = xla::nn::gru_cell::run(&args(&f, &names)).unwrap();
        close(&h2, &f["h2"], 1e-6);
        let mut probe = args(&f, &names);
        probe.push(f["r"].clone());
        check_grads(
            &gru_probe::value_and_grad::run(&probe).unwrap(),
            &f,
            &names,
            1e-5,
        );
    }
}

/// The fixture's 0/1 mask as `pred`.
fn mask(f: &HashMap<String, Literal>) -> Literal {
    let m = &f["mask"];
    let values: Vec<bool> = m.data::<f32>().unwrap().iter().map(|v| *v != 0.0).collect();
    Literal::from_vec(m.shape().dims(), values).unwrap()
}

#[test]
fn attention_with_a_mask_matches_flax_values_and_gradients() {
    let weights = ["wq", "bq", "wk", "bk", "wv", "bv", "wo", "bo"];
    for size in ["b2q3k4", "b1q2k5"] {
        let f = fixture(&format!("attention_{size}"));
        let mut a = args(&f, &["xq", "xkv"]);
        a.push(mask(&f));
        a.extend(args(&f, &weights));
        let y = xla::nn::multi_head_attention::run(&a).unwrap();
        close(&y, &f["y"], 1e-5);
        a.push(f["r"].clone());
        let wrt: Vec<&str> = ["xq", "xkv"].iter().chain(&weights).copied().collect();
        check_grads(
            &attention_probe::value_and_grad::run(&a).unwrap(),
            &f,
            &wrt,
            1e-5,
        );
    }
}

/// `sum(dropout(x)·r)`, for the gradient through the mask.
#[computation(grad(x))]
fn dropout_probe<const B: usize, const F: usize>(
    x: Tensor<f32, B, F>,
    state: Tensor<u64, 2>,
    r: Tensor<f32, B, F>,
) -> f32 {
    let (y, _) = nn::dropout(x, state, 0.5);
    (y * r).sum()
}

#[test]
fn dropout_keeps_one_minus_rate_scaled_and_is_deterministic_in_its_state() {
    let (rows, cols) = (64usize, 128usize);
    let x = vec![1.0f32; rows * cols];
    let state = [7u64, 42];
    let run = |state: &[u64]| {
        let out = xla::nn::dropout::apply(
            Literal::from_vec(&[rows as i64, cols as i64], x.clone()).unwrap(),
            Literal::from_vec(&[2], state.to_vec()).unwrap(),
            Literal::scalar(0.25f32),
        )
        .unwrap();
        let parts = out.tuple_elements().unwrap().to_vec();
        (
            parts[0].data::<f32>().unwrap().to_vec(),
            parts[1].data::<u64>().unwrap().to_vec(),
        )
    };
    let (y, next) = run(&state);
    let dropped = y.iter().filter(|v| **v == 0.0).count() as f64 / y.len() as f64;
    // 8,192 draws at p = 0.25: the standard deviation of the fraction is 0.0048.
    assert!((dropped - 0.25).abs() < 0.025, "dropped {dropped}");
    let scale = 1.0f32 / (1.0 - 0.25);
    assert!(y.iter().all(|v| *v == 0.0 || *v == scale));
    // The same state, the same mask; the returned state, another mask.
    assert_eq!(run(&state), (y.clone(), next.clone()));
    assert_ne!(next, state);
    let (y2, _) = run(&next);
    assert_ne!(y2, y);
    // A different seed, a different mask.
    assert_ne!(run(&[8, 42]).0, y);
}

#[test]
fn dropout_gradient_is_the_mask_scaled() {
    let x: Vec<f32> = (0..24).map(|i| i as f32 * 0.1 + 0.5).collect();
    let r: Vec<f32> = (0..24).map(|i| (i as f32).sin()).collect();
    let state = [3u64, 9];
    let g = dropout_probe::grad::call::<4, 6>(&x, &state, &r).unwrap();
    let (y, _) = xla::nn::dropout::call::<4, 6>(&x, &state, 0.5).unwrap();
    for ((g, y), r) in g.iter().zip(&y).zip(&r) {
        let want = if *y == 0.0 { 0.0 } else { 2.0 * r };
        assert!((g - want).abs() < 1e-6, "{g} vs {want}");
    }
    assert!(y.contains(&0.0) && y.iter().any(|v| *v != 0.0));
}
