//! Optimizer updates as graphs, generic over the parameter's whole shape (`S: Shape`: a
//! bias, a dense kernel, a convolution kernel, any rank), one call per parameter tensor of
//! a training step. (Read by xla-dsl as text, not compiled as a module: `xla_macros::__nn!()`
//! expands every `#[computation]` here into `xla::nn`, and a computation calling
//! `nn::NAME(..)` takes its source from here.)

/// One Adam step (`optax.adam(lr)` with `b1 = 0.9`, `b2 = 0.999`, `eps = 1e-8`) on a
/// parameter of any shape: the new parameters and moments from the gradient `g` at step
/// `t` (1 for the first step).
///
/// ```
/// use xla::Literal;
/// // A 2×2 kernel; the first step moves every element by `lr` against its gradient's sign.
/// let p = Literal::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0])?;
/// let g = Literal::from_vec(&[2, 2], vec![0.5f32, -0.5, 2.0, 0.0])?;
/// let zeros = Literal::from_vec(&[2, 2], vec![0.0f32; 4])?;
/// let out = xla::nn::adam::apply(p, g, zeros.clone(), zeros, Literal::scalar(1.0f32), Literal::scalar(0.1f32))?;
/// let parts = out.tuple_elements().ok_or("not a tuple")?;
/// assert_eq!(parts[0].shape().to_string(), "f32[2,2]");
/// let p: Vec<f32> = parts[0].to_vec()?;
/// let want = [0.9f32, 2.1, 2.9, 4.0];
/// assert!(p.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-6), "{p:?}");
/// # Ok::<(), xla::nn::adam::Error>(())
/// ```
#[computation]
pub fn adam<S: Shape>(
    p: Tensor<f32, S>,
    g: Tensor<f32, S>,
    m: Tensor<f32, S>,
    v: Tensor<f32, S>,
    t: f32,
    lr: f32,
) -> (Tensor<f32, S>, Tensor<f32, S>, Tensor<f32, S>) {
    let m = m * 0.9 + g * 0.1;
    let v = v * 0.999 + g * g * 0.001;
    let m_hat = m / (1.0 - 0.9f32.pow(t));
    let v_hat = v / (1.0 - 0.999f32.pow(t));
    (p - lr * m_hat / (v_hat.sqrt() + 1e-8), m, v)
}

/// One step of SGD with momentum (`optax.sgd(lr, momentum)`) on a parameter of any shape:
/// `trace = momentum·trace + g`, `p - lr·trace`; returns the new parameters and trace.
///
/// ```
/// use xla::Literal;
/// // A vector of 2 with a trace of 1s: trace = 0.5·1 + g = [3, -1], p = p - 0.25·trace.
/// let p = Literal::from_vec(&[2], vec![1.0f32, 2.0])?;
/// let g = Literal::from_vec(&[2], vec![2.5f32, -1.5])?;
/// let trace = Literal::from_vec(&[2], vec![1.0f32, 1.0])?;
/// let (lr, momentum) = (Literal::scalar(0.25f32), Literal::scalar(0.5f32));
/// let out = xla::nn::sgd_momentum::apply(p, g, trace, lr, momentum)?;
/// let parts = out.tuple_elements().ok_or("not a tuple")?;
/// assert_eq!(parts[0].data::<f32>(), Some(&[0.25, 2.25][..]));
/// assert_eq!(parts[1].data::<f32>(), Some(&[3.0, -1.0][..]));
/// # Ok::<(), xla::nn::sgd_momentum::Error>(())
/// ```
#[computation]
pub fn sgd_momentum<S: Shape>(
    p: Tensor<f32, S>,
    g: Tensor<f32, S>,
    trace: Tensor<f32, S>,
    lr: f32,
    momentum: f32,
) -> (Tensor<f32, S>, Tensor<f32, S>) {
    let trace = trace * momentum + g;
    (p - lr * trace, trace)
}

/// One AdamW step (`optax.adamw(lr, weight_decay=weight_decay)`, `b1 = 0.9`, `b2 = 0.999`,
/// `eps = 1e-8`) on a parameter of any shape: the Adam step, and the parameters decayed by
/// `lr·weight_decay·p` (decoupled weight decay, on every parameter as optax's default
/// mask).
///
/// ```
/// use xla::Literal;
/// // A zero gradient leaves the Adam step at 0, so only the decay acts: p·(1 - lr·wd).
/// let p = Literal::from_vec(&[2], vec![1.0f32, -2.0])?;
/// let zeros = Literal::from_vec(&[2], vec![0.0f32; 2])?;
/// let s = Literal::scalar::<f32>;
/// let out = xla::nn::adamw::apply(p, zeros.clone(), zeros.clone(), zeros, s(1.0), s(0.1), s(0.5))?;
/// let parts = out.tuple_elements().ok_or("not a tuple")?;
/// assert_eq!(parts[0].to_vec::<f32>()?, vec![0.95, -1.9]);
/// assert_eq!(parts[1].to_vec::<f32>()?, vec![0.0; 2]);
/// # Ok::<(), xla::nn::adamw::Error>(())
/// ```
#[computation]
pub fn adamw<S: Shape>(
    p: Tensor<f32, S>,
    g: Tensor<f32, S>,
    m: Tensor<f32, S>,
    v: Tensor<f32, S>,
    t: f32,
    lr: f32,
    weight_decay: f32,
) -> (Tensor<f32, S>, Tensor<f32, S>, Tensor<f32, S>) {
    let (stepped, m, v) = nn::adam(p, g, m, v, t, lr);
    (stepped - lr * weight_decay * p, m, v)
}

/// One gradient of several, of any shape, clipped by their global norm
/// (`optax.clip_by_global_norm`): `sum_sq` is the sum of the squares of every gradient's
/// elements (the global norm is its square root); when the norm is at least `max_norm`,
/// `g / norm · max_norm`, else `g`.
///
/// ```
/// use xla::Literal;
/// // Gradients [3, 4] and [12] have the global norm 13; clipped to 1.
/// let sum_sq = 3.0f32 * 3.0 + 4.0 * 4.0 + 12.0 * 12.0;
/// let g = || Literal::from_vec(&[2], vec![3.0f32, 4.0]);
/// let s = Literal::scalar::<f32>;
/// let clipped: Vec<f32> = xla::nn::clip_by_global_norm::apply(g()?, s(sum_sq), s(1.0))?.to_vec()?;
/// assert!((clipped[0] - 3.0 / 13.0).abs() < 1e-7 && (clipped[1] - 4.0 / 13.0).abs() < 1e-7);
/// // Under the limit, unchanged.
/// let kept: Vec<f32> = xla::nn::clip_by_global_norm::apply(g()?, s(sum_sq), s(20.0))?.to_vec()?;
/// assert_eq!(kept, vec![3.0, 4.0]);
/// # Ok::<(), xla::nn::clip_by_global_norm::Error>(())
/// ```
#[computation]
pub fn clip_by_global_norm<S: Shape>(
    g: Tensor<f32, S>,
    sum_sq: f32,
    max_norm: f32,
) -> Tensor<f32, S> {
    let norm = sum_sq.sqrt();
    if norm < max_norm {
        g
    } else {
        g / norm * max_norm
    }
}
