//! Bad sizes for generic computations (issue 13, "Bad input"): a size at which the
//! computation does not build — its own rule, a generic callee's, a dimension expression
//! that overflows — is an `Err` naming the computation, the size parameter and its value,
//! never a panic; the failure is not cached, and the instances built before it stay the
//! ones every later call gets.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use xla::computation;

/// The sum of the `N / 2` pairs' products: builds only for even `N` (the reshape needs
/// `2 · (N / 2) = N`).
#[computation(grad(x))]
fn pair_products<const N: usize>(x: Tensor<f32, N>) -> f32 {
    let p = x.reshape([{ N / 2 }, 2]);
    (p.slice([.., 0..1]) * p.slice([.., 1..2])).sum()
}

/// Calls `pair_products` at its own size: a caller that builds wherever the callee does.
#[computation(grad(x))]
fn caller<const B: usize>(x: Tensor<f32, B>) -> f32 {
    pair_products(x * 2.0) + x.sum()
}

/// `N + 1` and `2 · N` as dimensions: both overflow `i64` for a large enough `N`.
#[computation]
fn grown<const N: usize>(x: Tensor<f32, N>) -> Tensor<f32, { N + 1 }> {
    x.pad(0.0, [(0, 1)])
}

#[computation]
fn doubled<const N: usize>(x: Tensor<f32, N>) -> Tensor<f32, { 2 * N }> {
    concat([x, x], 0)
}

#[test]
fn a_size_where_the_computation_does_not_build_is_an_error_naming_it() {
    // At an even size it runs: (1·2 + 3·4) = 14.
    assert_eq!(
        pair_products::call::<4>(&[1.0, 2.0, 3.0, 4.0]).unwrap(),
        14.0
    );
    let before = pair_products::instance(&[4]).unwrap();
    let err = pair_products::call::<3>(&[1.0, 2.0, 3.0])
        .unwrap_err()
        .to_string();
    // The reshape to `[N / 2, 2]` = `[1, 2]` misses one element.
    assert!(
        err.starts_with("pair_products at N = 3: reshape: cannot reshape f32[3]"),
        "{err}"
    );
    assert!(err.contains("f32[1,2]"), "{err}");
    // Not cached: the same error again, the good instance unchanged.
    let again = pair_products::instance(&[3]).unwrap_err().to_string();
    assert_eq!(again, err);
    assert!(Arc::ptr_eq(
        &before,
        &pair_products::instance(&[4]).unwrap()
    ));
    // The gradient at the bad size fails the same way; at a good size it is y's pair.
    let err = pair_products::grad::call::<3>(&[1.0, 2.0, 3.0])
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("pair_products at N = 3: "), "{err}");
    assert_eq!(
        pair_products::grad::call::<4>(&[1.0, 2.0, 3.0, 4.0]).unwrap(),
        vec![2.0, 1.0, 4.0, 3.0]
    );
}

#[test]
fn a_callee_that_does_not_build_at_the_callers_size_names_the_caller_and_its_size() {
    // B = 4: the pairs of 2x are (2, 4) and (6, 8): 8 + 48 = 56, plus the sum 10.
    assert_eq!(caller::call::<4>(&[1.0, 2.0, 3.0, 4.0]).unwrap(), 66.0);
    let good = caller::instance(&[4]).unwrap();
    let err = caller::call::<5>(&[1.0; 5]).unwrap_err().to_string();
    // The caller and its size, then the callee at the size it was given and its rule.
    assert!(
        err.starts_with("caller at B = 5: `pair_products` at N = 5: reshape: "),
        "{err}"
    );
    assert!(err.contains("f32[5]") && err.contains("f32[2,2]"), "{err}");
    let err_grad = caller::grad::call::<5>(&[1.0; 5]).unwrap_err().to_string();
    assert!(err_grad.starts_with("caller at B = 5: "), "{err_grad}");
    // From literals, the size read from the shape: the same error.
    let x = xla::Literal::from_vec(&[5], vec![1.0f32; 5]).unwrap();
    assert_eq!(caller::apply(x).unwrap_err().to_string(), err);
    // The cache still holds the good instance, and nothing for B = 5.
    assert!(Arc::ptr_eq(&good, &caller::instance(&[4]).unwrap()));
    assert!(caller::instance(&[5]).is_err());
    assert_eq!(caller::call::<2>(&[1.0, 1.0]).unwrap(), 6.0);
}

#[test]
fn a_dimension_that_overflows_is_an_error_naming_the_size() {
    let max = i64::MAX as usize;
    let err = grown::instance(&[max]).unwrap_err().to_string();
    assert!(err.starts_with(&format!("grown at N = {max}: ")), "{err}");
    assert!(err.contains("`N+1` overflows"), "{err}");
    let half = max / 2 + 1;
    let err = doubled::instance(&[half]).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("doubled at N = {half}: ")),
        "{err}"
    );
    assert!(err.contains("overflow"), "{err}");
    // A size above i64::MAX is refused before any build.
    let err = doubled::instance(&[usize::MAX]).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "doubled: size `N` = {} overflows a dimension (at most {})",
            usize::MAX,
            i64::MAX
        )
    );
    // Small sizes still build and run.
    assert_eq!(grown::call::<2>(&[1.0, 2.0]).unwrap(), vec![1.0, 2.0, 0.0]);
    assert_eq!(
        doubled::call::<2>(&[1.0, 2.0]).unwrap(),
        vec![1.0, 2.0, 1.0, 2.0]
    );
}

#[test]
fn threads_calling_a_bad_and_a_good_size_see_one_instance_and_one_error() {
    let handles: Vec<_> = (0..6)
        .map(|t| {
            std::thread::spawn(move || {
                if t % 2 == 0 {
                    Err(pair_products::call::<7>(&[1.0; 7]).unwrap_err().to_string())
                } else {
                    let y = pair_products::call::<6>(&[t as f32; 6]).unwrap();
                    Ok((y, pair_products::instance(&[6]).unwrap()))
                }
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let mut errors = Vec::new();
    let mut instances = Vec::new();
    for (t, r) in results.into_iter().enumerate() {
        match r {
            Err(e) => errors.push(e),
            Ok((y, instance)) => {
                // Three pairs of t·t.
                assert_eq!(y, 3.0 * (t * t) as f32);
                instances.push(instance);
            }
        }
    }
    assert_eq!(errors.len(), 3);
    assert!(errors.iter().all(|e| e == &errors[0]), "{errors:?}");
    assert!(
        errors[0].starts_with("pair_products at N = 7: "),
        "{}",
        errors[0]
    );
    assert!(instances.iter().all(|i| Arc::ptr_eq(i, &instances[0])));
}
