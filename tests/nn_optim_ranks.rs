//! The optimizers of `xla::nn` are generic over the parameter's whole shape (`S: Shape`):
//! one definition steps a scale, a bias, a dense kernel and a convolution kernel (ranks 0,
//! 1, 2 and 4), from Rust and inside a computation, against three optax steps on the same
//! pytree (scripts/make_optim_rank_fixtures.py).
#![allow(clippy::unwrap_used)]

mod nn_common;

use nn_common::{close, fixture};
use std::collections::HashMap;
use xla::computation;
use xla::Literal;

/// The leaves of the fixtures' pytree: ranks 0, 1, 2 and 4.
const LEAVES: [&str; 4] = ["s", "b", "w", "k"];

fn zeros_like(l: &Literal) -> Literal {
    let dims = l.shape().dims().to_vec();
    let n = dims.iter().product::<i64>() as usize;
    Literal::from_vec(&dims, vec![0.0f32; n]).unwrap()
}

/// Three steps of `step` (the leaf's parameters, its gradient at step `t`, its state) on
/// every leaf, from the fixture's parameters and zero state; the final parameters and
/// state of each leaf against optax's (`state` names the state's fixture keys).
fn three_steps(
    name: &str,
    state: &[&str],
    step: impl Fn(&[Literal], f32) -> Vec<Literal>,
) -> HashMap<String, Literal> {
    let f = fixture(&format!("optim_ranks_{name}"));
    for leaf in LEAVES {
        let p = f[&format!("p_{leaf}")].clone();
        let mut now: Vec<Literal> = vec![p.clone()];
        now.extend(state.iter().map(|_| zeros_like(&p)));
        for t in 1..=3 {
            let mut args = vec![now[0].clone(), f[&format!("g{t}_{leaf}")].clone()];
            args.extend(now[1..].iter().cloned());
            now = step(&args, t as f32);
        }
        close(&now[0], &f[&format!("p3_{leaf}")], 1e-5);
        for (got, key) in now[1..].iter().zip(state) {
            close(got, &f[&format!("{key}3_{leaf}")], 1e-5);
        }
    }
    f
}

fn parts(out: Literal) -> Vec<Literal> {
    out.tuple_elements().unwrap().to_vec()
}

#[test]
fn adam_steps_every_rank_as_optax_does() {
    three_steps("adam", &["m", "v"], |a, t| {
        let [p, g, m, v] = [0, 1, 2, 3].map(|i| a[i].clone());
        parts(
            xla::nn::adam::apply(p, g, m, v, Literal::scalar(t), Literal::scalar(0.01f32)).unwrap(),
        )
    });
}

#[test]
fn adamw_steps_every_rank_as_optax_does() {
    three_steps("adamw", &["m", "v"], |a, t| {
        let [p, g, m, v] = [0, 1, 2, 3].map(|i| a[i].clone());
        let s = Literal::scalar::<f32>;
        parts(xla::nn::adamw::apply(p, g, m, v, s(t), s(0.01), s(0.1)).unwrap())
    });
}

#[test]
fn sgd_momentum_steps_every_rank_as_optax_does() {
    three_steps("sgd_momentum", &["trace"], |a, _| {
        let [p, g, trace] = [0, 1, 2].map(|i| a[i].clone());
        let s = Literal::scalar::<f32>;
        parts(xla::nn::sgd_momentum::apply(p, g, trace, s(0.1), s(0.9)).unwrap())
    });
}

/// `optax.chain(clip_by_global_norm(0.5), adam(0.01))`: every leaf's gradient clipped by
/// the norm of the whole tree's gradient at that step, then the Adam step.
#[test]
fn clipping_by_the_global_norm_then_adam_matches_optax_on_every_rank() {
    let f = fixture("optim_ranks_clip_adam");
    let sum_sq = |t: usize| -> f32 {
        LEAVES
            .iter()
            .flat_map(|l| f[&format!("g{t}_{l}")].data::<f32>().unwrap().to_vec())
            .map(|g| g * g)
            .sum()
    };
    let sums: Vec<f32> = (1..=3).map(sum_sq).collect();
    three_steps("clip_adam", &["m", "v"], |a, t| {
        let [p, g, m, v] = [0, 1, 2, 3].map(|i| a[i].clone());
        let s = Literal::scalar::<f32>;
        let norm = sums[t as usize - 1];
        let g = xla::nn::clip_by_global_norm::apply(g, s(norm), s(0.5)).unwrap();
        parts(xla::nn::adam::apply(p, g, m, v, s(t), s(0.01)).unwrap())
    });
}

/// A computation stepping a convolution kernel (rank 4) and a bias (rank 1) with the same
/// `nn::adamw`, the kernel's global norm clipped in the graph.
#[computation]
#[allow(clippy::too_many_arguments)]
fn kernel_step(
    k: Tensor<f32, 3, 3, 2, 4>,
    gk: Tensor<f32, 3, 3, 2, 4>,
    mk: Tensor<f32, 3, 3, 2, 4>,
    vk: Tensor<f32, 3, 3, 2, 4>,
    b: Tensor<f32, 3>,
    gb: Tensor<f32, 3>,
    mb: Tensor<f32, 3>,
    vb: Tensor<f32, 3>,
    t: f32,
) -> (
    Tensor<f32, 3, 3, 2, 4>,
    Tensor<f32, 3, 3, 2, 4>,
    Tensor<f32, 3, 3, 2, 4>,
    Tensor<f32, 3>,
    Tensor<f32, 3>,
    Tensor<f32, 3>,
) {
    let (k, mk, vk) = nn::adamw(k, gk, mk, vk, t, 0.01, 0.1);
    let (b, mb, vb) = nn::adamw(b, gb, mb, vb, t, 0.01, 0.1);
    (k, mk, vk, b, mb, vb)
}

#[test]
fn one_graph_steps_a_convolution_kernel_and_a_bias_with_one_optimizer() {
    let f = fixture("optim_ranks_adamw");
    let (k, b) = (f["p_k"].clone(), f["p_b"].clone());
    let mut state = vec![k.clone(), zeros_like(&k), zeros_like(&k)];
    state.extend([b.clone(), zeros_like(&b), zeros_like(&b)]);
    for t in 1..=3 {
        let args = [
            state[0].clone(),
            f[&format!("g{t}_k")].clone(),
            state[1].clone(),
            state[2].clone(),
            state[3].clone(),
            f[&format!("g{t}_b")].clone(),
            state[4].clone(),
            state[5].clone(),
            Literal::scalar(t as f32),
        ];
        state = parts(kernel_step::run(&args).unwrap());
    }
    for (got, key) in state
        .iter()
        .zip(["p3_k", "m3_k", "v3_k", "p3_b", "m3_b", "v3_b"])
    {
        close(got, &f[key], 1e-5);
    }
}

/// Arguments that give the shape two ranks: an error naming the computation, the shape
/// parameter, the parameters and the ranks; the next good call still runs.
#[test]
fn arguments_of_two_ranks_are_an_error_naming_the_shape() {
    let s = Literal::scalar::<f32>;
    let p = Literal::from_vec(&[2, 2], vec![1.0f32; 4]).unwrap();
    let g = Literal::from_vec(&[4], vec![1.0f32; 4]).unwrap();
    let e = xla::nn::sgd_momentum::apply(p.clone(), g, zeros_like(&p), s(0.1), s(0.9))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("sgd_momentum")
            && e.contains("shape `S` has rank 2 from `p` but rank 1 from `g`"),
        "{e}"
    );
    let ok = xla::nn::sgd_momentum::apply(p.clone(), p.clone(), zeros_like(&p), s(0.1), s(0.9));
    assert_eq!(parts(ok.unwrap())[0].data::<f32>().unwrap(), &[0.9; 4]);
}
