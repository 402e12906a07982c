//! A whole training step as one computation: forward, `value_and_grad` inside the body and
//! the optimizer update, against two jitted optax steps each, the same generic step run
//! at two batch sizes with its state threaded.
//! - A CNN whose parameters and Adam state are nested tuples, one tuple per layer, in its
//!   arguments and its result (scripts/make_train_step_fixtures.py: a flax CNN, conv 3×3
//!   SAME 1→4 with bias, relu, max-pool 2×2, dense → 3, on 6×6 images; `optax.adam(0.01)`
//!   over the pytree `((kernel, bias), (kernel, bias))`; a batch of 3, then of 2).
//! - A logistic regression with flat parameters under
//!   `optax.chain(clip_by_global_norm(0.5), adamw(0.01, weight_decay=0.1))`
//!   (scripts/make_nn_layer_fixtures.py; a batch of 5, then of 3).
#![allow(clippy::unwrap_used)]

mod nn_common;

use nn_common::{close, fixture};
use std::collections::HashMap;
use xla::computation;
use xla::Literal;

/// A fixture's arrays by name.
type Fixture = HashMap<String, Literal>;

/// What a computation's `run` returns.
type Run = fn(&[Literal]) -> Result<Literal, Box<dyn std::error::Error + Send + Sync>>;

/// Two steps of `step` on the fixture's batches 1 and 2: each takes `state`, `t` (1, 2),
/// `x{k}` and `y{k}`; the last `state.len()` elements of its result are the next state;
/// `check(k, parts)` compares step `k`'s result with the fixture.
fn two_steps(f: &Fixture, mut state: Vec<Literal>, step: Run, check: impl Fn(usize, &[Literal])) {
    for k in [1, 2] {
        let mut args = state.clone();
        args.push(Literal::scalar(k as f32));
        args.extend([f[&format!("x{k}")].clone(), f[&format!("y{k}")].clone()]);
        let out = step(&args).unwrap();
        let parts = out.tuple_elements().unwrap();
        check(k, parts);
        state = parts[parts.len() - state.len()..].to_vec();
    }
}

/// The same structure as `t` (a literal or nested tuple), every array zero.
fn zeros_like(t: &Literal) -> Literal {
    match t.tuple_elements() {
        Some(elems) => Literal::tuple(elems.iter().map(zeros_like).collect()),
        None => {
            let dims = t.shape().dims().to_vec();
            Literal::from_vec(&dims, vec![0.0f32; t.element_count()]).unwrap()
        }
    }
}

/// The loss of the CNN on a batch of `B` images of `H`×`H` (`H` even); its parameters are
/// `((conv kernel, conv bias), (dense weight, dense bias))`.
#[computation]
fn cnn_loss<const B: usize, const H: usize>(
    params: (
        (Tensor<f32, 3, 3, 1, 4>, Tensor<f32, 4>),
        (Tensor<f32, { (H / 2) * (H / 2) * 4 }, 3>, Tensor<f32, 3>),
    ),
    x: Tensor<f32, B, H, H, 1>,
    y: Tensor<f32, B, 3>,
) -> f32 {
    let ((k, c), (w, b)) = params;
    let h = nn::conv2d_nhwc(x, k) + c.broadcast_in_dim([B, H, H, 4], [3]);
    let h = nn::max_pool_2x2(relu(h)).reshape([B, { (H / 2) * (H / 2) * 4 }]);
    nn::softmax_cross_entropy(nn::dense(h, w, b), y)
}

/// One Adam step: the loss, the gradient (a tuple of the parameters' structure, from
/// `value_and_grad` w.r.t. the whole tuple), then the new parameters, first and second
/// moments, each a tuple of per-layer tuples.
#[computation]
#[allow(clippy::type_complexity)]
fn cnn_step<const B: usize, const H: usize>(
    params: (
        (Tensor<f32, 3, 3, 1, 4>, Tensor<f32, 4>),
        (Tensor<f32, { (H / 2) * (H / 2) * 4 }, 3>, Tensor<f32, 3>),
    ),
    m: (
        (Tensor<f32, 3, 3, 1, 4>, Tensor<f32, 4>),
        (Tensor<f32, { (H / 2) * (H / 2) * 4 }, 3>, Tensor<f32, 3>),
    ),
    v: (
        (Tensor<f32, 3, 3, 1, 4>, Tensor<f32, 4>),
        (Tensor<f32, { (H / 2) * (H / 2) * 4 }, 3>, Tensor<f32, 3>),
    ),
    t: f32,
    x: Tensor<f32, B, H, H, 1>,
    y: Tensor<f32, B, 3>,
) -> (
    f32,
    (
        (Tensor<f32, 3, 3, 1, 4>, Tensor<f32, 4>),
        (Tensor<f32, { (H / 2) * (H / 2) * 4 }, 3>, Tensor<f32, 3>),
    ),
    (
        (Tensor<f32, 3, 3, 1, 4>, Tensor<f32, 4>),
        (Tensor<f32, { (H / 2) * (H / 2) * 4 }, 3>, Tensor<f32, 3>),
    ),
    (
        (Tensor<f32, 3, 3, 1, 4>, Tensor<f32, 4>),
        (Tensor<f32, { (H / 2) * (H / 2) * 4 }, 3>, Tensor<f32, 3>),
    ),
    (
        (Tensor<f32, 3, 3, 1, 4>, Tensor<f32, 4>),
        (Tensor<f32, { (H / 2) * (H / 2) * 4 }, 3>, Tensor<f32, 3>),
    ),
) {
    let (loss, g) = value_and_grad(cnn_loss, params, x, y);
    let ((k, c), (w, b)) = params;
    let ((gk, gc), (gw, gb)) = g;
    let ((mk, mc), (mw, mb)) = m;
    let ((vk, vc), (vw, vb)) = v;
    let (k, mk, vk) = nn::adam(k, gk, mk, vk, t, 0.01);
    let (c, mc, vc) = nn::adam(c, gc, mc, vc, t, 0.01);
    let (w, mw, vw) = nn::adam(w, gw, mw, vw, t, 0.01);
    let (b, mb, vb) = nn::adam(b, gb, mb, vb, t, 0.01);
    (
        loss,
        g,
        ((k, c), (w, b)),
        ((mk, mc), (mw, mb)),
        ((vk, vc), (vw, vb)),
    )
}

/// `((k, c), (w, b))` of the fixture's arrays `{prefix}_k`, ... as a nested tuple literal.
fn layers(f: &Fixture, prefix: &str) -> Literal {
    let get = |n: &str| f[&format!("{prefix}_{n}")].clone();
    Literal::tuple(vec![
        Literal::tuple(vec![get("k"), get("c")]),
        Literal::tuple(vec![get("w"), get("b")]),
    ])
}

/// The four arrays of a `((k, c), (w, b))` tuple against `{prefix}_k`, ...
fn close_layers(got: &Literal, f: &Fixture, prefix: &str, tol: f32) {
    let want = layers(f, prefix);
    assert_eq!(got.shape(), want.shape(), "{prefix}");
    for l in 0..2 {
        for p in 0..2 {
            let (g, w) = (
                got.tuple_element(l).unwrap(),
                want.tuple_element(l).unwrap(),
            );
            close(
                g.tuple_element(p).unwrap(),
                w.tuple_element(p).unwrap(),
                tol,
            );
        }
    }
}

#[test]
fn nested_tuple_cnn_step_matches_jitted_optax_steps() {
    let f = fixture("train_step_cnn_tuples");
    let params = layers(&f, "p0");
    let state = vec![params.clone(), zeros_like(&params), zeros_like(&params)];
    two_steps(&f, state, cnn_step::run, |k, parts| {
        close(&parts[0], &f[&format!("loss{k}")], 1e-5);
        close_layers(&parts[1], &f, &format!("g{k}"), 1e-4);
        for (got, what) in parts[2..].iter().zip(["p", "m", "v"]) {
            close_layers(got, &f, &format!("{what}{k}"), 1e-4);
        }
    });
    // The sizes were read from the images, through the tuples: B = 3 and 2, H = 6.
    assert!(cnn_step::hlo(&[3, 6]).unwrap().contains("f32[36,3]"));
}

/// A tuple argument of the wrong structure or shape is an error naming the parameter and
/// both shapes; an image size that breaks the pooling's precondition names `H`.
#[test]
fn tuple_arguments_of_the_wrong_shape_are_errors() {
    let f = fixture("train_step_cnn_tuples");
    let params = layers(&f, "p0");
    let flat = Literal::tuple(vec![f["p0_k"].clone(), f["p0_c"].clone()]);
    let e = cnn_loss::run(&[flat, f["x1"].clone(), f["y1"].clone()]).unwrap_err();
    let e = e.to_string();
    assert!(
        e.contains("argument 0 (`params`)") && e.contains("(f32[3,3,1,4], f32[4])"),
        "{e}"
    );
    let x = Literal::from_vec(&[1, 5, 5, 1], vec![0.0f32; 25]).unwrap();
    let y = Literal::from_vec(&[1, 3], vec![1.0f32, 0.0, 0.0]).unwrap();
    let e = cnn_loss::run(&[params, x, y]).unwrap_err().to_string();
    assert!(e.contains("cnn_loss") && e.contains("H = 5"), "{e}");
}

/// A logistic regression's loss on a batch of `B`.
#[computation]
fn logreg_loss<const B: usize>(
    w: Tensor<f32, 4, 3>,
    b: Tensor<f32, 3>,
    x: Tensor<f32, B, 4>,
    y: Tensor<f32, B, 3>,
) -> f32 {
    nn::softmax_cross_entropy(nn::dense(x, w, b), y)
}

/// One step of `optax.chain(clip_by_global_norm(0.5), adamw(0.01, weight_decay=0.1))`.
#[computation]
#[allow(clippy::too_many_arguments)]
fn adamw_clip_step<const B: usize>(
    w: Tensor<f32, 4, 3>,
    b: Tensor<f32, 3>,
    mw: Tensor<f32, 4, 3>,
    mb: Tensor<f32, 3>,
    vw: Tensor<f32, 4, 3>,
    vb: Tensor<f32, 3>,
    t: f32,
    x: Tensor<f32, B, 4>,
    y: Tensor<f32, B, 3>,
) -> (
    f32,
    Tensor<f32, 4, 3>,
    Tensor<f32, 3>,
    Tensor<f32, 4, 3>,
    Tensor<f32, 3>,
    Tensor<f32, 4, 3>,
    Tensor<f32, 3>,
) {
    let (loss, gw, gb) = value_and_grad(logreg_loss, w, b, x, y, argnums = [0, 1]);
    let sum_sq = (gw * gw).sum() + (gb * gb).sum();
    let gw = nn::clip_by_global_norm(gw, sum_sq, 0.5);
    let gb = nn::clip_by_global_norm(gb, sum_sq, 0.5);
    let (w, mw, vw) = nn::adamw(w, gw, mw, vw, t, 0.01, 0.1);
    let (b, mb, vb) = nn::adamw(b, gb, mb, vb, t, 0.01, 0.1);
    (loss, w, b, mw, mb, vw, vb)
}

/// Two steps (batch 5, then 3) with the gradients clipped (their norm is above 0.5 both
/// times, the fixture checks) and decoupled weight decay.
#[test]
fn adamw_with_global_norm_clipping_matches_optax() {
    let f = fixture("train_step_logreg_adamw_clip");
    let (w, b) = (f["w"].clone(), f["b"].clone());
    let state = vec![
        w.clone(),
        b.clone(),
        zeros_like(&w),
        zeros_like(&b),
        zeros_like(&w),
        zeros_like(&b),
    ];
    two_steps(&f, state, adamw_clip_step::run, |k, parts| {
        close(&parts[0], &f[&format!("loss{k}")], 1e-6);
        let want = ["p", "m", "v"]
            .iter()
            .flat_map(|s| [format!("{s}{k}_w"), format!("{s}{k}_b")]);
        for (got, name) in parts[1..].iter().zip(want) {
            close(got, &f[&name], 1e-5);
        }
    });
}
