//! Reading and checking cases stored as `.npy` files (the conformance suites' convention,
//! shared by the tests that run them): numbered inputs and outputs, tuple results flattened
//! depth-first, and the checker's comparison (`|got - want| <= atol + rtol * |want|`, NaN
//! where NaN, ±inf exactly, exact types exactly, dtype and shape exactly).
#![allow(dead_code)]

use std::path::Path;
use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType};

/// The files `PREFIX0.npy, PREFIX1.npy, ...` of a case, in order.
pub fn read_numbered(dir: &Path, prefix: &str) -> Result<Vec<Literal>, String> {
    let mut out = Vec::new();
    for i in 0.. {
        let p = dir.join(format!("{prefix}{i}.npy"));
        if !p.exists() {
            break;
        }
        out.push(Literal::read_npy(&p).map_err(|e| format!("{}: {e}", p.display()))?);
    }
    Ok(out)
}

/// The leaves of `l`, depth-first.
pub fn flatten(l: Literal, out: &mut Vec<Literal>) {
    match l.tuple_elements() {
        Some(t) => t.iter().cloned().for_each(|e| flatten(e, out)),
        None => out.push(l),
    }
}

/// Floats (and complex parts) as f64; `None` for exact types.
pub fn as_f64(d: &ArrayData) -> Option<Vec<f64>> {
    match d {
        ArrayData::F16(v) => Some(v.iter().map(|x| x.to_f64()).collect()),
        ArrayData::Bf16(v) => Some(v.iter().map(|x| x.to_f64()).collect()),
        ArrayData::F32(v) => Some(v.iter().map(|&x| x as f64).collect()),
        ArrayData::F64(v) => Some(v.clone()),
        ArrayData::C64(v) => Some(v.iter().flat_map(|c| [c.re as f64, c.im as f64]).collect()),
        ArrayData::C128(v) => Some(v.iter().flat_map(|c| [c.re, c.im]).collect()),
        _ => None,
    }
}

/// `rtol` raised to one unit in the last place for 16-bit floats.
pub fn rtol_for(ty: PrimitiveType, rtol: f64) -> f64 {
    match ty {
        PrimitiveType::F16 => rtol.max(1e-3),
        PrimitiveType::Bf16 => rtol.max(8e-3),
        _ => rtol,
    }
}

/// `got` against `want` as the conformance checker compares them.
pub fn compare(got: &Literal, want: &Literal, rtol: f64, atol: f64) -> Result<(), String> {
    if got.shape().without_layout() != *want.shape() {
        return Err(format!(
            "shape {} vs expected {}",
            got.shape(),
            want.shape()
        ));
    }
    let (g, w) = (
        got.array_data().ok_or("not an array")?,
        want.array_data().ok_or("not an array")?,
    );
    let (Some(gv), Some(wv)) = (as_f64(g), as_f64(w)) else {
        return if g.bitwise_eq(w) {
            Ok(())
        } else {
            let cut = |s: String| s.chars().take(200).collect::<String>();
            Err(format!(
                "exact mismatch: got {} want {}",
                cut(format!("{g:?}")),
                cut(format!("{w:?}"))
            ))
        };
    };
    for (i, (&x, &y)) in gv.iter().zip(&wv).enumerate() {
        let ok = if y.is_nan() {
            x.is_nan()
        } else if y.is_infinite() {
            x == y
        } else {
            (x - y).abs() <= atol + rtol * y.abs()
        };
        if !ok {
            return Err(format!("element {i}: got {x} want {y}"));
        }
    }
    Ok(())
}

/// Runs `module` on a fixture folder's `in*.npy` and checks every result against its
/// `out*.npy` within the `rtol`/`atol` of its `meta.json` (raised for 16-bit floats).
pub fn run_fixture(dir: &Path, module: &xla_core::Module) -> Result<(), String> {
    let meta: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("meta.json")).map_err(|e| format!("meta.json: {e}"))?,
    )
    .map_err(|e| format!("meta.json: {e}"))?;
    let exe = xla_cpu::Executable::compile(module).map_err(|e| format!("compile: {e}"))?;
    let mut got = Vec::new();
    flatten(
        exe.execute(&read_numbered(dir, "in")?)
            .map_err(|e| format!("execute: {e}"))?,
        &mut got,
    );
    let wants = read_numbered(dir, "out")?;
    if got.len() != wants.len() {
        return Err(format!("{} outputs, expected {}", got.len(), wants.len()));
    }
    let tol = |k: &str| {
        meta[k]
            .as_f64()
            .ok_or_else(|| format!("meta.json has no {k}"))
    };
    let (rtol, atol) = (tol("rtol")?, tol("atol")?);
    for (i, (g, w)) in got.iter().zip(&wants).enumerate() {
        compare(g, w, rtol_for(w.shape().element_type(), rtol), atol)
            .map_err(|e| format!("out{i}: {e}"))?;
    }
    Ok(())
}
