#!/usr/bin/env python3
"""Writes testdata/vmap/<case>/: fixtures for the batching transform from `jax.vmap`.

Each case is a function `f` of ONE example (its HLO module, lowered by JAX 0.10.2, is
`module.hlo`), `meta.json` with `in_axes`, `out_axes`, `size` (and `grad`: parameter
numbers to differentiate first, for per-example gradients), the batched inputs
`in0.npy, in1.npy, ...` and `jax.vmap(f, in_axes, out_axes)`'s outputs `out0.npy, ...`
(tuple results flattened). The Rust test `xla-autodiff/tests/vmap_jax.rs` batches
`module.hlo` with our vmap, runs it and compares.

Run: python3 scripts/make_vmap_cases.py   (from the repository root)
"""
import json
import os
import shutil
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "vmap")
rng = np.random.default_rng(14)
f32 = np.float32


def normal(*shape, dtype=f32):
    return rng.standard_normal(shape).astype(dtype)


def example_of(x, axis):
    """One example of a batched input (what f sees)."""
    return x if axis is None else np.take(x, 0, axis=axis)


def lane(x, axis, j):
    return x if axis is None else np.take(x, j, axis=axis)


def check_hand_written(text, f, batched, in_axes, size, tol):
    """A hand-written module must be `f`: real XLA runs it on every lane's example."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from real_xla import run_on_xla
    for j in range(size):
        ex = [lane(x, a, j) for x, a in zip(batched, in_axes)]
        got = run_on_xla(text, ex)
        want = [np.asarray(y) for y in jax.tree_util.tree_leaves(f(*[jnp.asarray(x) for x in ex]))]
        assert len(got) == len(want), (len(got), len(want))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=max(tol[0], 1e-6), atol=max(tol[1], 1e-6))


def save(name, f, batched, in_axes, out_axes=0, grad=None, tol=(1e-5, 1e-5), hlo=None):
    d = os.path.join(OUT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    examples = [example_of(x, a) for x, a in zip(batched, in_axes)]
    size = next(x.shape[a] for x, a in zip(batched, in_axes) if a is not None)
    if hlo is not None:
        check_hand_written(hlo, f, batched, in_axes, size, tol)
    text = hlo if hlo is not None else jax.jit(f).lower(*[jnp.asarray(x) for x in examples]).as_text(dialect="hlo")
    with open(os.path.join(d, "module.hlo"), "w") as fh:
        fh.write(text)
    g = jax.grad(f, argnums=tuple(grad)) if grad is not None else f
    outs = jax.vmap(g, in_axes=tuple(in_axes), out_axes=out_axes)(*[jnp.asarray(x) for x in batched])
    leaves = jax.tree_util.tree_leaves(outs)
    for i, x in enumerate(batched):
        np.save(os.path.join(d, f"in{i}.npy"), np.asarray(x))
    for i, y in enumerate(leaves):
        np.save(os.path.join(d, f"out{i}.npy"), np.asarray(y))
    n_out = len(leaves) if isinstance(outs, (tuple, list)) else 1
    oa = out_axes if isinstance(out_axes, (list, tuple)) else [out_axes]
    meta = {"in_axes": list(in_axes), "out_axes": list(oa), "size": size,
            "rtol": tol[0], "atol": tol[1], "results": n_out}
    if grad is not None:
        meta["grad"] = list(grad)
    with open(os.path.join(d, "meta.json"), "w") as fh:
        json.dump(meta, fh, indent=1)
    print(name, [np.asarray(x).shape for x in batched], "->", [np.shape(y) for y in leaves])


def elementwise():
    save("unary_tanh_exp", lambda x: jnp.tanh(x) * jnp.exp(-x * x), [normal(4, 3)], [0])
    save("binary_unbatched_operand", lambda x, y: x * y + jnp.maximum(x, y) - y / 3,
         [normal(3, 5), normal(3)], [1, None])
    save("compare_select_clamp",
         lambda x, y: jnp.where(x > y, jnp.clip(x, -0.5, 0.5), lax.clamp(f32(-0.2), y, x.max())),
         [normal(4, 3), normal(3)], [0, None])
    save("convert_int", lambda x, k: (x * 10).astype(jnp.int32) + k, [normal(5, 2), np.arange(5, dtype=np.int32)], [0, 0])
    save("clamp_batched_bounds", lambda lo, x: lax.clamp(lo, x, lo + 1.0), [normal(4), normal(4, 3)], [0, 0])
    save("out_axis_1", lambda x, y: (x + y, x.sum()), [normal(4, 3), normal(3)], [0, None], out_axes=(1, 0))


def structural():
    save("broadcast_reshape_transpose",
         lambda x: jnp.transpose(jnp.broadcast_to(x.reshape(2, 3), (4, 2, 3)), (2, 0, 1)).reshape(6, 4),
         [normal(6, 5)], [1])
    save("slice_concat_pad_reverse",
         lambda x, y: jnp.concatenate([x[1:4:2], jnp.pad(y, (1, 2), constant_values=0.5), x[::-1]]),
         [normal(3, 6), normal(2)], [0, None])
    save("iota_constant_meets_batched", lambda x: x + jnp.arange(4, dtype=f32) * 2.0, [normal(3, 4)], [0])
    save("pad_batched_value", lambda x, v: lax.pad(x, v, [(1, 1, 1)]), [normal(3, 4), normal(3)], [0, 0])
    save("tuple_results", lambda x, y: (x * 2, (y + 1, x.sum())), [normal(3, 2), normal(3, 4)], [0, 0])


def indexing():
    save("dynamic_slice_batched_index", lambda x, i: lax.dynamic_slice(x, (i, 1), (2, 2)),
         [normal(4, 5, 4), np.array([0, 3, 1, 9], np.int32)], [0, 0])
    save("dynamic_slice_unbatched_operand", lambda x, i: lax.dynamic_slice(x, (i,), (3,)),
         [normal(6), np.array([0, 2, 5], np.int32)], [None, 0])
    save("dynamic_update_slice_batched", lambda x, u, i: lax.dynamic_update_slice(x, u, (i, 0)),
         [normal(3, 4, 2), normal(3, 2, 2), np.array([1, -1, 3], np.int32)], [0, 0, 0])
    save("dynamic_update_slice_static_index", lambda x, u: lax.dynamic_update_slice(x, u, (1,)),
         [normal(5), normal(3, 2)], [None, 0])
    save("gather_batched_operand_and_indices", lambda x, idx: x[idx],
         [normal(3, 5, 2), np.array([[0, 4], [2, 2], [1, 3]], np.int32)], [0, 0])
    save("gather_batched_operand", lambda x, idx: x[idx],
         [normal(5, 3), np.array([1, 0, 4], np.int32)], [1, None])
    save("gather_batched_indices", lambda x, idx: x[idx],
         [normal(5, 2), np.array([[1, 0], [4, 4], [2, 3]], np.int32)], [None, 0])
    save("scatter_add_all_batched", lambda x, idx, u: x.at[idx].add(u),
         [normal(3, 5), np.array([[0, 0], [1, 4], [2, 2]], np.int32), normal(3, 2)], [0, 0, 0])
    save("scatter_batched_updates", lambda x, idx, u: x.at[idx].set(u),
         [normal(5), np.array([1, 3], np.int32), normal(4, 2)], [None, None, 0])
    save("scatter_batched_indices", lambda x, idx, u: x.at[idx].add(u),
         [normal(5), np.array([[1, 3], [0, 0]], np.int32), normal(2)], [None, 0, None])


def contraction():
    save("dot_both_batched", lambda a, b: a @ b, [normal(3, 4, 5), normal(3, 5, 2)], [0, 0])
    save("dot_lhs_batched", lambda a, w: a @ w, [normal(4, 3), normal(4, 2)], [1, None])
    save("dot_rhs_batched", lambda w, b: w @ b, [normal(2, 4), normal(4, 3, 5)], [None, 1])
    save("dot_general_batch_dims",
         lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))),
         [normal(2, 3, 4, 5), normal(3, 5, 2)], [0, None])
    conv = lambda x, k: lax.conv_general_dilated(x, k, (1, 1), "SAME")
    save("conv_batched_input", conv, [normal(3, 2, 1, 6, 6), normal(4, 1, 3, 3)], [0, None], tol=(1e-4, 1e-5))
    save("conv_batched_kernel", conv, [normal(2, 1, 5, 5), normal(3, 2, 1, 3, 3)], [None, 0], tol=(1e-4, 1e-5))
    save("conv_both_batched", conv, [normal(3, 2, 1, 5, 5), normal(3, 2, 1, 3, 3)], [0, 0], tol=(1e-4, 1e-5))


def window():
    save("reduce_sum_max", lambda x: (x.sum(axis=1), x.max(axis=0)), [normal(3, 4, 5)], [0])
    save("reduce_variadic_argmax", lambda x: jnp.argmax(x, axis=1), [normal(4, 3, 6)], [2])
    pool = lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (2, 2), "VALID")
    save("reduce_window_max", pool, [normal(3, 4, 6)], [0])
    save("select_and_scatter_pool_grad", lambda x: jax.grad(lambda y: (pool(y) ** 2).sum())(x),
         [normal(3, 4, 4)], [0])


def linalg_sort():
    save("sort_and_sort_pairs", lambda x, y: (jnp.sort(x), lax.sort((x, y), num_keys=1)[1]),
         [normal(3, 6), normal(3, 6)], [0, 0])
    save("fft", lambda x: jnp.fft.fft(x.astype(jnp.complex64)).real, [normal(3, 8)], [0], tol=(1e-4, 1e-5))
    chol = ("HloModule chol\n\nENTRY main {\n  a = f32[3,3] parameter(0)\n"
            "  at = f32[3,3] transpose(a), dimensions={1,0}\n"
            "  m = f32[3,3] dot(a, at), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
            "  i = f32[3,3] constant({{3,0,0},{0,3,0},{0,0,3}})\n  s = f32[3,3] add(m, i)\n"
            "  l = f32[3,3] cholesky(s), lower=true\n"
            "  b = f32[3,2] parameter(1)\n"
            "  ROOT x = f32[3,2] triangular-solve(l, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE\n}\n")
    def chol_f(a, b):
        s = a @ a.T + 3 * jnp.eye(3, dtype=f32)
        return jax.scipy.linalg.solve_triangular(jnp.linalg.cholesky(s), b, lower=True)
    save("cholesky_triangular_solve", chol_f, [normal(4, 3, 3), normal(3, 2)], [0, None], hlo=chol, tol=(1e-4, 1e-5))


def control():
    def loop(x, n):
        return lax.while_loop(lambda s: s[0] < n, lambda s: (s[0] + 1, s[1] * 1.5 + 1.0), (0, x))[1]
    save("while_trip_counts_differ", loop, [normal(4, 2), np.array([0, 3, 1, 5], np.int32)], [0, 0])
    save("fori_loop_batched_state", lambda x: lax.fori_loop(0, 5, lambda i, s: s * 0.5 + i, x), [normal(3, 2)], [0])
    save("while_state_becomes_batched",
         lambda x: lax.fori_loop(0, 3, lambda i, acc: acc * 0.5 + x, jnp.zeros(2, f32)), [normal(4, 2)], [0])
    save("cond_batched_pred", lambda p, x: lax.cond(p > 0, lambda y: y * 2.0, lambda y: -y, x),
         [normal(4), normal(4, 3)], [0, 0])
    save("cond_unbatched_pred", lambda p, x: lax.cond(p > 0, lambda y: y * 2.0, lambda y: jnp.sin(y), x),
         [np.array(0.5, f32), normal(4, 3)], [None, 0])
    save("switch_batched_index", lambda i, x: lax.switch(i, [lambda y: y + 1, lambda y: y * y, lambda y: -y], x),
         [np.array([0, 1, 2, 7, -1], np.int32), normal(5, 2)], [0, 0])
    save("call_inner_jit", lambda x, y: jax.jit(lambda a, b: a * b + 1)(x, y) * 2, [normal(3, 2), normal(2)], [0, None])


BN_TRAIN = """HloModule bn_train

ENTRY main {
  x = f32[4,3] parameter(0)
  s = f32[3] parameter(1)
  o = f32[3] parameter(2)
  ROOT r = (f32[4,3], f32[3], f32[3]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1
}
"""

BN_INFER = """HloModule bn_infer

ENTRY main {
  x = f32[2,3,4] parameter(0)
  s = f32[3] parameter(1)
  o = f32[3] parameter(2)
  m = f32[3] parameter(3)
  v = f32[3] parameter(4)
  ROOT r = f32[2,3,4] batch-norm-inference(x, s, o, m, v), epsilon=0.01, feature_index=1
}
"""

BN_GRAD = """HloModule bn_grad

ENTRY main {
  x = f32[5,3] parameter(0)
  s = f32[3] parameter(1)
  m = f32[3] parameter(2)
  v = f32[3] parameter(3)
  g = f32[5,3] parameter(4)
  ROOT r = (f32[5,3], f32[3], f32[3]) batch-norm-grad(x, s, m, v, g), epsilon=0.001, feature_index=1
}
"""

MAP = """HloModule map

f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  m = f32[] multiply(a, b)
  s = f32[] sine(a)
  ROOT r = f32[] add(m, s)
}

ENTRY main {
  x = f32[3,4] parameter(0)
  y = f32[3,4] parameter(1)
  ROOT r = f32[3,4] map(x, y), dimensions={0,1}, to_apply=f
}
"""


def bn_train(x, s, o, eps=1e-3):
    mean = x.mean(0)
    var = ((x - mean) ** 2).mean(0)
    return (x - mean) * lax.rsqrt(var + eps) * s + o, mean, var


def bn_infer(x, s, o, m, v, eps=1e-2):
    c = lambda a: a[:, None]
    return (x - c(m)) * lax.rsqrt(c(v) + eps) * c(s) + c(o)


def bn_grad(x, s, m, v, g, eps=1e-3):
    """XLA's batch-norm-grad: the gradient of training-mode normalisation at `m`, `v`."""
    r = lax.rsqrt(v + eps)
    xc = x - m
    grad_scale = (g * xc).sum(0) * r
    grad_offset = g.sum(0)
    dx = s * r * (g - g.mean(0) - xc * (g * xc).mean(0) / (v + eps))
    return dx, grad_scale, grad_offset


def hand_written():
    """Ops JAX never emits (batch-norm, map): a hand-written module and an equivalent jnp `f`;
    `save` runs the module on real XLA per lane first and checks it agrees with `f`."""
    x = normal(3, 4, 3)
    save("batch_norm_training", bn_train, [x.transpose(1, 0, 2), normal(3), normal(3, 3)], [1, None, 0],
         hlo=BN_TRAIN, tol=(1e-4, 1e-5))
    var = np.abs(normal(3, 3)) + 0.5
    save("batch_norm_inference", bn_infer, [normal(3, 2, 3, 4), normal(3), normal(3), normal(3, 3), var],
         [0, None, None, 0, 0], hlo=BN_INFER, tol=(1e-4, 1e-5))
    xs = normal(3, 5, 3)
    ms, vs = xs.mean(1), xs.var(1)
    save("batch_norm_grad", bn_grad, [xs, normal(3), ms, vs, normal(3, 5, 3)], [0, None, 0, 0, 0],
         hlo=BN_GRAD, tol=(1e-4, 1e-5))
    save("batch_norm_grad_shared_operand", bn_grad, [xs[0], normal(3), ms[0], vs[0], normal(5, 3, 3)],
         [None, None, None, None, 2], hlo=BN_GRAD, tol=(1e-4, 1e-5))
    save("map_batched_and_shared", lambda x, y: x * y + jnp.sin(x), [normal(3, 2, 4), normal(3, 4)],
         [1, None], hlo=MAP)
    save("map_both_batched", lambda x, y: x * y + jnp.sin(x), [normal(3, 4, 2), normal(2, 3, 4)],
         [2, 0], hlo=MAP)


def more_families():
    save("top_k_batched_axis_1", lambda x: lax.top_k(x, 3), [normal(4, 3, 6)], [1])
    save("top_k_of_batched_sum", lambda x, y: lax.top_k(x + y, 2), [normal(5), normal(4, 5)], [None, 0])
    special = np.array([[1e6, 3.3e-5, -0.3, 65504.0], [1e-8, 70000.0, np.inf, np.nan],
                        [1.2, 1.25, 1.375, -2.6]], f32)
    save("reduce_precision", lambda x: lax.reduce_precision(x, exponent_bits=5, mantissa_bits=2),
         [special.T.copy()], [1], tol=(0, 0))
    save("reduce_precision_bf16_shared",
         lambda x, y: lax.reduce_precision(x * y, exponent_bits=8, mantissa_bits=7),
         [normal(3, 4), normal(4)], [0, None], tol=(0, 0))
    save("bitcast_convert_f32_s32", lambda x, k: lax.bitcast_convert_type(x, jnp.int32) + k,
         [normal(3, 4), np.arange(4, dtype=np.int32)], [0, None])
    save("bitcast_convert_u32_to_u8", lambda x: lax.bitcast_convert_type(x, jnp.uint8),
         [np.array([[1, 256, 0xDEADBEEF], [7, 0xFFFFFFFF, 65536]], np.uint32)], [1])
    save("optimization_barrier_mixed",
         lambda x, y: (lambda t: t[0] * t[1] + 1)(lax.optimization_barrier((x * 2, y))),
         [normal(3, 4), normal(4)], [0, None])
    save("optimization_barrier_shared_out",
         lambda x, y: lax.optimization_barrier((x + 1, y * 3)),
         [normal(4, 3), normal(2)], [0, None])


def rng_state():
    keys = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [0, 0, 0, 9]], np.uint32)
    save("rng_bit_generator_state_and_bits", lambda k: lax.rng_bit_generator(k, (2, 3), dtype=jnp.uint32),
         [keys], [0])
    save("rng_bit_generator_key_axis_1_threefry",
         lambda k: lax.rng_bit_generator(k, (3,), dtype=jnp.uint32,
                                         algorithm=lax.RandomAlgorithm.RNG_THREE_FRY),
         [keys.T.copy()], [1])
    save("rng_bit_generator_shared_key",
         lambda k, x: (lambda r: (r[0], r[1].astype(f32) * f32(2.0 ** -32) + x))(
             lax.rng_bit_generator(k, (4,), dtype=jnp.uint32)),
         [keys[1], normal(3, 4)], [None, 0])


def rng_ops():
    save("rng_bit_generator_batched_key",
         lambda k: lax.rng_bit_generator(k, (2, 3), dtype=jnp.uint32)[1],
         [np.array([[1, 2, 3, 4], [5, 6, 7, 8], [0, 0, 0, 9]], np.uint32)], [0])


def more_conv():
    dn = ("NCHW", "OIHW", "NCHW")
    grouped = lambda x, k: lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=dn, feature_group_count=2)
    save("conv_grouped_both_batched", grouped, [normal(3, 1, 4, 5, 5), normal(3, 4, 2, 3, 3)], [0, 0], tol=(1e-4, 1e-5))
    save("conv_grouped_kernel_batched", grouped, [normal(1, 4, 5, 5), normal(3, 4, 2, 3, 3)], [None, 0], tol=(1e-4, 1e-5))
    bgroup = lambda x, k: lax.conv_general_dilated(x, k, (1, 1), "VALID", dimension_numbers=dn, batch_group_count=2)
    save("conv_batch_group_both_batched", bgroup, [normal(3, 4, 2, 5, 5), normal(3, 4, 2, 3, 3)], [0, 0], tol=(1e-4, 1e-5))
    nhwc = lambda x, k: lax.conv_general_dilated(x, k, (2, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    save("conv_nhwc_input_batched_axis_2", nhwc, [normal(2, 6, 3, 5, 2), normal(3, 3, 2, 4)], [2, None], tol=(1e-4, 1e-5))


def nested():
    f = lambda x, w: jnp.tanh(x @ w)
    save_nested("nested_vmap", f, [normal(4, 3), normal(2, 3, 5)], [((0, None), 0), ((None, 0), 1)])


def save_nested(name, f, batched, levels, tol=(1e-5, 1e-5)):
    """`levels`: (in_axes, out_axes) innermost first; the batched inputs carry every level."""
    d = os.path.join(OUT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    ex = list(batched)
    sizes = []
    for ins, _ in reversed(levels):
        sizes.append(next(x.shape[a] for x, a in zip(ex, ins) if a is not None))
        ex = [example_of(x, a) for x, a in zip(ex, ins)]
    sizes.reverse()
    text = jax.jit(f).lower(*[jnp.asarray(x) for x in ex]).as_text(dialect="hlo")
    open(os.path.join(d, "module.hlo"), "w").write(text)
    g = f
    for ins, outs in levels:
        g = jax.vmap(g, in_axes=ins, out_axes=outs)
    leaves = jax.tree_util.tree_leaves(g(*[jnp.asarray(x) for x in batched]))
    for i, x in enumerate(batched):
        np.save(os.path.join(d, f"in{i}.npy"), np.asarray(x))
    for i, y in enumerate(leaves):
        np.save(os.path.join(d, f"out{i}.npy"), np.asarray(y))
    lv = [{"in_axes": list(i), "out_axes": [o], "size": n} for (i, o), n in zip(levels, sizes)]
    meta = {"levels": lv, "rtol": tol[0], "atol": tol[1]}
    json.dump(meta, open(os.path.join(d, "meta.json"), "w"), indent=1)
    print(name, [x.shape for x in batched], "->", [np.shape(y) for y in leaves])


def models():
    def mlp_loss(w1, b1, w2, b2, x, y):
        h = jnp.tanh(x @ w1 + b1)
        logits = h @ w2 + b2
        return -jax.nn.log_softmax(logits)[y]
    params = [normal(8, 6) / 3, normal(6) * 0.1, normal(6, 4) / 3, normal(4) * 0.1]
    xs, ys = normal(5, 8), rng.integers(0, 4, 5).astype(np.int32)
    save("mlp_per_example_grad", mlp_loss, params + [xs, ys], [None] * 4 + [0, 0],
         grad=[0, 1, 2, 3], tol=(1e-4, 1e-6))
    def cnn_loss(k, w, x, y):
        h = jax.nn.relu(lax.conv_general_dilated(x[None], k, (1, 1), "SAME"))
        p = lax.reduce_window(h, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        logits = p.reshape(-1) @ w
        return -jax.nn.log_softmax(logits)[y]
    cparams = [normal(2, 1, 3, 3) / 3, normal(2 * 3 * 3, 3) / 4]
    cx_, cy = normal(4, 1, 6, 6), rng.integers(0, 3, 4).astype(np.int32)
    save("cnn_per_example_grad", cnn_loss, cparams + [cx_, cy], [None, None, 0, 0], grad=[0, 1], tol=(1e-4, 1e-6))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    groups = [elementwise, structural, indexing, contraction, more_conv, window, linalg_sort, control, rng_ops,
              nested, models, hand_written, more_families, rng_state]
    only = sys.argv[1:]
    for g in groups:
        if not only or g.__name__ in only:
            g()
