//! A whole training step as one computation: forward, `value_and_grad` inside the body and
//! the Adam update, against two jitted optax steps (scripts/make_train_step_fixtures.py: a
//! flax MLP 4→8→3 with softmax cross-entropy and `optax.adam(0.01)`, a batch of 5 then
//! of 3, so the same generic step runs at two batch sizes with its state threaded).
#![allow(clippy::unwrap_used)]

mod nn_common;

use nn_common::{close, fixture};
use xla::computation;
use xla::Literal;

/// The loss of the MLP on a batch of `B`.
#[computation]
fn mlp_loss<const B: usize>(
    w1: Tensor<f32, 4, 8>,
    b1: Tensor<f32, 8>,
    w2: Tensor<f32, 8, 3>,
    b2: Tensor<f32, 3>,
    x: Tensor<f32, B, 4>,
    y: Tensor<f32, B, 3>,
) -> f32 {
    let h = relu(nn::dense(x, w1, b1));
    nn::softmax_cross_entropy(nn::dense(h, w2, b2), y)
}

/// One step: the loss and its gradients w.r.t. the four parameters (from `value_and_grad`
/// inside the body), then the new parameters, first moments and second moments.
#[computation]
#[allow(clippy::too_many_arguments)]
fn train_step<const B: usize>(
    w1: Tensor<f32, 4, 8>,
    b1: Tensor<f32, 8>,
    w2: Tensor<f32, 8, 3>,
    b2: Tensor<f32, 3>,
    mw1: Tensor<f32, 4, 8>,
    mb1: Tensor<f32, 8>,
    mw2: Tensor<f32, 8, 3>,
    mb2: Tensor<f32, 3>,
    vw1: Tensor<f32, 4, 8>,
    vb1: Tensor<f32, 8>,
    vw2: Tensor<f32, 8, 3>,
    vb2: Tensor<f32, 3>,
    t: f32,
    x: Tensor<f32, B, 4>,
    y: Tensor<f32, B, 3>,
) -> (
    f32,
    Tensor<f32, 4, 8>,
    Tensor<f32, 8>,
    Tensor<f32, 8, 3>,
    Tensor<f32, 3>,
    Tensor<f32, 4, 8>,
    Tensor<f32, 8>,
    Tensor<f32, 8, 3>,
    Tensor<f32, 3>,
    Tensor<f32, 4, 8>,
    Tensor<f32, 8>,
    Tensor<f32, 8, 3>,
    Tensor<f32, 3>,
    Tensor<f32, 4, 8>,
    Tensor<f32, 8>,
    Tensor<f32, 8, 3>,
    Tensor<f32, 3>,
) {
    let (loss, gw1, gb1, gw2, gb2) =
        value_and_grad(mlp_loss, w1, b1, w2, b2, x, y, argnums = [0, 1, 2, 3]);
    let (w1, mw1, vw1) = nn::adam(w1, gw1, mw1, vw1, t, 0.01);
    let (b1, mb1, vb1) = nn::adam(b1, gb1, mb1, vb1, t, 0.01);
    let (w2, mw2, vw2) = nn::adam(w2, gw2, mw2, vw2, t, 0.01);
    let (b2, mb2, vb2) = nn::adam(b2, gb2, mb2, vb2, t, 0.01);
    (
        loss, gw1, gb1, gw2, gb2, w1, b1, w2, b2, mw1, mb1, mw2, mb2, vw1, vb1, vw2, vb2,
    )
}

const NAMES: [&str; 4] = ["w1", "b1", "w2", "b2"];

/// Two steps, the state of the first fed to the second, at batch sizes 5 and 3.
#[test]
fn two_training_steps_match_jitted_optax_steps_values_and_gradients() {
    let f = fixture("train_step_mlp_adam");
    let mut state: Vec<Literal> = NAMES.iter().map(|n| f[*n].clone()).collect();
    for _moments in 0..2 {
        for n in NAMES {
            let shape = f[n].shape().dims().to_vec();
            let len = shape.iter().product::<i64>() as usize;
            state.push(Literal::from_vec(&shape, vec![0.0f32; len]).unwrap());
        }
    }
    for k in [1, 2] {
        let mut args = state.clone();
        args.push(Literal::scalar(k as f32));
        args.extend([f[&format!("x{k}")].clone(), f[&format!("y{k}")].clone()]);
        let out = train_step::run(&args).unwrap();
        let parts = out.tuple_elements().unwrap();
        close(&parts[0], &f[&format!("loss{k}")], 1e-6);
        for (got, n) in parts[1..5].iter().zip(NAMES) {
            close(got, &f[&format!("g{k}_{n}")], 1e-5);
        }
        state = parts[5..].to_vec();
        for (i, what) in ["p", "m", "v"].iter().enumerate() {
            for (j, n) in NAMES.iter().enumerate() {
                close(&state[i * 4 + j], &f[&format!("{what}{k}_{n}")], 1e-5);
            }
        }
    }
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
    let zeros = |n: &str| {
        let dims = f[n].shape().dims().to_vec();
        Literal::from_vec(&dims, vec![0.0f32; dims.iter().product::<i64>() as usize]).unwrap()
    };
    let mut state = vec![f["w"].clone(), f["b"].clone()];
    state.extend([zeros("w"), zeros("b"), zeros("w"), zeros("b")]);
    for k in [1, 2] {
        let mut args = state.clone();
        args.push(Literal::scalar(k as f32));
        args.extend([f[&format!("x{k}")].clone(), f[&format!("y{k}")].clone()]);
        let out = adamw_clip_step::run(&args).unwrap();
        let parts = out.tuple_elements().unwrap();
        close(&parts[0], &f[&format!("loss{k}")], 1e-6);
        state = parts[1..].to_vec();
        let want = ["p", "m", "v"]
            .iter()
            .flat_map(|s| [format!("{s}{k}_w"), format!("{s}{k}_b")]);
        for (got, name) in state.iter().zip(want) {
            close(got, &f[&name], 1e-5);
        }
    }
}
