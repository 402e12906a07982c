//! The symbolic check's conditions, on residue classes of the sizes: a stride inside a
//! shape rule (no expression divides) and a condition on two sizes; each is listed in
//! `PRECONDITIONS` and holds exactly where it says at instantiation.
use xla::computation;
use xla::Literal;

/// Two stride-2 pools, 2 and 3 wide (the second padded by one): both `H / 2` long, so
/// their sum concatenated twice is `H` long for even `H` only.
#[computation]
fn pools<const H: usize>(x: Tensor<f32, H>) -> Tensor<f32, H> {
    let a = x.max_pool([2], [2]);
    let b = x.pad(0.0, [(0, 1)]).max_pool([3], [2]);
    concat([a + b, a + b], 0)
}

/// 2×2 blocks of an `H × W` image: both even.
#[computation]
fn blocks<const H: usize, const W: usize>(
    x: Tensor<f32, H, W>,
) -> Tensor<f32, { H / 2 }, 2, { W / 2 }, 2> {
    x.reshape([{ H / 2 }, 2, { W / 2 }, 2])
}

/// `{ (H + 1) / 2 }` from a padded stride-2 pool: every `H`, no precondition.
#[computation]
fn ceil_half<const H: usize>(x: Tensor<f32, H>) -> Tensor<f32, { (H + 1) / 2 }> {
    x.pad(0.0, [(0, 1)]).max_pool([2], [2])
}

fn ones(dims: &[i64]) -> Literal {
    let n = dims.iter().product::<i64>() as usize;
    Literal::from_vec(dims, vec![1.0f32; n]).unwrap()
}

fn main() {
    assert_eq!(pools::PRECONDITIONS.len(), 1, "{:?}", pools::PRECONDITIONS);
    assert!(
        pools::PRECONDITIONS[0].starts_with("needs `H % 2 == 0`: "),
        "{:?}",
        pools::PRECONDITIONS
    );
    for h in [2, 4, 6] {
        assert_eq!(
            pools::apply(ones(&[h])).unwrap().shape().to_string(),
            format!("f32[{h}]")
        );
    }
    for h in [3, 5, 7] {
        let e = pools::apply(ones(&[h])).unwrap_err().to_string();
        assert!(e.contains(&format!("H = {h}")), "{e}");
    }

    assert_eq!(
        blocks::PRECONDITIONS.len(),
        1,
        "{:?}",
        blocks::PRECONDITIONS
    );
    let p = blocks::PRECONDITIONS[0];
    assert!(
        p.starts_with("needs `H % 2 == 0 && W % 2 == 0`: reshape: "),
        "{p}"
    );
    assert_eq!(
        blocks::apply(ones(&[4, 6])).unwrap().shape().to_string(),
        "f32[2,2,3,2]"
    );
    for (h, w) in [(3, 4), (4, 3), (3, 3)] {
        assert!(blocks::apply(ones(&[h, w])).is_err(), "{h}x{w}");
    }

    assert!(
        ceil_half::PRECONDITIONS.is_empty(),
        "{:?}",
        ceil_half::PRECONDITIONS
    );
    for h in 1..=6 {
        let y = ceil_half::apply(ones(&[h])).unwrap();
        assert_eq!(y.shape().to_string(), format!("f32[{}]", (h + 1) / 2));
    }
}
