"""Writes testdata/xla_subnormals/{in0,in1,in2,out0..out7}.npy: how real XLA:CPU treats
subnormal numbers. XLA runs with flush-to-zero and denormals-are-zero on, so a subnormal
operand reads as zero and a subnormal result is written as zero, in f32 and f64;
xla-cpu/tests/subnormals.rs runs the same program (written out there as HLO) and checks
xla-cpu gives XLA's bits, fused and unfused.
XLA's own `log` of a subnormal is left out: it depends on XLA's vector width (-inf in
its vector loops, ln(2^-150) or NaN in scalar tails).
Run: python3 scripts/gen_subnormal_fixtures.py   (needs jax==0.10.2)
"""
import os
import numpy as np
import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "testdata", "xla_subnormals")

# Subnormal, tiny normal, zero and ordinary f32 values (every 8 lanes the same pattern, so
# vector and scalar paths both meet each).
base = np.array([3e-39, -2e-39, 1e-40, 1e-20, -1e-20, 0.0, -0.0, 2.5], np.float32)
a = np.tile(base, 9)  # 72 elements
b = np.tile(np.array([1.0, 1.0, 1e30, 1e-20, 1e-19, 1.0, 1.0, 3e-39], np.float32), 9)
c = np.tile(np.array([1e-310, -3e-320, 1e-300, 2.0, 0.0, 1e-39, 5e-324, -1.0]), 9)


def f(a, b, c):
    return (
        a * b,                      # DAZ on inputs, FTZ on products
        a + np.float32(1e-38),      # subnormal + normal: the subnormal reads as 0
        a == 0,                     # compares see subnormals as zero
        jnp.sqrt(jnp.abs(a)),
        np.float32(1.0) / a,
        c * 1.0 + c * c,            # f64 flushes too
        c.astype(jnp.float32),      # f64 -> f32 results below f32's normal range
        jnp.dot(a.reshape(8, 9), b.reshape(9, 8)),
    )


outs = jax.jit(f)(a, b, c)
os.makedirs(ROOT, exist_ok=True)
for name, v in [("in0", a), ("in1", b), ("in2", c)]:
    np.save(os.path.join(ROOT, name + ".npy"), v)
for i, o in enumerate(outs):
    np.save(os.path.join(ROOT, f"out{i}.npy"), np.asarray(o))
print(jax.jit(f).lower(a, b, c).as_text(dialect="hlo"))
