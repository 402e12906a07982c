//! Optimizer updates as graphs: one computation per step of a flat parameter vector.
//! (Read by xla-dsl as text, not compiled as a module: `xla_macros::__nn!()` expands every
//! `#[computation]` here into `xla::nn`, and a computation calling `nn::NAME(..)` takes its
//! source from here.)

/// One Adam step (`optax.adam(lr)` with `b1 = 0.9`, `b2 = 0.999`, `eps = 1e-8`) on `N`
/// parameters: the new parameters and moments from the gradient `g` at step `t` (1 for
/// the first step).
#[computation]
pub fn adam<const N: usize>(
    p: Tensor<f32, N>,
    g: Tensor<f32, N>,
    m: Tensor<f32, N>,
    v: Tensor<f32, N>,
    t: f32,
    lr: f32,
) -> (Tensor<f32, N>, Tensor<f32, N>, Tensor<f32, N>) {
    let m = m * 0.9 + g * 0.1;
    let v = v * 0.999 + g * g * 0.001;
    let m_hat = m / (1.0 - 0.9f32.pow(t));
    let v_hat = v / (1.0 - 0.999f32.pow(t));
    (p - lr * m_hat / (v_hat.sqrt() + 1e-8), m, v)
}

/// One step of SGD with momentum (`optax.sgd(lr, momentum)`): `trace = momentum·trace + g`,
/// `p - lr·trace`; returns the new parameters and trace.
#[computation]
pub fn sgd_momentum<const N: usize>(
    p: Tensor<f32, N>,
    g: Tensor<f32, N>,
    trace: Tensor<f32, N>,
    lr: f32,
    momentum: f32,
) -> (Tensor<f32, N>, Tensor<f32, N>) {
    let trace = trace * momentum + g;
    (p - lr * trace, trace)
}

/// [`adam`] on an `R`×`C` matrix (a dense layer's kernel): the same step on its `R·C`
/// elements.
#[computation]
pub fn adam_2d<const R: usize, const C: usize>(
    p: Tensor<f32, R, C>,
    g: Tensor<f32, R, C>,
    m: Tensor<f32, R, C>,
    v: Tensor<f32, R, C>,
    t: f32,
    lr: f32,
) -> (Tensor<f32, R, C>, Tensor<f32, R, C>, Tensor<f32, R, C>) {
    let (p, m, v) = nn::adam(
        p.reshape([R * C]),
        g.reshape([R * C]),
        m.reshape([R * C]),
        v.reshape([R * C]),
        t,
        lr,
    );
    (p.reshape([R, C]), m.reshape([R, C]), v.reshape([R, C]))
}

/// One AdamW step (`optax.adamw(lr, weight_decay=weight_decay)`, `b1 = 0.9`, `b2 = 0.999`,
/// `eps = 1e-8`): the Adam step, and the parameters decayed by `lr·weight_decay·p`
/// (decoupled weight decay, on every parameter as optax's default mask).
///
/// ```
/// // A zero gradient leaves the Adam step at 0, so only the decay acts: p·(1 - lr·wd).
/// let (p, m, v) = xla::nn::adamw::call::<2>(&[1.0, -2.0], &[0.0; 2], &[0.0; 2], &[0.0; 2], 1.0, 0.1, 0.5)?;
/// assert_eq!(p, vec![0.95, -1.9]);
/// assert_eq!((m, v), (vec![0.0; 2], vec![0.0; 2]));
/// # Ok::<(), xla::nn::adamw::Error>(())
/// ```
#[computation]
pub fn adamw<const N: usize>(
    p: Tensor<f32, N>,
    g: Tensor<f32, N>,
    m: Tensor<f32, N>,
    v: Tensor<f32, N>,
    t: f32,
    lr: f32,
    weight_decay: f32,
) -> (Tensor<f32, N>, Tensor<f32, N>, Tensor<f32, N>) {
    let (stepped, m, v) = nn::adam(p, g, m, v, t, lr);
    (stepped - lr * weight_decay * p, m, v)
}

/// [`adamw`] on an `R`×`C` matrix.
#[computation]
pub fn adamw_2d<const R: usize, const C: usize>(
    p: Tensor<f32, R, C>,
    g: Tensor<f32, R, C>,
    m: Tensor<f32, R, C>,
    v: Tensor<f32, R, C>,
    t: f32,
    lr: f32,
    weight_decay: f32,
) -> (Tensor<f32, R, C>, Tensor<f32, R, C>, Tensor<f32, R, C>) {
    let (stepped, m, v) = nn::adam_2d(p, g, m, v, t, lr);
    (stepped - lr * weight_decay * p, m, v)
}

/// One gradient of several clipped by their global norm (`optax.clip_by_global_norm`):
/// `sum_sq` is the sum of the squares of every gradient's elements (the global norm is its
/// square root); when the norm is at least `max_norm`, `g / norm · max_norm`, else `g`.
///
/// ```
/// // Gradients [3, 4] and [12] have the global norm 13; clipped to 1.
/// let sum_sq = 3.0f32 * 3.0 + 4.0 * 4.0 + 12.0 * 12.0;
/// let g = xla::nn::clip_by_global_norm::call::<2>(&[3.0, 4.0], sum_sq, 1.0)?;
/// assert!((g[0] - 3.0 / 13.0).abs() < 1e-7 && (g[1] - 4.0 / 13.0).abs() < 1e-7);
/// // Under the limit, unchanged.
/// assert_eq!(xla::nn::clip_by_global_norm::call::<2>(&[3.0, 4.0], sum_sq, 20.0)?, vec![3.0, 4.0]);
/// # Ok::<(), xla::nn::clip_by_global_norm::Error>(())
/// ```
#[computation]
pub fn clip_by_global_norm<const N: usize>(
    g: Tensor<f32, N>,
    sum_sq: f32,
    max_norm: f32,
) -> Tensor<f32, N> {
    let norm = sum_sq.sqrt();
    if norm < max_norm {
        g
    } else {
        g / norm * max_norm
    }
}

/// [`clip_by_global_norm`] on an `R`×`C` gradient.
#[computation]
pub fn clip_by_global_norm_2d<const R: usize, const C: usize>(
    g: Tensor<f32, R, C>,
    sum_sq: f32,
    max_norm: f32,
) -> Tensor<f32, R, C> {
    nn::clip_by_global_norm(g.reshape([R * C]), sum_sq, max_norm).reshape([R, C])
}
