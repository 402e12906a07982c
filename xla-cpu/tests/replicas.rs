//! Multi-device modules on threads: every case of `testdata/replicas/{public,own}/` (made on real
//! XLA:CPU with `replica_count × num_partitions` devices; inputs and outputs stacked along a
//! leading device axis) run through `Executable::execute_replicated`, and the errors of bad
//! multi-device input.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod cases;

use cases::{compare, flatten, read_numbered};
use std::path::{Path, PathBuf};
use std::time::Duration;
use xla_core::Literal;
use xla_cpu::devices::{split_devices, stack_devices, ReplicaOptions};
use xla_cpu::{CpuError, Executable};

fn compile(dir: &Path) -> Executable {
    let text = std::fs::read_to_string(dir.join("module.hlo")).unwrap();
    let module = xla_core::text::parse_module(&text).unwrap();
    Executable::compile(&module).unwrap()
}

/// Runs a case's module on its stacked inputs; the outputs stacked per leaf.
fn run_stacked(exe: &Executable, stacked: &[Literal]) -> Result<Vec<Literal>, CpuError> {
    let d = exe.topology().devices();
    let mut args = vec![Vec::new(); d];
    for s in stacked {
        for (k, p) in split_devices(s, d)?.into_iter().enumerate() {
            args[k].push(p);
        }
    }
    let per_device: Vec<Vec<Literal>> = exe
        .execute_replicated(&args)?
        .into_iter()
        .map(|r| {
            let mut v = Vec::new();
            flatten(r, &mut v);
            v
        })
        .collect();
    (0..per_device[0].len())
        .map(|k| stack_devices(&per_device.iter().map(|v| v[k].clone()).collect::<Vec<_>>()))
        .collect()
}

fn run_case(dir: &Path) -> Result<(), String> {
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
    let rtol = meta["rtol"].as_f64().unwrap_or(0.0);
    let atol = meta["atol"].as_f64().unwrap_or(0.0);
    let exe = compile(dir);
    let devices = meta["replicas"].as_u64().unwrap_or(1) * meta["partitions"].as_u64().unwrap_or(1);
    assert_eq!(
        exe.topology().devices() as u64,
        devices,
        "header vs meta.json"
    );
    let got = run_stacked(&exe, &read_numbered(dir, "in")?).map_err(|e| e.to_string())?;
    let wants = read_numbered(dir, "out")?;
    if got.len() != wants.len() {
        return Err(format!("{} outputs, expected {}", got.len(), wants.len()));
    }
    for (i, (g, w)) in got.iter().zip(&wants).enumerate() {
        compare(g, w, rtol, atol).map_err(|e| format!("out{i}: {e}"))?;
    }
    // Reductions run in group order: a second run gives the same bits.
    let again = run_stacked(&exe, &read_numbered(dir, "in")?).map_err(|e| e.to_string())?;
    if again != got {
        return Err("a second run gave different bits".into());
    }
    Ok(())
}

fn dirs(split: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/replicas")
        .join(split);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("module.hlo").exists())
        .collect();
    dirs.sort();
    dirs
}

fn run_split(split: &str, expected: usize) {
    let dirs = dirs(split);
    assert_eq!(dirs.len(), expected, "cases in testdata/replicas/{split}");
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|d| run_case(d).err().map(|e| format!("{}: {e}", d.display())))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn replicas_public_cases_match_xla() {
    run_split("public", 17);
}

/// Cases made by `scripts/make_replica_cases.py` on real XLA: reduce-scatter and all-to-all on
/// dimension 1, iota groups over 8 replicas, collectives in loops and conditionals, async
/// pairs in a loop, and every group mode on 2 replicas × 2 partitions; and by
/// `scripts/make_nan_fold_cases.py`: float all-reduces with NaNs and signed zeros (whose bits
/// `tests/devices_cli.rs` checks).
#[test]
fn replicas_own_cases_match_xla() {
    run_split("own", 13);
}

fn module(text: &str) -> Executable {
    Executable::compile(&xla_core::text::parse_module(text).unwrap()).unwrap()
}

const ADD: &str =
    "add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = f32[] add(a, b) }\n";

fn vecs(rows: &[&[f32]]) -> Vec<Vec<Literal>> {
    rows.iter().map(|r| vec![Literal::vec1(r)]).collect()
}

#[test]
fn groups_that_do_not_partition_the_replicas_are_an_error() {
    let exe = module(&format!(
        "HloModule m, replica_count=4\n{ADD}ENTRY e {{ x = f32[1] parameter(0)\n \
         ROOT s = f32[1] all-reduce(x), replica_groups={{{{0,1}},{{1,2,3}}}}, to_apply=add }}"
    ));
    let e = exe.execute_replicated(&vecs(&[&[1.], &[2.], &[3.], &[4.]]));
    let msg = e.unwrap_err().to_string();
    assert!(msg.contains("replica 1 appears twice"), "{msg}");
    assert!(msg.contains("all-reduce"), "{msg}");
}

#[test]
fn wrong_number_of_argument_sets_is_an_error() {
    let exe = module(&format!(
        "HloModule m, replica_count=2\n{ADD}ENTRY e {{ x = f32[1] parameter(0)\n \
         ROOT s = f32[1] all-reduce(x), replica_groups={{}}, to_apply=add }}"
    ));
    let e = exe.execute_replicated(&vecs(&[&[1.]])).unwrap_err();
    assert!(
        matches!(
            e,
            CpuError::DeviceCount {
                expected: 2,
                found: 1
            }
        ),
        "{e}"
    );
    let x = Literal::from_vec(&[3, 1], vec![1f32, 2., 3.]).unwrap();
    let e = split_devices(&x, 2).unwrap_err().to_string();
    assert!(e.contains("leading axis of 2 devices"), "{e}");
}

#[test]
fn a_device_that_never_arrives_is_named_not_a_hang() {
    // Only replica 0 takes the branch with the all-reduce; replica 1 finishes without it.
    let exe = module(&format!(
        "HloModule m, replica_count=2\n{ADD}\
         yes {{ p = f32[1] parameter(0)\n ROOT s = f32[1] all-reduce(p), replica_groups={{}}, to_apply=add }}\n\
         no {{ ROOT p = f32[1] parameter(0) }}\n\
         ENTRY e {{ x = f32[1] parameter(0)\n r = u32[] replica-id()\n z = u32[] constant(0)\n \
         c = pred[] compare(r, z), direction=EQ\n \
         ROOT o = f32[1] conditional(c, x, x), true_computation=yes, false_computation=no }}"
    ));
    let opts = ReplicaOptions {
        timeout: Duration::from_secs(20),
    };
    let t = std::time::Instant::now();
    let e = exe
        .execute_replicated_with(&vecs(&[&[1.], &[2.]]), opts)
        .unwrap_err()
        .to_string();
    assert!(e.contains("device(s) [1]"), "{e}");
    assert!(e.contains("all-reduce"), "{e}");
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "waited for the timeout"
    );
}

#[test]
fn the_timeout_names_the_missing_devices() {
    // Device 1 sleeps in a host function before the all-reduce; the timeout is shorter.
    let mut exe = module(&format!(
        "HloModule m, replica_count=2\n{ADD}\
         ENTRY e {{ x = f32[1] parameter(0)\n ms = u32[] parameter(1)\n \
         y = f32[1] custom-call(x, ms), custom_call_target=\"sleep\"\n \
         ROOT s = f32[1] all-reduce(y), replica_groups={{}}, to_apply=add }}"
    ));
    exe.register_custom_call("sleep", |a: &[Literal], _: &xla_core::Shape, _: &str| {
        let ms = a[1].data::<u32>().unwrap()[0];
        std::thread::sleep(Duration::from_millis(u64::from(ms)));
        Ok(a[0].clone())
    });
    let args = vec![
        vec![Literal::vec1(&[1f32]), Literal::scalar(0u32)],
        vec![Literal::vec1(&[2f32]), Literal::scalar(400u32)],
    ];
    let opts = ReplicaOptions {
        timeout: Duration::from_millis(50),
    };
    let e = exe
        .execute_replicated_with(&args, opts)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("device 0 (replica 0, partition 0)"), "{e}");
    assert!(
        e.contains("all-reduce: device(s) [1] did not arrive within 50ms"),
        "{e}"
    );
    // With a long enough timeout the same run succeeds.
    let out = exe.execute_replicated(&args).unwrap();
    assert_eq!(out[1].data::<f32>(), Some(&[3f32][..]));
}

#[test]
fn a_failing_device_is_the_reported_cause() {
    // Device 1 fails (an unregistered custom-call); device 0 waits for it at the all-reduce.
    let exe = module(&format!(
        "HloModule m, replica_count=2\n{ADD}\
         yes {{ p = f32[1] parameter(0)\n ROOT s = f32[1] custom-call(p), custom_call_target=\"missing\" }}\n\
         no {{ ROOT p = f32[1] parameter(0) }}\n\
         ENTRY e {{ x = f32[1] parameter(0)\n r = u32[] replica-id()\n z = u32[] constant(1)\n \
         c = pred[] compare(r, z), direction=EQ\n \
         y = f32[1] conditional(c, x, x), true_computation=yes, false_computation=no\n \
         ROOT s = f32[1] all-reduce(y), replica_groups={{}}, to_apply=add }}"
    ));
    let e = exe.execute_replicated(&vecs(&[&[1.], &[2.]])).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.starts_with("device 1 (replica 1, partition 0)"),
        "{msg}"
    );
    assert!(msg.contains("missing"), "{msg}");
}

#[test]
fn a_duplicate_permute_target_is_an_error() {
    let text = "HloModule m, replica_count=3\nENTRY e { x = f32[1] parameter(0)\n \
                ROOT p = f32[1] collective-permute(x), source_target_pairs={{0,1},{2,1}} }";
    let m = xla_core::text::parse_module(text).unwrap();
    let e = Executable::compile(&m).unwrap_err().to_string();
    assert!(e.contains("repeat target replica 1"), "{e}");
}

#[test]
fn collective_broadcast_sends_the_first_member() {
    let exe = module(
        "HloModule m, replica_count=4\nENTRY e { x = f32[2] parameter(0)\n \
         ROOT b = f32[2] collective-broadcast(x), replica_groups={{2,0},{1,3}} }",
    );
    let out = exe
        .execute_replicated(&vecs(&[&[0., 0.5], &[1., 1.5], &[2., 2.5], &[3., 3.5]]))
        .unwrap();
    let got: Vec<f32> = out.iter().map(|l| l.data::<f32>().unwrap()[0]).collect();
    assert_eq!(got, vec![2., 1., 2., 1.]);
}

#[test]
fn a_single_device_module_runs_as_before() {
    let exe = module(&format!(
        "HloModule m\n{ADD}ENTRY e {{ x = f32[2] parameter(0)\n \
         s = f32[2] all-reduce(x), replica_groups={{}}, to_apply=add\n r = u32[] replica-id()\n \
         ROOT t = (f32[2], u32[]) tuple(s, r) }}"
    ));
    let out = exe.execute(&[Literal::vec1(&[1f32, 2.])]).unwrap();
    let t = out.tuple_elements().unwrap();
    assert_eq!(t[0].data::<f32>(), Some(&[1f32, 2.][..]));
    assert_eq!(t[1].data::<u32>(), Some(&[0u32][..]));
    assert_eq!(
        exe.execute_replicated(&[vec![Literal::vec1(&[1f32, 2.])]])
            .unwrap()[0],
        out
    );
}

#[test]
fn a_reduction_that_does_not_vectorise_runs_per_element() {
    // `broadcast` keeps the combiner off the vectorised path; the result is the max.
    let exe = module(
        "HloModule m, replica_count=3\n\
         mx { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ab = f32[] broadcast(a), dimensions={}\n \
         ROOT c = f32[] maximum(ab, b) }\n\
         ENTRY e { x = f32[2] parameter(0)\n ROOT s = f32[2] all-reduce(x), replica_groups={}, to_apply=mx }",
    );
    let out = exe
        .execute_replicated(&vecs(&[&[1., -5.], &[7., -6.], &[3., -4.]]))
        .unwrap();
    for o in &out {
        assert_eq!(o.data::<f32>(), Some(&[7f32, -4.][..]));
    }
}

#[test]
fn devices_running_different_collectives_is_an_error() {
    // Replica 0 all-reduces while replica 1 all-gathers at the same point.
    let exe = module(&format!(
        "HloModule m, replica_count=2\n{ADD}\
         sum {{ p = f32[2] parameter(0)\n ROOT s = f32[2] all-reduce(p), replica_groups={{}}, to_apply=add }}\n\
         gather {{ p = f32[2] parameter(0)\n g = f32[4] all-gather(p), replica_groups={{}}, dimensions={{0}}\n \
         ROOT h = f32[2] slice(g), slice={{[0:2]}} }}\n\
         ENTRY e {{ x = f32[2] parameter(0)\n r = u32[] replica-id()\n z = u32[] constant(0)\n \
         c = pred[] compare(r, z), direction=EQ\n \
         ROOT o = f32[2] conditional(c, x, x), true_computation=sum, false_computation=gather }}"
    ));
    let e = exe
        .execute_replicated(&vecs(&[&[1., 2.], &[3., 4.]]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("devices disagree"), "{e}");
    assert!(e.contains("all-reduce") && e.contains("all-gather"), "{e}");
}

#[test]
fn an_all_gather_for_more_devices_than_the_run_has_is_a_shape_error() {
    // Written for 4 replicas (result 4 x 2 rows) but run on one device: the group of one
    // gives 2 rows, not the declared 8 (before: a literal error about element counts).
    let exe = module(
        "HloModule m, replica_count=4\n\
         ENTRY e { x = f32[2,3] parameter(0)\n \
         ROOT g = f32[8,3] all-gather(x), replica_groups={}, dimensions={0} }",
    );
    let x = Literal::from_vec(&[2, 3], vec![0f32; 6]).unwrap();
    let e = exe.execute(&[x]).unwrap_err();
    let CpuError::Instruction { source, .. } = &e else {
        panic!("expected an Instruction error, got {e:?}");
    };
    assert!(
        matches!(&**source, CpuError::ResultShape { op, .. } if op == "all-gather"),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains(
            "all-gather: the result must be its group's 1 value(s) of f32[2,3] joined along \
             dimension 0 (size 2 there), but the op declares f32[8,3]"
        ),
        "{msg}"
    );
}
