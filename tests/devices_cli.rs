//! `xla run` on multi-device modules (inputs and outputs stacked along a leading device axis):
//! one thread per device, and, with the `mpi` feature, one MPI rank per device under `mpirun`
//! (whose outputs must be the same bytes as the threads').
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cases() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for split in ["public", "own"] {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/replicas")
            .join(split);
        for e in std::fs::read_dir(root).unwrap() {
            let p = e.unwrap().path();
            if p.join("module.hlo").exists() {
                dirs.push(p);
            }
        }
    }
    dirs.sort();
    dirs
}

fn inputs(dir: &Path) -> Vec<String> {
    (0..)
        .map(|i| dir.join(format!("in{i}.npy")))
        .take_while(|p| p.exists())
        .map(|p| p.to_string_lossy().into_owned())
        .collect()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xla-devices-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// `xla run` of a case (through `prefix`, e.g. mpirun) with outputs in `out`.
fn run(prefix: &[&str], dir: &Path, out: &Path, extra: &[&str]) -> Output {
    let xla = env!("CARGO_BIN_EXE_xla");
    let (program, mut args): (&str, Vec<String>) = match prefix.split_first() {
        Some((p, rest)) => (p, rest.iter().map(|s| s.to_string()).collect()),
        None => (xla, Vec::new()),
    };
    if !prefix.is_empty() {
        args.push(xla.into());
    }
    args.push("run".into());
    args.extend(extra.iter().map(|s| s.to_string()));
    args.push(dir.join("module.hlo").to_string_lossy().into_owned());
    args.extend(inputs(dir));
    args.push("--out".into());
    args.push(out.to_string_lossy().into_owned());
    Command::new(program).args(&args).output().unwrap()
}

fn outputs(dir: &Path) -> Vec<Vec<u8>> {
    (0..)
        .map(|i| dir.join(format!("out{i}.npy")))
        .take_while(|p| p.exists())
        .map(|p| std::fs::read(p).unwrap())
        .collect()
}

/// The cases whose outputs must be real XLA's bits (`"bits": true` in meta.json, made by
/// `scripts/make_nan_fold_cases.py`): NaN payloads, signed zeros, NaN-skipping max/min.
fn bit_cases() -> Vec<PathBuf> {
    let cases: Vec<PathBuf> = cases()
        .into_iter()
        .filter(|d| {
            let meta = std::fs::read_to_string(d.join("meta.json")).unwrap_or_default();
            meta.contains("\"bits\": true")
        })
        .collect();
    assert_eq!(cases.len(), 3, "{cases:?}");
    cases
}

/// The element bytes of an `.npy` file (after its header, version 1 or 2).
fn npy_body(b: &[u8]) -> &[u8] {
    let start = match b[6] {
        1 => 10 + usize::from(u16::from_le_bytes([b[8], b[9]])),
        _ => 12 + u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize,
    };
    &b[start..]
}

/// Every output in `out` has the type, shape and bytes of the case's output from real XLA.
fn assert_xla_bits(dir: &Path, out: &Path) {
    let (got, want) = (outputs(out), outputs(dir));
    assert_eq!(got.len(), want.len(), "{}", dir.display());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let file = format!("out{i}.npy");
        let shape = |p: PathBuf| xla::Literal::read_npy(p).unwrap().shape().clone();
        assert_eq!(shape(out.join(&file)), shape(dir.join(&file)));
        assert!(
            npy_body(g) == npy_body(w),
            "{}/{file}: not the bits of real XLA",
            dir.display()
        );
    }
}

/// NaNs of different payloads on several devices, -0 and NaNs in max/min all-reduces (2
/// and 4 replicas, f32/f64/f16/bf16/c64) and a reduce-scatter: threads give real XLA's bits.
#[test]
fn threads_give_xlas_bits_for_nans_and_signed_zeros() {
    for dir in bit_cases() {
        let out = scratch("bits-threads");
        let o = run(&[], &dir, &out, &[]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_xla_bits(&dir, &out);
    }
}

/// The same cases on MPI ranks: real XLA's bits too (the 2-rank f32/f64 add and multiply,
/// which otherwise run on `MPI_Allreduce`, see a member's NaN or -0 in the handshake and fold
/// in XLA's order instead).
#[cfg(feature = "mpi")]
#[test]
fn mpi_ranks_give_xlas_bits_for_nans_and_signed_zeros() {
    for dir in bit_cases() {
        let text = std::fs::read_to_string(dir.join("module.hlo")).unwrap();
        let exe =
            xla::cpu::Executable::compile(&xla::core::text::parse_module(&text).unwrap()).unwrap();
        let n = exe.topology().devices().to_string();
        let out = scratch("bits-mpi");
        let prefix = [
            "mpirun",
            "--allow-run-as-root",
            "--oversubscribe",
            "-np",
            &n,
        ];
        let o = run(&prefix, &dir, &out, &["--backend", "mpi"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_xla_bits(&dir, &out);
    }
}

#[test]
fn threads_write_the_stacked_outputs() {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/replicas/public/permute_partial");
    let out = scratch("threads");
    let o = run(&[], &dir, &out, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got = xla::Literal::read_npy(out.join("out0.npy")).unwrap();
    let want = xla::Literal::read_npy(dir.join("out0.npy")).unwrap();
    assert_eq!(got, want); // s32: exact
}

#[test]
fn a_wrong_leading_axis_is_an_error_and_writes_nothing() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/replicas/public/allgather_dim0");
    let bad = scratch("bad-input");
    std::fs::create_dir_all(&bad).unwrap();
    // Three devices' values for a module on four.
    let x = xla::Literal::from_vec(&[3, 2, 3], vec![0f32; 18]).unwrap();
    x.write_npy(bad.join("in0.npy")).unwrap();
    let out = bad.join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_xla"))
        .args(["run", dir.join("module.hlo").to_str().unwrap()])
        .arg(bad.join("in0.npy"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("leading axis of 4 devices"), "{err}");
    assert!(err.contains("f32[3,2,3]"), "{err}");
    assert!(!out.exists());
}

/// Every case on MPI ranks gives the same bytes as on threads; the wrong rank count is an
/// error naming the right one.
#[cfg(feature = "mpi")]
#[test]
fn mpi_ranks_match_threads_bit_for_bit() {
    let mpirun = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np"];
    for dir in cases() {
        let text = std::fs::read_to_string(dir.join("module.hlo")).unwrap();
        let exe =
            xla::cpu::Executable::compile(&xla::core::text::parse_module(&text).unwrap()).unwrap();
        let n = exe.topology().devices().to_string();
        let (t, m) = (scratch("t"), scratch("m"));
        let o = run(&[], &dir, &t, &[]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let prefix: Vec<&str> = mpirun.iter().copied().chain([n.as_str()]).collect();
        let o = run(&prefix, &dir, &m, &["--backend", "mpi"]);
        assert!(
            o.status.success(),
            "{}: {}",
            dir.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(outputs(&t), outputs(&m), "{}", dir.display());
        assert!(!outputs(&t).is_empty());
    }
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/replicas/public/allreduce_sum_all");
    let out = scratch("ranks");
    let o = run(
        &[mpirun[0], mpirun[1], mpirun[2], mpirun[3], "3"],
        &dir,
        &out,
        &["--backend", "mpi"],
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("there are 3 MPI rank(s); start it with mpirun -np 4"),
        "{err}"
    );
    assert!(!out.exists());
}

/// `xla bench --backend mpi` under mpirun: the job's timing printed once (by rank 0).
#[cfg(feature = "mpi")]
#[test]
fn mpi_bench_prints_on_rank_0_only() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/replicas/public/allreduce_tuple_operands");
    let mut args: Vec<String> = ["--allow-run-as-root", "--oversubscribe", "-np", "2"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend([env!("CARGO_BIN_EXE_xla").to_string(), "bench".into()]);
    args.push(dir.join("module.hlo").to_string_lossy().into_owned());
    args.extend(inputs(&dir));
    args.extend(["--iters", "3", "--backend", "mpi"].map(String::from));
    let o = Command::new("mpirun").args(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.matches("median_s=").count(), 1, "{out}");
    let median: f64 = out
        .lines()
        .find_map(|l| l.strip_prefix("median_s="))
        .unwrap()
        .parse()
        .unwrap();
    assert!(median > 0.0 && median < 5.0, "{out}");
}

/// A rank that skips a collective (replica 0 all-reduces, replica 1 does not): the job
/// fails within the timeout with an error naming the op, and writes nothing.
#[cfg(feature = "mpi")]
#[test]
fn mpi_rank_that_skips_a_collective_fails_not_hangs() {
    let dir = scratch("skip");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("module.hlo"),
        "HloModule m, replica_count=2\n\
         add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = f32[] add(a, b) }\n\
         sum { p = f32[2] parameter(0)\n ROOT s = f32[2] all-reduce(p), replica_groups={}, to_apply=add }\n\
         neg { p = f32[2] parameter(0)\n ROOT n = f32[2] negate(p) }\n\
         ENTRY e { x = f32[2] parameter(0)\n r = u32[] replica-id()\n z = u32[] constant(0)\n \
         c = pred[] compare(r, z), direction=EQ\n \
         ROOT o = f32[2] conditional(c, x, x), true_computation=sum, false_computation=neg }\n",
    )
    .unwrap();
    // f32[2,2] of ones as .npy (version 1 header padded to 128 bytes).
    let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
    let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    let pad = 128 - 10 - header.len() - 1;
    npy.extend_from_slice(&u16::try_from(header.len() + pad + 1).unwrap().to_le_bytes());
    npy.extend_from_slice(header.as_bytes());
    npy.extend(std::iter::repeat_n(b' ', pad));
    npy.push(b'\n');
    for _ in 0..4 {
        npy.extend_from_slice(&1f32.to_le_bytes());
    }
    std::fs::write(dir.join("in0.npy"), npy).unwrap();
    let out = scratch("skip-out");
    let started = std::time::Instant::now();
    let o = Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "-np", "2"])
        .args(["-x", "XLA_COLLECTIVE_TIMEOUT_SECS=3"])
        .arg(env!("CARGO_BIN_EXE_xla"))
        .args(["run", "--backend", "mpi"])
        .arg(dir.join("module.hlo"))
        .arg(dir.join("in0.npy"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("all-reduce"), "{err}");
    assert!(
        started.elapsed().as_secs() < 40,
        "took {:?}",
        started.elapsed()
    );
    assert!(!out.exists());
}

#[cfg(not(feature = "mpi"))]
#[test]
fn mpi_backend_needs_the_feature() {
    let _ = cases();
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/replicas/public/allreduce_sum_all");
    let o = run(&[], &dir, &scratch("nompi"), &["--backend", "mpi"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("`mpi` feature"));
}

/// An all-reduce of f32[N] on 2 replicas, written to `dir/NAME.hlo` with its stacked input
/// of ones in `dir/NAME.npy`; returns the two paths.
#[cfg(feature = "mpi")]
fn all_reduce_case(dir: &Path, name: &str, n: usize, entry_extra: &str) -> (String, String) {
    std::fs::create_dir_all(dir).unwrap();
    let hlo = dir.join(format!("{name}.hlo"));
    std::fs::write(
        &hlo,
        format!(
            "HloModule {name}, replica_count=2\n\
             add {{ a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = f32[] add(a, b) }}\n\
             {entry_extra}\
             ENTRY e {{ x = f32[{n}] parameter(0)\n \
             ROOT s = f32[{n}] all-reduce(x), replica_groups={{}}, to_apply=add }}\n"
        ),
    )
    .unwrap();
    let npy = dir.join(format!("{name}.npy"));
    xla::Literal::from_vec(&[2, n as i64], vec![1f32; 2 * n])
        .unwrap()
        .write_npy(&npy)
        .unwrap();
    let s = |p: PathBuf| p.to_string_lossy().into_owned();
    (s(hlo), s(npy))
}

/// Ranks given modules whose all-reduce operands differ (f32[2] on rank 0, f32[3] on rank
/// 1, an MPMD launch): an error naming the op and both shapes, no output.
#[cfg(feature = "mpi")]
#[test]
fn mpi_ranks_with_different_shapes_fail_naming_them() {
    let dir = scratch("shapes");
    let (a, xa) = all_reduce_case(&dir, "two", 2, "");
    let (b, xb) = all_reduce_case(&dir, "three", 3, "");
    let out = dir.join("out");
    let xla = env!("CARGO_BIN_EXE_xla");
    let o = out.to_str().unwrap();
    let o = Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe"])
        .args([
            "-np",
            "1",
            xla,
            "run",
            "--backend",
            "mpi",
            &a,
            &xa,
            "--out",
            o,
            ":",
        ])
        .args([
            "-np",
            "1",
            xla,
            "run",
            "--backend",
            "mpi",
            &b,
            &xb,
            "--out",
            o,
        ])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("all-reduce"), "{err}");
    assert!(err.contains("f32[2]") && err.contains("f32[3]"), "{err}");
    assert!(!out.exists());
}

/// A rank killed while the other waits at a collective (rank 1 spins in a while loop that
/// never ends and is killed after 3 s; the collective timeout is 60 s): `mpirun` ends the
/// job at once, saying which rank died, and nothing is written.
#[cfg(feature = "mpi")]
#[test]
fn mpi_rank_that_dies_ends_the_job_without_output() {
    let dir = scratch("dies");
    let (a, xa) = all_reduce_case(&dir, "waits", 2, "");
    let spin = "cond { i = s32[] parameter(0)\n ROOT t = pred[] compare(i, i), direction=EQ }\n\
                body { i = s32[] parameter(0)\n one = s32[] constant(1)\n \
                ROOT j = s32[] add(i, one) }\n\
                forever { x = f32[2] parameter(0)\n z = s32[] constant(0)\n \
                w = s32[] while(z), condition=cond, body=body\n f = f32[] convert(w)\n \
                b = f32[2] broadcast(f), dimensions={}\n ROOT y = f32[2] add(x, b) }\n";
    let (b, xb) = all_reduce_case(&dir, "spins", 2, spin);
    // The spinning module's entry runs the loop before its all-reduce.
    let text = std::fs::read_to_string(&b).unwrap().replace(
        "ROOT s = f32[2] all-reduce(x)",
        "l = f32[2] call(x), to_apply=forever\n ROOT s = f32[2] all-reduce(l)",
    );
    std::fs::write(&b, text).unwrap();
    let out = dir.join("out");
    let xla = env!("CARGO_BIN_EXE_xla");
    let o = out.to_str().unwrap();
    let started = std::time::Instant::now();
    let o = Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe"])
        .args(["-x", "XLA_COLLECTIVE_TIMEOUT_SECS=60"])
        .args([
            "-np",
            "1",
            xla,
            "run",
            "--backend",
            "mpi",
            &a,
            &xa,
            "--out",
            o,
            ":",
        ])
        .args(["-np", "1", "timeout", "-s", "KILL", "3"])
        .args([xla, "run", "--backend", "mpi", &b, &xb, "--out", o])
        .output()
        .unwrap();
    let took = started.elapsed();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(took.as_secs() < 40, "took {took:?}: {err}");
    assert!(err.contains("rank 1"), "{err}");
    assert!(!out.exists());
}
