//! `#[computation(replicas = R, partitions = P)]`: collectives over partitions, devices and
//! replicas-and-partitions, `partition_id()`, the module header and the attributes XLA
//! decides the group mode from; results checked against JAX `shard_map` on a 4-device mesh
//! (testdata/macro_partitions, made by scripts/make_macro_partition_fixtures.py: mesh axis
//! 'r' is the replicas, 'p' the partitions, device r × P + p) and against hand-worked
//! values.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use xla::computation;
use xla::core::Literal;

#[computation(replicas = 2, partitions = 2)]
fn psum_p(x: Tensor<f32, 8>) -> Tensor<f32, 8> {
    x.all_reduce(|a, b| a + b, over = partitions)
}

#[computation(replicas = 2, partitions = 2)]
fn psum_r(x: Tensor<f32, 8>) -> Tensor<f32, 8> {
    x.all_reduce(|a, b| a + b)
}

#[computation(replicas = 2, partitions = 2)]
fn psum_rp(x: Tensor<f32, 8>) -> Tensor<f32, 8> {
    x.all_reduce(|a, b| a + b, over = devices)
}

/// The same sum over all four devices, as XLA's cross-replica-and-partition mode.
#[computation(replicas = 2, partitions = 2)]
fn psum_rap(x: Tensor<f32, 8>) -> Tensor<f32, 8> {
    x.all_reduce(|a, b| a + b, over = replicas_and_partitions)
}

#[computation(replicas = 2, partitions = 2)]
fn all_gather_p(x: Tensor<f32, 8>) -> Tensor<f32, 16> {
    x.all_gather(0, over = partitions)
}

#[computation(replicas = 2, partitions = 2)]
fn ppermute_p(x: Tensor<f32, 8>) -> Tensor<f32, 8> {
    x.collective_permute([(0, 1), (1, 0)], over = partitions)
}

#[computation(replicas = 2, partitions = 2)]
fn ids(x: Tensor<f32, 8>) -> Tensor<f32, 8> {
    let id = replica_id().convert::<f32>() * 10.0 + partition_id().convert::<f32>();
    x * id
}

#[computation(partitions = 4)]
fn psum_scatter_p(x: Tensor<f32, 8>) -> Tensor<f32, 2> {
    x.reduce_scatter(0, |a, b| a + b, over = partitions)
}

#[computation(partitions = 4)]
fn all_to_all_p(x: Tensor<f32, 8>) -> Tensor<f32, 8> {
    x.all_to_all(0, 0, over = partitions)
}

#[computation(partitions = 4)]
fn ppermute_ring_p(x: Tensor<f32, 8>) -> Tensor<f32, 8> {
    x.collective_permute([(0, 1), (1, 2), (2, 3), (3, 0)], over = partitions)
}

#[computation(partitions = 4)]
fn pmax_p(x: Tensor<f32, 8>) -> Tensor<f32, 8> {
    x.all_reduce(|a, b| a.max(b), over = partitions)
}

/// Partitions {0, 1} and {2, 3} of each replica: device groups {0, 1}, {2, 3}, {4, 5},
/// {6, 7}.
#[computation(replicas = 2, partitions = 4)]
fn gather_pairs(x: Tensor<f32, 1>) -> (Tensor<f32, 2>, Tensor<f32, 4>) {
    let pairs = x.all_gather(0, groups = [[1, 0], [2, 3]], over = partitions);
    let columns = x.all_gather(0, groups = [[0, 4], [1, 5], [2, 6], [3, 7]], over = devices);
    let rap = x.all_gather(0, groups = [[1, 0]], over = replicas_and_partitions);
    (pairs, concat([columns, rap], 0).slice([0..4]))
}

fn fixture(name: &str, file: &str) -> Literal {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/macro_partitions")
        .join(name)
        .join(file);
    Literal::read_npy(&p).unwrap()
}

type Stacked = fn(&[Literal]) -> Result<Vec<Literal>, psum_p::Error>;

/// Runs `f` on the fixture's stacked input and compares with JAX's stacked output (the
/// same bits for sums of two or four and for maxima, gathers and permutes).
fn matches_jax(name: &str, f: Stacked) {
    let out = f(&[fixture(name, "in0.npy")]).unwrap();
    assert_eq!(out.len(), 1);
    let want = fixture(name, "out0.npy");
    assert_eq!(out[0].shape().dims(), want.shape().dims(), "{name}");
    let (got, want) = (out[0].data::<f32>().unwrap(), want.data::<f32>().unwrap());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-6 * w.abs().max(1.0),
            "{name}[{i}]: {g} != {w}"
        );
    }
}

#[test]
fn shard_map_on_a_2x2_mesh() {
    matches_jax("psum_p_2x2", psum_p::run_stacked);
    matches_jax("psum_r_2x2", psum_r::run_stacked);
    matches_jax("psum_rp_2x2", psum_rp::run_stacked);
    matches_jax("psum_rp_2x2", psum_rap::run_stacked);
    matches_jax("all_gather_p_2x2", all_gather_p::run_stacked);
    matches_jax("ppermute_p_2x2", ppermute_p::run_stacked);
    matches_jax("ids_2x2", ids::run_stacked);
}

#[test]
fn shard_map_on_4_partitions() {
    matches_jax("psum_scatter_p_4", psum_scatter_p::run_stacked);
    matches_jax("all_to_all_p_4", all_to_all_p::run_stacked);
    matches_jax("ppermute_ring_p_4", ppermute_ring_p::run_stacked);
    matches_jax("pmax_p_4", pmax_p::run_stacked);
}

/// The header and the attributes XLA reads the group mode from (the same as JAX's for a
/// `psum` over a mesh axis: a channel, device groups, `use_global_device_ids=true`).
#[test]
fn the_module_says_what_xla_needs() {
    assert_eq!(
        (psum_p::REPLICAS, psum_p::PARTITIONS, psum_p::DEVICES),
        (2, 2, 4)
    );
    assert!(
        psum_p::HLO.contains("replica_count=2, num_partitions=2"),
        "{}",
        psum_p::HLO
    );
    let line = |hlo: &'static str, op: &str| -> &'static str {
        hlo.lines().find(|l| l.contains(op)).unwrap()
    };
    let ar = line(psum_p::HLO, "all-reduce(");
    assert!(
        ar.contains("channel_id=1")
            && ar.contains("replica_groups={{0,1},{2,3}}")
            && ar.contains("use_global_device_ids=true"),
        "{ar}"
    );
    let ar = line(psum_r::HLO, "all-reduce(");
    assert!(!ar.contains("channel_id"), "{ar}");
    let ar = line(psum_rap::HLO, "all-reduce(");
    assert!(
        ar.contains("channel_id=1") && !ar.contains("use_global_device_ids"),
        "{ar}"
    );
    let cp = line(ppermute_p::HLO, "collective-permute(");
    assert!(
        cp.contains("channel_id=1") && cp.contains("{0,1},{1,0}"),
        "{cp}"
    );
    assert!(psum_scatter_p::HLO.starts_with("HloModule psum_scatter_p, num_partitions=4"));
    // Every collective of a module gets its own channel.
    let g = gather_pairs::HLO;
    for c in ["channel_id=1,", "channel_id=2,", "channel_id=3,"] {
        assert_eq!(g.matches(c).count(), 1, "{c} in {g}");
    }
}

/// Device d = 4r + p holds [d]; the three gathers worked out by hand.
#[test]
fn gathers_over_each_kind_of_group() {
    let args: Vec<Vec<Literal>> = (0..8).map(|d| vec![Literal::vec1(&[d as f32])]).collect();
    let out = gather_pairs::run_replicated(&args).unwrap();
    for (d, o) in out.iter().enumerate() {
        let parts = o.tuple_elements().unwrap();
        let (r, p) = (d / 4, d % 4);
        // Partition groups [1, 0] and [2, 3] within replica r: group order.
        let pair = if p < 2 { [1, 0] } else { [2, 3] };
        let want: Vec<f32> = pair.iter().map(|q| (4 * r + q) as f32).collect();
        assert_eq!(parts[0].data::<f32>().unwrap(), &want[..], "device {d}");
        // Device groups [p, 4 + p]; then replicas [1, 0] of every partition, replica-major
        // (devices 4..8, then 0..4), of which the first two: devices 4 and 5.
        let want = [p as f32, (4 + p) as f32, 4.0, 5.0];
        assert_eq!(parts[1].data::<f32>().unwrap(), &want[..], "device {d}");
    }
}

#[test]
fn wrong_device_counts_are_errors_not_panics() {
    let one = Literal::vec1(&[0f32; 8]);
    let e = psum_p::run(std::slice::from_ref(&one))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("2 replicas × 2 partitions") && e.contains("run_replicated"),
        "{e}"
    );
    let sets = vec![vec![one.clone()]; 2];
    let e = psum_p::run_replicated(&sets).unwrap_err().to_string();
    assert!(
        e.contains("runs on 4 devices (2 replicas × 2 partitions), found 2"),
        "{e}"
    );
    let stacked = Literal::from_vec(&[2, 8], vec![0f32; 16]).unwrap();
    let e = psum_p::run_stacked(&[stacked]).unwrap_err().to_string();
    assert!(
        e.contains("argument 0 (`x`)") && e.contains("leading axis of 4 devices"),
        "{e}"
    );
    let e = psum_p::run_stacked(&[]).unwrap_err().to_string();
    assert!(e.contains("takes 1 arguments, found 0"), "{e}");
}

/// Every partitioned computation of this file with the name of its case directory under
/// testdata/macro_partitions (JAX's input and output) and its HLO text.
const ON_XLA: [(&str, &str, Stacked); 12] = [
    ("psum_p_2x2", psum_p::HLO, psum_p::run_stacked),
    ("psum_r_2x2", psum_r::HLO, psum_r::run_stacked),
    ("psum_rp_2x2", psum_rp::HLO, psum_rp::run_stacked),
    ("psum_rap_2x2", psum_rap::HLO, psum_rap::run_stacked),
    (
        "all_gather_p_2x2",
        all_gather_p::HLO,
        all_gather_p::run_stacked,
    ),
    ("ppermute_p_2x2", ppermute_p::HLO, ppermute_p::run_stacked),
    ("ids_2x2", ids::HLO, ids::run_stacked),
    (
        "psum_scatter_p_4",
        psum_scatter_p::HLO,
        psum_scatter_p::run_stacked,
    ),
    (
        "all_to_all_p_4",
        all_to_all_p::HLO,
        all_to_all_p::run_stacked,
    ),
    (
        "ppermute_ring_p_4",
        ppermute_ring_p::HLO,
        ppermute_ring_p::run_stacked,
    ),
    ("pmax_p_4", pmax_p::HLO, pmax_p::run_stacked),
    (
        "gather_pairs_2x4",
        gather_pairs::HLO,
        gather_pairs::run_stacked,
    ),
];

/// The directory of the macro's printed modules and real XLA's results on them.
fn on_xla_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/macro_partitions/on_xla")
        .join(name)
}

/// The macro's printed module of every partitioned computation runs on real XLA:CPU as a
/// manually partitioned SPMD program (testdata/macro_partitions/on_xla/NAME: `module.hlo`
/// is the text the macro prints today, `out*.npy` what real XLA computed from it on the
/// JAX case's input, or for `gather_pairs` device d holding `[d]`; made by
/// scripts/run_macro_partitions_on_xla.py). Ours equals XLA's, every output leaf.
/// `XLA_RS_WRITE_MODULES=1` writes the current texts for that script instead.
#[test]
fn printed_modules_run_on_real_xla() {
    let write = std::env::var_os("XLA_RS_WRITE_MODULES").is_some();
    for (name, hlo, run) in ON_XLA {
        let dir = on_xla_dir(name);
        if write {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("module.hlo"), hlo).unwrap();
            continue;
        }
        let committed = std::fs::read_to_string(dir.join("module.hlo")).unwrap();
        assert_eq!(
            committed, hlo,
            "{name}: the macro prints another module than the one real XLA ran; re-run \
             scripts/run_macro_partitions_on_xla.py"
        );
        let input = Literal::read_npy(dir.join("in0.npy")).unwrap();
        let out = run(&[input]).unwrap();
        let wants: Vec<Literal> = (0..)
            .map(|k| dir.join(format!("out{k}.npy")))
            .take_while(|p| p.exists())
            .map(|p| Literal::read_npy(p).unwrap())
            .collect();
        assert_eq!(out.len(), wants.len(), "{name}");
        for (k, (got, want)) in out.iter().zip(&wants).enumerate() {
            assert_eq!(got.shape().dims(), want.shape().dims(), "{name} out{k}");
            let (got, want) = (got.data::<f32>().unwrap(), want.data::<f32>().unwrap());
            for (i, (g, w)) in got.iter().zip(want).enumerate() {
                assert!(
                    (g - w).abs() <= 1e-6 * w.abs().max(1.0),
                    "{name} out{k}[{i}]: ours {g}, real XLA {w}"
                );
            }
        }
    }
}
