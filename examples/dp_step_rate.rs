//! Training steps per second of `cnn_digits` on one device and data-parallel on `N` thread
//! devices (README, "Data-parallel training"): the same global batches of 32, the same step
//! (`Classifier::step` and Adam), timed alone, without data loading, evaluation or plotting.
//!
//! ```sh
//! cargo run --release --example dp_step_rate -- [STEPS] [ROUNDS] [REPLICAS...]
//! ```
//!
//! Every round times `STEPS` steps (default 200) of each configuration in turn (1 device,
//! then each replica count, default 2), so a change of machine load hits all of them alike;
//! the table gives the median and best round of each, the CPU time per step (user + system
//! of the whole process, so the cores a configuration keeps busy) and the load average.

// The example includes cnn_digits (and its copy of examples/common).
#![allow(clippy::duplicate_mod)]

#[path = "cnn_digits.rs"]
mod cnn_digits;

use cnn_digits::common::{Classifier, Result};
use std::time::Instant;
use xla::train::optim::Adam;
use xla::train::{Dataset, Order, TrainArgs};
use xla::Literal;

/// The process's CPU time (user + system) in seconds, from `/proc/self/stat`.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return f64::NAN;
    };
    // The fields after the command name (which ends with the last ')').
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        f.get(i)
            .and_then(|s| s.parse::<f64>().ok())
            .unwrap_or(f64::NAN)
    };
    // utime and stime are fields 14 and 15 of the line; `rest` starts at field 3.
    (ticks(11) + ticks(12)) / 100.0
}

/// The 1-minute load average.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

/// The full batches of 32 of one epoch, as literals.
fn batches(train: &Dataset) -> Result<Vec<(Literal, Literal)>> {
    let mut out = Vec::new();
    for b in train.batches(32, Order::epoch(0, 0))? {
        let (x, y) = (b.features_literal()?, b.one_hot_literal()?);
        if x.shape().dims().first() == Some(&32) {
            out.push((x, y));
        }
    }
    Ok(out)
}

/// Wall and CPU seconds of `steps` training steps of `model` (cycling over `data`).
fn time_steps<M: Classifier>(
    model: &M,
    state: &mut [Literal],
    adam: &mut Adam,
    data: &[(Literal, Literal)],
    steps: usize,
) -> Result<(f64, f64)> {
    let (t0, c0) = (Instant::now(), cpu_seconds());
    for (x, y) in data.iter().cycle().take(steps) {
        let (_, grads) = model.step(state, x.clone(), y.clone())?;
        adam.step(&mut state[..model.trainable()], &grads)?;
    }
    Ok((t0.elapsed().as_secs_f64(), cpu_seconds() - c0))
}

/// The median and the smallest of `v`.
fn median_min(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    let mid = v.get(v.len() / 2).copied().unwrap_or(f64::NAN);
    (mid, v.first().copied().unwrap_or(f64::NAN))
}

fn main() -> Result<()> {
    let mut argv = std::env::args().skip(1);
    let steps: usize = argv.next().map_or(Ok(200), |s| s.parse())?;
    let rounds: usize = argv.next().map_or(Ok(5), |s| s.parse())?;
    let mut replicas: Vec<usize> = argv
        .map(|s| s.parse())
        .collect::<std::result::Result<_, _>>()?;
    if replicas.is_empty() {
        replicas.push(2);
    }
    let args = TrainArgs {
        learning_rate: 0.003,
        ..TrainArgs::default()
    };
    let (train, _) = cnn_digits::data(&args)?;
    let data = batches(&train)?;
    let single = cnn_digits::model();
    let parallel = replicas
        .iter()
        .map(|&r| cnn_digits::data_parallel(r))
        .collect::<Result<Vec<_>>>()?;
    let n = 1 + parallel.len();
    let mut states: Vec<Vec<Literal>> = (0..n).map(|_| single.init(0)).collect::<Result<_>>()?;
    let mut adams: Vec<Adam> = (0..n).map(|_| Adam::new(args.learning_rate)).collect();
    let mut times: Vec<Vec<(f64, f64)>> = vec![Vec::new(); n];
    let load_before = load();
    // Round 0 warms up (compiles, first allocations) and is not counted.
    for round in 0..=rounds {
        let k = if round == 0 { 5 } else { steps };
        for (i, (state, adam)) in states.iter_mut().zip(&mut adams).enumerate() {
            let t = match i.checked_sub(1).and_then(|p| parallel.get(p)) {
                None => time_steps(&single, state, adam, &data, k)?,
                Some(model) => time_steps(model, state, adam, &data, k)?,
            };
            if round > 0 {
                if let Some(v) = times.get_mut(i) {
                    v.push(t);
                }
            }
        }
    }
    println!(
        "{steps} steps x {rounds} rounds, load average {load_before} -> {}",
        load()
    );
    println!(
        "| devices | steps/s (median round) | best round | CPU per step | speed-up (median) |"
    );
    println!("| --- | --- | --- | --- | --- |");
    let mut base = f64::NAN;
    for (i, t) in times.into_iter().enumerate() {
        let cpu: f64 = t.iter().map(|p| p.1).sum::<f64>() / (steps * rounds) as f64;
        let (mid, best) = median_min(t.into_iter().map(|p| p.0).collect());
        let rate = steps as f64 / mid;
        let devices = i
            .checked_sub(1)
            .and_then(|p| replicas.get(p))
            .copied()
            .unwrap_or(1);
        if i == 0 {
            base = rate;
        }
        println!(
            "| {devices}{} | {rate:.0} | {:.0} | {:.2} ms | {:.2}x |",
            if i == 0 { "" } else { " threads" },
            steps as f64 / best,
            cpu * 1e3,
            rate / base
        );
    }
    Ok(())
}
