"""Fixtures for the general convolutions and pooling of xla::nn (xla-dsl/nn/conv.rs),
tested by tests/nn_conv.rs: flax nn.Conv with strides, explicit or SAME padding, kernel
dilation and feature groups (NHWC), jax.lax.conv_general_dilated for NCHW/OIHW, and
flax nn.max_pool / nn.avg_pool with a window, stride and padding. Values, and the
gradients of `sum(y * r)` for a fixed random `r` w.r.t. the input and the kernel, each
layer at two sizes. Writes testdata/nn/<name>.txt (scripts/nn_fixture_io.py).
Usage: python3 scripts/make_nn_conv_fixtures.py"""
import jax
import jax.numpy as jnp
import numpy as np
import flax.linen as nn

from nn_fixture_io import write

jax.config.update("jax_platforms", "cpu")
rng = np.random.default_rng(1307)


def normal(*shape, scale=1.0):
    return (rng.normal(size=shape) * scale).astype(np.float32)


def probe(name, f, x, k):
    """y = f(x, k), and the gradients of sum(y * r) w.r.t. x and k (k may be None)."""
    y = f(x, k)
    r = normal(*y.shape)
    loss = lambda x, k: (f(x, k) * r).sum()
    arrays = [("x", x), ("r", r), ("y", y), ("loss", loss(x, k))]
    if k is None:
        arrays.append(("g_x", jax.grad(loss)(x, k)))
    else:
        gx, gk = jax.grad(loss, argnums=(0, 1))(x, k)
        arrays += [("k", k), ("g_x", gx), ("g_k", gk)]
    write(name, arrays)


def flax_conv(kh, kw, o, s, padding, d, groups=1):
    conv = nn.Conv(o, (kh, kw), strides=s, padding=padding, kernel_dilation=d,
                   feature_group_count=groups, use_bias=False)
    return lambda x, k: conv.apply({"params": {"kernel": k}}, x)


def conv2d(tag, b, h, w, c, kh, kw, o, s, p, d):
    f = flax_conv(kh, kw, o, s, ((p, p), (p, p)), d)
    probe(f"conv2d_{tag}", f, normal(b, h, w, c), normal(kh, kw, c, o, scale=0.5))


def conv2d_same(tag, b, h, w, c, kh, kw, o, s, d):
    f = flax_conv(kh, kw, o, s, "SAME", d)
    probe(f"conv2d_same_{tag}", f, normal(b, h, w, c), normal(kh, kw, c, o, scale=0.5))


def conv2d_grouped(tag, b, h, w, kh, kw, i, s, p, d, g, m):
    f = flax_conv(kh, kw, g * m, s, ((p, p), (p, p)), d, groups=g)
    probe(f"conv2d_grouped_{tag}", f, normal(b, h, w, g * i), normal(kh, kw, i, g * m, scale=0.5))


def conv2d_nchw(tag, b, c, h, w, o, kh, kw, s, padding, d):
    f = lambda x, k: jax.lax.conv_general_dilated(
        x, k, (s, s), padding, rhs_dilation=(d, d), dimension_numbers=("NCHW", "OIHW", "NCHW"))
    probe(f"conv2d_nchw_{tag}", f, normal(b, c, h, w), normal(o, c, kh, kw, scale=0.5))


def pool(kind, tag, b, h, w, c, k, s, padding):
    op = nn.max_pool if kind == "max" else nn.avg_pool
    f = lambda x, _k: op(x, (k, k), (s, s), padding)
    probe(f"{kind}_pool_{tag}", f, normal(b, h, w, c), None)


def main():
    # conv2d::<S, P, D>: stride 2, padding 1, dilation 2 with a 3x2 kernel, at two sizes;
    # and a VALID (P = 0) stride-1 one.
    conv2d("s2p1d2_2x9x7", 2, 9, 7, 3, 3, 2, 4, 2, 1, 2)
    conv2d("s2p1d2_1x6x8", 1, 6, 8, 3, 3, 2, 4, 2, 1, 2)
    conv2d("s1p0d1_2x5x5", 2, 5, 5, 2, 3, 3, 3, 1, 0, 1)
    # conv2d_same::<S, D>: stride 2 with a 3x3 kernel; an even 2x2 kernel dilated by 2
    # (asymmetric padding).
    conv2d_same("s2d1_2x7x6", 2, 7, 6, 3, 3, 3, 4, 2, 1)
    conv2d_same("s2d1_1x4x5", 1, 4, 5, 3, 3, 3, 4, 2, 1)
    conv2d_same("s1d2_2x5x4", 2, 5, 4, 2, 2, 2, 3, 1, 2)
    # conv2d_grouped::<S, P, D, G, M>: 2 groups of 2 channels, 3 filters each; depthwise
    # (3 groups of 1 channel, 2 filters each) with stride 2.
    conv2d_grouped("s1p1d1g2m3_2x5x4", 2, 5, 4, 3, 3, 2, 1, 1, 1, 2, 3)
    conv2d_grouped("s2p0d1g3m2_1x7x6", 1, 7, 6, 3, 3, 1, 2, 0, 1, 3, 2)
    # conv2d_nchw_padded::<S, P, D> and conv2d_nchw_same::<S, D>.
    conv2d_nchw("padded_s2p1d1_2x8x7", 2, 3, 8, 7, 4, 3, 3, 2, ((1, 1), (1, 1)), 1)
    conv2d_nchw("padded_s2p1d1_1x5x6", 1, 3, 5, 6, 4, 3, 3, 2, ((1, 1), (1, 1)), 1)
    conv2d_nchw("same_s2d2_2x7x6", 2, 3, 7, 6, 2, 3, 3, 2, "SAME", 2)
    # Pooling: 3x3 windows, stride 2, padding 1 (explicit) and SAME.
    for kind in ("max", "avg"):
        pool(kind, "k3s2p1_2x7x6", 2, 7, 6, 3, 3, 2, ((1, 1), (1, 1)))
        pool(kind, "k3s2p1_1x5x8", 1, 5, 8, 3, 3, 2, ((1, 1), (1, 1)))
        pool(kind, "same_k3s2_2x7x6", 2, 7, 6, 3, 3, 2, "SAME")
        pool(kind, "same_k2s2_1x5x5", 1, 5, 5, 2, 2, 2, "SAME")


if __name__ == "__main__":
    main()
