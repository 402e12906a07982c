#![allow(clippy::unwrap_used)]

use super::*;

/// The preconditions and the compile errors of `src`.
fn classify_src(src: &str) -> (Vec<String>, Vec<String>) {
    let item: syn::ItemFn = syn::parse_str(src).unwrap();
    let attr = TokenStream::new();
    let (cx, c) = crate::instantiate::parse_at_generic_point(&attr, &item);
    let k = classify(&attr, &item, front(cx, c));
    let errors = k
        .front
        .cx
        .into_errors()
        .iter()
        .map(ToString::to_string)
        .collect();
    (k.preconditions, errors)
}

#[test]
fn affine_rules_are_proved_for_every_size() {
    for src in [
        "fn f<const N: usize>(x: Tensor<f32, N>) -> Tensor<f32, { 2 * N }> { concat([x, x], 0) }",
        "fn f<const N: usize>(x: Tensor<f32, N>) -> Tensor<f32, { N + N }> { concat([x, x], 0) }",
        "fn f<const B: usize, const I: usize>(x: Tensor<f32, B, I>, w: Tensor<f32, I, 3>) -> Tensor<f32, B, 3> { x.dot(w) }",
        "fn f<const H: usize>(x: Tensor<f32, H, 1>) -> Tensor<f32, { H / 2 }, 1> { x.max_pool([2, 1], [2, 1]) }",
        // ⌊(H + 1)/2⌋ rows from a 2-wide window, stride 2, padded by 1 at the end: every H.
        "fn f<const H: usize>(x: Tensor<f32, H>) -> Tensor<f32, { (H + 1) / 2 }> { x.pad(0.0, [(0, 1)]).max_pool([2], [2]) }",
    ] {
        assert_eq!(classify_src(src), (vec![], vec![]), "{src}");
    }
}

#[test]
fn a_rule_failing_at_the_generic_point_only_is_a_precondition() {
    // `{ H / 2 }` rows of 2 from `H` elements: only even `H`.
    let (pre, errors) = classify_src(
        "fn f<const H: usize>(x: Tensor<f32, H>) -> Tensor<f32, { H / 2 }, 2> { x.reshape([{ H / 2 }, 2]) }",
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(pre.len(), 1, "{pre:?}");
    assert!(
        pre[0].starts_with("needs `H % 2 == 0`: reshape: cannot reshape f32[H]"),
        "{pre:?}"
    );
    assert!(pre[0].ends_with("(fails at H = 3049)"), "{pre:?}");
}

#[test]
fn a_rule_holding_at_the_generic_point_only_is_a_precondition() {
    // `(H - 1) / 2` rows (a 3-wide window, stride 2) equal `H / 2` for odd `H` only.
    let (pre, errors) = classify_src(
        "fn f<const H: usize>(x: Tensor<f32, H, 1>) -> Tensor<f32, { H / 2 }, 1> { x.max_pool([3, 1], [2, 1]) }",
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(pre.len(), 1, "{pre:?}");
    assert!(pre[0].starts_with("needs `H % 2 == 1`: "), "{pre:?}");
    assert!(pre[0].ends_with("(fails at H = 3050)"), "{pre:?}");
}

#[test]
fn a_stride_inside_a_shape_rule_gives_the_period() {
    // No expression divides, but the two pools do: 2-wide and 3-wide windows with stride
    // 2 give the same length exactly for even `H`.
    let (pre, errors) = classify_src(
        "fn f<const H: usize>(x: Tensor<f32, H>) -> Tensor<f32, H> { \
         let a = x.max_pool([2], [2]); let b = x.pad(0.0, [(0, 1)]).max_pool([3], [2]); \
         concat([a + b, a + b], 0) }",
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(pre.len(), 1, "{pre:?}");
    assert!(pre[0].starts_with("needs `H % 2 == 0`: "), "{pre:?}");
    let (pre, errors) = classify_src(
        "fn f<const H: usize>(x: Tensor<f32, H>) -> Tensor<f32, { (H - 2) / 2 + 1 }> { \
         let a = x.max_pool([2], [2]); let b = x.max_pool([3], [2]); a + b }",
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(pre.len(), 1, "{pre:?}");
    assert!(pre[0].starts_with("needs `H % 2 == 1`: "), "{pre:?}");
}

#[test]
fn a_condition_on_two_sizes_names_both() {
    let (pre, errors) = classify_src(
        "fn f<const H: usize, const W: usize>(x: Tensor<f32, H, W>) -> Tensor<f32, { H / 2 }, 2, { W / 2 }, 2> { x.reshape([{ H / 2 }, 2, { W / 2 }, 2]) }",
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(pre.len(), 1, "{pre:?}");
    assert!(
        pre[0].starts_with("needs `H % 2 == 0 && W % 2 == 0`: reshape: "),
        "{pre:?}"
    );
}

#[test]
fn a_rule_failing_for_every_size_is_a_compile_error() {
    let (pre, errors) = classify_src(
        "fn f<const B: usize>(x: Tensor<f32, B, 784>, w: Tensor<f32, B, 10>) -> Tensor<f32, 784, 10> { x.dot(w) }",
    );
    assert!(pre.is_empty(), "{pre:?}");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("f32[B,784]"), "{errors:?}");
    // `{ N + 1 }` is never `N`: no residue class holds.
    let (pre, errors) =
        classify_src("fn f<const N: usize>(x: Tensor<f32, N>) -> Tensor<f32, { N + 1 }> { x }");
    assert!(pre.is_empty(), "{pre:?}");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(!errors[0].contains("sampled"), "{errors:?}");
}

#[test]
fn a_rule_holding_on_a_hyperplane_only_is_a_compile_error() {
    // `{ H - K }` against `W`: equal only where `H = K + W`, on no whole class.
    let (pre, errors) = classify_src(
        "fn f<const H: usize, const K: usize, const W: usize>(x: Tensor<f32, H>, k: Tensor<f32, K>, w: Tensor<f32, W>) -> Tensor<f32, W> { x.slice([K..H]) + w }",
    );
    assert!(pre.is_empty(), "{pre:?}");
    assert_eq!(errors.len(), 1, "{errors:?}");
}

#[test]
fn a_class_holding_in_part_is_sampled() {
    // The signature holds at `N = 3049` only (the generic point): mixed on the one class.
    let (pre, errors) =
        classify_src("fn f<const N: usize>(x: Tensor<f32, N>) -> Tensor<f32, 3049> { x }");
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(pre.len(), 1, "{pre:?}");
    assert!(
        pre[0].ends_with("(sampled, not proved: the rules hold at only some points of a residue class of the sizes)"),
        "{pre:?}"
    );
}

#[test]
fn non_affine_dimensions_are_sampled_and_say_so() {
    let (pre, errors) = classify_src(
        "fn f<const H: usize, const W: usize>(x: Tensor<f32, H, W>) -> Tensor<f32, { H * W + 1 }> { x.reshape([{ H * W }]) }",
    );
    assert!(pre.is_empty(), "{pre:?}");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("(sampled, not proved: `H*W` is not affine in the sizes"),
        "{errors:?}"
    );
    let (pre, errors) = classify_src(
        "fn f<const H: usize, const W: usize>(x: Tensor<f32, H, W>) -> Tensor<f32, { H * W }> { x.reshape([{ H * W }]) }",
    );
    assert_eq!((pre, errors), (vec![], vec![]));
}

#[test]
fn a_stride_passed_to_a_layer_shows_the_result_in_symbols() {
    // `S` is 2351 at the generic point, above `H` = 1459: `(H + S - 1) / S` is 1 there,
    // a number no single symbol can claim; the callee's result is written whole.
    let (_, errors) = classify_src(
        "fn f<const B: usize, const H: usize, const S: usize>(x: Tensor<f32, B, H, H, 3>, \
         k: Tensor<f32, 3, 3, 3, 8>) -> Tensor<f32, B, H, H, 8> { nn::conv2d_same::<S, 1>(x, k) }",
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    let e = &errors[0];
    assert!(
        e.contains("but the value is f32[B,(H+S-1)/S,(H+S-1)/S,8]"),
        "{e}"
    );
}
