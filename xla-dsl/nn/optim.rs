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
