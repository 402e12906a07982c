//! Bad multi-device input on threads: a permute with a repeated source, one device's
//! argument of another shape, devices that send different shapes to one all-reduce. Each is
//! an error naming the op, the device and the shapes, never a hang. (Groups that do not
//! partition the devices, a repeated permute target, a wrong stacked axis, a device that
//! never arrives: `xla-cpu/tests/replicas.rs`; on MPI ranks: `tests/devices_cli.rs`.)

#![allow(clippy::unwrap_used)]

use std::time::Duration;
use xla::core::Literal;
use xla::cpu::devices::{ReplicaOptions, ThreadCommunicator};
use xla::cpu::Executable;

fn module(text: &str) -> Executable {
    Executable::compile(&xla::core::text::parse_module(text).unwrap()).unwrap()
}

const ADD: &str =
    "add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = f32[] add(a, b) }\n";

fn vecs(rows: &[&[f32]]) -> Vec<Vec<Literal>> {
    rows.iter().map(|r| vec![Literal::vec1(r)]).collect()
}

#[test]
fn a_duplicate_permute_source_is_an_error() {
    let text = "HloModule m, replica_count=3\nENTRY e { x = f32[1] parameter(0)\n \
                ROOT p = f32[1] collective-permute(x), source_target_pairs={{0,1},{0,2}} }";
    let m = xla::core::text::parse_module(text).unwrap();
    let e = Executable::compile(&m).unwrap_err().to_string();
    assert!(e.contains("collective-permute"), "{e}");
    assert!(e.contains("repeat source replica 0"), "{e}");
}

/// One device's argument of another shape than the parameter's (and so than the other
/// devices'): that device is named with both shapes, and the device waiting for it at the
/// all-reduce fails too instead of hanging.
#[test]
fn an_argument_of_another_shape_on_one_device_is_named() {
    let exe = module(&format!(
        "HloModule m, replica_count=2\n{ADD}ENTRY e {{ x = f32[2] parameter(0)\n \
         ROOT s = f32[2] all-reduce(x), replica_groups={{}}, to_apply=add }}"
    ));
    let long = ReplicaOptions {
        timeout: Duration::from_secs(60),
    };
    let started = std::time::Instant::now();
    let e = exe
        .execute_replicated_with(&vecs(&[&[1., 2.], &[3., 4., 5.]]), long)
        .unwrap_err()
        .to_string();
    assert!(started.elapsed() < Duration::from_secs(30), "{e}");
    assert!(e.starts_with("device 1 (replica 1, partition 0)"), "{e}");
    assert!(e.contains("f32[3]") && e.contains("f32[2]"), "{e}");
}

/// Devices that run programs of different shapes on one communicator (as MPI ranks given
/// different modules would): the all-reduce names the shapes the members sent.
#[test]
fn members_sending_different_shapes_is_an_error() {
    let text = |n: usize| {
        format!(
            "HloModule m, replica_count=2\n{ADD}ENTRY e {{ x = f32[{n}] parameter(0)\n \
             ROOT s = f32[{n}] all-reduce(x), replica_groups={{}}, to_apply=add }}"
        )
    };
    let (a, b) = (module(&text(2)), module(&text(3)));
    let comm = ThreadCommunicator::new(Duration::from_secs(60));
    let (xa, xb) = (Literal::vec1(&[1f32, 2.]), Literal::vec1(&[1f32, 2., 3.]));
    let (ra, rb) = std::thread::scope(|s| {
        let ta = s.spawn(|| {
            let r = a.execute_on_device(a.topology(), 0, &comm, std::slice::from_ref(&xa));
            comm.leave(0, r.as_ref().err().map(ToString::to_string));
            r
        });
        let tb = s.spawn(|| {
            let r = b.execute_on_device(b.topology(), 1, &comm, std::slice::from_ref(&xb));
            comm.leave(1, r.as_ref().err().map(ToString::to_string));
            r
        });
        (ta.join().unwrap(), tb.join().unwrap())
    });
    for r in [ra, rb] {
        let e = r.unwrap_err().to_string();
        assert!(e.contains("all-reduce"), "{e}");
        assert!(e.contains("f32[2]") && e.contains("f32[3]"), "{e}");
    }
}
