//! The forms that make the rest of the spec's ops reachable from a `#[computation]` body:
//! keyword arguments (convolution dimension numbers, gather/scatter batching dims), `match`
//! on an integer (an indexed `conditional`), `while` loops, tuples in the body, the
//! variadic `reduce` / `map` / `reduce-window`, `rng_bernoulli`, `copy` and the collectives
//! on one replica. Each runs on the CPU against values worked out by hand.

#![allow(clippy::unwrap_used)]

use xla::computation;

/// NHWC input, HWIO kernel, NHWC output, by XLA's dimension labels.
#[computation]
fn conv_nhwc(x: Tensor<f32, 1, 3, 3, 1>, k: Tensor<f32, 2, 2, 1, 1>) -> Tensor<f32, 1, 2, 2, 1> {
    x.conv_general(k, dimension_numbers = "b01f_01io->b01f")
}

#[computation]
fn conv_nhwc_strided(
    x: Tensor<f32, 1, 3, 3, 1>,
    k: Tensor<f32, 2, 2, 1, 1>,
) -> Tensor<f32, 1, 2, 2, 1> {
    x.conv_general(
        k,
        strides = [2, 2],
        padding = [(1, 1), (1, 1)],
        dimension_numbers = "b01f_01io->b01f",
    )
}

#[computation]
fn conv_nhwc_same(
    x: Tensor<f32, 1, 3, 3, 1>,
    k: Tensor<f32, 3, 3, 1, 1>,
) -> Tensor<f32, 1, 3, 3, 1> {
    x.conv_general(k, padding = SAME, dimension_numbers = "b01f_01io->b01f")
}

/// The positional `depthwise_dilated` of macro_ops.rs, by keyword (NCH input, OIH kernel).
#[computation]
fn conv_keywords_nchw(x: Tensor<f32, 1, 2, 4>, k: Tensor<f32, 2, 1, 2>) -> Tensor<f32, 1, 2, 2> {
    x.conv_general(k, rhs_dilation = [2], feature_group_count = 2)
}

#[test]
fn convolution_with_dimension_numbers() {
    let x: Vec<f32> = (1..=9).map(|v| v as f32).collect();
    // 2x2 windows of ones over [[1, 2, 3], [4, 5, 6], [7, 8, 9]].
    assert_eq!(
        conv_nhwc::call(&x, &[1.0; 4]).unwrap(),
        vec![12.0, 16.0, 24.0, 28.0]
    );
    // Padded by one zero on every side, stride 2: windows [0, 0; 0, 1], [0, 0; 2, 3],
    // [0, 4; 0, 7], [5, 6; 8, 9].
    assert_eq!(
        conv_nhwc_strided::call(&x, &[1.0; 4]).unwrap(),
        vec![1.0, 5.0, 11.0, 28.0]
    );
    // SAME: each output is the sum of the 3x3 neighbourhood inside the image.
    assert_eq!(
        conv_nhwc_same::call(&x, &[1.0; 9]).unwrap(),
        vec![12.0, 21.0, 16.0, 27.0, 45.0, 33.0, 24.0, 39.0, 28.0]
    );
    assert!(conv_nhwc::HLO.contains("dim_labels=b01f_01io->b01f"));
    // Channel 0: [1, 2, 3, 4] with [1, 10] dilated by 2: [1 + 30, 2 + 40]; channel 1:
    // [5, 6, 7, 8] with [2, 0]: [10, 12].
    let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
    let out = conv_keywords_nchw::call(&x, &[1.0, 10.0, 2.0, 0.0]).unwrap();
    assert_eq!(out, vec![31.0, 42.0, 10.0, 12.0]);
}

/// Row `b` of `x` gets `u[b]` added at column `i[b]`: dim 0 is a batching dim.
#[computation]
fn scatter_batched(
    x: Tensor<f32, 2, 3>,
    i: Tensor<i32, 2, 1>,
    u: Tensor<f32, 2>,
) -> Tensor<f32, 2, 3> {
    x.scatter_general(
        i,
        u,
        [],
        [1],
        [1],
        1,
        |old, new| old + new,
        input_batching_dims = [0],
        scatter_indices_batching_dims = [0],
    )
}

/// `x[b, i[b]]` for each row `b`.
#[computation]
fn gather_batched(x: Tensor<f32, 2, 3>, i: Tensor<i32, 2, 1>) -> Tensor<f32, 2> {
    x.gather_general(
        i,
        offset_dims = [],
        collapsed_slice_dims = [1],
        start_index_map = [1],
        index_vector_dim = 1,
        slice_sizes = [1, 1],
        operand_batching_dims = [0],
        start_indices_batching_dims = [0],
    )
}

#[test]
fn gather_and_scatter_with_batching_dims() {
    let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let out = scatter_batched::call(&x, &[1, 2], &[10.0, 20.0]).unwrap();
    assert_eq!(out, vec![1.0, 12.0, 3.0, 4.0, 5.0, 26.0]);
    assert_eq!(gather_batched::call(&x, &[1, 2]).unwrap(), vec![2.0, 6.0]);
    assert_eq!(gather_batched::call(&x, &[0, 0]).unwrap(), vec![1.0, 4.0]);
}

#[computation]
fn switch(i: i32, x: Tensor<f32, 3>) -> Tensor<f32, 3> {
    match i {
        0 => x + 1.0,
        1 => 0.0,
        2 => {
            let y = x * x;
            y * 2.0
        }
        _ => -x,
    }
}

#[test]
fn match_on_an_integer_runs_the_last_arm_out_of_range() {
    let x = [1.0, 2.0, 3.0];
    assert_eq!(switch::call(0, &x).unwrap(), vec![2.0, 3.0, 4.0]);
    assert_eq!(switch::call(1, &x).unwrap(), vec![0.0, 0.0, 0.0]);
    assert_eq!(switch::call(2, &x).unwrap(), vec![2.0, 8.0, 18.0]);
    assert_eq!(switch::call(3, &x).unwrap(), vec![-1.0, -2.0, -3.0]);
    // XLA runs the last branch for any index out of range, negative ones included.
    assert_eq!(switch::call(-1, &x).unwrap(), vec![-1.0, -2.0, -3.0]);
    assert_eq!(switch::call(7, &x).unwrap(), vec![-1.0, -2.0, -3.0]);
    assert!(switch::HLO.contains("branch_computations={"));
}

/// Steps of the Collatz map from `n` down to 1.
#[computation]
fn collatz_steps(n: i32) -> i32 {
    let mut x = n;
    let mut steps = 0;
    while x != 1 {
        x = if x % 2 == 0 { x / 2 } else { 3 * x + 1 };
        steps += 1;
    }
    steps
}

/// Doubles `x` until its sum reaches `limit` (a value from outside the loop).
#[computation]
fn double_until(x: Tensor<f32, 2>, limit: f32) -> Tensor<f32, 2> {
    let mut y = x;
    while y.sum() < limit {
        y = y * 2.0;
    }
    y
}

#[test]
fn while_loops_with_a_data_dependent_condition() {
    // 6 → 3 → 10 → 5 → 16 → 8 → 4 → 2 → 1; 27 takes 111 steps (OEIS A006577).
    assert_eq!(collatz_steps::call(6).unwrap(), 8);
    assert_eq!(collatz_steps::call(27).unwrap(), 111);
    assert_eq!(collatz_steps::call(1).unwrap(), 0);
    // Sum 3 → 6 → 12 → 24 → 48 → 96 → 192 ≥ 100: doubled six times.
    assert_eq!(
        double_until::call(&[1.0, 2.0], 100.0).unwrap(),
        vec![64.0, 128.0]
    );
    assert_eq!(
        double_until::call(&[1.0, 2.0], 1.0).unwrap(),
        vec![1.0, 2.0]
    );
}

#[computation]
fn tuples(x: Tensor<f32, 2>, y: Tensor<f32, 2>) -> (Tensor<f32, 2>, Tensor<f32, 2>) {
    let t = (x, y * 2.0);
    let s = t.0 + t.1;
    let u = (t.1, s);
    u
}

/// Fibonacci with a tuple as loop state.
#[computation]
fn fibonacci(n: i32) -> i32 {
    let mut t = (0, 1);
    let mut i = 0;
    while i < n {
        t = (t.1, t.0 + t.1);
        i += 1;
    }
    t.0
}

#[test]
fn tuples_in_the_body() {
    let (a, b) = tuples::call(&[1.0, 2.0], &[3.0, 4.0]).unwrap();
    assert_eq!((a, b), (vec![6.0, 8.0], vec![7.0, 10.0]));
    assert_eq!(fibonacci::call(10).unwrap(), 55);
    assert_eq!(fibonacci::call(0).unwrap(), 0);
}

/// The largest element and its index, in one variadic reduce.
#[computation]
fn argmax(x: Tensor<f32, 5>) -> (f32, i32) {
    let (m, i) = reduce_together(
        [x, iota::<i32>([5], 0)],
        [-1000.0, 0],
        [0],
        |(v1, i1), (v2, i2)| {
            let keep = v1 > v2;
            (keep.select(v1, v2), keep.select(i1, i2))
        },
    );
    (m, i)
}

/// Row sums and row maxima together.
#[computation]
fn sum_and_max(x: Tensor<f32, 2, 3>) -> (Tensor<f32, 2>, Tensor<f32, 2>) {
    let (s, m) = reduce_together([x, x], [0.0, -1000.0], [1], |(s, m), (v, w)| {
        (s + v, m.max(w))
    });
    (s, m)
}

#[computation]
fn fused_multiply_add(x: Tensor<f32, 3>, y: Tensor<f32, 3>, n: Tensor<i32, 3>) -> Tensor<f32, 3> {
    map_together([x, y, n], |a, b, k| a * b + k.convert::<f32>())
}

/// Max pooling that also returns where each window's maximum is.
#[computation]
fn argmax_pool(x: Tensor<f32, 6>) -> (Tensor<f32, 3>, Tensor<i32, 3>) {
    let (m, i) = reduce_window_together(
        [x, iota::<i32>([6], 0)],
        [-1000.0, 0],
        [2],
        [2],
        |(v1, i1), (v2, i2)| {
            let keep = v1 > v2;
            (keep.select(v1, v2), keep.select(i1, i2))
        },
    );
    (m, i)
}

#[test]
fn variadic_reduce_map_and_reduce_window() {
    assert_eq!(argmax::call(&[3.0, 9.0, 1.0, 7.0, 2.0]).unwrap(), (9.0, 1));
    let (s, m) = sum_and_max::call(&[1.0, 5.0, 2.0, 7.0, 0.0, 3.0]).unwrap();
    assert_eq!((s, m), (vec![8.0, 10.0], vec![5.0, 7.0]));
    let out = fused_multiply_add::call(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0], &[1, 0, -1]).unwrap();
    assert_eq!(out, vec![5.0, 10.0, 17.0]);
    let (m, i) = argmax_pool::call(&[1.0, 3.0, 2.0, 8.0, 5.0, 4.0]).unwrap();
    assert_eq!((m, i), (vec![3.0, 8.0, 5.0], vec![1, 3, 4]));
}

#[computation]
fn coins(p: f32) -> Tensor<f32, 1000> {
    rng_bernoulli(p, [1000])
}

#[test]
fn rng_bernoulli_draws_ones_with_probability_p() {
    assert!(coins::call(0.0).unwrap().iter().all(|&v| v == 0.0));
    assert!(coins::call(1.0).unwrap().iter().all(|&v| v == 1.0));
    let half = coins::call(0.5).unwrap();
    assert!(half.iter().all(|&v| v == 0.0 || v == 1.0));
    let ones = half.iter().filter(|&&v| v == 1.0).count();
    assert!((400..600).contains(&ones), "{ones} ones out of 1000");
}

/// On one replica every collective gives its operand back (the groups are that replica).
#[computation]
fn one_replica(
    x: Tensor<f32, 2, 3>,
) -> (
    u32,
    u32,
    Tensor<f32, 2, 3>,
    Tensor<f32, 2, 3>,
    Tensor<f32, 2, 3>,
    Tensor<f32, 2, 3>,
    Tensor<f32, 2, 3>,
    Tensor<f32, 2, 3>,
) {
    (
        replica_id(),
        partition_id(),
        x.copy(),
        x.all_reduce(|a, b| a + b),
        x.all_gather(1),
        x.reduce_scatter(0, |a, b| a + b),
        x.all_to_all(1, 0),
        x.collective_permute([(0, 0)]),
    )
}

#[test]
fn copy_and_collectives_on_one_replica() {
    let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let (r, p, c, ar, ag, rs, a2a, cp) = one_replica::call(&x).unwrap();
    assert_eq!((r, p), (0, 0));
    for v in [c, ar, ag, rs, a2a, cp] {
        assert_eq!(v, x.to_vec());
    }
    for op in [
        "copy(",
        "all-reduce(",
        "all-gather(",
        "reduce-scatter(",
        "all-to-all(",
        "collective-permute(",
        "replica-id(",
        "partition-id(",
    ] {
        assert!(one_replica::HLO.contains(op), "{op}");
    }
}

#[computation(grad(x))]
fn switch_loss(i: i32, x: Tensor<f32, 3>) -> f32 {
    let y = match i {
        0 => x * x,
        _ => x * 3.0,
    };
    y.sum()
}

#[test]
fn gradients_flow_through_match() {
    // d/dx sum(x²) = 2x on branch 0; d/dx sum(3x) = 3 on the `_` branch.
    let x = [1.0, -2.0, 0.5];
    assert_eq!(
        switch_loss::grad::call(0, &x).unwrap(),
        vec![2.0, -4.0, 1.0]
    );
    assert_eq!(switch_loss::grad::call(9, &x).unwrap(), vec![3.0, 3.0, 3.0]);
}

/// A `let` in a loop body that shadows an outer name lasts one iteration, as in Rust.
#[computation]
fn shadowed_in_loops(x: f32) -> (f32, f32) {
    let mut a = 0.0;
    for _ in 0..3 {
        let x = x * 2.0;
        a += x;
    }
    let mut b = 0.0;
    let mut n = 0;
    while n < 3 {
        let x = x * 2.0;
        b += x;
        n += 1;
    }
    (a, b)
}

#[test]
fn shadowing_in_a_loop_body_does_not_change_the_outer_value() {
    // Each iteration adds 2x = 2: 6 both ways (not 2 + 4 + 8).
    assert_eq!(shadowed_in_loops::call(1.0).unwrap(), (6.0, 6.0));
}

#[computation(grad(k))]
fn conv_nhwc_loss(x: Tensor<f32, 1, 3, 3, 1>, k: Tensor<f32, 2, 2, 1, 1>) -> f32 {
    x.conv_general(k, dimension_numbers = "b01f_01io->b01f")
        .sum()
}

#[test]
fn gradient_of_a_convolution_with_dimension_numbers() {
    // d/dk[a, b] of the sum of all outputs is the sum of the inputs that meet k[a, b]: the
    // 2x2 block of [[1, 2, 3], [4, 5, 6], [7, 8, 9]] starting at (a, b).
    let x: Vec<f32> = (1..=9).map(|v| v as f32).collect();
    let g = conv_nhwc_loss::grad::call(&x, &[0.5; 4]).unwrap();
    assert_eq!(g, vec![12.0, 16.0, 24.0, 28.0]);
}

/// The operands and initial values of the variadic forms may also be tuples.
#[computation]
fn min_and_max(x: Tensor<f32, 4>) -> (f32, f32) {
    let (lo, hi) = reduce_together((x, x), (1000.0, -1000.0), [0], |(a, b), (c, d)| {
        (a.min(c), b.max(d))
    });
    (lo, hi)
}

#[test]
fn variadic_forms_take_tuples() {
    assert_eq!(
        min_and_max::call(&[2.0, -3.0, 7.5, 0.0]).unwrap(),
        (-3.0, 7.5)
    );
}
