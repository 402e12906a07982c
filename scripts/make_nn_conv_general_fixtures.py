"""Fixtures for the per-axis convolution and pooling of xla::nn (conv2d_general,
max_pool_general, avg_pool_general in xla-dsl/nn/conv.rs), tested by
tests/nn_conv_general.rs: flax nn.Conv with strides (SH, SW), padding ((PT, PB), (PL, PR))
and kernel_dilation (DH, DW); flax nn.max_pool / nn.avg_pool with a (KH, KW) window,
(SH, SW) strides and ((PT, PB), (PL, PR)) padding. Values and the gradients of
`sum(y * r)` (fixed random r) w.r.t. the input and the kernel, each at two sizes.
Writes testdata/nn/<name>.txt (scripts/nn_fixture_io.py).
Usage: python3 scripts/make_nn_conv_general_fixtures.py"""
import jax
import numpy as np
import flax.linen as nn

from make_nn_conv_fixtures import normal, probe

jax.config.update("jax_platforms", "cpu")


def conv2d_general(tag, b, h, w, c, kh, kw, o, strides, padding, dilation):
    conv = nn.Conv(o, (kh, kw), strides=strides, padding=padding,
                   kernel_dilation=dilation, use_bias=False)
    f = lambda x, k: conv.apply({"params": {"kernel": k}}, x)
    probe(f"conv2d_general_{tag}", f, normal(b, h, w, c), normal(kh, kw, c, o, scale=0.5))


def pool_general(kind, tag, b, h, w, c, window, strides, padding):
    op = nn.max_pool if kind == "max" else nn.avg_pool
    f = lambda x, _k: op(x, window, strides, padding)
    probe(f"{kind}_pool_general_{tag}", f, normal(b, h, w, c), None)


# conv2d_general::<SH, SW, PT, PB, PL, PR, DH, DW>: a 3x2 kernel, strides (2, 1),
# padding ((1, 2), (0, 1)), dilation (1, 2), at two sizes.
for size in [(2, 9, 7), (1, 6, 8)]:
    b, h, w = size
    conv2d_general(f"s21_p1201_d12_{b}x{h}x{w}", b, h, w, 3, 3, 2, 4, (2, 1),
                   ((1, 2), (0, 1)), (1, 2))
# max/avg_pool_general::<KH, KW, SH, SW, PT, PB, PL, PR>: a 3x2 window, strides (1, 2),
# padding ((0, 1), (1, 0)), at two sizes.
for kind in ("max", "avg"):
    for size in [(2, 7, 6), (1, 5, 8)]:
        b, h, w = size
        pool_general(kind, f"k32_s12_p0110_{b}x{h}x{w}", b, h, w, 3, (3, 2), (1, 2),
                     ((0, 1), (1, 0)))
