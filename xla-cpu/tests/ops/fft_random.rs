//! FFT, IFFT, RFFT and IRFFT on random shapes (1–3 transformed dims under up to one
//! batch dim, lengths odd, even, prime and powers of two) in c64 and c128, against the
//! discrete Fourier transform written out here in f64. The c64 transforms run in f32 (as
//! XLA's), so they are held to f32 rounding, the c128 ones to f64 rounding.

use super::{run, vals, Rng};
use num_complex::{Complex32, Complex64};
use xla_core::Literal;

type C = Complex64;

/// The DFT of every line of `x` (dims `dims`) along `axis`; `inverse` with `1/n`.
fn dft_axis(x: &mut [C], dims: &[usize], axis: usize, inverse: bool) {
    let n = dims[axis];
    let inner: usize = dims[axis + 1..].iter().product();
    let outer: usize = dims[..axis].iter().product();
    let sign = if inverse { 1.0 } else { -1.0 };
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| o * n * inner + k * inner + i;
            let line: Vec<C> = (0..n).map(|k| x[at(k)]).collect();
            for k in 0..n {
                let mut s = C::new(0.0, 0.0);
                for (j, v) in line.iter().enumerate() {
                    let t = sign * 2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
                    s += v * C::new(t.cos(), t.sin());
                }
                x[at(k)] = if inverse { s / n as f64 } else { s };
            }
        }
    }
}

fn dims_text(d: &[usize]) -> String {
    d.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Runs `fft` of type `ty` on `x` (complex values; real parts only for RFFT) and gives
/// the result as f64 complex values.
fn ours(ty: &str, wide: bool, x: &[C], dims: &[usize], lengths: &[usize], out: &[usize]) -> Vec<C> {
    let (c, r) = if wide {
        ("c128", "f64")
    } else {
        ("c64", "f32")
    };
    let (tin, tout) = match ty {
        "RFFT" => (r, c),
        "IRFFT" => (c, r),
        _ => (c, c),
    };
    let hlo = format!(
        "HloModule t\nENTRY e {{\n  x = {tin}[{}] parameter(0)\n  ROOT f = {tout}[{}] fft(x), fft_type={ty}, fft_length={{{}}}\n}}\n",
        dims_text(dims),
        dims_text(out),
        dims_text(lengths)
    );
    let d: Vec<i64> = dims.iter().map(|&v| v as i64).collect();
    let arg = match (tin, wide) {
        ("f32", _) => Literal::from_vec(&d, x.iter().map(|v| v.re as f32).collect()),
        ("f64", _) => Literal::from_vec(&d, x.iter().map(|v| v.re).collect()),
        (_, false) => Literal::from_vec(
            &d,
            x.iter()
                .map(|v| Complex32::new(v.re as f32, v.im as f32))
                .collect(),
        ),
        (_, true) => Literal::from_vec(&d, x.to_vec()),
    }
    .unwrap();
    let r = run(&hlo, &[arg]).unwrap_or_else(|e| panic!("{e}\n{hlo}"));
    match (tout, wide) {
        ("f32", _) => vals::<f32>(&r)
            .iter()
            .map(|&v| C::new(v.into(), 0.0))
            .collect(),
        ("f64", _) => vals::<f64>(&r).iter().map(|&v| C::new(v, 0.0)).collect(),
        (_, false) => vals::<Complex32>(&r)
            .iter()
            .map(|v| C::new(v.re.into(), v.im.into()))
            .collect(),
        (_, true) => vals::<C>(&r),
    }
}

/// The transform by its definition.
fn reference(ty: &str, x: &[C], dims: &[usize], l: usize, n_last: usize) -> Vec<C> {
    let rank = dims.len();
    let mut v = x.to_vec();
    match ty {
        "FFT" | "IFFT" => {
            for a in rank - l..rank {
                dft_axis(&mut v, dims, a, ty == "IFFT");
            }
            v
        }
        "RFFT" => {
            v.iter_mut().for_each(|c| c.im = 0.0);
            for a in rank - l..rank {
                dft_axis(&mut v, dims, a, false);
            }
            let h = n_last / 2 + 1;
            v.chunks(n_last).flat_map(|row| row[..h].to_vec()).collect()
        }
        _ => {
            for a in rank - l..rank - 1 {
                dft_axis(&mut v, dims, a, true);
            }
            // The last axis: the half spectrum extended by conjugate symmetry; the
            // imaginary parts of the zero and Nyquist bins do not count.
            let h = dims[rank - 1];
            let mut full: Vec<C> = Vec::new();
            for row in v.chunks(h) {
                for k in 0..n_last {
                    let mut c = if k < h {
                        row[k]
                    } else {
                        row[n_last - k].conj()
                    };
                    if k == 0 || 2 * k == n_last {
                        c.im = 0.0;
                    }
                    full.push(c);
                }
            }
            let mut fd = dims.to_vec();
            fd[rank - 1] = n_last;
            dft_axis(&mut full, &fd, rank - 1, true);
            full.iter().map(|c| C::new(c.re, 0.0)).collect()
        }
    }
}

#[test]
fn fft_of_every_type_matches_the_dft_on_random_shapes() {
    let mut r = Rng(3);
    let lens = [1usize, 2, 3, 4, 5, 7, 8, 12, 16, 17, 31, 32, 64];
    for case in 0..160 {
        let ty = ["FFT", "IFFT", "RFFT", "IRFFT"][case % 4];
        let wide = case % 8 >= 4;
        let l = 1 + r.below(3);
        let batch = r.below(2);
        let mut lengths: Vec<usize> = (0..l).map(|_| lens[r.below(lens.len())]).collect();
        if l == 3 {
            lengths.iter_mut().for_each(|n| *n = (*n).min(12));
        }
        let mut dims: Vec<usize> = (0..batch).map(|_| 1 + r.below(3)).collect();
        dims.extend(&lengths);
        let n_last = lengths[l - 1];
        let mut out = dims.clone();
        let rank = dims.len();
        match ty {
            "RFFT" => out[rank - 1] = n_last / 2 + 1,
            "IRFFT" => dims[rank - 1] = n_last / 2 + 1,
            _ => {}
        }
        let count: usize = dims.iter().product();
        let x: Vec<C> = (0..count).map(|_| C::new(r.unit(), r.unit())).collect();
        let got = ours(ty, wide, &x, &dims, &lengths, &out);
        let want = reference(ty, &x, &dims, l, n_last);
        assert_eq!(got.len(), want.len(), "{ty} {dims:?} {lengths:?}");
        // A transform's rounding error grows with log n times the input's size.
        let total: usize = lengths.iter().product();
        let eps = if wide {
            f64::EPSILON
        } else {
            f64::from(f32::EPSILON)
        };
        let scale = if ty == "IFFT" || ty == "IRFFT" {
            1.0 / total as f64
        } else {
            1.0
        };
        let l1: f64 = x.iter().map(|c| c.norm()).sum::<f64>() * scale;
        let tol = 4.0 * eps * ((total as f64).log2() + 1.0) * l1.max(1e-30);
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g - w).norm() <= tol,
                "case {case}: {ty} {} dims {dims:?} lengths {lengths:?} element {k}: {g} vs {w} (tol {tol:e})",
                if wide { "c128" } else { "c64" }
            );
        }
    }
}

#[test]
fn fft_lines_split_across_threads_give_the_sequential_bits() {
    // Big enough that the lines are split across threads; the same bits at 1 and 2.
    let hlo = "HloModule t\nENTRY e {\n  x = f32[64,48,256] parameter(0)\n  r = c64[64,48,129] fft(x), fft_type=RFFT, fft_length={48,256}\n  ROOT i = f32[64,48,256] fft(r), fft_type=IRFFT, fft_length={48,256}\n}\n";
    let mut rng = Rng(5);
    let n = 64 * 48 * 256;
    let x: Vec<f32> = (0..n).map(|_| rng.unit() as f32).collect();
    let arg = Literal::from_vec(&[64, 48, 256], x.clone()).unwrap();
    let module = xla_core::text::parse_module(hlo).unwrap();
    let mut exe = xla_cpu::Executable::compile(&module).unwrap();
    let mut outs = Vec::new();
    for t in [1, 2] {
        exe.set_threads(t);
        outs.push(vals::<f32>(
            &exe.execute(std::slice::from_ref(&arg)).unwrap(),
        ));
    }
    assert!(outs[0]
        .iter()
        .zip(&outs[1])
        .all(|(a, b)| a.to_bits() == b.to_bits()));
    // And the round trip gives the input back to f32 rounding.
    let worst = outs[0]
        .iter()
        .zip(&x)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    assert!(worst < 1e-5, "round trip off by {worst}");
}
