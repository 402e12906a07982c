//! The batching transform against `jax.vmap`: every case of `testdata/vmap/` (written by
//! `scripts/make_vmap_cases.py` with JAX 0.10.2) is the HLO module of one example, batched
//! here with `vmap_module` (after `grad_module` for the per-example gradient cases), run on
//! the batched inputs and compared with `jax.vmap`'s outputs. The batched module is also
//! printed and parsed back (what `xla vmap` prints must parse).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../xla-cpu/tests/cases/mod.rs"]
mod cases;
mod vmap_common;

use std::path::Path;
use vmap_common::{axes, case_dirs};
use xla_autodiff::{grad_module, vmap_module};
use xla_core::Literal;

fn run_case(dir: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(dir.join("module.hlo")).map_err(|e| e.to_string())?;
    let mut module = xla_core::text::parse_module(&text).map_err(|e| format!("parse: {e}"))?;
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
    if let Some(g) = meta.get("grad") {
        let wrt: Vec<usize> = axes(g).into_iter().map(Option::unwrap).collect();
        module = grad_module(&module, Some(&wrt)).map_err(|e| format!("grad: {e}"))?;
    }
    let (rtol, atol) = (
        meta["rtol"].as_f64().unwrap(),
        meta["atol"].as_f64().unwrap(),
    );
    // One level, or `levels` (innermost first) for nested vmap.
    let levels: Vec<serde_json::Value> = match meta.get("levels") {
        Some(l) => l.as_array().unwrap().clone(),
        None => vec![meta.clone()],
    };
    let mut batched = module;
    for l in &levels {
        let size = l["size"].as_i64().unwrap();
        batched = vmap_module(&batched, &axes(&l["in_axes"]), &axes(&l["out_axes"]), size)
            .map_err(|e| format!("vmap: {e}"))?;
    }
    xla_core::verify::verify_module(&batched).map_err(|e| format!("verify: {e:?}"))?;
    let printed = xla_core::text::print_module(&batched);
    xla_core::text::parse_module(&printed).map_err(|e| format!("reparse: {e}\n{printed}"))?;
    let exe = xla_cpu::Executable::compile(&batched).map_err(|e| format!("compile: {e}"))?;
    let args = cases::read_numbered(dir, "in")?;
    let out = exe.execute(&args).map_err(|e| format!("execute: {e}"))?;
    let mut got = Vec::new();
    cases::flatten(out, &mut got);
    let want = cases::read_numbered(dir, "out")?;
    if got.len() != want.len() {
        return Err(format!("{} outputs, expected {}", got.len(), want.len()));
    }
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let rtol = cases::rtol_for(w.shape().element_type(), rtol);
        cases::compare(g, w, rtol, atol).map_err(|e| format!("out{k}: {e}"))?;
    }
    Ok(())
}

#[test]
fn vmap_matches_jax_vmap() {
    let dirs = case_dirs("vmap");
    assert!(dirs.len() >= 65, "only {} cases", dirs.len());
    let mut failures = Vec::new();
    for d in &dirs {
        if let Err(e) = run_case(d) {
            failures.push(format!("{}: {e}", d.file_name().unwrap().to_string_lossy()));
        }
    }
    eprintln!(
        "{} of {} vmap cases pass",
        dirs.len() - failures.len(),
        dirs.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_wrong_answer_is_caught() {
    let dir = case_dirs("vmap")
        .into_iter()
        .find(|d| d.ends_with("dot_both_batched"))
        .unwrap();
    let want = Literal::read_npy(dir.join("out0.npy")).unwrap();
    let mut v = want.data::<f32>().unwrap().to_vec();
    v[3] += 1e-3;
    let wrong = Literal::vec1(&v).reshape(want.shape().dims()).unwrap();
    assert!(cases::compare(&wrong, &want, 1e-5, 1e-5).is_err());
}
