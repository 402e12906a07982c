//! Single rules against JAX: the `testdata/grad_rules/` fixtures written by
//! `scripts/gen_grad_rules.py` (scatter max/min with three-way ties, which finite
//! differences cannot pin down; scatter multiply; variadic scatter; complex triangular
//! solves in every transpose mode, whose cotangent convention must be JAX's). Each forward
//! module is run and compared with JAX's value, its `vjp_module` with `jax.vjp` at the
//! fixture's cotangent, and its `jvp_module` with `jax.jvp` along the fixture's tangents.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use xla_autodiff::{jvp_module, vjp_module};
use xla_core::literal::ArrayData;
use xla_core::{Literal, Module};

fn cases() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/grad_rules");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("module.hlo").exists())
        .collect();
    dirs.sort();
    dirs
}

struct Case {
    name: String,
    module: Module,
    inputs: Vec<Literal>,
    wrt: Vec<usize>,
    tol: (f64, f64),
    dir: PathBuf,
}

fn npy(dir: &Path, name: &str) -> Literal {
    Literal::read_npy(dir.join(name)).unwrap_or_else(|e| panic!("{}/{name}: {e}", dir.display()))
}

fn load(dir: &Path) -> Case {
    let meta = common::read_meta(dir);
    Case {
        name: dir.file_name().unwrap().to_string_lossy().into_owned(),
        module: common::read_module(dir),
        inputs: common::read_inputs(dir),
        wrt: meta.wrt,
        tol: (meta.rtol, meta.atol),
        dir: dir.to_path_buf(),
    }
}

/// Real and imaginary parts interleaved (complex) or the values (real).
fn values(l: &Literal) -> Vec<f64> {
    match l.array_data().unwrap() {
        ArrayData::F64(v) => v.clone(),
        ArrayData::C128(v) => v.iter().flat_map(|c| [c.re, c.im]).collect(),
        other => panic!("not f64 or c128: {other:?}"),
    }
}

fn compare(what: &str, got: &Literal, want: &Literal, (rtol, atol): (f64, f64)) {
    assert_eq!(
        got.shape().without_layout(),
        want.shape().without_layout(),
        "{what}: shape"
    );
    let (g, w) = (values(got), values(want));
    for (i, (x, y)) in g.iter().zip(&w).enumerate() {
        let ok = (x - y).abs() <= atol + rtol * y.abs();
        assert!(ok, "{what}: component {i}: got {x}, JAX {y}");
    }
}

fn run(m: &Module, args: &[Literal]) -> Vec<Literal> {
    xla_core::verify::verify_module(m).unwrap_or_else(|e| panic!("verify: {e}"));
    let out = xla_cpu::Executable::compile(m)
        .unwrap()
        .execute(args)
        .unwrap();
    match out.tuple_elements() {
        Some(t) => t.to_vec(),
        None => vec![out],
    }
}

#[test]
fn forward_values_match_jax() {
    for dir in cases() {
        let c = load(&dir);
        let out = run(&c.module, &c.inputs);
        compare(&c.name, &out[0], &npy(&c.dir, "out.npy"), c.tol);
    }
}

#[test]
fn vjps_match_jax() {
    let all = cases();
    assert!(all.len() >= 9, "{} fixtures", all.len());
    for dir in all {
        let c = load(&dir);
        let vjp = vjp_module(&c.module, Some(&c.wrt)).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        let mut args = c.inputs.clone();
        args.push(npy(&c.dir, "ct.npy"));
        let got = run(&vjp, &args);
        assert_eq!(got.len(), c.wrt.len(), "{}", c.name);
        for (k, g) in got.iter().enumerate() {
            let want = npy(&c.dir, &format!("vjp{k}.npy"));
            compare(
                &format!("{} vjp w.r.t. {}", c.name, c.wrt[k]),
                g,
                &want,
                c.tol,
            );
        }
    }
}

#[test]
fn jvps_match_jax() {
    for dir in cases() {
        let c = load(&dir);
        let jvp = jvp_module(&c.module, Some(&c.wrt)).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        let mut args = c.inputs.clone();
        args.extend((0..c.wrt.len()).map(|k| npy(&c.dir, &format!("t{k}.npy"))));
        let got = run(&jvp, &args);
        compare(
            &format!("{} jvp", c.name),
            &got[1],
            &npy(&c.dir, "jvp.npy"),
            c.tol,
        );
    }
}
