//! `#[computation(replicas = N)]` collectives, run on N thread devices through the generated
//! `run_replicated`, with expected values worked out by hand (XLA's semantics: groups in
//! replica order, all-gather concatenating in group position order).

#![allow(clippy::unwrap_used)]

use xla::computation;
use xla::core::Literal;

#[computation(replicas = 4)]
fn sum_all(x: Tensor<f32, 3>) -> Tensor<f32, 3> {
    x.all_reduce(|a, b| a + b)
}

#[computation(replicas = 4)]
fn mean_all(x: Tensor<f32, 2>) -> Tensor<f32, 2> {
    x.all_reduce(|a, b| a + b) / 4.0
}

#[computation(replicas = 4)]
fn max_pairs(x: Tensor<i32, 2>) -> Tensor<i32, 2> {
    x.all_reduce(|a, b| a.max(b), groups = [[0, 2], [1, 3]])
}

#[computation(replicas = 4)]
fn gather_all(x: Tensor<f32, 2>) -> Tensor<f32, 8> {
    x.all_gather(0)
}

#[computation(replicas = 4)]
fn gather_pairs(x: Tensor<f32, 1, 2>) -> Tensor<f32, 1, 4> {
    x.all_gather(1, groups = [[3, 0], [1, 2]])
}

#[computation(replicas = 4)]
fn scatter_sum(x: Tensor<f32, 8>) -> Tensor<f32, 2> {
    x.reduce_scatter(0, |a, b| a + b)
}

#[computation(replicas = 4)]
fn transpose_blocks(x: Tensor<f32, 4>) -> Tensor<f32, 4> {
    x.all_to_all(0, 0)
}

#[computation(replicas = 4)]
fn split_rows_concat_cols(x: Tensor<f32, 4, 1>) -> Tensor<f32, 1, 4> {
    x.all_to_all(0, 1)
}

#[computation(replicas = 4)]
fn ring(x: Tensor<f32, 2>) -> Tensor<f32, 2> {
    x.collective_permute([(0, 1), (1, 2), (2, 3), (3, 0)])
}

#[computation(replicas = 4)]
fn half_permute(x: Tensor<f32, 2>) -> Tensor<f32, 2> {
    x.collective_permute([(0, 3), (2, 1)])
}

#[computation(replicas = 4)]
fn ids(x: Tensor<f32, 2>) -> Tensor<f32, 2> {
    x * replica_id().convert::<f32>()
}

/// A loss over the replicas: the sum of every replica's squares.
#[computation(replicas = 2, grad)]
fn psum_loss(x: Tensor<f32, 2>) -> f32 {
    (x * x).all_reduce(|a, b| a + b).sum()
}

/// A generated `run_replicated`.
type RunReplicated = fn(&[Vec<Literal>]) -> Result<Vec<Literal>, sum_all::Error>;

/// Runs `f` with replica `r`'s single argument `arg(r)` and returns each replica's `T` data.
fn on_replicas<T: xla::core::literal::NativeData + Copy>(
    f: RunReplicated,
    arg: impl Fn(usize) -> Literal,
) -> Vec<Vec<T>> {
    let args: Vec<Vec<Literal>> = (0..4).map(|r| vec![arg(r)]).collect();
    let out = f(&args).unwrap();
    out.iter()
        .map(|l| l.data::<T>().unwrap().to_vec())
        .collect()
}

#[test]
fn all_reduce_sums_every_replica() {
    assert_eq!(sum_all::REPLICAS, 4);
    assert!(sum_all::HLO.contains("replica_count=4"), "{}", sum_all::HLO);
    let out = on_replicas::<f32>(sum_all::run_replicated, |r| {
        let r = r as f32;
        Literal::vec1(&[r, 10.0 * r, 100.0 * r])
    });
    // 0 + 1 + 2 + 3 = 6.
    assert_eq!(out, vec![vec![6.0, 60.0, 600.0]; 4]);
}

#[test]
fn all_reduce_mean_is_the_data_parallel_gradient() {
    let out = on_replicas::<f32>(mean_all::run_replicated, |r| {
        Literal::vec1(&[r as f32, 1.0])
    });
    assert_eq!(out, vec![vec![1.5, 1.0]; 4]);
}

#[test]
fn all_reduce_in_groups() {
    let out = on_replicas::<i32>(max_pairs::run_replicated, |r| {
        let r = r as i32;
        Literal::vec1(&[r, -r])
    });
    // Groups {0, 2} and {1, 3}: max of (0, 2) = 2, max of (0, -2) = 0; (1, 3) -> 3, -1.
    assert_eq!(out, vec![vec![2, 0], vec![3, -1], vec![2, 0], vec![3, -1]]);
}

#[test]
fn all_gather_concatenates_in_replica_order() {
    let out = on_replicas::<f32>(gather_all::run_replicated, |r| {
        let r = r as f32;
        Literal::vec1(&[r, r + 0.5])
    });
    let all = vec![0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5];
    assert_eq!(out, vec![all; 4]);
    assert_eq!(gather_all::result_shape().dims(), &[8]);
}

#[test]
fn all_gather_in_groups_follows_group_order() {
    let out = on_replicas::<f32>(gather_pairs::run_replicated, |r| {
        let r = r as f32;
        Literal::from_vec(&[1, 2], vec![r, 10.0 * r]).unwrap()
    });
    // Group [3, 0]: replica 3's block first, then replica 0's.
    let g30 = vec![3.0, 30.0, 0.0, 0.0];
    let g12 = vec![1.0, 10.0, 2.0, 20.0];
    assert_eq!(out, vec![g30.clone(), g12.clone(), g12, g30]);
}

#[test]
fn reduce_scatter_gives_each_replica_its_block_of_the_sum() {
    let out = on_replicas::<f32>(scatter_sum::run_replicated, |r| {
        let v: Vec<f32> = (0..8).map(|i| (i + r) as f32).collect();
        Literal::vec1(&v)
    });
    // Sum over r of (i + r) = 4i + 6; replica r gets elements 2r and 2r + 1.
    let expected: Vec<Vec<f32>> = (0..4)
        .map(|r| vec![(8 * r + 6) as f32, (8 * r + 10) as f32])
        .collect();
    assert_eq!(out, expected);
}

/// Replica `r` holds `10r + j` at position `j`; after an all-to-all it holds block `r` of
/// every replica `j`, in `j` order: `10j + r`.
fn block_values(r: usize, transposed: bool) -> Vec<f32> {
    let value = |j: usize| if transposed { 10 * j + r } else { 10 * r + j };
    (0..4).map(|j| value(j) as f32).collect()
}

#[test]
fn all_to_all_transposes_blocks() {
    let out = on_replicas::<f32>(transpose_blocks::run_replicated, |r| {
        Literal::vec1(&block_values(r, false))
    });
    let expected: Vec<Vec<f32>> = (0..4).map(|r| block_values(r, true)).collect();
    assert_eq!(out, expected);
}

#[test]
fn all_to_all_split_and_concat_dims_differ() {
    let out = on_replicas::<f32>(split_rows_concat_cols::run_replicated, |r| {
        Literal::from_vec(&[4, 1], block_values(r, false)).unwrap()
    });
    let expected: Vec<Vec<f32>> = (0..4).map(|r| block_values(r, true)).collect();
    assert_eq!(out, expected);
    assert_eq!(split_rows_concat_cols::result_shape().dims(), &[1, 4]);
}

#[test]
fn collective_permute_ring_and_missing_sources() {
    let arg = |r: usize| Literal::vec1(&[r as f32 + 1.0, -(r as f32) - 1.0]);
    let out = on_replicas::<f32>(ring::run_replicated, arg);
    let expected: Vec<Vec<f32>> = [4.0f32, 1.0, 2.0, 3.0]
        .iter()
        .map(|&v| vec![v, -v])
        .collect();
    assert_eq!(out, expected);
    // Replicas 0 and 2 are nobody's target: zeros.
    let out = on_replicas::<f32>(half_permute::run_replicated, arg);
    let expected = vec![
        vec![0.0, 0.0],
        vec![3.0, -3.0],
        vec![0.0, 0.0],
        vec![1.0, -1.0],
    ];
    assert_eq!(out, expected);
}

#[test]
fn replica_id_is_each_replicas_index() {
    let out = on_replicas::<f32>(ids::run_replicated, |_| Literal::vec1(&[1.0f32, 2.0]));
    let expected: Vec<Vec<f32>> = (0..4).map(|r| vec![r as f32, 2.0 * r as f32]).collect();
    assert_eq!(out, expected);
}

#[test]
fn wrong_replica_use_is_an_error_not_a_panic() {
    let one = Literal::vec1(&[1.0f32, 2.0, 3.0]);
    let e = sum_all::run(std::slice::from_ref(&one)).unwrap_err().to_string();
    assert!(
        e.contains("runs on 4 replicas") && e.contains("run_replicated"),
        "{e}"
    );
    let e = sum_all::run_replicated(&[vec![one.clone()], vec![one]])
        .unwrap_err()
        .to_string();
    assert!(e.contains("found 2 argument sets"), "{e}");
    let bad: Vec<Vec<Literal>> = (0..4).map(|_| vec![Literal::vec1(&[1.0f32])]).collect();
    let e = sum_all::run_replicated(&bad).unwrap_err().to_string();
    assert!(e.contains("f32[1]") && e.contains("f32[3]"), "{e}");
}

#[test]
fn gradient_through_an_adding_all_reduce() {
    assert!(
        psum_loss::grad::HLO.contains("replica_count=2"),
        "{}",
        psum_loss::grad::HLO
    );
    let args = vec![
        vec![Literal::vec1(&[1.0f32, 2.0])],
        vec![Literal::vec1(&[3.0f32, -1.0])],
    ];
    let out = psum_loss::grad::run_replicated(&args).unwrap();
    // The all-reduce transposes to an all-reduce of the cotangents (JAX's classic `psum`
    // rule): each replica seeds 1, so each gets 2 * d(x * x) = 4x.
    assert_eq!(out[0].data::<f32>().unwrap(), &[4.0, 8.0]);
    assert_eq!(out[1].data::<f32>().unwrap(), &[12.0, -4.0]);
}
