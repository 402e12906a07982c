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
        ShapeParamError::RanksDisagree {
            shape: "S".into(),
            first: "x".into(),
            first_rank: 2,
            argument: "y".into(),
            rank: 1
        }
    );
    let below = ranks(&sig, &names, &[Some(0), Some(0), None]).unwrap_err();
    assert_eq!(
        below,
        ShapeParamError::RankBelowType {
            argument: "x".into(),
            rank: 0,
            others: 1,
            shape: "S".into()
        }
    );
    assert_eq!(
        below.to_string(),
        "argument `x` has rank 0, but its type writes 1 dims besides the shape `S`"
    );
    let deep = ranks(&sig, &names, &[Some(40), Some(39), None]).unwrap_err();
    assert_eq!(
        deep,
        ShapeParamError::RankTooHigh {
            shape: "S".into(),
            rank: 39,
            max: MAX_RANK
        }
    );
}

#[test]
fn a_shape_no_parameter_writes_is_refused() {
    let item: syn::ItemFn =
        syn::parse_str("fn f<S: Shape>(x: Tensor<f32, 3>) -> Tensor<f32, S> { x }").unwrap();
    let e = signature(&item).unwrap_err();
    assert_eq!(e, ShapeParamError::NotWritten { shape: "S".into() });
    assert!(
        e.to_string()
            .contains("`S` is not the shape of any parameter"),
        "{e}"
    );
    let two: syn::ItemFn =
        syn::parse_str("fn f<S: Shape, T: Shape>(x: Tensor<f32, S, T>) -> f32 { 1.0 }").unwrap();
    assert_eq!(
        signature(&two).unwrap_err(),
        ShapeParamError::TwoInOneType { parameter: 1 }
    );
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

#[test]
fn stored_text_that_does_not_parse_is_a_typed_error() {
    let e = expand_source("fn f(", &[None]).unwrap_err();
    assert!(
        matches!(e, ShapeParamError::Stored { what: "source", .. }),
        "{e}"
    );
    let e = bindings(ADAM, "(").unwrap_err();
    assert!(
        matches!(
            e,
            ShapeParamError::Stored {
                what: "attribute",
                ..
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string()
            .starts_with("the stored attribute does not parse"),
        "{e}"
    );
}
