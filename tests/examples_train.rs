//! Reduced runs of the training examples (a few steps each, debug build): the loss goes
//! down, a checkpoint saved and loaded back predicts exactly the same, and bad input
//! (mismatched checkpoints, a diverging loss, missing or truncated data) fails with a
//! clear message and leaves no checkpoint behind.

// Each example includes its own copy of examples/common; tests may unwrap.
#![allow(clippy::duplicate_mod, clippy::unwrap_used, clippy::expect_used)]

#[path = "../examples/char_lstm.rs"]
mod char_lstm;
#[path = "../examples/cnn_digits.rs"]
mod cnn_digits;
#[path = "../examples/gp_regression.rs"]
mod gp_regression;
#[path = "../examples/logistic_regression.rs"]
mod logistic_regression;
#[path = "../examples/mlp_digits.rs"]
mod mlp_digits;
#[path = "../examples/mnist.rs"]
mod mnist;

use std::path::PathBuf;
use xla::train::{load_checkpoint, tree, TrainArgs, TrainLog};
use xla::{Literal, Shape};

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xla-examples-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Quiet arguments for a short run saving to `dir/model.safetensors`.
fn quick(dir: &std::path::Path, epochs: usize, limit: usize, lr: f64) -> TrainArgs {
    TrainArgs {
        epochs,
        learning_rate: lr,
        limit: Some(limit),
        checkpoint: Some(dir.join("model.safetensors")),
        plot: Some(dir.join("curves.png")),
        quiet: true,
        ..TrainArgs::default()
    }
}

/// The mean loss of the first and of the last `k` steps.
fn first_and_last(log: &TrainLog, k: usize) -> (f64, f64) {
    let losses: Vec<f64> = log.losses.iter().map(|&(_, l)| l).collect();
    assert!(losses.len() >= 2 * k, "only {} steps", losses.len());
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
    (mean(&losses[..k]), mean(&losses[losses.len() - k..]))
}

/// The tensors of the checkpoint `args` saved, checked against the names and shapes of
/// `state`'s leaves and put back in `state`'s structure.
fn reload(args: &TrainArgs, names: &[&str], state: &[Literal]) -> Vec<Literal> {
    let shapes: Vec<Shape> = tree::leaves(state)
        .into_iter()
        .map(|(_, l)| l.shape().clone())
        .collect();
    let expected: Vec<(&str, &Shape)> = names.iter().copied().zip(&shapes).collect();
    let flat = load_checkpoint(args.checkpoint.as_ref().unwrap(), &expected)
        .unwrap()
        .0;
    tree::unflatten_like(state, flat).unwrap()
}

/// Trains a classifier example briefly and checks the loss, the checkpoint and the plot.
macro_rules! check_classifier {
    ($ex:ident, $model:expr, $data:expr, $args:expr) => {{
        use $ex::common::{fit, predictions, Classifier};
        let args: TrainArgs = $args;
        let model = $model;
        let (train, test) = $data;
        let (state, log) = fit(&model, &args, (&train, &test), "test").unwrap();
        let (first, last) = first_and_last(&log, 2);
        assert!(last < first, "loss did not decrease: {first} -> {last}");
        assert!(args.plot.as_ref().unwrap().is_file(), "no plot written");
        let loaded = reload(&args, model.names(), &state);
        assert_eq!(loaded, state, "checkpoint round trip changed the state");
        let batch = test
            .eval_batches(32)
            .unwrap()
            .remove(0)
            .0
            .features_literal()
            .unwrap();
        let (a, b) = (
            model.logits(&state, batch.clone()).unwrap(),
            model.logits(&loaded, batch).unwrap(),
        );
        assert_eq!(a, b, "logits differ after reloading");
        // Evaluation runs at the data's own size: 7 samples give 7 rows of logits.
        let seven = test.take(7).features_literal().unwrap();
        let logits = model.logits(&state, seven).unwrap();
        assert_eq!(logits.shape().dims(), &[7, 10]);
        let p = predictions(&model, &loaded, &test).unwrap();
        assert_eq!(p.len(), test.len());
        assert_eq!(p, predictions(&model, &state, &test).unwrap());
        (state, log)
    }};
}

#[test]
fn logistic_regression_learns_and_round_trips() {
    use logistic_regression::{common, init, loss, predict};
    let dir = scratch("logreg");
    let args = quick(&dir, 2, 256, 0.01);
    let model = common::Plain::new(&["w", "b"], init, loss::value_and_grad::run, predict::run);
    let data = common::digits(&args).unwrap();
    check_classifier!(logistic_regression, model, data, args);
}

#[test]
fn mlp_learns_and_round_trips_and_resumes() {
    let dir = scratch("mlp");
    let args = quick(&dir, 2, 128, 0.003);
    let data = mlp_digits::common::digits(&args).unwrap();
    let (state, log) =
        check_classifier!(mlp_digits, mlp_digits::model(), data.clone(), args.clone());
    assert_eq!(log.epoch(), 2);
    // --resume with --epochs 3 trains one more epoch from the saved state and log.
    let more = TrainArgs {
        epochs: 3,
        resume: true,
        ..args
    };
    let model = mlp_digits::model();
    let (resumed, log) = mlp_digits::common::fit(&model, &more, (&data.0, &data.1), "t").unwrap();
    assert_eq!((log.epoch(), log.step()), (3, 12));
    assert_ne!(resumed, state);
}

#[test]
fn cnn_learns_and_round_trips_with_running_statistics() {
    let dir = scratch("cnn");
    let args = quick(&dir, 2, 64, 0.003);
    let data = cnn_digits::data(&args).unwrap();
    let (state, _) = check_classifier!(cnn_digits, cnn_digits::model(), data, args);
    // The trainable parameters are one tuple of per-layer tuples.
    assert_eq!(state.len(), 5);
    assert_eq!(state[0].tuple_elements().map(<[Literal]>::len), Some(3));
    // The running variances moved away from their initial 1.
    let var1 = state[2].to_vec::<f32>().unwrap();
    assert!(
        var1.iter().any(|&v| (v - 1.0).abs() > 1e-3),
        "running variance never updated: {var1:?}"
    );
}

#[test]
fn a_cnn_checkpoint_of_flat_tensors_resumes_into_the_per_layer_tuples() {
    // A checkpoint as the CNN wrote it when its 12 tensors were flat parameters: the
    // same names (`conv1`, `gamma1`, ...), one tensor each, distinct values.
    let dir = scratch("cnn-flat");
    let args = TrainArgs {
        resume: true,
        ..quick(&dir, 1, 32, 0.003)
    };
    let dims: [&[i64]; 12] = [
        &[16, 1, 3, 3],
        &[16],
        &[16],
        &[32, 16, 3, 3],
        &[32],
        &[32],
        &[128, 10],
        &[10],
        &[16],
        &[16],
        &[32],
        &[32],
    ];
    let flat: Vec<Literal> = dims
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let n = d.iter().product::<i64>() as usize;
            let v = (0..n).map(|j| 0.5 + (i * 1000 + j) as f32 * 1e-4).collect();
            Literal::from_vec(d, v).unwrap()
        })
        .collect();
    let names = cnn_digits::common::cnn::NAMES;
    let named: Vec<(&str, &Literal)> = names.iter().copied().zip(&flat).collect();
    args.save_checkpoint(&named, &TrainLog::resumed(1, 2))
        .unwrap();
    // One epoch asked, one done: `fit` loads the state and trains no further.
    let model = cnn_digits::model();
    let data = cnn_digits::data(&args).unwrap();
    let (state, _) = cnn_digits::common::fit(&model, &args, (&data.0, &data.1), "t").unwrap();
    let params = state[0].tuple_elements().unwrap();
    assert_eq!(params[0].tuple_elements().unwrap()[0], flat[0], "conv1");
    assert_eq!(params[1].tuple_elements().unwrap()[2], flat[5], "beta2");
    assert_eq!(params[2].tuple_elements().unwrap()[0], flat[6], "dense_w");
    assert_eq!(state[1..], flat[8..], "running statistics");
}

#[test]
fn gp_fits_and_round_trips() {
    let dir = scratch("gp");
    let args = TrainArgs {
        epochs: 1,
        ..quick(&dir, 1, 32, 0.05)
    };
    let (params, log) = gp_regression::fit(&args).unwrap();
    let (first, last) = first_and_last(&log, 3);
    assert!(
        last < first,
        "negative log likelihood did not decrease: {first} -> {last}"
    );
    let loaded = reload(&args, &gp_regression::NAMES, &params);
    assert_eq!(loaded, params);
    let (mean, var) = gp_regression::predict(&params, args.seed).unwrap();
    assert_eq!(
        (mean.clone(), var.clone()),
        gp_regression::predict(&loaded, args.seed).unwrap()
    );
    assert!(
        var.iter().all(|v| v.is_finite() && *v > -1e-9),
        "variances: {var:?}"
    );
}

/// The error of a run, as its message.
fn failure<T: std::fmt::Debug>(r: Result<T, Box<dyn std::error::Error + Send + Sync>>) -> String {
    r.expect_err("the run should fail").to_string()
}

#[test]
fn checkpoint_of_another_model_is_refused_by_name() {
    let dir = scratch("wrong-names");
    let args = quick(&dir, 1, 32, 0.01);
    let model = logistic_regression::common::Plain::new(
        &["w", "b"],
        logistic_regression::init,
        logistic_regression::loss::value_and_grad::run,
        logistic_regression::predict::run,
    );
    let data = logistic_regression::common::digits(&args).unwrap();
    logistic_regression::common::fit(&model, &args, (&data.0, &data.1), "t").unwrap();
    let before = std::fs::read(args.checkpoint.as_ref().unwrap()).unwrap();
    // The MLP resuming from the softmax regression's file: names do not match.
    let resume = TrainArgs {
        resume: true,
        ..args.clone()
    };
    let mlp = mlp_digits::model();
    let msg = failure(mlp_digits::common::fit(
        &mlp,
        &resume,
        (&data.0, &data.1),
        "t",
    ));
    assert!(msg.contains("checkpoint") && msg.contains("w1"), "{msg}");
    assert_eq!(
        std::fs::read(args.checkpoint.as_ref().unwrap()).unwrap(),
        before,
        "file changed"
    );
}

#[test]
fn checkpoint_with_a_wrong_shape_is_refused_naming_tensor_and_shapes() {
    let dir = scratch("wrong-shape");
    let args = TrainArgs {
        resume: true,
        ..quick(&dir, 1, 32, 0.01)
    };
    let mut state = mlp_digits::init(&mut xla::train::Rng::new(0)).unwrap();
    state[0] = Literal::from_vec(&[64, 64], vec![0f32; 64 * 64]).unwrap();
    let named: Vec<(&str, &Literal)> = mlp_digits::NAMES.iter().copied().zip(&state).collect();
    args.save_checkpoint(&named, &TrainLog::default()).unwrap();
    let model = mlp_digits::model();
    let data = mlp_digits::common::digits(&args).unwrap();
    let msg = failure(mlp_digits::common::fit(
        &model,
        &args,
        (&data.0, &data.1),
        "t",
    ));
    assert!(
        msg.contains("w1") && msg.contains("f32[64,128]") && msg.contains("f32[64,64]"),
        "{msg}"
    );
}

#[test]
fn diverging_loss_stops_with_a_message_and_no_checkpoint() {
    let dir = scratch("nan");
    let args = quick(&dir, 2, 64, 1e30);
    let model = mlp_digits::model();
    let data = mlp_digits::common::digits(&args).unwrap();
    let msg = failure(mlp_digits::common::fit(
        &model,
        &args,
        (&data.0, &data.1),
        "t",
    ));
    assert!(
        msg.contains("loss is") && msg.contains("epoch 1 step"),
        "{msg}"
    );
    assert!(
        !args.checkpoint.as_ref().unwrap().exists(),
        "a checkpoint was left behind"
    );
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(leftovers.is_empty(), "files left behind: {leftovers:?}");
}

#[test]
fn truncated_checkpoint_is_reported_with_its_path() {
    let dir = scratch("truncated-ckpt");
    let args = TrainArgs {
        resume: true,
        ..quick(&dir, 1, 32, 0.01)
    };
    let path = args.checkpoint.clone().unwrap();
    let state = mlp_digits::init(&mut xla::train::Rng::new(0)).unwrap();
    let named: Vec<(&str, &Literal)> = mlp_digits::NAMES.iter().copied().zip(&state).collect();
    args.save_checkpoint(&named, &TrainLog::default()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let model = mlp_digits::model();
    let data = mlp_digits::common::digits(&args).unwrap();
    let msg = failure(mlp_digits::common::fit(
        &model,
        &args,
        (&data.0, &data.1),
        "t",
    ));
    assert!(msg.contains("model.safetensors"), "{msg}");
}

/// Writes a small MNIST-like data set (the digits upscaled to 28×28) as IDX files.
fn fake_mnist(dir: &std::path::Path, train: usize, test: usize) {
    use xla::train::idx::{IdxArray, IdxData};
    let digits = xla::train::Digits::embedded().unwrap();
    let write = |name: &str, range: std::ops::Range<usize>| {
        let mut pixels = Vec::new();
        for i in range.clone() {
            let (f, _) = digits.sample(i).unwrap();
            for r in 0..28 {
                for c in 0..28 {
                    pixels.push((f[(r * 8 / 28) * 8 + c * 8 / 28] * 255.0 / 16.0) as u8);
                }
            }
        }
        let labels: Vec<u8> = range.clone().map(|i| digits.sample(i).unwrap().1).collect();
        let images = IdxArray {
            dims: vec![range.len(), 28, 28],
            data: IdxData::U8(pixels),
        };
        let labels = IdxArray {
            dims: vec![range.len()],
            data: IdxData::U8(labels),
        };
        std::fs::write(
            dir.join(format!("{name}-images-idx3-ubyte")),
            images.to_bytes(),
        )
        .unwrap();
        std::fs::write(
            dir.join(format!("{name}-labels-idx1-ubyte")),
            labels.to_bytes(),
        )
        .unwrap();
    };
    write("train", 0..train);
    write("t10k", train..train + test);
}

#[test]
fn mnist_trains_on_idx_files_and_reports_bad_data() {
    let dir = scratch("mnist");
    let data_dir = dir.join("data");
    std::fs::create_dir_all(&data_dir).unwrap();
    let args = quick(&dir, 2, 64, 0.003);
    let msg = failure(mnist::data(None, &args));
    assert!(
        msg.contains("--data DIR") && msg.contains("train-images-idx3-ubyte"),
        "{msg}"
    );
    let msg = failure(mnist::data(Some(&data_dir), &args));
    assert!(
        msg.contains("train-images-idx3-ubyte") && msg.contains("not found"),
        "{msg}"
    );
    fake_mnist(&data_dir, 64, 32);
    let data = mnist::data(Some(&data_dir), &args).unwrap();
    check_classifier!(mnist, mnist::model(), data, args.clone());
    // A truncated image file: the message names it.
    let images = data_dir.join("t10k-images-idx3-ubyte");
    let bytes = std::fs::read(&images).unwrap();
    std::fs::write(&images, &bytes[..bytes.len() - 100]).unwrap();
    let msg = failure(mnist::data(Some(&data_dir), &args));
    assert!(msg.contains("t10k-images-idx3-ubyte"), "{msg}");
}

/// A few steps of the character-level LSTM (its whole step one computation): the loss goes
/// down from about ln 35, and generation extends the prompt.
#[test]
fn char_lstm_loss_decreases_and_it_generates() {
    let (weights, losses) = char_lstm::train(12).unwrap();
    assert_eq!((weights.len(), losses.len()), (6, 12));
    let (first, last) = (
        losses[..3].iter().sum::<f32>(),
        losses[9..].iter().sum::<f32>(),
    );
    assert!(first / 3.0 > 3.0 && last < first, "{losses:?}");
    let text = char_lstm::generate(&weights, "shall i", 10).unwrap();
    assert!(
        text.starts_with("shall i") && text.chars().count() == 17,
        "{text:?}"
    );
}
