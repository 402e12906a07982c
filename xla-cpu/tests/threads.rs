//! The thread setting of an executable: `set_threads`, the default, and results that do not
//! depend on it (dot, convolution, cholesky, triangular-solve large enough to run in
//! parallel), checked against values computed by hand.

use xla_core::Literal;
use xla_cpu::Executable;

fn compile(text: &str) -> Executable {
    Executable::compile(&xla_core::text::parse_module(text).unwrap()).unwrap()
}

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

const MODULE: &str = r#"HloModule m

ENTRY main {
  x = f32[8,16,20,20] parameter(0)
  w = f32[32,16,3,3] parameter(1)
  a = f32[300,200] parameter(2)
  b = f32[200,260] parameter(3)
  c = f32[8,32,20,20] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  d = f32[300,260] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[8,32,20,20], f32[300,260]) tuple(c, d)
}
"#;

fn args() -> Vec<Literal> {
    vec![
        Literal::from_vec(&[8, 16, 20, 20], values(8 * 16 * 400, 1)).unwrap(),
        Literal::from_vec(&[32, 16, 3, 3], values(32 * 16 * 9, 2)).unwrap(),
        Literal::from_vec(&[300, 200], values(300 * 200, 3)).unwrap(),
        Literal::from_vec(&[200, 260], values(200 * 260, 4)).unwrap(),
    ]
}

#[test]
fn set_threads_sets_the_count_and_zero_means_one() {
    let mut exe = compile(MODULE);
    assert!(exe.threads() >= 1);
    for (n, want) in [(3, 3), (1, 1), (0, 1)] {
        exe.set_threads(n);
        assert_eq!(exe.threads(), want);
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let mut exe = compile(MODULE);
    exe.set_threads(1);
    let one = exe.execute(&args()).unwrap();
    for n in [2, 3] {
        exe.set_threads(n);
        assert_eq!(exe.execute(&args()).unwrap(), one, "{n} threads");
    }
    // Spot-check elements against sums computed here in f64.
    let a = args();
    let (x, w) = (a[0].data::<f32>().unwrap(), a[1].data::<f32>().unwrap());
    let (l, r) = (a[2].data::<f32>().unwrap(), a[3].data::<f32>().unwrap());
    let t = one.tuple_elements().unwrap();
    let (c, d) = (t[0].data::<f32>().unwrap(), t[1].data::<f32>().unwrap());
    for (i, j) in [(0, 0), (17, 100), (299, 259)] {
        let want: f64 = (0..200)
            .map(|k| f64::from(l[i * 200 + k]) * f64::from(r[k * 260 + j]))
            .sum();
        assert!(
            (f64::from(d[i * 260 + j]) - want).abs() < 1e-4,
            "dot[{i},{j}]"
        );
    }
    // conv[n=5, o=7, y=0, x=19]: the window hangs over the top and right edges.
    let (n, o, y, xx) = (5usize, 7usize, 0i64, 19i64);
    let mut want = 0f64;
    for ci in 0..16 {
        for ky in 0..3i64 {
            for kx in 0..3i64 {
                let (iy, ix) = (y + ky - 1, xx + kx - 1);
                if (0..20).contains(&iy) && (0..20).contains(&ix) {
                    let xv = x[((n * 16 + ci) * 20 + iy as usize) * 20 + ix as usize];
                    let wv = w[((o * 16 + ci) * 3 + ky as usize) * 3 + kx as usize];
                    want += f64::from(xv) * f64::from(wv);
                }
            }
        }
    }
    let got = c[((n * 32 + o) * 20 + y as usize) * 20 + xx as usize];
    assert!(
        (f64::from(got) - want).abs() < 1e-4,
        "conv: {got} vs {want}"
    );
}

#[test]
fn cholesky_and_triangular_solve_run_batched_on_many_threads() {
    // A = [[4, 2], [2, 5]] = L Lᵀ with L = [[2, 0], [1, 2]]; then L y = [2, 5] gives [1, 2].
    let text = r#"HloModule m

ENTRY main {
  a = f32[3,2,2] parameter(0)
  b = f32[3,2,1] parameter(1)
  l = f32[3,2,2] cholesky(a), lower=true
  ROOT y = f32[3,2,1] triangular-solve(l, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
}
"#;
    let mut exe = compile(text);
    exe.set_threads(2);
    let a = Literal::from_vec(&[3, 2, 2], [4f32, 2., 2., 5.].repeat(3)).unwrap();
    let b = Literal::from_vec(&[3, 2, 1], [2f32, 5.].repeat(3)).unwrap();
    let y = exe.execute(&[a, b]).unwrap();
    assert_eq!(y.data::<f32>().unwrap(), &[1f32, 2.].repeat(3)[..]);
}
