//! Runs every case of `testdata/conformance/public/`: parse `module.hlo`, read `in*.npy`,
//! execute, and compare with `out*.npy` under the tolerances in `meta.json`
//! (`|got - want| <= atol + rtol * |want|`, NaN where NaN, ±inf exactly, integers and bools
//! exactly, dtype and shape exactly; tuple results flattened depth-first).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType};

/// Cases that must pass; raise it as the executor improves.
const PASS_FLOOR: usize = 420;

/// A minimal `.npy` reader for the dtypes the suite uses (version 1-3, little-endian, C order).
fn read_npy(path: &Path) -> Result<Literal, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(format!("{}: not an npy file", path.display()));
    }
    let (hlen, start) = if bytes[6] == 1 {
        (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10)
    } else {
        (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        )
    };
    let header = std::str::from_utf8(&bytes[start..start + hlen]).map_err(|e| e.to_string())?;
    let field = |key: &str| -> Option<&str> {
        let i = header.find(key)? + key.len();
        Some(header[i..].trim_start_matches([':', ' ', '\'']))
    };
    let descr = field("'descr'")
        .and_then(|s| s.split('\'').next())
        .ok_or("no descr")?;
    if field("'fortran_order'").is_some_and(|s| s.starts_with("True")) {
        return Err("fortran order".into());
    }
    let shape_s = field("'shape'")
        .and_then(|s| s.split(')').next())
        .ok_or("no shape")?;
    let dims: Vec<i64> = shape_s
        .trim_start_matches('(')
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|_| format!("bad dim {s}")))
        .collect::<Result<_, _>>()?;
    let body = &bytes[start + hlen..];
    macro_rules! arr {
        ($t:ty, $n:literal, $variant:ident) => {
            ArrayData::$variant(
                body.chunks_exact($n)
                    .map(|c| <$t>::from_le_bytes(c.try_into().unwrap()))
                    .collect(),
            )
        };
    }
    let (ty, data) = match descr {
        "<f4" => (PrimitiveType::F32, arr!(f32, 4, F32)),
        "<f8" => (PrimitiveType::F64, arr!(f64, 8, F64)),
        "<i4" => (PrimitiveType::S32, arr!(i32, 4, S32)),
        "<i8" => (PrimitiveType::S64, arr!(i64, 8, S64)),
        "<u4" => (PrimitiveType::U32, arr!(u32, 4, U32)),
        "<u8" => (PrimitiveType::U64, arr!(u64, 8, U64)),
        "|u1" => (PrimitiveType::U8, arr!(u8, 1, U8)),
        "|i1" => (PrimitiveType::S8, arr!(i8, 1, S8)),
        "|b1" => (
            PrimitiveType::Pred,
            ArrayData::Pred(body.iter().map(|&b| b != 0).collect()),
        ),
        other => return Err(format!("unsupported dtype {other}")),
    };
    Literal::from_array_data(xla_core::Shape::array(ty, dims), data).map_err(|e| e.to_string())
}

fn flatten(l: Literal, out: &mut Vec<Literal>) {
    match l.tuple_elements() {
        Some(t) => t.iter().cloned().for_each(|e| flatten(e, out)),
        None => out.push(l),
    }
}

fn as_f64(d: &ArrayData) -> Option<Vec<f64>> {
    match d {
        ArrayData::F32(v) => Some(v.iter().map(|&x| x as f64).collect()),
        ArrayData::F64(v) => Some(v.clone()),
        _ => None,
    }
}

fn compare(got: &Literal, want: &Literal, rtol: f64, atol: f64) -> Result<(), String> {
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
            Err(first_diff(g, w))
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

fn first_diff(g: &ArrayData, w: &ArrayData) -> String {
    format!(
        "exact mismatch: got {:?} want {:?}",
        truncate(format!("{g:?}")),
        truncate(format!("{w:?}"))
    )
}

fn truncate(s: String) -> String {
    s.chars().take(200).collect()
}

fn run_case(dir: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(dir.join("module.hlo")).map_err(|e| e.to_string())?;
    let module = xla_core::text::parse_module(&text).map_err(|e| format!("parse: {e}"))?;
    let meta: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("meta.json")).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let rtol = meta["rtol"].as_f64().unwrap_or(0.0);
    let atol = meta["atol"].as_f64().unwrap_or(0.0);
    let mut args = Vec::new();
    for i in 0.. {
        let p = dir.join(format!("in{i}.npy"));
        if !p.exists() {
            break;
        }
        args.push(read_npy(&p)?);
    }
    let exe = xla_cpu::Executable::compile(&module).map_err(|e| format!("compile: {e}"))?;
    let result = exe.execute(&args).map_err(|e| format!("execute: {e}"))?;
    let mut got = Vec::new();
    flatten(result, &mut got);
    let mut wants = Vec::new();
    for i in 0.. {
        let p = dir.join(format!("out{i}.npy"));
        if !p.exists() {
            break;
        }
        wants.push(read_npy(&p)?);
    }
    if got.len() != wants.len() {
        return Err(format!("{} outputs, expected {}", got.len(), wants.len()));
    }
    for (i, (g, w)) in got.iter().zip(&wants).enumerate() {
        compare(g, w, rtol, atol).map_err(|e| format!("out{i}: {e}"))?;
    }
    Ok(())
}

fn case_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/conformance/public");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.join("module.hlo").exists())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    if let Ok(f) = std::env::var("CONFORMANCE_FILTER") {
        dirs.retain(|d| d.to_string_lossy().contains(&f));
    }
    dirs
}

#[test]
fn conformance_public() {
    let dirs = case_dirs();
    let mut per_op: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut passed = 0;
    for dir in &dirs {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let op = std::fs::read_to_string(dir.join("meta.json"))
            .ok()
            .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
            .and_then(|m| m["op"].as_str().map(String::from))
            .unwrap_or_default();
        let r =
            std::panic::catch_unwind(|| run_case(dir)).unwrap_or_else(|_| Err("panicked".into()));
        let e = per_op.entry(op).or_default();
        e.1 += 1;
        match r {
            Ok(()) => {
                e.0 += 1;
                passed += 1;
            }
            Err(msg) => failures.push(format!("FAIL {name}: {msg}")),
        }
    }
    for (op, (p, n)) in &per_op {
        println!("{op:>28}: {p}/{n}");
    }
    for f in &failures {
        println!("{f}");
    }
    println!("{passed} passed, {} failed", dirs.len() - passed);
    assert!(
        passed >= PASS_FLOOR,
        "{passed} passed, below the floor of {PASS_FLOOR}"
    );
}
