//! Gaussian-process regression with a squared-exponential kernel. The three
//! hyper-parameters (log length-scale, log signal variance, log noise variance) are fitted
//! by Adam on the gradient of the negative log marginal likelihood, computed through a
//! Cholesky factorisation and a triangular solve and differentiated by xla-autodiff. Then
//! the predictive mean and variance on a grid are printed and plotted.
//!
//! ```sh
//! cargo run --release --example gp_regression -- --plot gp_regression.png
//! ```

pub mod common;

use common::Result;
use xla::computation;
use xla::train::optim::Adam;
use xla::train::plot::{save_fit_plot, FitPlot};
use xla::train::{Progress, ProgressMode, Rng, TrainArgs, TrainLog};
use xla::Literal;

/// Observations.
pub const N: usize = 32;
/// Grid points of the prediction.
pub const GRID: usize = 100;
/// The hyper-parameters, in the order of the computations' leading parameters.
pub const NAMES: [&str; 3] = ["log_length_scale", "log_signal_var", "log_noise_var"];

/// The negative log marginal likelihood `½ yᵀK⁻¹y + ½ log|K| + (n/2) log 2π` of
/// observations `y` at `x` with `K = σ² exp(-(xᵢ-xⱼ)²/2ℓ²) + σₙ² I`;
/// `nll::value_and_grad` also gives its gradient w.r.t. the three hyper-parameters.
#[computation(grad(log_ell, log_sf2, log_sn2))]
pub fn nll(
    log_ell: f64,
    log_sf2: f64,
    log_sn2: f64,
    x: Tensor<f64, 32>,
    y: Tensor<f64, 32, 1>,
) -> f64 {
    let d = x.broadcast_in_dim([32, 32], [0]) - x.broadcast_in_dim([32, 32], [1]);
    let eye = iota::<s32>([32, 32], 0)
        .eq(iota::<s32>([32, 32], 1))
        .convert::<f64>();
    let k = log_sf2.exp() * (d * d * (-0.5 * (-2.0 * log_ell).exp())).exp() + log_sn2.exp() * eye;
    let l = k.cholesky();
    let a = l.solve_lower(y);
    let half_log_det = (l * eye).sum([1]).ln().sum();
    0.5 * (a * a).sum() + half_log_det + 29.406_033_062_549_525
}

/// The predictive mean and variance of the latent function at `grid`.
#[computation]
pub fn posterior(
    log_ell: f64,
    log_sf2: f64,
    log_sn2: f64,
    x: Tensor<f64, 32>,
    y: Tensor<f64, 32, 1>,
    grid: Tensor<f64, 100>,
) -> (Tensor<f64, 100>, Tensor<f64, 100>) {
    let scale = -0.5 * (-2.0 * log_ell).exp();
    let d = x.broadcast_in_dim([32, 32], [0]) - x.broadcast_in_dim([32, 32], [1]);
    let eye = iota::<s32>([32, 32], 0)
        .eq(iota::<s32>([32, 32], 1))
        .convert::<f64>();
    let k = log_sf2.exp() * (d * d * scale).exp() + log_sn2.exp() * eye;
    let l = k.cholesky();
    let ds = x.broadcast_in_dim([32, 100], [0]) - grid.broadcast_in_dim([32, 100], [1]);
    let ks = log_sf2.exp() * (ds * ds * scale).exp();
    let alpha = l.t().solve_upper(l.solve_lower(y));
    let mean = ks.t().dot(alpha).reshape([100]);
    let v = l.solve_lower(ks);
    (mean, log_sf2.exp() - (v * v).sum([0]))
}

/// The function the observations sample.
pub fn truth(x: f64) -> f64 {
    (1.5 * x).sin() + 0.3 * (4.0 * x).cos()
}

/// `N` noisy observations at uniform points of `[0, 6)` and the prediction grid.
pub fn data(seed: u64) -> Result<(Literal, Literal, Literal)> {
    let mut rng = Rng::new(seed);
    let x: Vec<f64> = (0..N).map(|_| 6.0 * rng.uniform_f64()).collect();
    let y: Vec<f64> = x
        .iter()
        .map(|&x| truth(x) + 0.1 * rng.normal_f64())
        .collect();
    let grid: Vec<f64> = (0..GRID)
        .map(|i| -0.5 + 7.0 * i as f64 / (GRID - 1) as f64)
        .collect();
    Ok((
        Literal::vec1(&x),
        Literal::from_vec(&[N as i64, 1], y)?,
        Literal::vec1(&grid),
    ))
}

/// The initial hyper-parameters: ℓ = 1, σ² = 1, σₙ² = 1.
pub fn init() -> Vec<Literal> {
    vec![Literal::scalar(0f64); 3]
}

/// The example's defaults: an epoch is `STEPS` full-batch steps.
pub fn defaults() -> TrainArgs {
    TrainArgs {
        epochs: 10,
        learning_rate: 0.05,
        plot: Some("gp_regression.png".into()),
        ..TrainArgs::default()
    }
}

/// Optimiser steps per epoch.
pub const STEPS: usize = 20;

/// Fits the hyper-parameters; returns them and the log.
pub fn fit(args: &TrainArgs) -> Result<(Vec<Literal>, TrainLog)> {
    let (x, y, _) = data(args.seed)?;
    let mut params = init();
    let shape = xla::Shape::array(xla::PrimitiveType::F64, Vec::<i64>::new());
    let expected: Vec<(&str, &xla::Shape)> = NAMES.iter().map(|n| (*n, &shape)).collect();
    let mut log = TrainLog::default();
    if let Some((loaded, saved)) = common::resume(args, &expected)? {
        (params, log) = (loaded, saved);
    }
    let mut adam = Adam::new(args.learning_rate);
    let first = log.epoch();
    let mode = ProgressMode::auto(args.quiet);
    let mut progress = Progress::new(args.epochs, STEPS, mode).resume(log);
    for epoch in first..args.epochs {
        for _ in 0..STEPS {
            let mut inputs = params.clone();
            inputs.extend([x.clone(), y.clone()]);
            let (loss, grads) = common::value_and_grad(nll::value_and_grad::run, &inputs)?;
            let at = || format!("epoch {} step {}", epoch + 1, progress.log().step() + 1);
            common::check_finite(loss, at)?;
            adam.step(&mut params, &grads)?;
            progress.step(loss, N);
        }
        progress.end_epoch(None, None);
        let named: Vec<(&str, &Literal)> = NAMES.iter().copied().zip(&params).collect();
        args.save_checkpoint(&named, progress.log())?;
    }
    Ok((params, progress.finish().0))
}

/// The predictive mean and variance on the grid for `params`.
pub fn predict(params: &[Literal], seed: u64) -> Result<(Vec<f64>, Vec<f64>)> {
    let (x, y, grid) = data(seed)?;
    let mut inputs = params.to_vec();
    inputs.extend([x, y, grid]);
    let parts = posterior::run(&inputs)?.decompose_tuple()?;
    let [mean, var] = parts.as_slice() else {
        return Err("posterior: expected (mean, variance)".into());
    };
    Ok((mean.to_vec::<f64>()?, var.to_vec::<f64>()?))
}

fn run(args: &TrainArgs) -> Result<()> {
    let (params, _log) = fit(args)?;
    let p: Vec<f64> = params
        .iter()
        .map(|p| p.get_as_f64(&[]))
        .collect::<std::result::Result<_, _>>()?;
    let (mean, var) = predict(&params, args.seed)?;
    let (x, y, grid) = data(args.seed)?;
    let grid = grid.to_vec::<f64>()?;
    println!(
        "{:>6}  {:>8}  {:>8}  {:>8}",
        "x", "mean", "variance", "truth"
    );
    for i in (0..GRID).step_by(11) {
        println!(
            "{:>6.2}  {:>8.4}  {:>8.5}  {:>8.4}",
            grid[i],
            mean[i],
            var[i],
            truth(grid[i])
        );
    }
    if let Some(path) = &args.plot {
        let obs: Vec<(f64, f64)> = x
            .to_vec::<f64>()?
            .into_iter()
            .zip(y.to_vec::<f64>()?)
            .collect();
        let std: Vec<f64> = var.iter().map(|v| v.max(0.0).sqrt()).collect();
        let truth: Vec<f64> = grid.iter().map(|&x| truth(x)).collect();
        let fit = FitPlot {
            title: "GP regression",
            observations: &obs,
            x: &grid,
            mean: &mean,
            std: Some(&std),
            truth: Some(&truth),
        };
        save_fit_plot(path, &fit)?;
    }
    let nll = nll::run(&[&params[..], &[x, y]].concat())?.get_as_f64(&[])?;
    println!(
        "fitted length-scale {:.3}, signal variance {:.3}, noise variance {:.4}; negative log marginal likelihood {nll:.3}",
        p[0].exp(), p[1].exp(), p[2].exp()
    );
    Ok(())
}

#[allow(dead_code)]
fn main() -> std::process::ExitCode {
    let about = "Gaussian-process regression: kernel hyper-parameters fitted by the gradient of the log marginal likelihood (an epoch is 20 full-batch Adam steps; --limit is not used)";
    common::exit_code(run(&common::args(&defaults(), about)))
}
