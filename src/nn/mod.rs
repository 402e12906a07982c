//! Layers, losses and optimizer updates as `#[computation]`s generic over their sizes:
//! dense; convolutions (3×3 `SAME`, NHWC and NCHW) and 2×2 pooling; general convolutions
//! (`conv2d::<S, P, D>`, `conv2d_same::<S, D>`, `conv2d_grouped::<S, P, D, G, M>`,
//! `conv2d_nchw_padded`, `conv2d_nchw_same`) and pooling (`max_pool`/`avg_pool::<K, S, P>`,
//! `max_pool_same`/`avg_pool_same::<K, S>`) whose stride, padding, dilation, window and
//! groups are integer sizes given with a turbofish (`apply::<2, 1, 1>(x, k)` from Rust,
//! `nn::conv2d::<2, 1, 1>(x, k)` in a computation; tests/nn_conv.rs); batch norm (training
//! and inference), layer norm, RMS norm; embedding; LSTM and GRU cells; multi-head
//! attention with a mask; dropout from an RNG state input; softmax cross-entropy and MSE
//! with their gradients; Adam, AdamW, SGD with momentum and global-norm gradient clipping
//! as graph updates. Initialisers (Glorot, He, LeCun, normal) run on the host: `init`
//! (feature `train`).
//! Each computation is a module like any generic computation: `call::<B, ...>` on Rust
//! values, `apply`/`run` on literals with the sizes read from the shapes, `hlo(&[..])`.
//! Their values and gradients are tested against `flax.linen` and `optax`
//! (`scripts/make_nn_fixtures.py`, `scripts/make_nn_layer_fixtures.py`,
//! `scripts/make_train_step_fixtures.py`; `tests/nn_fixtures.rs`, `tests/nn_layers.rs`,
//! `tests/nn_train_step.rs`).
//!
//! A whole training step is one computation: `value_and_grad(loss, w, .., argnums = [..])`
//! inside a body differentiates another computation, and the optimizer updates follow in
//! the same graph (see `examples/char_lstm.rs` and the `#[computation]` documentation).
//!
//! Inside a `#[computation]` of any crate, `nn::dense(x, w, b)` (or `xla::nn::dense(..)`)
//! calls the layer: it is instantiated at the sizes of its arguments, like any generic
//! callee, and gradients go through it.
//!
//! ```
//! // A batch of 2 rows of 3 features, through a 3 → 2 dense layer.
//! let x = [1.0f32, 2.0, 3.0, 0.0, 0.0, 1.0];
//! let w = [1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0];
//! let y = xla::nn::dense::call::<2, 3, 2>(&x, &w, &[0.5, -0.5])?;
//! assert_eq!(y, vec![4.5, 4.5, 1.5, 0.5]);
//! # Ok::<(), xla::nn::dense::Error>(())
//! ```

// The computations of `xla-dsl/nn/*.rs`, each expanded by `#[computation]` into a module
// here (`xla::nn::dense`, ...); the same sources are what a computation calling
// `nn::dense(..)` instantiates.
xla_macros::__nn!();

#[cfg(feature = "train")]
pub mod init;
