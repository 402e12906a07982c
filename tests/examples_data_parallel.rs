//! Data-parallel training (`cnn_digits --replicas N`): a few steps on 2 and 4 thread
//! devices follow the single-device run on the same global batches and seed, loss by loss
//! and weight by weight, to float tolerance (the replicas normalise with the global batch's
//! statistics and average their gradients with an all-reduce).

// The example includes its own copy of examples/common; tests may unwrap.
#![allow(clippy::duplicate_mod, clippy::unwrap_used, clippy::expect_used)]

#[path = "../examples/cnn_digits.rs"]
mod cnn_digits;

use cnn_digits::common::Classifier;
use xla::train::{tree, TrainArgs};
use xla::Literal;

/// Trains `model` for `steps` batches of 32 (seed 0), returning the losses and the state.
fn run<M: Classifier>(model: &M, steps: usize) -> (Vec<f64>, Vec<Literal>) {
    let args = TrainArgs {
        limit: Some(32 * steps),
        learning_rate: 0.003,
        ..TrainArgs::default()
    };
    let (train, _) = cnn_digits::data(&args).unwrap();
    cnn_digits::common::train_steps(model, &args, &train, steps).unwrap()
}

fn largest_difference(a: &Literal, b: &Literal) -> f32 {
    let (a, b) = (
        a.typed_data::<f32>().unwrap(),
        b.typed_data::<f32>().unwrap(),
    );
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn data_parallel_follows_the_single_device_run() {
    let (single_losses, single_state) = run(&cnn_digits::model(), 3);
    assert_eq!(single_losses.len(), 3);
    for replicas in [2, 4] {
        let (losses, state) = run(&cnn_digits::data_parallel(replicas).unwrap(), 3);
        for (step, (a, b)) in single_losses.iter().zip(&losses).enumerate() {
            let tolerance = 1e-5 * a.abs().max(1.0);
            assert!(
                (a - b).abs() <= tolerance,
                "{replicas} replicas, step {step}: loss {b} vs single-device {a}"
            );
        }
        // Weights, batch-norm scales (the leaves of the per-layer tuples) and the running
        // statistics (updated from the global batch's statistics).
        let leaves = |s: &[Literal]| -> Vec<Literal> {
            tree::leaves(s)
                .into_iter()
                .map(|(_, l)| l.clone())
                .collect()
        };
        let (single_leaves, leaves_dp) = (leaves(&single_state), leaves(&state));
        assert_eq!(single_leaves.len(), 12);
        for (i, (a, b)) in single_leaves.iter().zip(&leaves_dp).enumerate() {
            let d = largest_difference(a, b);
            assert!(
                d < 1e-4,
                "{replicas} replicas, state tensor {i}: differs by {d}"
            );
        }
        // Training moved the weights: the comparison is not of two initial states.
        let init = cnn_digits::model().init(TrainArgs::default().seed).unwrap();
        assert!(largest_difference(&leaves(&init)[0], &leaves_dp[0]) > 1e-3);
    }
}

#[test]
fn a_batch_that_does_not_split_runs_on_one_device() {
    // 32 rows on 3 replicas: the step falls back to the single-device model.
    let (single, _) = run(&cnn_digits::model(), 1);
    let (three, _) = run(&cnn_digits::data_parallel(3).unwrap(), 1);
    assert_eq!(single, three);
}
