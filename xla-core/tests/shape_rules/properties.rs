//! Properties of the rules on random shapes (seeded by proptest): inverses compose to the
//! identity, no-op attributes keep the shape, broadcasting is symmetric.

use proptest::prelude::*;
use xla_core::attrs::{PadDim, UnaryOp};
use xla_core::shape_inference::elementwise::{broadcast_plan, unary};
use xla_core::shape_inference::structural::{pad, reshape, slice, transpose};
use xla_core::shape_inference::window::reduce;
use xla_core::shape_inference::ProgramShape;
use xla_core::{PrimitiveType::F32, Shape};

fn dims() -> impl Strategy<Value = Vec<i64>> {
    prop::collection::vec(0i64..6, 0..5)
}

fn shuffled(n: usize) -> impl Strategy<Value = Vec<i64>> {
    Just((0..n as i64).collect::<Vec<i64>>()).prop_shuffle()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn transpose_then_inverse_is_identity((d, p) in dims().prop_flat_map(|d| { let n = d.len(); (Just(d), shuffled(n)) })) {
        let x = Shape::array(F32, d);
        let mut inverse = vec![0i64; p.len()];
        for (i, &v) in p.iter().enumerate() {
            inverse[v as usize] = i as i64;
        }
        let t = transpose(&x, &p).unwrap();
        prop_assert_eq!(transpose(&t, &inverse).unwrap(), x);
    }

    #[test]
    fn full_slice_and_zero_pad_keep_the_shape(d in dims()) {
        let x = Shape::array(F32, d.clone());
        let zeros = vec![0; d.len()];
        let ones = vec![1; d.len()];
        prop_assert_eq!(slice(&x, &zeros, &d, &ones).unwrap(), x.clone());
        let none = vec![PadDim { low: 0, high: 0, interior: 0 }; d.len()];
        prop_assert_eq!(pad(&x, &Shape::scalar(F32), &none).unwrap(), x);
    }

    #[test]
    fn reshape_preserves_exactly_the_element_count(d in dims()) {
        let x = Shape::array(F32, d.clone());
        let n: i64 = d.iter().product();
        prop_assert_eq!(reshape(&x, &[n]).unwrap(), Shape::array(F32, vec![n]));
        prop_assert!(reshape(&x, &[n + 1]).is_err());
    }

    #[test]
    fn reducing_every_dim_gives_a_scalar(d in dims()) {
        let x = Shape::array(F32, d.clone());
        let all: Vec<i64> = (0..d.len() as i64).collect();
        let add = ProgramShape { parameters: vec![Shape::scalar(F32); 2], result: Shape::scalar(F32) };
        prop_assert_eq!(reduce(&[&x], &[&Shape::scalar(F32)], &all, &add).unwrap(), Shape::scalar(F32));
    }

    #[test]
    fn degenerate_broadcasting_is_symmetric(pairs in prop::collection::vec((1i64..4, any::<bool>(), any::<bool>()), 0..5)) {
        let l: Vec<i64> = pairs.iter().map(|&(n, a, _)| if a { 1 } else { n }).collect();
        let r: Vec<i64> = pairs.iter().map(|&(n, _, b)| if b { 1 } else { n }).collect();
        let (ls, rs) = (Shape::array(F32, l), Shape::array(F32, r));
        let ab = broadcast_plan("add", &ls, &rs, &[]).unwrap();
        let ba = broadcast_plan("add", &rs, &ls, &[]).unwrap();
        prop_assert_eq!(&ab.dims, &ba.dims);
        let want: Vec<i64> = pairs.iter().map(|&(n, a, b)| if a && b { 1 } else { n }).collect();
        prop_assert_eq!(ab.dims, want);
    }

    #[test]
    fn unary_float_ops_keep_the_shape(d in dims(), k in 0usize..UnaryOp::ALL.len()) {
        let op = UnaryOp::ALL[k];
        let x = Shape::array(F32, d.clone());
        let got = unary(op, &x);
        let expected_ty = if op == UnaryOp::IsFinite { xla_core::PrimitiveType::Pred } else { F32 };
        let integer_only = matches!(op, UnaryOp::Clz | UnaryOp::Popcnt | UnaryOp::Not);
        if integer_only {
            prop_assert!(got.is_err());
        } else {
            prop_assert_eq!(got.unwrap(), Shape::array(expected_ty, d));
        }
    }
}
