//! The LAPACK custom calls of JAX's CPU lowering run as built-ins: each folder of
//! `testdata/lapack/` holds a `jnp.linalg` / `jax.scipy.linalg` / `jax.lax.linalg` program
//! lowered to HLO (`lapack_{s,d,c,z}*_ffi` custom calls), its inputs and the outputs real
//! XLA gave, each as HLO text and as StableHLO (`scripts/make_lapack_cases.py`): solve, inv,
//! det, slogdet, LU, Cholesky (lower, upper, not positive definite), cho_solve, triangular
//! solves in every flavour, a Kalman filter scan, a Gaussian-process likelihood with its
//! gradient; QR (geqrf, orgqr/ungqr), Hessenberg (gehrd) and tridiagonal (sytrd/hetrd)
//! reductions compared directly; eigh (syevd/heevd), svd (gesdd, gesvd), eig (geev) and
//! schur (gees) through what is unique (eigenvalues, projectors, reconstructions,
//! residuals, norms: see testdata/lapack/README.md); f32, f64, c64 and c128, batched.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod cases;

use cases::run_fixture;
use std::path::{Path, PathBuf};

fn run_case(dir: &Path, mlir: bool) -> Result<(), String> {
    let module = if mlir {
        let text = std::fs::read_to_string(dir.join("module.mlir")).unwrap();
        xla_core::mlir::parse_stablehlo(&text).map_err(|e| format!("parse: {e}"))?
    } else {
        let text = std::fs::read_to_string(dir.join("module.hlo")).unwrap();
        xla_core::text::parse_module(&text).map_err(|e| format!("parse: {e}"))?
    };
    run_fixture(dir, &module)
}

#[test]
fn jax_linalg_programs_match_xla() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/lapack");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.join("module.hlo").exists())
        .collect();
    dirs.sort();
    // Each as HLO text and as the StableHLO JAX prints (FFI attributes in
    // `mhlo.backend_config`).
    let failures: Vec<String> = dirs
        .iter()
        .flat_map(|d| [(d, false), (d, true)])
        .filter_map(|(d, mlir)| {
            run_case(d, mlir)
                .err()
                .map(|e| format!("{} (mlir: {mlir}): {e}", d.display()))
        })
        .collect();
    println!(
        "{} of {} linalg programs passed (HLO and StableHLO)",
        2 * dirs.len() - failures.len(),
        2 * dirs.len()
    );
    assert!(dirs.len() >= 16);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn unknown_lapack_target_names_itself() {
    let text = "HloModule m
ENTRY e {
  a = f32[2,2] parameter(0)
  ROOT r = f32[2,2] custom-call(a), custom_call_target=\"lapack_sgeqp3_ffi\"
}
";
    let module = xla_core::text::parse_module(text).unwrap();
    let exe = xla_cpu::Executable::compile(&module).unwrap();
    let a = xla_core::Literal::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let err = exe.execute(&[a]).unwrap_err().to_string();
    assert!(err.contains("lapack_sgeqp3_ffi"), "{err}");
}
