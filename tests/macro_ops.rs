//! The less common operations reachable from a `#[computation]` body, each run on the CPU
//! with expected values worked out by hand (IEEE bit patterns, rounding rules, small
//! triangular systems).

#![allow(clippy::unwrap_used)]

use xla::computation;

#[computation]
fn bits(x: Tensor<f32, 2>) -> Tensor<u32, 2> {
    x.bitcast::<u32>()
}

#[computation]
fn to_half_precision(x: Tensor<f32, 3>) -> Tensor<f32, 3> {
    x.reduce_precision(5, 10)
}

#[computation]
fn collapsed(x: Tensor<f32, 2, 3, 2>) -> Tensor<f32, 2, 6> {
    x.collapse([1, 2])
}

#[computation]
fn size_and_barrier(x: Tensor<f32, 2, 5>) -> (i32, Tensor<f32, 2, 5>) {
    (x.get_dimension_size(1), x.optimization_barrier())
}

#[computation]
fn total_order(x: Tensor<f32, 3>, y: Tensor<f32, 3>) -> (Tensor<bool, 3>, Tensor<bool, 3>) {
    (x.total_lt(y), x.lt(y))
}

#[computation]
fn upper_factor(a: Tensor<f32, 2, 2>) -> Tensor<f32, 2, 2> {
    a.cholesky_upper()
}

#[computation]
fn solve_right_upper_unit_transposed(
    a: Tensor<f32, 2, 2>,
    b: Tensor<f32, 1, 2>,
) -> Tensor<f32, 1, 2> {
    a.triangular_solve(b, RIGHT, UPPER, UNIT, TRANSPOSE)
}

#[computation]
fn solve_default(a: Tensor<f32, 2, 2>, b: Tensor<f32, 2, 1>) -> Tensor<f32, 2, 1> {
    a.triangular_solve(b)
}

#[computation]
fn random_bits(state: Tensor<u64, 2>) -> (Tensor<u64, 2>, Tensor<u32, 2, 3>) {
    let (next, values) = rng_bit_generator::<u32>(state, [2, 3]);
    (next, values)
}

#[computation]
fn float_ops(
    x: Tensor<f32, 3>,
    y: Tensor<f32, 3>,
) -> (Tensor<f32, 3>, Tensor<f32, 3>, Tensor<f32, 3>) {
    (x.atan2(y), x.rem(y), x.pow(y))
}

#[computation]
fn complex_parts(re: Tensor<f32, 2>, im: Tensor<f32, 2>) -> (Tensor<f32, 2>, Tensor<f32, 2>) {
    let z = re.complex(im);
    (z.real(), z.imag())
}

#[computation]
fn rounding(x: Tensor<f32, 4>) -> (Tensor<f32, 4>, Tensor<f32, 4>, Tensor<bool, 4>) {
    (x.round(), x.round_nearest_even(), x.is_finite())
}

#[computation]
fn bit_ops(
    x: Tensor<i32, 3>,
) -> (
    Tensor<i32, 3>,
    Tensor<i32, 3>,
    Tensor<i32, 3>,
    Tensor<i32, 3>,
    Tensor<i32, 3>,
) {
    (
        x.clz(),
        x.popcnt(),
        x.shift_left(2),
        x.shift_right_logical(1),
        x.shift_right_arithmetic(1),
    )
}

#[computation]
fn iota_2d() -> (Tensor<f32, 2, 3>, Tensor<i32, 2, 3>) {
    (iota::<f32>([2, 3], 0), iota([2, 3], 1))
}

#[computation]
fn mapped_top2(x: Tensor<f32, 5>) -> (Tensor<f32, 2>, Tensor<i32, 2>) {
    let (values, indices) = x.map(|v| v * v + 1.0).top_k(2);
    (values, indices)
}

#[test]
fn bitcast_gives_ieee_bits() {
    // 1.0f32 is 0x3f800000, -2.0f32 is 0xc0000000.
    assert_eq!(
        bits::call(&[1.0, -2.0]).unwrap(),
        vec![0x3f80_0000, 0xc000_0000]
    );
}

#[test]
fn reduce_precision_rounds_to_nearest_even_and_overflows() {
    // f16 precision: the ulp at 1 is 2^-10. 1 + 2^-11 is half an ulp: a tie, to even (1);
    // 1 + 3·2^-11 is 1.5 ulp: a tie, to even (1 + 2^-9); 70000 exceeds f16's max: inf.
    let out = to_half_precision::call(&[1.0 + 2f32.powi(-11), 1.0 + 3.0 * 2f32.powi(-11), 70000.0])
        .unwrap();
    assert_eq!(out, vec![1.0, 1.0 + 2f32.powi(-9), f32::INFINITY]);
}

#[test]
fn collapse_keeps_row_major_order() {
    let x: Vec<f32> = (0..12).map(|i| i as f32).collect();
    assert_eq!(collapsed::call(&x).unwrap(), x);
}

#[test]
fn dimension_size_and_barrier() {
    let x: Vec<f32> = (0..10).map(|i| i as f32).collect();
    let (size, same) = size_and_barrier::call(&x).unwrap();
    assert_eq!((size, same), (5, x));
}

#[test]
fn total_order_separates_signed_zeros_and_orders_nan() {
    // -0 < +0 only in the total order; +NaN is above every number; NaN < 1 is false both ways.
    let (total, partial) =
        total_order::call(&[-0.0, 1.0, f32::NAN], &[0.0, f32::NAN, 1.0]).unwrap();
    assert_eq!(total, vec![true, true, false]);
    assert_eq!(partial, vec![false, false, false]);
}

#[test]
fn cholesky_upper_factor() {
    // [[4, 2], [2, 5]] = uᵀu with u = [[2, 1], [0, 2]]; the lower triangle is unspecified.
    let u = upper_factor::call(&[4.0, 2.0, 2.0, 5.0]).unwrap();
    assert_eq!((u[0], u[1], u[3]), (2.0, 1.0, 2.0));
}

#[test]
fn triangular_solve_options() {
    // UPPER + UNIT: the solver reads a as [[1, 2], [0, 1]] (the 9s are ignored); RIGHT +
    // TRANSPOSE solves x·aᵀ = b, i.e. [x0 + 2·x1, x1] = [5, 2]: x = [1, 2].
    let x = solve_right_upper_unit_transposed::call(&[9.0, 2.0, 9.0, 9.0], &[5.0, 2.0]).unwrap();
    assert_eq!(x, vec![1.0, 2.0]);
    // Defaults LEFT, LOWER: [[2, 0], [1, 4]]·x = [4, 10]: x0 = 2, x1 = (10 - 2) / 4 = 2.
    let x = solve_default::call(&[2.0, 7.0, 1.0, 4.0], &[4.0, 10.0]).unwrap();
    assert_eq!(x, vec![2.0, 2.0]);
}

#[test]
fn rng_bit_generator_advances_its_state() {
    let (state, values) = random_bits::call(&[1, 2]).unwrap();
    assert_eq!(values.len(), 6);
    assert_ne!(state, vec![1, 2]);
    let (again, same_values) = random_bits::call(&[1, 2]).unwrap();
    assert_eq!(
        (again, same_values),
        (state, values),
        "the generator is a pure function of the state"
    );
}

#[test]
fn atan2_rem_pow() {
    let (angle, r, p) = float_ops::call(&[1.0, 7.0, 2.0], &[-1.0, -3.0, 10.0]).unwrap();
    // atan2(1, -1) = 3π/4; atan2(7, -3) is in the second quadrant; atan2(2, 10) = atan(0.2).
    assert!((angle[0] - 3.0 * std::f32::consts::FRAC_PI_4).abs() < 1e-6);
    assert!((angle[2] - 0.2f32.atan()).abs() < 1e-6);
    // rem has the dividend's sign (C fmod): 1 rem -1 = 0, 7 rem -3 = 1, 2 rem 10 = 2.
    assert_eq!(r, vec![0.0, 1.0, 2.0]);
    assert_eq!(p[2], 1024.0);
    assert_eq!(p[0], 1.0);
}

#[test]
fn complex_real_imag_round_trip() {
    let (re, im) = complex_parts::call(&[1.5, -2.0], &[0.25, 3.0]).unwrap();
    assert_eq!((re, im), (vec![1.5, -2.0], vec![0.25, 3.0]));
}

#[test]
fn rounding_modes_and_is_finite() {
    let (afz, even, finite) = rounding::call(&[0.5, 1.5, -2.5, f32::INFINITY]).unwrap();
    assert_eq!(&afz[..3], &[1.0, 2.0, -3.0]);
    assert_eq!(&even[..3], &[0.0, 2.0, -2.0]);
    assert_eq!(finite, vec![true, true, true, false]);
}

#[test]
fn bit_counting_and_shifts() {
    let (clz, pop, shl, shrl, shra) = bit_ops::call(&[1, 7, -8]).unwrap();
    assert_eq!(clz, vec![31, 29, 0]);
    assert_eq!(pop, vec![1, 3, 29]); // -8 = 0xfffffff8
    assert_eq!(shl, vec![4, 28, -32]);
    assert_eq!(shrl, vec![0, 3, 0x7fff_fffc]);
    assert_eq!(shra, vec![0, 3, -4]);
}

#[test]
fn iota_of_a_matrix() {
    let (rows, cols) = iota_2d::call().unwrap();
    assert_eq!(rows, vec![0.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
    assert_eq!(cols, vec![0, 1, 2, 0, 1, 2]);
}

#[test]
fn map_then_top_k() {
    // v² + 1 of [3, -1, 4, 1, -5] is [10, 2, 17, 2, 26]: top two 26 (index 4), 17 (index 2).
    let (values, indices) = mapped_top2::call(&[3.0, -1.0, 4.0, 1.0, -5.0]).unwrap();
    assert_eq!((values, indices), (vec![26.0, 17.0], vec![4, 2]));
}

#[computation]
fn dilated_sums(x: Tensor<f32, 6>, y: Tensor<f32, 3>) -> (Tensor<f32, 4>, Tensor<f32, 4>) {
    let window_dilated = x.reduce_window_dilated(0.0, [2], [1], [1], [2], [(0, 0)], |a, b| a + b);
    let base_dilated = y.reduce_window_dilated(0.0, [2], [1], [2], [1], [(0, 0)], |a, b| a + b);
    (window_dilated, base_dilated)
}

#[test]
fn reduce_window_with_dilations() {
    // Window dilation 2: x[i] + x[i + 2] = [1+3, 2+4, 3+5, 4+6]. Base dilation 2 turns
    // [1, 2, 3] into [1, _, 2, _, 3] (holes are the init, 0): pair sums [1, 2, 2, 3].
    let (w, b) = dilated_sums::call(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[1.0, 2.0, 3.0]).unwrap();
    assert_eq!(w, vec![4.0, 6.0, 8.0, 10.0]);
    assert_eq!(b, vec![1.0, 2.0, 2.0, 3.0]);
}

#[computation]
fn bn_grad(
    x: Tensor<f32, 3, 1>,
    dy: Tensor<f32, 3, 1>,
) -> (Tensor<f32, 3, 1>, Tensor<f32, 1>, Tensor<f32, 1>) {
    let scale = iota::<f32>([1], 0) + 1.0;
    let mean = scale * 2.0;
    let var = scale;
    let (dx, dscale, doffset) = x.batch_norm_grad(scale, mean, var, dy, 0.0, 1);
    (dx, dscale, doffset)
}

#[test]
fn batch_norm_grad_by_the_spec_formula() {
    // scale 1, mean 2, variance 1, epsilon 0; x = [0, 1, 5], dy = [1, 0, 0]:
    // grad_offset = Σ dy = 1; grad_scale = Σ dy·(x - 2) = -2;
    // grad_x = dy - mean(dy) - (x - 2)·mean(dy·(x - 2)) = dy - 1/3 + (x - 2)·2/3
    //        = [1 - 1/3 - 4/3, -1/3 - 2/3, -1/3 + 2] = [-2/3, -1, 5/3].
    let (dx, dscale, doffset) = bn_grad::call(&[0.0, 1.0, 5.0], &[1.0, 0.0, 0.0]).unwrap();
    for (got, want) in dx.iter().zip([-2.0 / 3.0, -1.0, 5.0 / 3.0]) {
        assert!((got - want).abs() < 1e-5, "{dx:?}");
    }
    assert_eq!((dscale, doffset), (vec![-2.0], vec![1.0]));
}

#[computation]
fn sort_pairs(keys: Tensor<i32, 5>, values: Tensor<f32, 5>) -> (Tensor<i32, 5>, Tensor<f32, 5>) {
    let (k, v) = sort_together([keys, values], 0, |k1, k2, v1, v2| {
        k1.gt(k2) | (k1.eq(k2) & v1.lt(v2))
    });
    (k, v)
}

#[test]
fn sort_two_operands_together() {
    // Keys descending, ties broken by ascending value: keys [2, 1, 2, 3, 1] with values
    // [0.5, 9, -1, 4, 2] give (3, 4), (2, -1), (2, 0.5), (1, 2), (1, 9).
    let (k, v) = sort_pairs::call(&[2, 1, 2, 3, 1], &[0.5, 9.0, -1.0, 4.0, 2.0]).unwrap();
    assert_eq!(k, vec![3, 2, 2, 1, 1]);
    assert_eq!(v, vec![4.0, -1.0, 0.5, 2.0, 9.0]);
}

#[computation]
fn depthwise_dilated(x: Tensor<f32, 1, 2, 4>, k: Tensor<f32, 2, 1, 2>) -> Tensor<f32, 1, 2, 2> {
    x.conv_general(k, [1], [(0, 0)], [1], [2], 2, 1)
}

#[test]
fn conv_with_feature_groups_and_kernel_dilation() {
    // Two groups of one channel each; kernel dilation 2 pairs x[j] with x[j + 2].
    // Channel 0: [1, 2, 3, 4] with [1, 10]: [1 + 30, 2 + 40]; channel 1: [5, 6, 7, 8] with
    // [2, 0]: [10, 12].
    let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
    let out = depthwise_dilated::call(&x, &[1.0, 10.0, 2.0, 0.0]).unwrap();
    assert_eq!(out, vec![31.0, 42.0, 10.0, 12.0]);
}

#[computation]
fn route_to_max(x: Tensor<f32, 4>, source: Tensor<f32, 2>) -> Tensor<f32, 4> {
    x.select_and_scatter(
        source,
        0.0,
        [2],
        [2],
        [(0, 0)],
        |a, b| a.ge(b),
        |a, b| a + b,
    )
}

#[test]
fn select_and_scatter_routes_to_the_window_max() {
    // Windows [1, 5] and [2, 3]: their maxima are at 1 and 3, which receive 10 and 20.
    let out = route_to_max::call(&[1.0, 5.0, 2.0, 3.0], &[10.0, 20.0]).unwrap();
    assert_eq!(out, vec![0.0, 10.0, 0.0, 20.0]);
}

#[computation]
fn points(
    x: Tensor<f32, 3, 3>,
    idx: Tensor<i32, 2, 2>,
    upd: Tensor<f32, 2>,
) -> (Tensor<f32, 2>, Tensor<f32, 3, 3>) {
    let picked = x.gather_general(idx, [], [0, 1], [0, 1], 1, [1, 1]);
    let written = x.scatter_general(idx, upd, [], [0, 1], [0, 1], 1, |old, new| old + new);
    (picked, written)
}

#[test]
fn gather_and_scatter_of_points() {
    // Each index row (i, j) is a point: x = 0..9 row-major, so x[1, 2] = 5 and x[2, 0] = 6;
    // scattering adds 10 at (1, 2) and 20 at (2, 0).
    let x: Vec<f32> = (0..9).map(|i| i as f32).collect();
    let (picked, written) = points::call(&x, &[1, 2, 2, 0], &[10.0, 20.0]).unwrap();
    assert_eq!(picked, vec![5.0, 6.0]);
    assert_eq!(written, vec![0.0, 1.0, 2.0, 3.0, 4.0, 15.0, 26.0, 7.0, 8.0]);
}
