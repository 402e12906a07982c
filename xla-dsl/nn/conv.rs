//! Convolutions and pooling of `xla::nn` with a stride, a padding and a dilation given as
//! integer sizes: `nn::conv2d::<S, P, D>(x, k)` in a computation, `conv2d::apply::<S, P,
//! D>(x, k)` from Rust. The sizes the arguments' shapes give (batch, image, channels,
//! kernel) are read from them; the integers no shape gives (stride `S`, padding `P`,
//! dilation `D`, window `K`, groups `G`, ...) come in the turbofish, in declaration order.
//! The output dims are written with Rust's `usize` arithmetic (`/` rounds down, nothing
//! negative on the way): XLA's `(H + 2P - D(K - 1) - 1) / S + 1` for an explicit padding,
//! `(H + S - 1) / S` (the ceiling of `H / S`) for `SAME`. A kernel or window larger than
//! the padded image is an error at instantiation naming the sizes.
//! (Read by xla-dsl as text, like `layers.rs`.)

/// A 2-D convolution of `B` NHWC images (`H`×`W`, `C` channels) with an HWIO kernel
/// (`KH`×`KW`, `O` filters), stride `S` on both axes, `P` zeros padded on every side
/// (`P = 0`: `VALID`) and the kernel dilated by `D` (flax's `nn.Conv(O, (KH, KW),
/// strides=S, padding=((P, P), (P, P)), kernel_dilation=D, use_bias=False)`).
///
/// ```
/// use xla::Literal;
/// // One 3×3 image of one channel, 1..9 row by row.
/// let x = Literal::from_vec(&[1, 3, 3, 1], (1..=9).map(|v| v as f32).collect())?;
/// // A 2×2 kernel of ones: each output is the sum of a window.
/// let k = Literal::from_vec(&[2, 2, 1, 1], vec![1.0f32; 4])?;
/// // Stride 1, no padding (VALID), no dilation: the four 2×2 windows.
/// let y = xla::nn::conv2d::apply::<1, 0, 1>(x.clone(), k.clone())?;
/// assert_eq!(y.shape().dims(), [1, 2, 2, 1]);
/// assert_eq!(y.data::<f32>(), Some(&[12.0, 16.0, 24.0, 28.0][..]));
/// // Stride 2 with a zero padded on every side: windows from rows and columns -1 and 1.
/// let y = xla::nn::conv2d::apply::<2, 1, 1>(x.clone(), k.clone())?;
/// assert_eq!(y.data::<f32>(), Some(&[1.0, 5.0, 11.0, 28.0][..]));
/// // Dilation 2: the kernel's taps land on the four corners.
/// let y = xla::nn::conv2d::apply::<1, 0, 2>(x, k)?;
/// assert_eq!(y.data::<f32>(), Some(&[20.0][..]));
/// # Ok::<(), xla::nn::conv2d::Error>(())
/// ```
#[computation]
pub fn conv2d<
    const B: usize,
    const H: usize,
    const W: usize,
    const C: usize,
    const KH: usize,
    const KW: usize,
    const O: usize,
    const S: usize,
    const P: usize,
    const D: usize,
>(
    x: Tensor<f32, B, H, W, C>,
    k: Tensor<f32, KH, KW, C, O>,
) -> Tensor<
    f32,
    B,
    { (H + 2 * P - D * (KH - 1) - 1) / S + 1 },
    { (W + 2 * P - D * (KW - 1) - 1) / S + 1 },
    O,
> {
    x.conv_general(
        k,
        strides = [S, S],
        padding = [(P, P), (P, P)],
        rhs_dilation = [D, D],
        dimension_numbers = "b01f_01io->b01f",
    )
}

/// [`conv2d`] with `SAME` padding: `ceil(H / S)` × `ceil(W / S)` outputs, the padding split
/// as XLA and flax split it (the extra row or column at the end) (flax's `nn.Conv(O,
/// (KH, KW), strides=S, padding="SAME", kernel_dilation=D, use_bias=False)`).
///
/// ```
/// use xla::Literal;
/// // One 3×3 image of one channel, 1..9 row by row.
/// let x = Literal::from_vec(&[1, 3, 3, 1], (1..=9).map(|v| v as f32).collect())?;
/// // A 3×3 kernel of ones: each output sums the neighbourhood, zeros outside.
/// let k = Literal::from_vec(&[3, 3, 1, 1], vec![1.0f32; 9])?;
/// let y = xla::nn::conv2d_same::apply::<1, 1>(x.clone(), k.clone())?; // stride 1
/// let sums = [12.0, 21.0, 16.0, 27.0, 45.0, 33.0, 24.0, 39.0, 28.0];
/// assert_eq!(y.data::<f32>(), Some(&sums[..]));
/// // Stride 2: ceil(3 / 2) = 2 outputs per axis, centred on the corners.
/// let y = xla::nn::conv2d_same::apply::<2, 1>(x, k)?;
/// assert_eq!(y.data::<f32>(), Some(&[12.0, 16.0, 24.0, 28.0][..]));
/// # Ok::<(), xla::nn::conv2d_same::Error>(())
/// ```
#[computation]
pub fn conv2d_same<
    const B: usize,
    const H: usize,
    const W: usize,
    const C: usize,
    const KH: usize,
    const KW: usize,
    const O: usize,
    const S: usize,
    const D: usize,
>(
    x: Tensor<f32, B, H, W, C>,
    k: Tensor<f32, KH, KW, C, O>,
) -> Tensor<f32, B, { (H + S - 1) / S }, { (W + S - 1) / S }, O> {
    x.conv_general(
        k,
        strides = [S, S],
        padding = SAME,
        rhs_dilation = [D, D],
        dimension_numbers = "b01f_01io->b01f",
    )
}

/// A grouped 2-D convolution of NHWC images: the `G·I` channels split into `G` groups of
/// `I`, each convolved with its own `M` of the `G·M` filters of an HWIO kernel
/// `[KH, KW, I, G·M]` (flax's `nn.Conv(G·M, (KH, KW), strides=S, padding=((P, P), (P, P)),
/// kernel_dilation=D, feature_group_count=G, use_bias=False)`; depthwise: `I = 1`, `G = C`).
///
/// ```
/// use xla::Literal;
/// // Depthwise: one pixel of 2 channels, each scaled by its own 1×1 filter (G = 2, M = 1).
/// let x = Literal::from_vec(&[1, 1, 1, 2], vec![1.0f32, 2.0])?;
/// let k = Literal::from_vec(&[1, 1, 1, 2], vec![10.0f32, 100.0])?;
/// let y = xla::nn::conv2d_grouped::apply::<1, 0, 1, 2, 1>(x, k)?;
/// assert_eq!(y.data::<f32>(), Some(&[10.0, 200.0][..]));
/// # Ok::<(), xla::nn::conv2d_grouped::Error>(())
/// ```
#[computation]
pub fn conv2d_grouped<
    const B: usize,
    const H: usize,
    const W: usize,
    const KH: usize,
    const KW: usize,
    const I: usize,
    const S: usize,
    const P: usize,
    const D: usize,
    const G: usize,
    const M: usize,
>(
    x: Tensor<f32, B, H, W, { G * I }>,
    k: Tensor<f32, KH, KW, I, { G * M }>,
) -> Tensor<
    f32,
    B,
    { (H + 2 * P - D * (KH - 1) - 1) / S + 1 },
    { (W + 2 * P - D * (KW - 1) - 1) / S + 1 },
    { G * M },
> {
    x.conv_general(
        k,
        strides = [S, S],
        padding = [(P, P), (P, P)],
        rhs_dilation = [D, D],
        feature_group_count = G,
        dimension_numbers = "b01f_01io->b01f",
    )
}

/// [`conv2d`] on NCHW images with an OIHW kernel (`jax.lax.conv_general_dilated` with
/// `("NCHW", "OIHW", "NCHW")`): `f32[B, O, OH, OW]`.
///
/// ```
/// use xla::Literal;
/// // One 3×3 image of one channel, 1..9 row by row.
/// let x = Literal::from_vec(&[1, 1, 3, 3], (1..=9).map(|v| v as f32).collect())?;
/// let k = Literal::from_vec(&[1, 1, 2, 2], vec![1.0f32; 4])?; // OIHW, ones
/// let y = xla::nn::conv2d_nchw_padded::apply::<1, 0, 1>(x.clone(), k.clone())?;
/// assert_eq!(y.data::<f32>(), Some(&[12.0, 16.0, 24.0, 28.0][..]));
/// // Stride 2, one zero padded on every side.
/// let y = xla::nn::conv2d_nchw_padded::apply::<2, 1, 1>(x, k)?;
/// assert_eq!(y.data::<f32>(), Some(&[1.0, 5.0, 11.0, 28.0][..]));
/// # Ok::<(), xla::nn::conv2d_nchw_padded::Error>(())
/// ```
#[computation]
pub fn conv2d_nchw_padded<
    const B: usize,
    const C: usize,
    const H: usize,
    const W: usize,
    const O: usize,
    const KH: usize,
    const KW: usize,
    const S: usize,
    const P: usize,
    const D: usize,
>(
    x: Tensor<f32, B, C, H, W>,
    k: Tensor<f32, O, C, KH, KW>,
) -> Tensor<
    f32,
    B,
    O,
    { (H + 2 * P - D * (KH - 1) - 1) / S + 1 },
    { (W + 2 * P - D * (KW - 1) - 1) / S + 1 },
> {
    x.conv_general(
        k,
        strides = [S, S],
        padding = [(P, P), (P, P)],
        rhs_dilation = [D, D],
    )
}

/// [`conv2d_same`] on NCHW images with an OIHW kernel.
///
/// ```
/// use xla::Literal;
/// // One 3×3 image of one channel, 1..9 row by row.
/// let x = Literal::from_vec(&[1, 1, 3, 3], (1..=9).map(|v| v as f32).collect())?;
/// let k = Literal::from_vec(&[1, 1, 3, 3], vec![1.0f32; 9])?; // OIHW, ones
/// // Stride 2, dilation 1: 2×2 outputs, each the sum of a corner's neighbourhood.
/// let y = xla::nn::conv2d_nchw_same::apply::<2, 1>(x, k)?;
/// assert_eq!(y.shape().dims(), [1, 1, 2, 2]);
/// assert_eq!(y.data::<f32>(), Some(&[12.0, 16.0, 24.0, 28.0][..]));
/// # Ok::<(), xla::nn::conv2d_nchw_same::Error>(())
/// ```
#[computation]
pub fn conv2d_nchw_same<
    const B: usize,
    const C: usize,
    const H: usize,
    const W: usize,
    const O: usize,
    const KH: usize,
    const KW: usize,
    const S: usize,
    const D: usize,
>(
    x: Tensor<f32, B, C, H, W>,
    k: Tensor<f32, O, C, KH, KW>,
) -> Tensor<f32, B, O, { (H + S - 1) / S }, { (W + S - 1) / S }> {
    x.conv_general(k, strides = [S, S], padding = SAME, rhs_dilation = [D, D])
}

/// Max pooling of NHWC images over `K`×`K` windows, stride `S`, `P` padded on every side
/// with the lowest value (flax's `nn.max_pool(x, (K, K), (S, S), ((P, P), (P, P)))`;
/// `P = 0`: `VALID`).
///
/// ```
/// use xla::Literal;
/// // One 3×3 image of one channel, 1..9 row by row.
/// let x = Literal::from_vec(&[1, 3, 3, 1], (1..=9).map(|v| v as f32).collect())?;
/// // 2×2 windows, stride 1, no padding.
/// let y = xla::nn::max_pool::apply::<2, 1, 0>(x.clone())?;
/// assert_eq!(y.data::<f32>(), Some(&[5.0, 6.0, 8.0, 9.0][..]));
/// // 3×3 windows, stride 1, padded by 1: the maximum of each neighbourhood.
/// let y = xla::nn::max_pool::apply::<3, 1, 1>(x)?;
/// let maxima = [5.0, 6.0, 6.0, 8.0, 9.0, 9.0, 8.0, 9.0, 9.0];
/// assert_eq!(y.data::<f32>(), Some(&maxima[..]));
/// # Ok::<(), xla::nn::max_pool::Error>(())
/// ```
#[computation]
pub fn max_pool<
    const B: usize,
    const H: usize,
    const W: usize,
    const C: usize,
    const K: usize,
    const S: usize,
    const P: usize,
>(
    x: Tensor<f32, B, H, W, C>,
) -> Tensor<f32, B, { (H + 2 * P - K) / S + 1 }, { (W + 2 * P - K) / S + 1 }, C> {
    x.max_pool([1, K, K, 1], [1, S, S, 1], [(0, 0), (P, P), (P, P), (0, 0)])
}

/// Average pooling of NHWC images over `K`×`K` windows, stride `S`, `P` zeros padded on
/// every side and counted in the average (flax's `nn.avg_pool(x, (K, K), (S, S),
/// ((P, P), (P, P)))`, whose `count_include_pad` is true).
///
/// ```
/// use xla::Literal;
/// // One 3×3 image of one channel, 1..9 row by row.
/// let x = Literal::from_vec(&[1, 3, 3, 1], (1..=9).map(|v| v as f32).collect())?;
/// let y = xla::nn::avg_pool::apply::<2, 1, 0>(x.clone())?;
/// assert_eq!(y.data::<f32>(), Some(&[3.0, 4.0, 6.0, 7.0][..]));
/// // Stride 2, padded by 1: the padded zeros count (the first window holds only 1).
/// let y = xla::nn::avg_pool::apply::<2, 2, 1>(x)?;
/// assert_eq!(y.data::<f32>(), Some(&[0.25, 1.25, 2.75, 7.0][..]));
/// # Ok::<(), xla::nn::avg_pool::Error>(())
/// ```
#[computation]
pub fn avg_pool<
    const B: usize,
    const H: usize,
    const W: usize,
    const C: usize,
    const K: usize,
    const S: usize,
    const P: usize,
>(
    x: Tensor<f32, B, H, W, C>,
) -> Tensor<f32, B, { (H + 2 * P - K) / S + 1 }, { (W + 2 * P - K) / S + 1 }, C> {
    x.avg_pool([1, K, K, 1], [1, S, S, 1], [(0, 0), (P, P), (P, P), (0, 0)])
}

/// [`max_pool`] with `SAME` padding: `ceil(H / S)` × `ceil(W / S)` windows (flax's
/// `nn.max_pool(x, (K, K), (S, S), "SAME")`).
///
/// ```
/// use xla::Literal;
/// // One 3×3 image of one channel, 1..9 row by row.
/// let x = Literal::from_vec(&[1, 3, 3, 1], (1..=9).map(|v| v as f32).collect())?;
/// // 2×2 windows, stride 2: ceil(3 / 2) = 2 per axis, the padding at the end.
/// let y = xla::nn::max_pool_same::apply::<2, 2>(x)?;
/// assert_eq!(y.data::<f32>(), Some(&[5.0, 6.0, 8.0, 9.0][..]));
/// # Ok::<(), xla::nn::max_pool_same::Error>(())
/// ```
#[computation]
pub fn max_pool_same<
    const B: usize,
    const H: usize,
    const W: usize,
    const C: usize,
    const K: usize,
    const S: usize,
>(
    x: Tensor<f32, B, H, W, C>,
) -> Tensor<f32, B, { (H + S - 1) / S }, { (W + S - 1) / S }, C> {
    x.max_pool([1, K, K, 1], [1, S, S, 1], SAME)
}

/// [`avg_pool`] with `SAME` padding, the padded zeros counted (flax's `nn.avg_pool(x,
/// (K, K), (S, S), "SAME")`).
///
/// ```
/// use xla::Literal;
/// // One 3×3 image of one channel, 1..9 row by row.
/// let x = Literal::from_vec(&[1, 3, 3, 1], (1..=9).map(|v| v as f32).collect())?;
/// // 2×2 windows, stride 2, the padding at the end counted: (3 + 6) / 4 = 2.25, ...
/// let y = xla::nn::avg_pool_same::apply::<2, 2>(x)?;
/// assert_eq!(y.data::<f32>(), Some(&[3.0, 2.25, 3.75, 2.25][..]));
/// # Ok::<(), xla::nn::avg_pool_same::Error>(())
/// ```
#[computation]
pub fn avg_pool_same<
    const B: usize,
    const H: usize,
    const W: usize,
    const C: usize,
    const K: usize,
    const S: usize,
>(
    x: Tensor<f32, B, H, W, C>,
) -> Tensor<f32, B, { (H + S - 1) / S }, { (W + S - 1) / S }, C> {
    x.avg_pool([1, K, K, 1], [1, S, S, 1], SAME)
}

/// A 2-D convolution of NHWC images with an HWIO kernel, everything per axis: strides
/// `SH`×`SW`, `PT`/`PB` rows padded at the top/bottom and `PL`/`PR` columns at the
/// left/right, the kernel dilated by `DH`×`DW` (flax's `nn.Conv(O, (KH, KW), strides=(SH,
/// SW), padding=((PT, PB), (PL, PR)), kernel_dilation=(DH, DW), use_bias=False)`).
///
/// ```
/// use xla::Literal;
/// // One 3×3 image of one channel, 1..9 row by row.
/// let x = Literal::from_vec(&[1, 3, 3, 1], (1..=9).map(|v| v as f32).collect())?;
/// let k = Literal::from_vec(&[2, 2, 1, 1], vec![1.0f32; 4])?; // ones
/// // Strides 1×2, one row of zeros at the top only, no dilation: 3×1 outputs.
/// let y = xla::nn::conv2d_general::apply::<1, 2, 1, 0, 0, 0, 1, 1>(x, k)?;
/// assert_eq!(y.shape().dims(), [1, 3, 1, 1]);
/// assert_eq!(y.data::<f32>(), Some(&[3.0, 12.0, 24.0][..]));
/// # Ok::<(), xla::nn::conv2d_general::Error>(())
/// ```
#[computation]
pub fn conv2d_general<
    const B: usize,
    const H: usize,
    const W: usize,
    const C: usize,
    const KH: usize,
    const KW: usize,
    const O: usize,
    const SH: usize,
    const SW: usize,
    const PT: usize,
    const PB: usize,
    const PL: usize,
    const PR: usize,
    const DH: usize,
    const DW: usize,
>(
    x: Tensor<f32, B, H, W, C>,
    k: Tensor<f32, KH, KW, C, O>,
) -> Tensor<
    f32,
    B,
    { (H + PT + PB - DH * (KH - 1) - 1) / SH + 1 },
    { (W + PL + PR - DW * (KW - 1) - 1) / SW + 1 },
    O,
> {
    x.conv_general(
        k,
        strides = [SH, SW],
        padding = [(PT, PB), (PL, PR)],
        rhs_dilation = [DH, DW],
        dimension_numbers = "b01f_01io->b01f",
    )
}

/// Max pooling of NHWC images over `KH`×`KW` windows, strides `SH`×`SW`, `PT`/`PB` rows
/// and `PL`/`PR` columns padded with the lowest value (flax's `nn.max_pool(x, (KH, KW),
/// (SH, SW), ((PT, PB), (PL, PR)))`).
///
/// ```
/// use xla::Literal;
/// // One 3×3 image of one channel, 1..9 row by row.
/// let x = Literal::from_vec(&[1, 3, 3, 1], (1..=9).map(|v| v as f32).collect())?;
/// // 1×3 windows, stride 1, no padding: the maximum of each row.
/// let y = xla::nn::max_pool_general::apply::<1, 3, 1, 1, 0, 0, 0, 0>(x)?;
/// assert_eq!(y.data::<f32>(), Some(&[3.0, 6.0, 9.0][..]));
/// # Ok::<(), xla::nn::max_pool_general::Error>(())
/// ```
#[computation]
pub fn max_pool_general<
    const B: usize,
    const H: usize,
    const W: usize,
    const C: usize,
    const KH: usize,
    const KW: usize,
    const SH: usize,
    const SW: usize,
    const PT: usize,
    const PB: usize,
    const PL: usize,
    const PR: usize,
>(
    x: Tensor<f32, B, H, W, C>,
) -> Tensor<f32, B, { (H + PT + PB - KH) / SH + 1 }, { (W + PL + PR - KW) / SW + 1 }, C> {
    x.max_pool(
        [1, KH, KW, 1],
        [1, SH, SW, 1],
        [(0, 0), (PT, PB), (PL, PR), (0, 0)],
    )
}

/// Average pooling of NHWC images over `KH`×`KW` windows, strides `SH`×`SW`, `PT`/`PB`
/// rows and `PL`/`PR` columns of zeros padded and counted in the average (flax's
/// `nn.avg_pool(x, (KH, KW), (SH, SW), ((PT, PB), (PL, PR)))`).
///
/// ```
/// use xla::Literal;
/// // One 3×3 image of one channel, 1..9 row by row.
/// let x = Literal::from_vec(&[1, 3, 3, 1], (1..=9).map(|v| v as f32).collect())?;
/// // 2×1 windows, stride 1, no padding: the mean of two rows, column by column.
/// let y = xla::nn::avg_pool_general::apply::<2, 1, 1, 1, 0, 0, 0, 0>(x)?;
/// assert_eq!(y.data::<f32>(), Some(&[2.5, 3.5, 4.5, 5.5, 6.5, 7.5][..]));
/// # Ok::<(), xla::nn::avg_pool_general::Error>(())
/// ```
#[computation]
pub fn avg_pool_general<
    const B: usize,
    const H: usize,
    const W: usize,
    const C: usize,
    const KH: usize,
    const KW: usize,
    const SH: usize,
    const SW: usize,
    const PT: usize,
    const PB: usize,
    const PL: usize,
    const PR: usize,
>(
    x: Tensor<f32, B, H, W, C>,
) -> Tensor<f32, B, { (H + PT + PB - KH) / SH + 1 }, { (W + PL + PR - KW) / SW + 1 }, C> {
    x.avg_pool(
        [1, KH, KW, 1],
        [1, SH, SW, 1],
        [(0, 0), (PT, PB), (PL, PR), (0, 0)],
    )
}
