"""Writes testdata/xla_divide_broadcast/{row_f32,scalar_f32,row_f64}/{in0,in1,out0}.npy:
`x / broadcast(d)` as real XLA:CPU computes it.

XLA's algebraic simplifier turns a division by a broadcast into a multiplication by the
broadcast reciprocal, so its results differ from IEEE division in about a quarter of the
elements; xla-cpu/tests/rewrite.rs checks xla-cpu gives XLA's bits (and that a full-shape
divisor stays an IEEE division).
Run: python3 scripts/gen_divide_fixtures.py   (needs jax==0.10.2)
"""
import os
import numpy as np
import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "testdata", "xla_divide_broadcast")
rng = np.random.default_rng(7)


def write(name, x, d, fn):
    y = np.asarray(jax.jit(fn)(x, d))
    out = os.path.join(ROOT, name)
    os.makedirs(out, exist_ok=True)
    for f, v in [("in0", x), ("in1", d), ("out0", y)]:
        np.save(os.path.join(out, f + ".npy"), v)
    exact = (x / (d[:, None] if d.ndim else d)).astype(x.dtype)
    print(f"{name}: {np.count_nonzero(y != exact)} of {y.size} differ from IEEE division")


x32 = (rng.standard_normal((64, 300)) * 10).astype(np.float32)
d32 = rng.uniform(0.3, 7.0, 64).astype(np.float32)
write("row_f32", x32, d32, lambda x, d: x / d[:, None])
write("scalar_f32", x32, np.float32(3.0), lambda x, d: x / d)
x64 = rng.standard_normal((64, 300)) * 10
write("row_f64", x64, rng.uniform(0.3, 7.0, 64), lambda x, d: x / d[:, None])
