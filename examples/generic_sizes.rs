//! Time from a call at a new size to its first result, for a computation generic over the
//! batch size: an MLP's loss and gradient (784 → 128 → 10, softmax cross-entropy). Each new
//! size builds the graph again (parse and shape-check the stored source at that size),
//! compiles it and runs it; a second call at the same size hits the cache.
//! `scripts/jax_retrace_time.py` times the same function under `jax.jit` for comparison.
//!
//! cargo run --release --example generic_sizes

use std::time::Instant;
use xla::computation;

/// Softmax cross-entropy of a two-layer MLP on a batch of `B` images.
#[computation(grad(w1, b1, w2, b2))]
fn mlp_loss<const B: usize>(
    x: Tensor<f32, B, 784>,
    labels: Tensor<f32, B, 10>,
    w1: Tensor<f32, 784, 128>,
    b1: Tensor<f32, 128>,
    w2: Tensor<f32, 128, 10>,
    b2: Tensor<f32, 10>,
) -> f32 {
    let h = (x.dot(w1) + b1).relu();
    let logits = h.dot(w2) + b2;
    let m = logits.max([1]);
    let shifted = logits - m.broadcast_in_dim([B, 10], [0]);
    let lse = shifted.exp().sum([1]).log();
    let logp = shifted - lse.broadcast_in_dim([B, 10], [0]);
    -(logp * labels).sum() / B
}

fn main() -> Result<(), mlp_loss::Error> {
    let w1: Vec<f32> = (0..784 * 128).map(|i| ((i % 13) as f32 - 6.0) * 0.01).collect();
    let b1 = vec![0.01f32; 128];
    let w2: Vec<f32> = (0..128 * 10).map(|i| ((i % 7) as f32 - 3.0) * 0.02).collect();
    let b2 = vec![0.0f32; 10];
    println!("| B | first call (build + compile + run) | second call (cached) |");
    println!("| --- | --- | --- |");
    for b in [1usize, 7, 32, 100, 256] {
        let x: Vec<f32> = (0..b * 784).map(|i| (i % 255) as f32 / 255.0).collect();
        let labels: Vec<f32> = (0..b * 10).map(|i| f32::from(u8::from(i % 10 == (i / 10) % 10))).collect();
        let lit = |dims: &[i64], v: &[f32]| xla::Literal::from_vec(dims, v.to_vec());
        let args = [
            lit(&[b as i64, 784], &x)?,
            lit(&[b as i64, 10], &labels)?,
            lit(&[784, 128], &w1)?,
            lit(&[128], &b1)?,
            lit(&[128, 10], &w2)?,
            lit(&[10], &b2)?,
        ];
        let t = Instant::now();
        let first = mlp_loss::value_and_grad::run(&args)?;
        let first_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let second = mlp_loss::value_and_grad::run(&args)?;
        let second_ms = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(first, second);
        println!("| {b} | {first_ms:.1} ms | {second_ms:.2} ms |");
    }
    Ok(())
}
