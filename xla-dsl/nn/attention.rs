//! Attention and dropout.
//! (Read by xla-dsl as text, not compiled as a module: `xla_macros::__nn!()` expands every
//! `#[computation]` here into `xla::nn`, and a computation calling `nn::NAME(..)` takes its
//! source from here.)

/// Multi-head dot-product attention with a mask (flax's
/// `nn.MultiHeadDotProductAttention(num_heads=H, qkv_features=H·D, out_features=O)` called
/// as `attn(xq, xkv, mask=mask[:, None])`): `B` batches of `Q` queries attending to `K`
/// keys/values, all of `E` features, through `H` heads of depth `D`. The kernels are flax's
/// `DenseGeneral` ones: `wq`, `wk`, `wv` are `[E, H, D]` with `[H, D]` biases, `wo` is
/// `[H, D, O]` with an `[O]` bias. A `false` in `mask[b, q, k]` hides key `k` from query `q`
/// (its logit becomes `f32::MIN` before the softmax, as flax's); the queries are scaled by
/// `1/√D`. Result `f32[B, Q, O]`.
///
/// ```
/// use xla::Literal;
/// // One query, two keys, every size 1: with a zero query kernel every logit is 0, so the
/// // weights are uniform over the keys the mask shows, and with value and output kernels
/// // of 1 the result is the mean of those keys' values.
/// let lit = |dims: &[i64], v: f32| Literal::from_vec(dims, vec![v; dims.iter().product::<i64>() as usize]);
/// let attend = |mask: Vec<bool>| -> Result<f32, Box<dyn std::error::Error + Send + Sync>> {
///     let y = xla::nn::multi_head_attention::apply(
///         lit(&[1, 1, 1], 1.0)?,                        // xq
///         Literal::from_vec(&[1, 2, 1], vec![2.0f32, 5.0])?, // xkv
///         Literal::from_vec(&[1, 1, 2], mask)?,
///         lit(&[1, 1, 1], 0.0)?, lit(&[1, 1], 0.0)?,   // query kernel and bias
///         lit(&[1, 1, 1], 1.0)?, lit(&[1, 1], 0.0)?,   // key
///         lit(&[1, 1, 1], 1.0)?, lit(&[1, 1], 0.0)?,   // value
///         lit(&[1, 1, 1], 1.0)?, lit(&[1], 0.0)?,      // output
///     )?;
///     Ok(y.data::<f32>().map_or(f32::NAN, |d| d[0]))
/// };
/// assert_eq!(attend(vec![true, true])?, 3.5);
/// assert_eq!(attend(vec![true, false])?, 2.0);
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
#[computation]
#[allow(clippy::too_many_arguments)]
pub fn multi_head_attention<
    const B: usize,
    const Q: usize,
    const K: usize,
    const E: usize,
    const H: usize,
    const D: usize,
    const O: usize,
>(
    xq: Tensor<f32, B, Q, E>,
    xkv: Tensor<f32, B, K, E>,
    mask: Tensor<bool, B, Q, K>,
    wq: Tensor<f32, E, H, D>,
    bq: Tensor<f32, H, D>,
    wk: Tensor<f32, E, H, D>,
    bk: Tensor<f32, H, D>,
    wv: Tensor<f32, E, H, D>,
    bv: Tensor<f32, H, D>,
    wo: Tensor<f32, H, D, O>,
    bo: Tensor<f32, O>,
) -> Tensor<f32, B, Q, O> {
    let q = (xq.dot_general(wq, [2], [0]) + bq) / D.convert::<f32>().sqrt();
    let k = xkv.dot_general(wk, [2], [0]) + bk;
    let v = xkv.dot_general(wv, [2], [0]) + bv;
    // [B, H, Q, K]: batch over B and H, contract the depth.
    let logits = q.dot_general(k, [3], [3], [0, 2], [0, 2]);
    let hidden = iota::<f32>([B, H, Q, K], 0) * 0.0 + f32::MIN;
    let logits = mask
        .broadcast_in_dim([B, H, Q, K], [0, 2, 3])
        .select(logits, hidden);
    let top = logits.max([3]).broadcast_in_dim([B, H, Q, K], [0, 1, 2]);
    let e = (logits - top).exp();
    let weights = e / e.sum([3]).broadcast_in_dim([B, H, Q, K], [0, 1, 2]);
    // [B, H, Q, D], then contract (H, D) with the output kernel: [B, Q, O].
    let out = weights.dot_general(v, [3], [1], [0, 1], [0, 2]);
    out.dot_general(wo, [1, 3], [0, 1]) + bo
}

/// Dropout in training mode (flax's `nn.Dropout(rate)` with `deterministic=False`): each
/// element kept with probability `1 - rate` and scaled by `1 / (1 - rate)`, else 0.
///
/// The randomness is an explicit state threaded through the graph: `state` (`u64[2]`, any
/// seed) goes into XLA's `rng-bit-generator` (its default algorithm), which returns the bits
/// and the next state; the layer returns that next state, to be passed to the next dropout
/// (or the next step). The same state gives the same mask, on any run. The uniform number
/// behind each element is its 32 random bits' top 23 as a mantissa in `[1, 2)`, minus 1.
/// The masks are not JAX's (JAX's PRNG is threefry on a key); their distribution is.
///
/// ```
/// let x = [1.0f32; 1000];
/// let (y, next) = xla::nn::dropout::call::<10, 100>(&x, &[1, 2], 0.5)?;
/// // Dropped elements are 0, kept ones doubled; about half of each.
/// assert!(y.iter().all(|v| *v == 0.0 || *v == 2.0));
/// let kept = y.iter().filter(|v| **v == 2.0).count();
/// assert!((400..600).contains(&kept));
/// // The same state gives the same mask; pass `next` on for a new one.
/// assert_eq!(xla::nn::dropout::call::<10, 100>(&x, &[1, 2], 0.5)?.0, y);
/// assert_ne!(xla::nn::dropout::call::<10, 100>(&x, &next, 0.5)?.0, y);
/// # Ok::<(), xla::nn::dropout::Error>(())
/// ```
#[computation]
pub fn dropout<const B: usize, const F: usize>(
    x: Tensor<f32, B, F>,
    state: Tensor<u64, 2>,
    rate: f32,
) -> (Tensor<f32, B, F>, Tensor<u64, 2>) {
    let (state, bits) = rng_bit_generator::<u32>(state, [B, F]);
    let u = ((bits >> 9u32) | 1065353216u32).bitcast::<f32>() - 1.0;
    let keep = u >= rate;
    (keep.select(x / (1.0 - rate), x * 0.0), state)
}
