//! `vmap` of collectives against JAX: every case of `testdata/vmap_collectives/` (written by
//! `scripts/make_vmap_collective_cases.py` with JAX 0.10.2 on 4 host devices) is the
//! per-device module of one example, batched here with `vmap_module`, run on 4 devices with
//! `execute_replicated` and compared with `shard_map(jax.vmap(f))`: all-reduce (sum, max),
//! all-gather and reduce-scatter on dimensions 0 and 1, all-to-all (array form, and with a
//! split dimension other than the concat one), collective-permute (ring, partial), with
//! batch axes 0 and 1 and shared per-device operands.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../xla-cpu/tests/cases/mod.rs"]
mod cases;
mod vmap_common;

use std::path::Path;
use vmap_common::{axes, case_dirs};
use xla_autodiff::vmap_module;
use xla_core::Literal;
use xla_cpu::devices::{split_devices, stack_devices};
use xla_cpu::Executable;

/// Runs `exe` on inputs stacked along a leading device axis; each output leaf stacked so.
fn run_stacked(exe: &Executable, stacked: &[Literal]) -> Result<Vec<Literal>, String> {
    let d = exe.topology().devices();
    let mut args = vec![Vec::new(); d];
    for s in stacked {
        let parts = split_devices(s, d).map_err(|e| e.to_string())?;
        for (k, p) in parts.into_iter().enumerate() {
            args[k].push(p);
        }
    }
    let per_device = per_device(exe, &args)?;
    (0..per_device[0].len())
        .map(|k| {
            let leaves: Vec<Literal> = per_device.iter().map(|v| v[k].clone()).collect();
            stack_devices(&leaves).map_err(|e| e.to_string())
        })
        .collect()
}

fn run_case(dir: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(dir.join("module.hlo")).map_err(|e| e.to_string())?;
    let module = xla_core::text::parse_module(&text).map_err(|e| format!("parse: {e}"))?;
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
    let size = meta["size"].as_i64().unwrap();
    let batched = vmap_module(
        &module,
        &axes(&meta["in_axes"]),
        &axes(&meta["out_axes"]),
        size,
    )
    .map_err(|e| format!("vmap: {e}"))?;
    xla_core::verify::verify_module(&batched).map_err(|e| format!("verify: {e:?}"))?;
    let printed = xla_core::text::print_module(&batched);
    let reparsed =
        xla_core::text::parse_module(&printed).map_err(|e| format!("reparse: {e}\n{printed}"))?;
    let exe = Executable::compile(&reparsed).map_err(|e| format!("compile: {e}"))?;
    let devices = meta["partitions"].as_u64().unwrap() as usize;
    if exe.topology().devices() != devices {
        return Err(format!(
            "the batched module runs on {} devices, not {devices}",
            exe.topology().devices()
        ));
    }
    let got = run_stacked(&exe, &cases::read_numbered(dir, "in")?)?;
    let want = cases::read_numbered(dir, "out")?;
    if got.len() != want.len() {
        return Err(format!("{} outputs, expected {}", got.len(), want.len()));
    }
    let (rtol, atol) = (
        meta["rtol"].as_f64().unwrap(),
        meta["atol"].as_f64().unwrap(),
    );
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        cases::compare(g, w, rtol, atol).map_err(|e| format!("out{k}: {e}"))?;
    }
    Ok(())
}

#[test]
fn vmap_of_collectives_matches_jax() {
    let dirs = case_dirs("vmap_collectives");
    assert!(
        dirs.len() >= 10,
        "expected the collective cases, found {}",
        dirs.len()
    );
    all_pass(&dirs, run_case);
}

/// `check` passes on every case of `dirs`; otherwise the failures, one per line.
fn all_pass(dirs: &[std::path::PathBuf], check: impl Fn(&Path) -> Result<(), String>) {
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|d| {
            check(d)
                .err()
                .map(|e| format!("{}: {e}", d.file_name().unwrap().to_string_lossy()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n")
    );
}

const LANES: usize = 3;

/// Each device's outputs of `exe` on per-device `args`, flattened.
fn per_device(exe: &Executable, args: &[Vec<Literal>]) -> Result<Vec<Vec<Literal>>, String> {
    Ok(exe
        .execute_replicated(args)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|r| {
            let mut v = Vec::new();
            cases::flatten(r, &mut v);
            v
        })
        .collect())
}

/// A multi-device case batched over every parameter (axis 0, [`LANES`] lanes) against the
/// unbatched module run on each lane. Lane `l` takes the case's inputs with the devices
/// rotated by `l` (device `d` gets device `d + l`'s values), so the lanes differ whatever
/// the element types.
fn lanes_match_unbatched(dir: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(dir.join("module.hlo")).map_err(|e| e.to_string())?;
    let module = xla_core::text::parse_module(&text).map_err(|e| format!("parse: {e}"))?;
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
    let (rtol, atol) = (
        meta["rtol"].as_f64().unwrap_or(0.0),
        meta["atol"].as_f64().unwrap_or(0.0),
    );
    let exe = Executable::compile(&module).map_err(|e| format!("compile: {e}"))?;
    let d = exe.topology().devices();
    let inputs: Vec<Vec<Literal>> = cases::read_numbered(dir, "in")?
        .iter()
        .map(|s| split_devices(s, d).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let lane_args = |l: usize, dev: usize| -> Vec<Literal> {
        inputs
            .iter()
            .map(|per| per[(dev + l) % d].clone())
            .collect()
    };
    let unbatched: Vec<Vec<Vec<Literal>>> = (0..LANES)
        .map(|l| {
            per_device(
                &exe,
                &(0..d).map(|dev| lane_args(l, dev)).collect::<Vec<_>>(),
            )
        })
        .collect::<Result<_, _>>()?;
    let axes = vec![Some(0); inputs.len()];
    let batched =
        vmap_module(&module, &axes, &[Some(0)], LANES as i64).map_err(|e| format!("vmap: {e}"))?;
    let bexe = Executable::compile(&batched).map_err(|e| format!("compile batched: {e}"))?;
    if bexe.topology() != exe.topology() {
        return Err("the batched module runs on other devices".into());
    }
    let stacked_args: Vec<Vec<Literal>> = (0..d)
        .map(|dev| {
            (0..inputs.len())
                .map(|k| {
                    let lanes: Vec<Literal> =
                        (0..LANES).map(|l| lane_args(l, dev)[k].clone()).collect();
                    stack_devices(&lanes).map_err(|e| e.to_string())
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<_, _>>()?;
    let got = per_device(&bexe, &stacked_args)?;
    for (dev, outs) in got.iter().enumerate() {
        for (k, out) in outs.iter().enumerate() {
            let lanes = split_devices(out, LANES).map_err(|e| e.to_string())?;
            for (l, lane) in lanes.iter().enumerate() {
                let want = &unbatched[l][dev][k];
                let rtol = cases::rtol_for(want.shape().element_type(), rtol);
                cases::compare(lane, want, rtol, atol)
                    .map_err(|e| format!("device {dev}, output {k}, lane {l}: {e}"))?;
            }
        }
    }
    Ok(())
}

/// `vmap` of every multi-device case of `testdata/replicas/` (the 17 public ones made on
/// real XLA: every collective in every group mode, async pairs, collectives in loops and
/// conditionals, `shard_map` programs; and the 13 of our own), run on its devices with
/// `execute_replicated`: each lane is the unbatched module's result on that lane.
#[test]
fn batched_replica_cases_equal_the_unbatched_module_per_lane() {
    let dirs: Vec<_> = ["replicas/public", "replicas/own"]
        .iter()
        .flat_map(|f| case_dirs(f))
        .collect();
    assert_eq!(dirs.len(), 30, "the replica cases");
    all_pass(&dirs, lanes_match_unbatched);
}

/// Runs `text` batched over its parameters at `in_axes` on per-device inputs; each
/// device's outputs flattened.
fn run_batched(
    text: &str,
    in_axes: &[Option<usize>],
    size: i64,
    args: Vec<Vec<Literal>>,
) -> Vec<Vec<Literal>> {
    let module = xla_core::text::parse_module(text).unwrap();
    let batched = vmap_module(&module, in_axes, &[Some(0)], size).unwrap();
    let exe = Executable::compile(&batched).unwrap();
    exe.execute_replicated(&args)
        .unwrap()
        .into_iter()
        .map(|r| {
            let mut v = Vec::new();
            cases::flatten(r, &mut v);
            v
        })
        .collect()
}

fn f32s(dims: &[i64], v: &[f32]) -> Literal {
    Literal::from_vec(dims, v.to_vec()).unwrap()
}

/// JAX has no collective-broadcast (and XLA:CPU no kernel for it): checked on values
/// worked out by hand. Every lane of every device gets the lane of the group's first
/// device; the second group's first device is 3.
#[test]
fn vmap_of_collective_broadcast_by_hand() {
    let text = "HloModule cb, replica_count=4
ENTRY main {
  x = f32[2] parameter(0)
  ROOT b = f32[2] collective-broadcast(x), replica_groups={{0,1},{3,2}}
}
";
    let lanes = |d: f32| f32s(&[3, 2], &[d, d + 0.5, 10.0 * d, 1.0, -d, 2.0]);
    let args: Vec<Vec<Literal>> = (0..4).map(|d| vec![lanes(d as f32)]).collect();
    let out = run_batched(text, &[Some(0)], 3, args);
    for (d, want_from) in [(0, 0.0), (1, 0.0), (2, 3.0), (3, 3.0)] {
        assert_eq!(out[d], vec![lanes(want_from)], "device {d}");
    }
}

/// The tuple form of all-to-all (no split dimension; JAX's `all_to_all` lowers to the
/// array form only): device `d`'s result `i` is device `i`'s operand `d`, lane by lane,
/// with the batch of the first operand at dimension 1 and the second operand shared
/// (broadcast to every lane), on values worked out by hand.
#[test]
fn vmap_of_tuple_all_to_all_by_hand() {
    let text = "HloModule a2a, replica_count=2
ENTRY main {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  ROOT t = (f32[3], f32[3]) all-to-all(x, y), replica_groups={{0,1}}
}
";
    // x of device d: [3 (elements), 2 (lanes)]: element e, lane l = 100 d + 10 l + e.
    let x = |d: f32| {
        let v: Vec<f32> = (0..3)
            .flat_map(|e| (0..2).map(move |l| 100.0 * d + 10.0 * l as f32 + e as f32))
            .collect();
        f32s(&[3, 2], &v)
    };
    let y = |d: f32| f32s(&[3], &[-d, -d - 1.0, -d - 2.0]);
    let args = vec![vec![x(0.0), y(0.0)], vec![x(1.0), y(1.0)]];
    let out = run_batched(text, &[Some(1), None], 2, args);
    // Batched x of device d at lane l: [100 d + 10 l, +1, +2]; y shared in both lanes.
    let xl = |d: f32| {
        f32s(
            &[2, 3],
            &[
                100.0 * d,
                100.0 * d + 1.0,
                100.0 * d + 2.0,
                100.0 * d + 10.0,
                100.0 * d + 11.0,
                100.0 * d + 12.0,
            ],
        )
    };
    let yl = |d: f32| f32s(&[2, 3], &[-d, -d - 1.0, -d - 2.0, -d, -d - 1.0, -d - 2.0]);
    // device 0 gets operand 0 (x) of devices 0 and 1; device 1 gets operand 1 (y).
    assert_eq!(out[0], vec![xl(0.0), xl(1.0)]);
    assert_eq!(out[1], vec![yl(0.0), yl(1.0)]);
}
