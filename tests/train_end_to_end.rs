//! The toolkit end to end with a model computed on the host (softmax regression in plain
//! Rust): split, shuffled batches, SGD, metrics, progress, checkpoint + resume, plot. If the
//! digits' pixels and labels were misaligned, the accuracy would stay near 10%.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use xla::train::metrics::{softmax_cross_entropy, AccuracyCounter};
use xla::train::optim::Sgd;
use xla::train::{Dataset, Digits, Order, Progress, ProgressMode, Rng, TrainArgs, TrainLog};
use xla::{Literal, PrimitiveType, Shape};

const D: usize = 64;
const C: usize = 10;

/// Logits `x W + b` of a batch.
fn logits(params: &[Literal], x: &[f32]) -> Vec<f32> {
    let (w, b) = (
        params[0].typed_data::<f32>().unwrap(),
        params[1].typed_data::<f32>().unwrap(),
    );
    x.chunks(D)
        .flat_map(|row| {
            (0..C).map(move |c| {
                b[c] + row
                    .iter()
                    .enumerate()
                    .map(|(i, v)| v * w[i * C + c])
                    .sum::<f32>()
            })
        })
        .collect()
}

/// Mean cross-entropy and its gradients with respect to W and b.
fn loss_and_grads(params: &[Literal], batch: &Dataset) -> (f64, Vec<Literal>) {
    let z = logits(params, batch.features());
    let loss = softmax_cross_entropy(&z, batch.labels(), C).unwrap();
    let n = batch.len() as f32;
    let (mut gw, mut gb) = (vec![0f32; D * C], vec![0f32; C]);
    for (r, (row, &label)) in z.chunks(C).zip(batch.labels()).enumerate() {
        let max = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        let e: Vec<f32> = row.iter().map(|v| (v - max).exp()).collect();
        let s: f32 = e.iter().sum();
        let x = batch.sample(r).unwrap().0;
        for c in 0..C {
            let d = (e[c] / s - f32::from(u8::from(c == label as usize))) / n;
            gb[c] += d;
            for i in 0..D {
                gw[i * C + c] += x[i] * d;
            }
        }
    }
    (
        loss,
        vec![
            Literal::from_vec(&[D as i64, C as i64], gw).unwrap(),
            Literal::vec1(&gb),
        ],
    )
}

fn evaluate(params: &[Literal], data: &Dataset) -> f64 {
    let mut acc = AccuracyCounter::default();
    for (batch, real) in data.eval_batches(64).unwrap() {
        let z = Literal::from_vec(&[64, C as i64], logits(params, batch.features())).unwrap();
        acc.add_logits(&z, batch.labels(), real).unwrap();
    }
    assert_eq!(acc.total, data.len());
    acc.percent()
}

/// Trains for `args.epochs`, resuming from the checkpoint when asked; returns test accuracy.
fn run(args: &TrainArgs) -> (f64, TrainLog) {
    let (train, test) = Digits::embedded().unwrap().split(0.8, args.seed).unwrap();
    let names = ["w", "b"];
    let mut params = vec![
        Rng::new(args.seed)
            .glorot_uniform(&[D as i64, C as i64])
            .unwrap(),
        Literal::vec1(&[0f32; C]),
    ];
    let shapes = [
        Shape::array(PrimitiveType::F32, vec![D as i64, C as i64]),
        Shape::array(PrimitiveType::F32, vec![C as i64]),
    ];
    let expected: Vec<(&str, &Shape)> = names.iter().copied().zip(&shapes).collect();
    let mut log = TrainLog::default();
    if let Some((loaded, saved)) = args.resume_checkpoint(&expected).unwrap() {
        (params, log) = (loaded, saved);
    }
    let first_epoch = log.epoch();
    let steps = train
        .batches(args.batch_size, Order::Sequential)
        .unwrap()
        .count_total();
    let mut progress =
        Progress::new(args.epochs, steps, ProgressMode::auto(args.quiet)).resume(log);
    let mut sgd = Sgd::with_momentum(args.learning_rate, 0.9);
    for epoch in first_epoch..args.epochs {
        for batch in train
            .batches(args.batch_size, Order::epoch(args.seed, epoch))
            .unwrap()
        {
            let (loss, grads) = loss_and_grads(&params, &batch);
            sgd.step(&mut params, &grads).unwrap();
            progress.step(loss, batch.len());
        }
        let (tr, te) = (evaluate(&params, &train), evaluate(&params, &test));
        progress.end_epoch(Some(tr), Some(te));
        let named: Vec<(&str, &Literal)> = names.iter().copied().zip(&params).collect();
        args.save_checkpoint(&named, progress.log()).unwrap();
    }
    let (log, _) = progress.finish();
    if let Some(path) = &args.plot {
        log.save_plot(path, "softmax regression on digits (host)")
            .unwrap();
    }
    (evaluate(&params, &test), log)
}

#[test]
fn softmax_regression_learns_the_digits_and_resumes() {
    let dir = std::env::temp_dir().join(format!("xla-train-e2e-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let ckpt = dir.join("model.safetensors");
    let base = TrainArgs {
        epochs: 2,
        batch_size: 32,
        learning_rate: 0.1,
        quiet: true,
        checkpoint: Some(ckpt.clone()),
        resume: true,
        plot: Some(dir.join("curves.png")),
        ..TrainArgs::default()
    };
    let (acc2, log2) = run(&base);
    assert_eq!((log2.epoch(), log2.step()), (2, 2 * (1437 / 32)));
    // Resume for 3 more epochs from the checkpoint written after epoch 2.
    let resumed = TrainArgs {
        epochs: 5,
        ..base.clone()
    };
    let (acc5, log5) = run(&resumed);
    assert_eq!((log5.epoch(), log5.step()), (5, 5 * (1437 / 32)));
    // The checkpoint carried the log, so the plot shows the whole run.
    assert_eq!(log5.losses.len() as u64, log5.step());
    let epochs: Vec<usize> = log5.epochs.iter().map(|e| e.epoch).collect();
    assert_eq!(epochs, vec![1, 2, 3, 4, 5]);
    assert_eq!(&log5.epochs[..2], &log2.epochs[..]);
    assert!(acc2 > 85.0, "after 2 epochs: {acc2}%");
    assert!(acc5 > 93.0, "after 5 epochs: {acc5}%");
    assert!(std::fs::read(dir.join("curves.png"))
        .unwrap()
        .starts_with(b"\x89PNG"));
    if let Ok(keep) = std::env::var("XLA_TRAIN_KEEP_E2E") {
        std::fs::copy(dir.join("curves.png"), keep).unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
