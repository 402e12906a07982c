#!/usr/bin/env python3
"""Fixtures of what JAX itself prints: `jax.jit(f).lower(*args).as_text()` (StableHLO with
JAX's `sdy`/`mhlo` attributes, private functions and `func.call`s, `chlo` ops), with the
inputs and the outputs the jitted function returns.

    python3 scripts/make_stablehlo_fixtures.py testdata/stablehlo_jax

Writes DIR/NAME/{module.mlir, in0.npy..., out0.npy..., meta.json}. Real JAX (jax==0.10.2 on
CPU) is the oracle; the Rust test `xla-cpu/tests/stablehlo_jax.rs` runs these without Python.
"""
import json
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

RNG = np.random.default_rng(0)


def normal(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


# ----- programs -----

def mlp_init():
    return [normal(8, 16) * 0.3, np.zeros(16, np.float32), normal(16, 4) * 0.3, np.zeros(4, np.float32)]


def mlp_loss(params, x, y):
    w1, b1, w2, b2 = params
    h = jax.nn.relu(x @ w1 + b1)
    logits = h @ w2 + b2
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))


def adam_step(params, m, v, t, x, y):
    """One Adam step (as optax.adam does it), written in jnp."""
    lr, b1, b2, eps = 1e-2, 0.9, 0.999, 1e-8
    loss, grads = jax.value_and_grad(mlp_loss)(params, x, y)
    t = t + 1
    m = [b1 * mi + (1 - b1) * g for mi, g in zip(m, grads)]
    v = [b2 * vi + (1 - b2) * g * g for vi, g in zip(v, grads)]
    mhat = [mi / (1 - b1 ** t) for mi in m]
    vhat = [vi / (1 - b2 ** t) for vi in v]
    params = [p - lr * mh / (jnp.sqrt(vh) + eps) for p, mh, vh in zip(params, mhat, vhat)]
    return loss, params, m, v, t


def mlp_adam_args():
    p = mlp_init()
    zeros = [np.zeros_like(a) for a in p]
    x = normal(32, 8)
    y = np.eye(4, dtype=np.float32)[RNG.integers(0, 4, 32)]
    return (p, zeros, [z.copy() for z in zeros], np.float32(0.0), x, y)


def cnn_loss(w, x, y):
    k, wd = w
    h = lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    h = jax.nn.relu(h)
    h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    logits = h.reshape(h.shape[0], -1) @ wd
    return jnp.mean((logits - y) ** 2)


def cnn_step(w, x, y):
    loss, g = jax.value_and_grad(cnn_loss)(w, x, y)
    return loss, [a - 0.1 * b for a, b in zip(w, g)]


def cnn_args():
    return ([normal(3, 3, 2, 4) * 0.3, normal(4 * 4 * 4, 3) * 0.1], normal(2, 8, 8, 2), normal(2, 3))


def argmax_softmax(x):
    return jnp.argmax(x, axis=-1), jax.nn.softmax(x, axis=-1), jnp.max(x, axis=0), jnp.argmin(x, axis=0)


def while_loop(x):
    def cond(s):
        i, v = s
        return (i < 20) & (jnp.sum(v) < 100.0)

    def body(s):
        i, v = s
        return i + 1, v * 1.5 + 0.25

    i, v = lax.while_loop(cond, body, (0, x))
    total = lax.fori_loop(0, 5, lambda j, acc: acc + j * v, jnp.zeros_like(v))
    return i, v, total


def gelu_erf(x):
    return jax.nn.gelu(x, approximate=False), jax.scipy.special.erf(x), jax.nn.gelu(x, approximate=True)


def top_k(x):
    vals, idx = lax.top_k(x, 3)
    return vals, idx


def special(x):
    p = jnp.abs(x) + 0.5
    u = jnp.tanh(x) * 0.9
    return (jnp.tan(x * 0.5), jax.scipy.special.erfinv(u), jax.scipy.special.gammaln(p),
            jax.scipy.special.digamma(p), jnp.sinh(x), jnp.cosh(x), jnp.arcsinh(x),
            jnp.arccos(u), jnp.arcsin(u), jnp.arctan(x), jnp.arccosh(p + 1.0), jnp.arctanh(u),
            jnp.log1p(jnp.abs(x)), jax.scipy.special.erfc(x))


def scan_cumsum(x, idx):
    c = jnp.cumsum(x, axis=0)
    carry, ys = lax.scan(lambda c, r: (c * 0.5 + r, c.sum()), jnp.zeros(x.shape[1]), x)
    g = x[idx]
    s = jnp.zeros(x.shape[0]).at[idx].add(1.0)
    sorted_ = jnp.sort(x, axis=0)
    return c, carry, ys, g, s, sorted_


def switch(i, x):
    return lax.switch(i, [lambda v: v * 2.0, lambda v: jnp.sin(v), lambda v: v - 1.0], x), lax.cond(
        x.sum() > 0, lambda v: v + 1.0, lambda v: v * v, x)


def int_types(a, b):
    u = a.astype(jnp.uint8)
    return (a // b, a % b, u + jnp.uint8(250), (a > b), a.astype(jnp.bfloat16) * 2, a.astype(jnp.float16) / 3,
            jnp.left_shift(a, 2), (a.astype(jnp.complex64) * 1j).real)


HEX_F32 = np.arange(200, dtype=np.float32).reshape(10, 20) * 0.5 - 7.0
HEX_PRED = np.arange(300) % 3 == 0
HEX_BF16 = (np.arange(150) - 20).astype(jnp.bfloat16)
HEX_C64 = (np.arange(120) + 0.5j * np.arange(120)).astype(np.complex64)
HEX_U8 = np.arange(130).astype(np.uint8)
HEX_S16 = (np.arange(140) - 70).astype(np.int16)


def hex_constants(x):
    """Constants large enough that MLIR prints them as hex strings."""
    return (x + HEX_F32, jnp.logical_and(HEX_PRED, x[0, 0] > 0), HEX_BF16 * 2, HEX_C64 * x[0, 1],
            HEX_U8 + 1, HEX_S16 * 3)


PROGRAMS = {
    "mlp_adam": (adam_step, mlp_adam_args),
    "cnn_step": (cnn_step, cnn_args),
    "argmax_softmax": (argmax_softmax, lambda: (normal(5, 7),)),
    "while_loop": (while_loop, lambda: (normal(4),)),
    "gelu_erf": (gelu_erf, lambda: (normal(3, 5),)),
    "top_k": (top_k, lambda: (normal(4, 9),)),
    "special": (special, lambda: (normal(2, 6),)),
    "scan_cumsum": (scan_cumsum, lambda: (normal(6, 3), np.array([0, 5, 2, 2], np.int32))),
    "switch": (switch, lambda: (np.int32(1), normal(5))),
    "hex_constants": (hex_constants, lambda: (normal(10, 20),)),
    "int_types": (int_types, lambda: (np.array([7, -3, 12, 5], np.int32), np.array([2, 4, 5, -3], np.int32))),
}


def flat(tree):
    return [np.asarray(a) for a in jax.tree_util.tree_leaves(tree)]


def write(out_dir, name, fn, make_args, tol=2e-5):
    args = make_args()
    jitted = jax.jit(fn)
    text = jitted.lower(*args).as_text()
    outs = flat(jitted(*args))
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "module.mlir"), "w") as f:
        f.write(text)
    for i, a in enumerate(flat(args)):
        np.save(os.path.join(d, f"in{i}.npy"), a)
    for i, a in enumerate(outs):
        np.save(os.path.join(d, f"out{i}.npy"), a)
    meta = {"source": "jax", "jax": jax.__version__, "rtol": tol, "atol": tol,
            "program": fn.__name__}
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(f"{name}: {len(outs)} outputs")


def special_f64(x, u):
    """f64 erfc / erf_inv: XLA's separate f64 polynomials (chlo legalisation)."""
    return jax.scipy.special.erfc(x), jax.scipy.special.erfinv(u), lax.erf_inv(u * 0.5)


def special_f64_args():
    # erfc: |x| < 1, [1, 8), >= 8, past exp underflow (x > 26.6), negative.
    x = np.array([-30.0, -7.5, -2.0, -1.0, -0.3, 0.0, 1e-9, 0.5, 0.99, 1.0, 1.7, 3.0, 7.9, 8.0,
                  12.0, 26.0, 27.0, np.inf, -np.inf, np.nan])
    # erf_inv: w = -log1p(-u^2) below 6.25, in [6.25, 16), from 16; +-1 -> +-inf.
    u = np.array([-1.0, -0.9999999999, -0.999999, -0.99, -0.5, -1e-12, 0.0, 0.3, 0.9, 0.998,
                  0.9999, 1 - 1e-7, 1 - 1e-9, 1 - 1e-13, 1.0, 0.7, 0.05, 0.999, -0.1, 0.6])
    return (x, u)


F64_PROGRAMS = {"special_f64": (special_f64, special_f64_args)}


def main(out_dir, only=None):
    for name, (fn, make_args) in PROGRAMS.items():
        if only is None or name in only:
            write(out_dir, name, fn, make_args)
    jax.config.update("jax_enable_x64", True)
    for name, (fn, make_args) in F64_PROGRAMS.items():
        if only is None or name in only:
            write(out_dir, name, fn, make_args, tol=1e-12)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "testdata/stablehlo_jax",
         set(sys.argv[2:]) or None)
