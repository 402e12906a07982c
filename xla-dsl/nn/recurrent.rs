//! Recurrent cells: LSTM and GRU, one step each (loop them with `for`).
//! (Read by xla-dsl as text, not compiled as a module: `xla_macros::__nn!()` expands every
//! `#[computation]` here into `xla::nn`, and a computation calling `nn::NAME(..)` takes its
//! source from here.)

/// One step of an LSTM cell (flax's `nn.OptimizedLSTMCell(F)`, `carry = (c, h)`) on a batch
/// of `B` inputs of `I` features: the new `(c, h)` (`h` is also the output). The gates'
/// weights are stacked along the output axis in flax's order `i, f, g, o`: `wi` is
/// `[ii | if | ig | io]` (no bias), `wh` is `[hi | hf | hg | ho]` and `b` their biases.
/// `i, f, o = σ(·)`, `g = tanh(·)`, `c' = f·c + i·g`, `h' = o·tanh(c')`.
///
/// ```
/// // 2 inputs of 3 features, 4 hidden features, every weight 0: the gates are σ(0) = ½ and
/// // g = tanh(0) = 0, so c' = ½·c and h' = ½·tanh(c').
/// let (c, h) = xla::nn::lstm_cell::call::<2, 3, 4>(
///     &[0.0; 6], &[1.0; 8], &[0.0; 8], &[0.0; 48], &[0.0; 64], &[0.0; 16],
/// )?;
/// assert_eq!(c, vec![0.5; 8]);
/// assert!((h[0] - 0.5 * 0.5f32.tanh()).abs() < 1e-6);
/// # Ok::<(), xla::nn::lstm_cell::Error>(())
/// ```
#[computation]
pub fn lstm_cell<const B: usize, const I: usize, const F: usize>(
    x: Tensor<f32, B, I>,
    c: Tensor<f32, B, F>,
    h: Tensor<f32, B, F>,
    wi: Tensor<f32, I, { 4 * F }>,
    wh: Tensor<f32, F, { 4 * F }>,
    b: Tensor<f32, { 4 * F }>,
) -> (Tensor<f32, B, F>, Tensor<f32, B, F>) {
    let z = (h.dot(wh) + b + x.dot(wi)).reshape([B, 4, F]);
    let i = z[(.., 0)].logistic();
    let f = z[(.., 1)].logistic();
    let g = z[(.., 2)].tanh();
    let o = z[(.., 3)].logistic();
    let c = f * c + i * g;
    (c, o * c.tanh())
}

/// One step of a GRU cell (flax's `nn.GRUCell(F)`) on a batch of `B` inputs of `I`
/// features: the new `h`. The weights are stacked along the output axis in the order
/// `r, z, n`: `wi` is `[ir | iz | in]` with biases `bi`, `wh` is `[hr | hz | hn]` (no
/// bias) and `bhn` is `hn`'s bias. `r = σ(x·ir + h·hr)`, `z = σ(x·iz + h·hz)`,
/// `n = tanh(x·in + r·(h·hn + bhn))`, `h' = (1 - z)·n + z·h`.
///
/// ```
/// // Every weight 0: r = z = ½ and n = tanh(0) = 0, so h' = ½·h.
/// let h = xla::nn::gru_cell::call::<1, 2, 3>(
///     &[1.0, -1.0], &[2.0, 4.0, -6.0], &[0.0; 18], &[0.0; 9], &[0.0; 27], &[0.0; 3],
/// )?;
/// assert_eq!(h, vec![1.0, 2.0, -3.0]);
/// # Ok::<(), xla::nn::gru_cell::Error>(())
/// ```
#[computation]
pub fn gru_cell<const B: usize, const I: usize, const F: usize>(
    x: Tensor<f32, B, I>,
    h: Tensor<f32, B, F>,
    wi: Tensor<f32, I, { 3 * F }>,
    bi: Tensor<f32, { 3 * F }>,
    wh: Tensor<f32, F, { 3 * F }>,
    bhn: Tensor<f32, F>,
) -> Tensor<f32, B, F> {
    let zi = (x.dot(wi) + bi).reshape([B, 3, F]);
    let zh = h.dot(wh).reshape([B, 3, F]);
    let r = (zi[(.., 0)] + zh[(.., 0)]).logistic();
    let z = (zi[(.., 1)] + zh[(.., 1)]).logistic();
    let n = (zi[(.., 2)] + r * (zh[(.., 2)] + bhn)).tanh();
    (1.0 - z) * n + z * h
}
