//! Rules that hold only for some sizes compile, are listed in `PRECONDITIONS` naming the
//! size, and are checked at each instantiation; rules that hold for every size list none.
use xla::computation;
use xla::Literal;

/// `{ H / 2 }` rows of 2 from `H` elements: only even `H`.
#[computation]
fn halves<const H: usize>(x: Tensor<f32, H>) -> Tensor<f32, { H / 2 }, 2> {
    x.reshape([{ H / 2 }, 2])
}

/// Written for a 2×2 window, called with 3×3 and stride 2: `(H - 1) / 2 = H / 2` for odd
/// `H` only.
#[computation]
fn pool<const B: usize, const H: usize>(
    x: Tensor<f32, B, H, H, 4>,
) -> Tensor<f32, B, { H / 2 }, { H / 2 }, 4> {
    nn::max_pool::<3, 2, 0>(x)
}

/// Affine: holds for every size.
#[computation]
fn twice<const N: usize>(x: Tensor<f32, N>) -> Tensor<f32, { 2 * N }> {
    concat([x, x], 0)
}

fn main() {
    assert_eq!(
        halves::PRECONDITIONS.len(),
        1,
        "{:?}",
        halves::PRECONDITIONS
    );
    let p = halves::PRECONDITIONS[0];
    assert!(
        p.starts_with("needs `H % 2 == 0`: reshape: cannot reshape f32[H]"),
        "{p}"
    );
    assert!(p.ends_with("(fails at H = 3049)"), "{p}");
    let y = halves::apply(Literal::from_vec(&[6], vec![1.0f32; 6]).unwrap()).unwrap();
    assert_eq!(y.shape().to_string(), "f32[3,2]");
    let e = halves::apply(Literal::from_vec(&[5], vec![1.0f32; 5]).unwrap()).unwrap_err();
    assert!(e.to_string().contains("H = 5"), "{e}");

    assert_eq!(pool::PRECONDITIONS.len(), 1, "{:?}", pool::PRECONDITIONS);
    assert!(
        pool::PRECONDITIONS[0].starts_with("needs `H % 2 == 1`: "),
        "{:?}",
        pool::PRECONDITIONS
    );
    let x = Literal::from_vec(&[1, 5, 5, 4], vec![1.0f32; 100]).unwrap();
    assert_eq!(pool::apply(x).unwrap().shape().to_string(), "f32[1,2,2,4]");
    let x = Literal::from_vec(&[1, 6, 6, 4], vec![1.0f32; 144]).unwrap();
    assert!(pool::apply(x).unwrap_err().to_string().contains("H = 6"));

    assert!(
        twice::PRECONDITIONS.is_empty(),
        "{:?}",
        twice::PRECONDITIONS
    );
}
