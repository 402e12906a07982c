//! Reporting: metrics on the host, the training log, the PNG plot and the progress output
//! when stdout is not a terminal.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use xla::train::metrics::{
    accuracy, accuracy_from_logits, argmax_literal, argmax_rows, softmax_cross_entropy,
};
use xla::train::{Progress, ProgressMode, TrainLog};
use xla::Literal;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xla-train-report-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn argmax_takes_the_first_maximum_and_nan_wins() {
    let cases: Vec<(Vec<f32>, usize, Vec<usize>)> = vec![
        (vec![0.1, 0.7, 0.2], 3, vec![1]),
        (vec![5.0, 5.0, 1.0, -1.0, -2.0, -1.0], 3, vec![0, 0]), // ties: first index
        (vec![1.0, f32::NAN, 9.0, f32::NAN], 4, vec![1]),       // like jnp.argmax
        (vec![f32::NEG_INFINITY, f32::NEG_INFINITY], 2, vec![0]),
        (vec![], 3, vec![]),
    ];
    for (values, cols, want) in cases {
        assert_eq!(argmax_rows(&values, cols).unwrap(), want, "{values:?}");
    }
    assert!(argmax_rows(&[1.0; 5], 2).is_err());
    assert!(argmax_rows(&[1.0; 4], 0).is_err());
    let lit = Literal::from_vec(&[2, 2], vec![1.0f64, 2.0, 4.0, 3.0]).unwrap();
    assert_eq!(argmax_literal(&lit).unwrap(), vec![1, 0]);
    let ints = Literal::from_vec(&[1, 3], vec![3i32, 9, 9]).unwrap();
    assert_eq!(argmax_literal(&ints).unwrap(), vec![1]);
    assert!(argmax_literal(&Literal::vec1(&[1.0f32])).is_err());
    assert!(argmax_literal(&Literal::tuple(vec![])).is_err());
}

#[test]
fn accuracy_and_cross_entropy() {
    assert_eq!(accuracy(&[1, 2, 3, 4], &[1, 2, 0, 0]).unwrap(), 50.0);
    assert_eq!(accuracy(&[], &[]).unwrap(), 0.0);
    assert!(accuracy(&[1], &[]).is_err());
    let logits = Literal::from_vec(&[3, 2], vec![0.0f32, 1.0, 2.0, 1.0, 0.0, 5.0]).unwrap();
    let acc = accuracy_from_logits(&logits, &[1, 1, 1]).unwrap();
    assert!((acc - 200.0 / 3.0).abs() < 1e-12);
    // softmax([0, ln 3]) = [1/4, 3/4]: CE for label 1 is ln(4/3), for label 0 ln 4.
    let l3 = 3f32.ln();
    let ce = softmax_cross_entropy(&[0.0, l3, 0.0, l3], &[1, 0], 2).unwrap();
    let want = ((4.0f64 / 3.0).ln() + 4f64.ln()) / 2.0;
    assert!((ce - want).abs() < 1e-7, "{ce} vs {want}");
    // Large logits do not overflow: softmax([1000, 0]) puts ~all mass on class 0.
    let big = softmax_cross_entropy(&[1000.0, 0.0], &[0], 2).unwrap();
    assert!(big.abs() < 1e-12);
    assert!((softmax_cross_entropy(&[1000.0, 0.0], &[1], 2).unwrap() - 1000.0).abs() < 1e-9);
    assert!(softmax_cross_entropy(&[0.0; 4], &[2, 0], 2).is_err());
    assert!(softmax_cross_entropy(&[0.0; 4], &[0], 2).is_err());
}

#[test]
fn log_numbers_steps_and_epochs() {
    let mut log = TrainLog::resumed(2, 100);
    assert_eq!(log.record_loss(0.5), 101);
    assert_eq!(log.record_loss(0.25), 102);
    assert_eq!(log.record_epoch(Some(90.0), None), 3);
    assert_eq!(log.mean_loss_since(100), Some(0.375));
    assert_eq!(log.best_test_accuracy(), None);
    assert_eq!(
        log.to_csv(),
        "kind,index,step,value\nstart,2,100,0\nloss,1,101,0.5\nloss,2,102,0.25\ntrain_acc,3,102,90\n"
    );
    assert_eq!(TrainLog::from_csv(&log.to_csv(), "log").unwrap(), log);
    log.record_epoch(Some(91.5), Some(f64::NAN));
    let back = TrainLog::from_csv(&log.to_csv(), "log").unwrap();
    assert_eq!(
        (back.epoch(), back.epochs[1].train_accuracy),
        (4, Some(91.5))
    );
    assert!(back.epochs[1].test_accuracy.unwrap().is_nan());
    for (bad, msg) in [
        (
            "h\nloss,1,2\n",
            "log line 2: expected kind,index,step,value: `loss,1,2`",
        ),
        ("h\nloss,1,x,0.5\n", "log line 2: bad step"),
        ("h\nstart,0,0,0\nweird,1,1,1\n", "log line 3: unknown kind"),
    ] {
        assert_eq!(
            TrainLog::from_csv(bad, "log")
                .unwrap_err()
                .to_string()
                .split(": `")
                .next(),
            msg.split(": `").next(),
            "{bad}"
        );
    }
    let path = temp_dir("csv").join("log.csv");
    log.save_csv(&path).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), log.to_csv());
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&bytes[12..16], b"IHDR");
    let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    (w, h)
}

fn sample_log(epochs: usize, steps: usize) -> TrainLog {
    let mut log = TrainLog::default();
    for e in 0..epochs {
        for s in 0..steps {
            let t = (e * steps + s) as f64;
            log.record_loss(2.3 * (-t / 40.0).exp() + 0.05 * (t * 1.7).sin().abs());
        }
        let e = e as f64;
        log.record_epoch(
            Some(100.0 - 60.0 * (-e / 2.0).exp()),
            Some(97.0 - 60.0 * (-e / 2.0).exp()),
        );
    }
    log
}

#[test]
fn plot_writes_a_png() {
    let dir = temp_dir("plot");
    let path = dir.join("training.png");
    sample_log(10, 45)
        .save_plot(&path, "mlp on digits")
        .unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 10_000, "{} bytes", bytes.len());
    assert_eq!(png_size(&bytes), (1000, 800));
    // Only losses (e.g. a regression): one panel; a single point; a NaN loss.
    let mut loss_only = TrainLog::default();
    for l in [3.0, 2.0, f64::NAN, 1.0] {
        loss_only.record_loss(l);
    }
    loss_only.save_plot(dir.join("loss.png"), "gp").unwrap();
    sample_log(1, 1)
        .save_plot(dir.join("one.png"), "one step")
        .unwrap();
    TrainLog::default()
        .save_plot(dir.join("empty.png"), "nothing yet")
        .unwrap();
    for f in ["loss.png", "one.png", "empty.png"] {
        assert_eq!(png_size(&std::fs::read(dir.join(f)).unwrap()), (1000, 800));
    }
    // An unwritable place: an error naming the file, and no stray temporary file.
    let err = sample_log(2, 2)
        .save_plot(dir.join("missing/dir/x.png"), "t")
        .unwrap_err();
    assert!(err.to_string().contains("x.png"), "{err}");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        vec!["empty.png", "loss.png", "one.png", "training.png"]
    );
    if let Ok(keep) = std::env::var("XLA_TRAIN_KEEP_PLOT") {
        std::fs::copy(&path, keep).unwrap();
    }
}

/// A writer the test can read back.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn run(mode: ProgressMode, out: &Shared) -> (TrainLog, String) {
    let mut p = Progress::new(2, 3, mode).with_writer(out.clone());
    for e in 0..2 {
        for s in 0..3 {
            p.step(1.0 / (e * 3 + s + 1) as f64, 32);
        }
        let line = p.end_epoch(Some(90.0 + e as f64), Some(88.5));
        assert!(
            line.starts_with(&format!("epoch {}/2: loss ", e + 1)),
            "{line}"
        );
    }
    p.finish()
}

#[test]
fn progress_lines_when_not_a_terminal() {
    if !std::io::stdout().is_terminal() {
        assert_eq!(ProgressMode::auto(false), ProgressMode::Lines);
    }
    assert_eq!(ProgressMode::auto(true), ProgressMode::Quiet);
    let out = Shared::default();
    let (log, summary) = run(ProgressMode::Lines, &out);
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    // Epoch 1 mean loss: (1 + 1/2 + 1/3) / 3 = 0.6111.
    assert!(
        lines[0].starts_with("epoch 1/2: loss 0.6111, train 90.00%, test 88.50%, "),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains(" samples/s, "), "{}", lines[0]);
    // Epoch 2: (1/4 + 1/5 + 1/6) / 3 = 0.2056.
    assert!(
        lines[1].starts_with("epoch 2/2: loss 0.2056, train 91.00%, test 88.50%, "),
        "{}",
        lines[1]
    );
    assert!(!text.contains('\x1b'), "no escape codes: {text:?}");
    assert_eq!(lines[2], summary);
    assert!(
        summary.starts_with("trained 2 epochs (6 steps) in "),
        "{summary}"
    );
    assert!(
        summary.ends_with(": final loss 0.1667, test accuracy 88.50%"),
        "{summary}"
    );
    assert_eq!(log.step(), 6);
    assert_eq!(log.epochs.len(), 2);
}

#[test]
fn progress_quiet_and_hidden_bar_print_nothing_to_the_writer() {
    let out = Shared::default();
    let (log, summary) = run(ProgressMode::Quiet, &out);
    assert!(out.0.lock().unwrap().is_empty());
    assert!(summary.contains("6 steps"));
    assert_eq!(log.losses.len(), 6);
    // A bar whose stdout is not a terminal draws nothing and does not fail.
    let (log, _) = run(ProgressMode::Bar, &Shared::default());
    assert_eq!(log.step(), 6);
}

#[test]
fn progress_resumes_numbering() {
    let out = Shared::default();
    let mut p = Progress::new(5, 2, ProgressMode::Lines)
        .with_writer(out.clone())
        .resume(TrainLog::resumed(3, 60));
    p.step(0.5, 8);
    p.step(0.25, 8);
    assert!(p
        .end_epoch(None, Some(99.0))
        .starts_with("epoch 4/5: loss 0.3750, test 99.00%,"));
    let (log, summary) = p.finish();
    assert_eq!((log.epoch(), log.step()), (4, 62));
    assert!(
        summary.starts_with("trained 1 epoch (2 steps)"),
        "{summary}"
    );
}

fn parse(args: &[&str]) -> xla::train::Result<Option<xla::train::TrainArgs>> {
    let defaults = xla::train::TrainArgs {
        epochs: 20,
        ..Default::default()
    };
    defaults.parse(args.iter().map(|s| s.to_string()))
}

#[test]
fn args_parse_values_flags_and_errors() {
    let a = parse(&[
        "--epochs=3",
        "--batch-size",
        "64",
        "--lr",
        "1e-3",
        "--seed",
        "9",
        "--limit",
        "100",
        "--data",
        "/d",
        "--checkpoint",
        "c.safetensors",
        "--resume",
        "--plot",
        "p.png",
        "-q",
    ])
    .unwrap()
    .unwrap();
    assert_eq!(
        (a.epochs, a.batch_size, a.learning_rate, a.seed, a.limit),
        (3, 64, 1e-3, 9, Some(100))
    );
    assert_eq!(
        (a.data.unwrap(), a.checkpoint.unwrap(), a.plot.unwrap()),
        ("/d".into(), "c.safetensors".into(), "p.png".into())
    );
    assert!(a.resume && a.quiet);
    assert_eq!(parse(&[]).unwrap().unwrap().epochs, 20);
    assert_eq!(parse(&["--epochs", "1", "--help"]).unwrap(), None);
    let cases: &[(&[&str], &str)] = &[
        (&["--epochs"], "--epochs needs a value"),
        (
            &["--epochs", "many"],
            "--epochs: `many` is not a valid value",
        ),
        (&["--batch-size", "0"], "--batch-size must be at least 1"),
        (&["--resume"], "--resume needs --checkpoint FILE"),
        (&["--quiet=yes"], "--quiet takes no value"),
        (&["--frobnicate"], "unknown option `--frobnicate`"),
    ];
    for (args, msg) in cases {
        let err = parse(args).unwrap_err().to_string();
        assert!(err.contains(msg), "{args:?}: {err}");
    }
    let usage = xla::train::TrainArgs::default().usage("demo");
    assert!(
        usage.starts_with("demo\n") && usage.contains("--epochs N          epochs to train [10]"),
        "{usage}"
    );
}

#[test]
fn args_resume_and_save_checkpoint() {
    let dir = temp_dir("args");
    let ckpt = dir.join("m.safetensors");
    let w = Literal::vec1(&[1.0f32, 2.0]);
    let mut args = parse(&["--checkpoint", ckpt.to_str().unwrap(), "--resume"])
        .unwrap()
        .unwrap();
    // No file yet: start from scratch.
    assert_eq!(args.resume_checkpoint(&[("w", w.shape())]).unwrap(), None);
    let mut log = TrainLog::default();
    log.record_loss(0.5);
    log.record_epoch(Some(50.0), Some(40.0));
    args.save_checkpoint(&[("w", &w)], &log).unwrap();
    let (params, saved) = args
        .resume_checkpoint(&[("w", w.shape())])
        .unwrap()
        .unwrap();
    assert_eq!((params, &saved), (vec![w.clone()], &log));
    let plain = xla::train::Checkpoint::load(&ckpt).unwrap();
    assert_eq!(plain.state, xla::train::TrainState { epoch: 1, step: 1 });
    // A checkpoint without a saved log resumes with an empty log at its epoch and step.
    xla::train::save_checkpoint(
        &ckpt,
        &[("w", &w)],
        xla::train::TrainState { epoch: 2, step: 8 },
    )
    .unwrap();
    let (_, saved) = args
        .resume_checkpoint(&[("w", w.shape())])
        .unwrap()
        .unwrap();
    assert_eq!(saved, TrainLog::resumed(2, 8));
    assert!(args.save_checkpoint(&[("w", &w), ("w", &w)], &log).is_err());
    args.resume = false;
    assert_eq!(args.resume_checkpoint(&[("w", w.shape())]).unwrap(), None);
    // Without --checkpoint nothing is written.
    xla::train::TrainArgs::default()
        .save_checkpoint(&[("w", &w)], &TrainLog::default())
        .unwrap();
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}

#[test]
fn accuracy_counter_over_padded_batches() {
    use xla::train::metrics::AccuracyCounter;
    use xla::train::Dataset;
    // Five samples whose "logits" are their one-hot labels: every real prediction is right.
    let d = Dataset::new(vec![0.0; 5], vec![1, 0, 2, 2, 1], &[1], 3).unwrap();
    let mut acc = AccuracyCounter::default();
    for (batch, real) in d.eval_batches(2).unwrap() {
        let logits = if real < batch.len() {
            // The last batch: sample 4 (label 1) and sample 0 repeated as padding (label 1).
            // The padding row predicts 0, which is wrong, and must not be counted.
            assert_eq!((real, batch.labels()), (1, &[1u8, 1][..]));
            Literal::from_vec(&[2, 3], vec![0f32, 1., 0., 1., 0., 0.]).unwrap()
        } else {
            batch.one_hot_literal().unwrap()
        };
        acc.add_logits(&logits, batch.labels(), real).unwrap();
    }
    assert_eq!((acc.correct, acc.total, acc.percent()), (5, 5, 100.0));
    assert!(acc
        .add_logits(&Literal::from_vec(&[1, 3], vec![0f32; 3]).unwrap(), &[0], 2)
        .is_err());
    assert_eq!(AccuracyCounter::default().percent(), 0.0);
}

#[test]
fn fit_plot_writes_a_png_and_checks_lengths() {
    use xla::train::plot::{save_fit_plot, FitPlot};
    let dir = temp_dir("fit");
    let x: Vec<f64> = (0..200).map(|i| -3.0 + 6.0 * i as f64 / 199.0).collect();
    let truth: Vec<f64> = x.iter().map(|x| x.sin()).collect();
    let mean: Vec<f64> = x.iter().map(|x| 0.9 * x.sin()).collect();
    let std: Vec<f64> = x.iter().map(|x| 0.1 + 0.05 * x.abs()).collect();
    let obs: Vec<(f64, f64)> = (0..12)
        .map(|i| {
            let x = -2.8 + 0.5 * i as f64;
            (x, x.sin() + 0.1 * (i as f64 * 2.1).cos())
        })
        .collect();
    let fit = FitPlot {
        title: "GP regression",
        observations: &obs,
        x: &x,
        mean: &mean,
        std: Some(&std),
        truth: Some(&truth),
    };
    let path = dir.join("fit.png");
    save_fit_plot(&path, &fit).unwrap();
    assert_eq!(png_size(&std::fs::read(&path).unwrap()), (1000, 600));
    let short = FitPlot {
        mean: &mean[..10],
        ..fit
    };
    assert!(save_fit_plot(dir.join("bad.png"), &short)
        .unwrap_err()
        .to_string()
        .contains("x has 200 points"));
    assert!(!dir.join("bad.png").exists());
    if let Ok(keep) = std::env::var("XLA_TRAIN_KEEP_FIT") {
        std::fs::copy(&path, keep).unwrap();
    }
}
