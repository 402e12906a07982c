//! What polling for a stop inside long kernels costs (README, "Cancellation and
//! deadlines"): B1 (f32[1024,1024] matmul) and B4 (Cholesky 1024 and two triangular
//! solves) run plainly (`execute`: no token, no deadline, so kernels never poll) and with a
//! cancel token and a far deadline (`execute_with_options`: a large `dot` then runs in
//! output tiles, polling before each), interleaved, and the median of each is printed.
//!
//! ```sh
//! cargo run --release --example stop_overhead [ROUNDS]
//! ```

use std::time::{Duration, Instant};
use xla::core::Literal;
use xla::cpu::{CancelToken, Executable, ExecuteOptions};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Pseudo-random values in [-0.5, 0.5).
fn noise(n: usize, seed: u32) -> Vec<f32> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 8) as f32 / (1 << 24) as f32 - 0.5
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Interleaved runs of `exe` on `args`, plain and with options: the two medians (ms).
fn compare(exe: &Executable, args: &[&Literal], rounds: usize) -> Res<(f64, f64)> {
    let opts = ExecuteOptions::new()
        .with_cancel(CancelToken::new())
        .with_timeout(Duration::from_secs(3600));
    exe.execute_borrowed(args)?; // warm-up: pool started, pages touched
    exe.execute_with_options(args, &opts)?;
    let (mut plain, mut polled) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        exe.execute_borrowed(args)?;
        plain.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        exe.execute_with_options(args, &opts)?;
        polled.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok((median(plain), median(polled)))
}

fn main() -> Res<()> {
    let rounds = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(30);
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/perf");
    let load = |name: &str| -> Res<Executable> {
        let text = std::fs::read_to_string(format!("{dir}/{name}"))?;
        Ok(Executable::compile(&xla::core::text::parse_module(&text)?)?)
    };
    let b1 = load("B1_matmul_1024.hlo")?;
    let a = Literal::from_vec(&[1024, 1024], noise(1024 * 1024, 1))?;
    let b = Literal::from_vec(&[1024, 1024], noise(1024 * 1024, 2))?;
    let (p, q) = compare(&b1, &[&a, &b], rounds)?;
    println!(
        "B1 matmul 1024: plain {p:.2} ms, with token and deadline {q:.2} ms, ratio {:.3}",
        q / p
    );
    let b4 = load("B4_chol_solve_f32.hlo")?;
    // Symmetric positive definite: all ones plus 1024 on the diagonal.
    let spd: Vec<f32> = (0..1024 * 1024)
        .map(|i| if i / 1024 == i % 1024 { 1025.0 } else { 1.0 })
        .collect();
    let a = Literal::from_vec(&[1024, 1024], spd)?;
    let b = Literal::from_vec(&[1024, 64], noise(1024 * 64, 3))?;
    let (p, q) = compare(&b4, &[&a, &b], rounds)?;
    println!(
        "B4 chol+solves 1024: plain {p:.2} ms, with token and deadline {q:.2} ms, ratio {:.3}",
        q / p
    );
    Ok(())
}
