//! The `testdata/conformance/grad_public/` cases: parse the forward module, build its
//! gradient module with `grad_module` (w.r.t. `meta.json`'s `wrt`), run it on the CPU
//! executor and compare with `out*.npy` under the case's tolerances.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use xla_autodiff::grad_module;
use xla_core::literal::ArrayData;
use xla_core::Literal;

/// Cases that must pass; raise it as rules improve.
const PASS_FLOOR: usize = 29;

fn flatten(l: Literal, out: &mut Vec<Literal>) {
    match l.tuple_elements() {
        Some(t) => t.iter().cloned().for_each(|e| flatten(e, out)),
        None => out.push(l),
    }
}

fn as_f64(d: &ArrayData) -> Option<Vec<f64>> {
    match d {
        ArrayData::F32(v) => Some(v.iter().map(|&x| f64::from(x)).collect()),
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
    let (g, w) = (got.array_data().unwrap(), want.array_data().unwrap());
    let (Some(gv), Some(wv)) = (as_f64(g), as_f64(w)) else {
        return Err("not a float array".into());
    };
    let mut worst = None;
    for (i, (&x, &y)) in gv.iter().zip(&wv).enumerate() {
        let ok = if y.is_nan() {
            x.is_nan()
        } else {
            (x - y).abs() <= atol + rtol * y.abs()
        };
        if !ok && worst.is_none() {
            worst = Some(format!("element {i}: got {x} want {y}"));
        }
    }
    worst.map_or(Ok(()), Err)
}

fn run_case(dir: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(dir.join("module.hlo")).map_err(|e| e.to_string())?;
    let module = xla_core::text::parse_module(&text).map_err(|e| format!("parse: {e}"))?;
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
    let wrt: Vec<usize> = meta["wrt"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    let (rtol, atol) = (
        meta["rtol"].as_f64().unwrap(),
        meta["atol"].as_f64().unwrap(),
    );
    let grad = grad_module(&module, Some(&wrt)).map_err(|e| format!("grad: {e}"))?;
    xla_core::verify::verify_module(&grad).map_err(|e| format!("verify: {e:?}"))?;
    let exe = xla_cpu::Executable::compile(&grad).map_err(|e| format!("compile: {e}"))?;
    let mut args = Vec::new();
    for i in 0.. {
        let p = dir.join(format!("in{i}.npy"));
        if !p.exists() {
            break;
        }
        args.push(Literal::read_npy(&p).map_err(|e| e.to_string())?);
    }
    let out = exe.execute(&args).map_err(|e| format!("execute: {e}"))?;
    let mut got = Vec::new();
    flatten(out, &mut got);
    for (k, g) in got.iter().enumerate() {
        let want = Literal::read_npy(dir.join(format!("out{k}.npy"))).map_err(|e| e.to_string())?;
        compare(g, &want, rtol, atol).map_err(|e| format!("out{k}: {e}"))?;
    }
    if !dir.join(format!("out{}.npy", got.len())).exists() {
        Ok(())
    } else {
        Err(format!("only {} outputs", got.len()))
    }
}

#[test]
fn grad_public_cases() {
    let root =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/conformance/grad_public");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("module.hlo").exists())
        .collect();
    dirs.sort();
    let filter = std::env::var("GRAD_CASE").unwrap_or_default();
    let mut passed = 0;
    let mut failures = Vec::new();
    for d in &dirs {
        let name = d.file_name().unwrap().to_string_lossy().to_string();
        if !name.contains(&filter) {
            continue;
        }
        match std::panic::catch_unwind(|| run_case(d)) {
            Ok(Ok(())) => passed += 1,
            Ok(Err(e)) => failures.push(format!("{name}: {e}")),
            Err(_) => failures.push(format!("{name}: panic")),
        }
    }
    eprintln!("grad_public: {passed}/{} passed", dirs.len());
    for f in &failures {
        eprintln!("  FAIL {f}");
    }
    assert!(passed >= PASS_FLOOR, "{passed} < floor {PASS_FLOOR}");
}

/// The gradient of `grad_binary` really is compared: a wrong expectation fails.
#[test]
fn comparison_detects_a_wrong_gradient() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/conformance/grad_public/grad_binary");
    let want = Literal::read_npy(root.join("out0.npy")).unwrap();
    let other = Literal::read_npy(root.join("out1.npy")).unwrap();
    assert!(compare(&want, &want, 1e-4, 1e-5).is_ok());
    assert!(compare(&other, &want, 1e-4, 1e-5).is_err());
}

/// Hessian-vector products of every case: `jvp(grad(f))` builds, verifies and runs, and
/// matches central differences of the gradient along a random direction (f32, so loose
/// tolerances; kinks such as relu or max-pool ties can make differences disagree).
#[test]
fn hessian_vector_products_of_the_cases() {
    let root =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/conformance/grad_public");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("module.hlo").exists())
        .collect();
    dirs.sort();
    let (mut built, mut agree) = (0, 0);
    let mut problems = Vec::new();
    for d in &dirs {
        let name = d.file_name().unwrap().to_string_lossy().to_string();
        match hvp_case(d) {
            Ok(true) => {
                built += 1;
                agree += 1;
            }
            Ok(false) => {
                built += 1;
                problems.push(format!("{name}: differs from finite differences"));
            }
            Err(e) => problems.push(format!("{name}: {e}")),
        }
    }
    eprintln!(
        "hessian-vector products: {built}/{} built and ran, {agree} agree with finite differences",
        dirs.len()
    );
    for p in &problems {
        eprintln!("  {p}");
    }
    assert!(built >= HVP_BUILT_FLOOR, "{built} < {HVP_BUILT_FLOOR}");
    assert!(agree >= HVP_BUILT_FLOOR, "{agree} < {HVP_BUILT_FLOOR}");
}

/// Cases whose Hessian-vector product module must build and run.
const HVP_BUILT_FLOOR: usize = 29;

fn hvp_case(dir: &Path) -> Result<bool, String> {
    let text = std::fs::read_to_string(dir.join("module.hlo")).map_err(|e| e.to_string())?;
    let module = xla_core::text::parse_module(&text).map_err(|e| format!("parse: {e}"))?;
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
    let wrt: Vec<usize> = meta["wrt"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    let grad = grad_module(&module, Some(&wrt)).map_err(|e| format!("grad: {e}"))?;
    let hvp =
        xla_autodiff::jvp_module(&grad, Some(&wrt)).map_err(|e| format!("jvp of grad: {e}"))?;
    xla_core::verify::verify_module(&hvp).map_err(|e| format!("verify: {e}"))?;
    let mut args = Vec::new();
    for i in 0.. {
        let p = dir.join(format!("in{i}.npy"));
        if !p.exists() {
            break;
        }
        args.push(Literal::read_npy(&p).map_err(|e| e.to_string())?);
    }
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f32 / (1u64 << 53) as f32 * 2.0 - 1.0
    };
    let tangents: Vec<Literal> = wrt
        .iter()
        .map(|&i| {
            let dims = args[i].shape().dims().to_vec();
            let n: i64 = dims.iter().product();
            Literal::from_vec(&dims, (0..n).map(|_| rnd()).collect::<Vec<f32>>()).unwrap()
        })
        .collect();
    let mut hargs = args.clone();
    hargs.extend(tangents.iter().cloned());
    let out = xla_cpu::Executable::compile(&hvp)
        .map_err(|e| format!("compile: {e}"))?
        .execute(&hargs)
        .map_err(|e| format!("execute: {e}"))?;
    let mut leaves = Vec::new();
    flatten(out, &mut leaves);
    let hv: Vec<f64> = leaves[wrt.len()..]
        .iter()
        .flat_map(|l| as_f64(l.array_data().unwrap()).unwrap())
        .collect();
    let gexe = xla_cpu::Executable::compile(&grad).map_err(|e| e.to_string())?;
    let eps = 1e-3f32;
    let shifted = |s: f32| -> Vec<f64> {
        let mut a = args.clone();
        for (k, &i) in wrt.iter().enumerate() {
            let t = tangents[k].data::<f32>().unwrap().to_vec();
            a[i].typed_data_mut::<f32>()
                .unwrap()
                .iter_mut()
                .zip(&t)
                .for_each(|(x, d)| *x += s * d);
        }
        let mut l = Vec::new();
        flatten(gexe.execute(&a).unwrap(), &mut l);
        l.iter()
            .flat_map(|l| as_f64(l.array_data().unwrap()).unwrap())
            .collect()
    };
    let (up, down) = (shifted(eps), shifted(-eps));
    let scale = hv.iter().fold(1e-3f64, |m, x| m.max(x.abs()));
    Ok(hv.iter().zip(up.iter().zip(&down)).all(|(h, (u, d))| {
        let fd = (u - d) / (2.0 * f64::from(eps));
        (h - fd).abs() <= 2e-2 * scale
    }))
}

/// Robustness sweep over `testdata/conformance/public/`: for every module, `vjp_module`
/// either builds a module that verifies and runs on the case's inputs, or returns a typed
/// error; it never panics.
#[test]
fn vjp_of_every_public_module_builds_or_errors() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/conformance/public");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("module.hlo").exists())
        .collect();
    dirs.sort();
    let (mut ran, mut errors, mut total) = (0, Vec::new(), 0);
    for d in &dirs {
        let Ok(text) = std::fs::read_to_string(d.join("module.hlo")) else {
            continue;
        };
        let Ok(module) = xla_core::text::parse_module(&text) else {
            continue;
        };
        total += 1;
        let name = d.file_name().unwrap().to_string_lossy().to_string();
        let result = std::panic::catch_unwind(|| xla_autodiff::vjp_module(&module, None));
        let vjp = match result {
            Err(_) => panic!("{name}: vjp_module panicked"),
            Ok(Err(e)) => {
                errors.push(format!("{name}: {e}"));
                continue;
            }
            Ok(Ok(v)) => v,
        };
        xla_core::verify::verify_module(&vjp).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut args = Vec::new();
        for i in 0.. {
            let p = d.join(format!("in{i}.npy"));
            if !p.exists() {
                break;
            }
            args.push(Literal::read_npy(&p).unwrap());
        }
        let result = vjp
            .entry_computation()
            .unwrap()
            .parameter_shapes()
            .last()
            .cloned();
        let Some(ct_shape) = result else { continue };
        if ct_shape.is_tuple()
            || !ct_shape.element_type().is_float()
            || args.len() + 1 != vjp.entry_computation().unwrap().parameter_shapes().len()
        {
            continue;
        }
        let n: i64 = ct_shape.dims().iter().product();
        let ct = Literal::from_vec(
            ct_shape.dims(),
            (0..n)
                .map(|i| ((i * 7919) % 13) as f64 / 13.0 - 0.4)
                .collect::<Vec<f64>>(),
        )
        .unwrap();
        let ct = if ct_shape.element_type() == xla_core::PrimitiveType::F32 {
            Literal::from_vec(
                ct_shape.dims(),
                ct.data::<f64>()
                    .unwrap()
                    .iter()
                    .map(|&v| v as f32)
                    .collect::<Vec<f32>>(),
            )
            .unwrap()
        } else {
            ct
        };
        args.push(ct);
        let exe = xla_cpu::Executable::compile(&vjp).unwrap_or_else(|e| panic!("{name}: {e}"));
        let out = exe.execute(&args).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Ok(dump) = std::env::var("XLA_DUMP") {
            let dir = Path::new(&dump).join(&name);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("module.hlo"), xla_core::text::print_module(&vjp)).unwrap();
            for (i, a) in args.iter().enumerate() {
                a.write_npy(dir.join(format!("in{i}.npy"))).unwrap();
            }
            let mut outs = Vec::new();
            flatten(out, &mut outs);
            for (i, o) in outs.iter().enumerate() {
                o.write_npy(dir.join(format!("out{i}.npy"))).unwrap();
            }
            let meta = r#"{"op": "vjp", "rtol": 1e-4, "atol": 1e-4, "note": "vjp of a public module", "source": "hand", "group": "autodiff"}"#;
            std::fs::write(dir.join("meta.json"), meta).unwrap();
        }
        ran += 1;
    }
    eprintln!(
        "public modules: {total}, vjp ran on {ran}, typed errors on {}",
        errors.len()
    );
    for e in &errors {
        eprintln!("  {e}");
    }
}
