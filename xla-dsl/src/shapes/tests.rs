#![allow(clippy::unwrap_used)]

use super::*;

const ADAM: &str = "fn step<S: Shape>(p: Tensor<f32, S>, g: Tensor<f32, S>, lr: f32) -> Tensor<f32, S> { (p - g * lr).reshape([S]) }";

#[test]
fn a_shape_parameter_becomes_one_size_per_dim() {
    let item: syn::ItemFn = syn::parse_str(ADAM).unwrap();
    let shapes = shape_params(&item);
    assert_eq!(shapes.len(), 1);
    let at2 = expand(&item, &shapes, &[2]).to_token_stream().to_string();
    assert!(at2.contains("const S0 : usize , const S1 : usize"), "{at2}");
    assert!(at2.contains("Tensor < f32 , S0 , S1 >"), "{at2}");
    assert!(at2.contains("reshape ([S0 , S1])"), "{at2}");
    let at0 = expand(&item, &shapes, &[0]).to_token_stream().to_string();
    assert!(at0.starts_with("fn step (p : Tensor < f32 , >"), "{at0}");
}

#[test]
fn ranks_are_read_from_the_arguments_and_must_agree() {
    let item: syn::ItemFn = syn::parse_str(
        "fn f<S: Shape, const B: usize>(x: Tensor<f32, B, S>, y: Tensor<f32, S>, t: f32) -> f32 { t }",
    )
    .unwrap();
    let sig = signature(&item).unwrap();
    assert_eq!(sig[0].uses, vec![(0, 1), (1, 0)]);
    let names = ["x", "y", "t"].map(String::from);
    assert_eq!(
        ranks(&sig, &names, &[Some(3), Some(2), None]).unwrap(),
        vec![2]
    );
    assert_eq!(
        ranks(&sig, &names, &[Some(3), Some(1), None]).unwrap_err(),
        "shape `S` has rank 2 from `x` but rank 1 from `y`"
    );
    assert_eq!(
        ranks(&sig, &names, &[Some(0), Some(0), None]).unwrap_err(),
        "argument `x` has rank 0, but its type writes 1 dims besides the shape `S`"
    );
}

#[test]
fn a_shape_no_parameter_writes_is_refused() {
    let item: syn::ItemFn =
        syn::parse_str("fn f<S: Shape>(x: Tensor<f32, 3>) -> Tensor<f32, S> { x }").unwrap();
    let e = signature(&item).unwrap_err();
    assert!(e.contains("`S` is not the shape of any parameter"), "{e}");
    let two: syn::ItemFn =
        syn::parse_str("fn f<S: Shape, T: Shape>(x: Tensor<f32, S, T>) -> f32 { 1.0 }").unwrap();
    assert!(signature(&two)
        .unwrap_err()
        .contains("two shape parameters"));
}

#[test]
fn the_expanded_source_binds_its_sizes_from_the_arguments() {
    let (source, ranks) = expand_source(ADAM, &[Some(3), Some(3), None])
        .unwrap()
        .unwrap();
    assert_eq!(ranks, vec![3]);
    let b = bindings(&source, "").unwrap();
    assert_eq!(b.sizes, vec!["S0", "S1", "S2"]);
    assert_eq!(b.bindings[..3], [(0, 0, 0, 0), (0, 0, 1, 1), (0, 0, 2, 2)]);
    let built = crate::instantiate(&source, "", &[2, 3, 4]).unwrap();
    assert_eq!(built.result_shape.to_string(), "f32[2,3,4]");
    assert!(expand_source("fn f(x: f32) -> f32 { x }", &[None])
        .unwrap()
        .is_none());
}
