//! Criterion benchmarks of the CPU executor's heavy kernels: matmul, convolution (forward
//! and both gradients, the B7 shapes scaled down), Cholesky with triangular solves, each on
//! one thread and on every core.
//!
//! `cargo bench --bench linalg` (`-- matmul` to filter).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use xla::cpu::Executable;
use xla::Literal;

/// Deterministic values in [-1, 1).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn input(dims: &[i64], seed: u64) -> Literal {
    let n = dims.iter().product::<i64>() as usize;
    Literal::from_vec(dims, values(n, seed)).unwrap()
}

/// An SPD `n x n` matrix: `n I` plus small symmetric noise.
fn spd(n: usize) -> Literal {
    let v = values(n * n, 9);
    let m: Vec<f32> = (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            let s = (v[i * n + j] + v[j * n + i]) * 0.5;
            if i == j {
                n as f32 + s
            } else {
                s
            }
        })
        .collect();
    Literal::from_vec(&[n as i64, n as i64], m).unwrap()
}

/// (name, module text, inputs).
fn cases() -> Vec<(&'static str, String, Vec<Literal>)> {
    let matmul = |n: i64| {
        format!(
            "HloModule m\n\nENTRY main {{\n  a = f32[{n},{n}] parameter(0)\n  b = f32[{n},{n}] parameter(1)\n  ROOT d = f32[{n},{n}] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}\n}}\n"
        )
    };
    let conv_fwd = "HloModule m\n\nENTRY main {\n  x = f32[8,64,28,28] parameter(0)\n  w = f32[64,64,3,3] parameter(1)\n  ROOT c = f32[8,64,28,28] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01\n}\n";
    let conv_kgrad = "HloModule m\n\nENTRY main {\n  x = f32[8,64,28,28] parameter(0)\n  g = f32[8,64,28,28] parameter(1)\n  ROOT c = f32[64,64,3,3] convolution(x, g), window={size=28x28 pad=1_1x1_1}, dim_labels=fb01_io01->fb01\n}\n";
    let chol = "HloModule m\n\nENTRY main {\n  a = f32[512,512] parameter(0)\n  b = f32[512,64] parameter(1)\n  l = f32[512,512] cholesky(a), lower=true\n  y = f32[512,64] triangular-solve(l, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE\n  ROOT x = f32[512,64] triangular-solve(l, y), left_side=true, lower=true, transpose_a=TRANSPOSE\n}\n";
    vec![
        (
            "matmul_64",
            matmul(64),
            vec![input(&[64, 64], 1), input(&[64, 64], 2)],
        ),
        (
            "matmul_128",
            matmul(128),
            vec![input(&[128, 128], 1), input(&[128, 128], 2)],
        ),
        (
            "matmul_256",
            matmul(256),
            vec![input(&[256, 256], 1), input(&[256, 256], 2)],
        ),
        (
            "matmul_1024",
            matmul(1024),
            vec![input(&[1024, 1024], 1), input(&[1024, 1024], 2)],
        ),
        (
            "conv_fwd",
            conv_fwd.into(),
            vec![input(&[8, 64, 28, 28], 3), input(&[64, 64, 3, 3], 4)],
        ),
        (
            "conv_kernel_grad",
            conv_kgrad.into(),
            vec![input(&[8, 64, 28, 28], 5), input(&[8, 64, 28, 28], 6)],
        ),
        (
            "cholesky_solve_512",
            chol.into(),
            vec![spd(512), input(&[512, 64], 7)],
        ),
    ]
}

fn bench(c: &mut Criterion) {
    let all = std::thread::available_parallelism().map_or(1, usize::from);
    let mut g = c.benchmark_group("linalg");
    g.sample_size(10);
    for (name, text, args) in cases() {
        let module = xla::core::text::parse_module(&text).unwrap();
        let mut exe = Executable::compile(&module).unwrap();
        for threads in [1, all] {
            exe.set_threads(threads);
            g.bench_with_input(BenchmarkId::new(name, threads), &args, |b, args| {
                b.iter(|| black_box(exe.execute(args).unwrap()))
            });
            if all == 1 {
                break;
            }
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
