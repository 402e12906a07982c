//! Per-example gradients with `vmap` (differentially-private-SGD style clipping): the
//! gradient of ONE example's loss (`#[computation(grad(...))]`) batched over 32 examples of
//! the UCI digits by `xla::autodiff::vmap_module`, each example's gradient clipped to norm
//! 1 and the clipped gradients averaged. Checks the batched gradients against 32 calls of
//! the single-example gradient and times both.
//!
//! ```sh
//! cargo run --release --example per_example_grads
//! ```

use std::time::Instant;
use xla::autodiff::vmap_module;
use xla::computation;
use xla::cpu::Executable;
use xla::train::{Digits, Rng, Standardizer};
use xla::Literal;

/// Examples per batch.
const BATCH: usize = 32;
/// The clipping norm.
const CLIP: f64 = 1.0;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Softmax cross-entropy of ONE example (a flattened 8×8 image and its one-hot label) for
/// the 64 → 128 → 10 ReLU perceptron; `loss::grad` is its gradient w.r.t. the weights.
#[computation(grad(w1, b1, w2, b2))]
pub fn loss(
    w1: Tensor<f32, 64, 128>,
    b1: Tensor<f32, 128>,
    w2: Tensor<f32, 128, 10>,
    b2: Tensor<f32, 10>,
    x: Tensor<f32, 1, 64>,
    y: Tensor<f32, 1, 10>,
) -> f32 {
    let h = (x.dot(w1) + b1).relu();
    let logits = h.dot(w2) + b2;
    let z = logits - logits.max([1]).broadcast_in_dim([1, 10], [0]);
    let log_sum = z.exp().sum([1]).ln();
    (log_sum - (z * y).sum([1])).mean()
}

/// The leaves of a tuple literal as `f32` vectors.
fn leaves(l: &Literal) -> Res<Vec<Vec<f32>>> {
    let parts = l.tuple_elements().ok_or("the gradient is not a tuple")?;
    Ok(parts
        .iter()
        .map(|p| p.to_vec::<f32>())
        .collect::<Result<_, _>>()?)
}

/// The median time of `runs` calls of `f`, in seconds.
fn median(runs: usize, mut f: impl FnMut() -> Res<()>) -> Res<f64> {
    let mut t = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        f()?;
        t.push(start.elapsed().as_secs_f64());
    }
    t.sort_by(f64::total_cmp);
    Ok(t[runs / 2])
}

/// Clips each example's gradient to norm [`CLIP`], averages, and prints the result's norm.
fn clip_and_average(grads: &[Vec<f32>], norms: &[f64]) {
    let scale: Vec<f64> = norms.iter().map(|&g| (CLIP / g).min(1.0)).collect();
    let clipped_norm: f64 = grads
        .iter()
        .map(|gb| {
            let len = gb.len() / BATCH;
            (0..len)
                .map(|j| {
                    let m: f64 = (0..BATCH)
                        .map(|i| f64::from(gb[i * len + j]) * scale[i])
                        .sum::<f64>()
                        / BATCH as f64;
                    m * m
                })
                .sum::<f64>()
        })
        .sum::<f64>()
        .sqrt();
    println!(
        "{} of {BATCH} examples clipped to norm {CLIP}; mean clipped gradient norm {clipped_norm:.3}",
        scale.iter().filter(|&&s| s < 1.0).count()
    );
}

fn main() -> Res<()> {
    let (train, _) = Digits::embedded()?.split(0.8, 0)?;
    let train = Standardizer::fit(&train).apply(train)?;
    let batch = train.take(BATCH);
    let mut rng = Rng::new(0);
    let zeros = |n: usize| Literal::from_vec(&[n as i64], vec![0f32; n]);
    let mut args = vec![
        rng.glorot_uniform(&[64, 128])?,
        zeros(128)?,
        rng.glorot_uniform(&[128, 10])?,
        zeros(10)?,
    ];
    let n = BATCH as i64;
    args.push(batch.features_literal()?.reshape(&[n, 1, 64])?);
    args.push(batch.one_hot_literal()?.reshape(&[n, 1, 10])?);

    // One line: the single-example gradient, batched over the examples (x, y), the
    // weights shared.
    let single = loss::grad::module()?;
    let axes = [None, None, None, None, Some(0), Some(0)];
    let per_example = vmap_module(single, &axes, &[Some(0)], n)?;

    let batched = Executable::compile(&per_example)?;
    let one = Executable::compile(single)?;
    let grads = leaves(&batched.execute(&args)?)?;

    // The same gradients one example at a time.
    let one_args = |i: usize| -> Res<Vec<Literal>> {
        let s = batch.subset(&[i])?;
        let mut a = args[..4].to_vec();
        a.push(s.features_literal()?.reshape(&[1, 64])?);
        a.push(s.one_hot_literal()?.reshape(&[1, 10])?);
        Ok(a)
    };
    let mut worst = 0f32;
    let mut norms = vec![0f64; BATCH];
    for (i, norm) in norms.iter_mut().enumerate() {
        let g1 = leaves(&one.execute(&one_args(i)?)?)?;
        for (g, gb) in g1.iter().zip(&grads) {
            let lane = &gb[i * g.len()..(i + 1) * g.len()];
            for (a, b) in g.iter().zip(lane) {
                worst = worst.max((a - b).abs() / (1e-6 + a.abs()));
            }
            *norm += lane
                .iter()
                .map(|&v| f64::from(v) * f64::from(v))
                .sum::<f64>();
        }
        *norm = norm.sqrt();
    }
    println!("per-example gradient norms: {:.3?}", &norms[..8]);
    println!("largest relative difference from one-at-a-time gradients: {worst:.2e}");

    clip_and_average(&grads, &norms);

    let t_batched = median(21, || {
        batched.execute(&args).map(|_| ()).map_err(Into::into)
    })?;
    let singles: Vec<Vec<Literal>> = (0..BATCH).map(one_args).collect::<Res<_>>()?;
    let t_loop = median(21, || {
        for a in &singles {
            one.execute(a)?;
        }
        Ok(())
    })?;
    println!(
        "{BATCH} per-example gradients: vmap {:.3} ms, a loop of {BATCH} calls {:.3} ms ({:.1}x)",
        t_batched * 1e3,
        t_loop * 1e3,
        t_loop / t_batched
    );
    Ok(())
}
