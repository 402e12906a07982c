//! `#[computation]`s run on the CPU executor through their generated `run` and `call`, with
//! expected values worked out by hand.

#![allow(clippy::unwrap_used)]

use xla::computation;
use xla::core::Literal;

/// `relu(x·w + b)`.
#[computation]
fn dense(
    x: Tensor<f32, 64, 784>,
    w: Tensor<f32, 784, 128>,
    b: Tensor<f32, 128>,
) -> Tensor<f32, 64, 128> {
    relu(x.dot(w) + b)
}

#[computation]
fn affine_rows(x: Tensor<f32, 2, 3>) -> Tensor<f32, 2> {
    (x * 2 + 1.0).sum([1])
}

#[computation]
fn moments(x: Tensor<f64, 4>) -> (f64, f64, Tensor<bool, 4>) {
    let mean = x.mean();
    let centered = x - mean;
    ((centered * centered).mean(), x.max(), x.gt(mean))
}

#[computation]
fn int_ops(a: Tensor<i32, 3>, s: i32) -> Tensor<i32, 3> {
    ((a << 1) - s).clamp(0, 5)
}

#[test]
fn dense_layer_values() {
    // x = 1, w = 0.5: every x·w entry is 784 * 0.5 = 392; b_j = j - 400, so the result is
    // relu(j - 8) in every row.
    let x = vec![1.0f32; 64 * 784];
    let w = vec![0.5f32; 784 * 128];
    let b: Vec<f32> = (0..128).map(|j| j as f32 - 400.0).collect();
    let out = dense::call(&x, &w, &b).unwrap();
    assert_eq!(out.len(), 64 * 128);
    for row in out.chunks(128) {
        let expected: Vec<f32> = (0..128).map(|j| (j as f32 - 8.0).max(0.0)).collect();
        assert_eq!(row, &expected[..]);
    }
}

#[test]
fn literal_weak_typing_and_reduction() {
    // rows [1, 2, 3] and [4, 5, 6]: sum(2x + 1) = 2*6 + 3 = 15 and 2*15 + 3 = 33.
    assert_eq!(
        affine_rows::call(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap(),
        vec![15.0, 33.0]
    );
}

#[test]
fn tuple_results() {
    // x = [1, 2, 3, 6]: mean 3, variance (4 + 1 + 0 + 9) / 4 = 3.5, max 6.
    let (var, max, above) = moments::call(&[1.0, 2.0, 3.0, 6.0]).unwrap();
    assert_eq!((var, max), (3.5, 6.0));
    assert_eq!(above, vec![false, false, false, true]);
}

#[test]
fn integer_ops() {
    // 2a - 3 = [-3, 1, 5, ...] clamped to [0, 5].
    assert_eq!(int_ops::call(&[0, 2, 4], 3).unwrap(), vec![0, 1, 5]);
}

#[test]
fn run_checks_argument_shapes() {
    let bad = Literal::vec1(&[1.0f32, 2.0, 3.0]);
    let err = affine_rows::run(&[bad]).unwrap_err().to_string();
    assert_eq!(
        err,
        "affine_rows: argument 0 (`x`) has shape f32[3] but the computation takes f32[2,3]"
    );
    let err = affine_rows::run(&[]).unwrap_err().to_string();
    assert_eq!(err, "affine_rows: takes 1 arguments, found 0");
    let err = affine_rows::call(&[1.0, 2.0]).unwrap_err().to_string();
    assert!(
        err.contains("f32[2,3] holds 6 elements but 2 were given"),
        "{err}"
    );
}

#[test]
fn module_parses_back() {
    let module = dense::module().unwrap();
    let parsed: Vec<_> = module
        .entry_computation()
        .unwrap()
        .parameter_shapes()
        .iter()
        .map(|s| s.without_layout())
        .collect();
    assert_eq!(parsed, dense::parameter_shapes());
}

#[computation]
fn reshuffle(
    x: Tensor<f32, 2, 3>,
) -> (
    Tensor<f32, 2, 2>,
    Tensor<f32, 3>,
    Tensor<f32, 5>,
    Tensor<f32, 2, 4>,
) {
    let tail = x[(.., 1..)];
    let row = x[1];
    let joined = concat([x[0], x[(1, ..2)]], 0);
    let padded = x.pad(-1.0, [(0, 0), (0, 1)]);
    (tail, row, joined, padded)
}

#[computation]
fn counting() -> (Tensor<i32, 2, 3>, Tensor<f32, 4>) {
    (iota([2, 3], 1), iota::<f32>([4], 0) * 0.5)
}

#[test]
fn structural_values() {
    // x = [[1, 2, 3], [4, 5, 6]]
    let (tail, row, joined, padded) = reshuffle::call(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    assert_eq!(tail, vec![2.0, 3.0, 5.0, 6.0]);
    assert_eq!(row, vec![4.0, 5.0, 6.0]);
    assert_eq!(joined, vec![1.0, 2.0, 3.0, 4.0, 5.0]);
    assert_eq!(padded, vec![1.0, 2.0, 3.0, -1.0, 4.0, 5.0, 6.0, -1.0]);
    let (columns, halves) = counting::call().unwrap();
    assert_eq!(columns, vec![0, 1, 2, 0, 1, 2]);
    assert_eq!(halves, vec![0.0, 0.5, 1.0, 1.5]);
}

#[computation]
fn closures(x: Tensor<f32, 2, 3>) -> (Tensor<f32, 2>, Tensor<f32, 2, 3>, Tensor<f32, 2, 3>) {
    let squares = x.reduce(0.0, [1], |acc, v| acc + v * v);
    let descending = x.sort(1, |a, b| a.gt(b));
    (squares, descending, x.map(|v| v.max(2.0)))
}

#[test]
fn closure_values() {
    // x = [[3, 1, 2], [6, 4, 5]]
    let (squares, descending, mapped) = closures::call(&[3.0, 1.0, 2.0, 6.0, 4.0, 5.0]).unwrap();
    assert_eq!(squares, vec![14.0, 77.0]);
    assert_eq!(descending, vec![3.0, 2.0, 1.0, 6.0, 5.0, 4.0]);
    assert_eq!(mapped, vec![3.0, 2.0, 2.0, 6.0, 4.0, 5.0]);
}

#[computation]
fn abs_sum(x: Tensor<f32, 3>) -> f32 {
    let s = x.sum();
    if s > 0.0 {
        s
    } else {
        -s
    }
}

#[computation]
fn fourth_power(x: Tensor<f32, 3>) -> Tensor<f32, 3> {
    let mut acc = x;
    for _ in 0..3 {
        acc = acc * x;
    }
    acc
}

#[computation]
fn triangular() -> (i32, i32) {
    let mut s = 0;
    let mut fib_a = 0;
    let mut fib_b = 1;
    for i in 1..5 {
        s += i;
        let next = fib_a + fib_b;
        fib_a = fib_b;
        fib_b = next;
    }
    (s, fib_a)
}

#[test]
fn control_flow_values() {
    assert_eq!(abs_sum::call(&[-1.0, -2.0, 0.5]).unwrap(), 2.5);
    assert_eq!(abs_sum::call(&[1.0, 2.0, 3.0]).unwrap(), 6.0);
    assert_eq!(
        fourth_power::call(&[1.0, 2.0, 3.0]).unwrap(),
        vec![1.0, 16.0, 81.0]
    );
    // 1 + 2 + 3 + 4 = 10; four Fibonacci steps from (0, 1) leave fib_a = 3.
    assert_eq!(triangular::call().unwrap(), (10, 3));
    assert!(triangular::HLO.contains("while("), "{}", triangular::HLO);
    assert!(abs_sum::HLO.contains("conditional("), "{}", abs_sum::HLO);
}

#[computation]
fn pools(x: Tensor<f32, 1, 1, 4, 4>) -> (Tensor<f32, 1, 1, 2, 2>, Tensor<f32, 1, 1, 2, 2>) {
    (
        x.max_pool([1, 1, 2, 2], [1, 1, 2, 2]),
        x.avg_pool([1, 1, 2, 2], [1, 1, 2, 2]),
    )
}

#[computation]
fn box_filter(x: Tensor<f32, 1, 1, 3, 3>, k: Tensor<f32, 1, 1, 2, 2>) -> Tensor<f32, 1, 1, 2, 2> {
    x.conv(k, [1, 1])
}

#[computation]
fn spd_solve(a: Tensor<f64, 2, 2>, b: Tensor<f64, 2>) -> (Tensor<f64, 2, 2>, Tensor<f64, 2, 1>) {
    let l = a.cholesky();
    (l, l.solve_lower(b.reshape([2, 1])))
}

#[computation]
fn largest(x: Tensor<f32, 5>) -> (Tensor<f32, 2>, Tensor<i32, 2>) {
    let t = x.top_k(2);
    (t.0, t.1)
}

#[test]
fn window_and_linalg_values() {
    // x = 0..16 as a 4x4 image: the 2x2 blocks' maxima and means.
    let x: Vec<f32> = (0..16).map(|v| v as f32).collect();
    let (max, avg) = pools::call(&x).unwrap();
    assert_eq!(max, vec![5.0, 7.0, 13.0, 15.0]);
    assert_eq!(avg, vec![2.5, 4.5, 10.5, 12.5]);
    // A 2x2 box filter of ones over 1..=9: each output sums a 2x2 block.
    let img: Vec<f32> = (1..=9).map(|v| v as f32).collect();
    assert_eq!(
        box_filter::call(&img, &[1.0; 4]).unwrap(),
        vec![12.0, 16.0, 24.0, 28.0]
    );
    // [[4, 2], [2, 3]] = L Lᵀ with L = [[2, 0], [1, √2]]; L y = [2, 3] gives y = [1, √2].
    let (l, y) = spd_solve::call(&[4.0, 2.0, 2.0, 3.0], &[2.0, 3.0]).unwrap();
    let r2 = 2f64.sqrt();
    assert!(
        (l[0] - 2.0).abs() < 1e-12 && (l[2] - 1.0).abs() < 1e-12 && (l[3] - r2).abs() < 1e-12,
        "{l:?}"
    );
    assert!(
        (y[0] - 1.0).abs() < 1e-12 && (y[1] - r2).abs() < 1e-12,
        "{y:?}"
    );
    assert_eq!(
        largest::call(&[3.0, 9.0, 1.0, 7.0, 5.0]).unwrap(),
        (vec![9.0, 7.0], vec![1, 3])
    );
}

#[computation]
fn mlp(x: Tensor<f32, 2, 3>, w1: Tensor<f32, 3, 3>, w2: Tensor<f32, 3, 3>) -> Tensor<f32, 2, 3> {
    // `layer` is defined below: calls resolve in any order.
    let h = layer(x, w1, 1.0).relu();
    layer(h, w2, 0.5)
}

#[computation]
fn layer(x: Tensor<f32, 2, 3>, w: Tensor<f32, 3, 3>, b: f32) -> Tensor<f32, 2, 3> {
    x.dot(w) + b
}

#[test]
fn calls_between_computations() {
    // x = [[1, 0, 0], [0, 1, 0]], w1 = 2 I, w2 = I: relu(2x + 1) + 0.5.
    let x = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let w1 = [2.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0];
    let w2 = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    assert_eq!(
        mlp::call(&x, &w1, &w2).unwrap(),
        vec![3.5, 1.5, 1.5, 1.5, 3.5, 1.5]
    );
    assert_eq!(mlp::HLO.matches("call(").count(), 2, "{}", mlp::HLO);
}

#[test]
fn apply_takes_anything_that_converts_into_a_literal() {
    let x = Literal::from_vec(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let out = affine_rows::apply(x).unwrap();
    assert_eq!(out.data::<f32>(), Some(&[15.0f32, 33.0][..]));
}

#[computation]
fn embed(table: Tensor<f32, 4, 2>, ids: Tensor<i32, 3>) -> (Tensor<f32, 3, 2>, Tensor<f32, 4, 2>) {
    let rows = table.take(ids, 0);
    (rows, table.scatter_add(ids, rows, 0))
}

#[test]
fn take_and_scatter_values() {
    // table rows r_i = [i, 10 i]; ids [3, 0, 3]: rows 3, 0, 3; scatter-adding them back
    // doubles row 0 and triples row 3.
    let table = [0.0, 0.0, 1.0, 10.0, 2.0, 20.0, 3.0, 30.0];
    let (rows, added) = embed::call(&table, &[3, 0, 3]).unwrap();
    assert_eq!(rows, vec![3.0, 30.0, 0.0, 0.0, 3.0, 30.0]);
    assert_eq!(added, vec![0.0, 0.0, 1.0, 10.0, 2.0, 20.0, 9.0, 90.0]);
}

#[computation]
fn ranking(x: Tensor<f32, 5>) -> (Tensor<i32, 5>, Tensor<f32, 2>) {
    let (best, _) = x.top_k(2);
    (x.argsort(0), best)
}

#[test]
fn argsort_and_destructuring() {
    let (order, best) = ranking::call(&[3.0, 9.0, 1.0, 7.0, 5.0]).unwrap();
    assert_eq!(order, vec![2, 0, 4, 3, 1]);
    assert_eq!(best, vec![9.0, 7.0]);
}

#[computation]
fn reverse_rows(x: Tensor<f32, 3, 2>) -> Tensor<f32, 3, 2> {
    let mut out = x;
    for i in 0..3 {
        let row = x.dynamic_slice([2 - i, 0], [1, 2]);
        out = out.dynamic_update_slice(row, [i, 0]);
    }
    out
}

#[test]
fn dynamic_slices_in_a_loop() {
    let out = reverse_rows::call(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    assert_eq!(out, vec![5.0, 6.0, 3.0, 4.0, 1.0, 2.0]);
}

mod layers {
    use xla::computation;

    /// A layer in another module, called through `use`.
    #[computation]
    pub fn scale(x: Tensor<f32, 3>, s: f32) -> Tensor<f32, 3> {
        x * s
    }
}

use layers::scale;

#[computation]
fn scaled_sum(x: Tensor<f32, 3>) -> f32 {
    scale(x, 2.0).sum()
}

#[test]
fn calls_across_modules() {
    assert_eq!(scaled_sum::call(&[1.0, 2.0, 3.0]).unwrap(), 12.0);
}

/// Parameters may be named like the generated items.
#[computation]
fn shadowing(run: Tensor<f32, 2>, module: f32, args: Tensor<f32, 2>, out: f32) -> Tensor<f32, 2> {
    run * module + args * out
}

#[test]
fn parameter_names_do_not_clash_with_generated_items() {
    assert_eq!(
        shadowing::call(&[1.0, 2.0], 3.0, &[10.0, 20.0], 0.5).unwrap(),
        vec![8.0, 16.0]
    );
    let lit = |v: &[f32]| Literal::vec1(v);
    let out = shadowing::apply(
        lit(&[1.0, 2.0]),
        Literal::scalar(3.0f32),
        lit(&[10.0, 20.0]),
        Literal::scalar(0.5f32),
    )
    .unwrap();
    assert_eq!(out.data::<f32>(), Some(&[8.0f32, 16.0][..]));
}

/// Non-ASCII and raw names still give HLO that parses back.
#[computation]
fn unicode_names(größe: Tensor<f32, 2>, r#type: f32) -> Tensor<f32, 2> {
    größe * r#type
}

#[test]
fn unusual_parameter_names() {
    assert_eq!(
        unicode_names::call(&[1.0, 2.0], 3.0).unwrap(),
        vec![3.0, 6.0]
    );
    assert_eq!(unicode_names::PARAMETERS, ["größe", "r#type"]);
}
