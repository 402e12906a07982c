"""Writes testdata/xla_f32_{tanh,exponential}/{in0,out0}.npy: f32 tanh and exp as real XLA:CPU
computes them.

xla-cpu reproduces XLA's own approximations of these two bit for bit; the test
xla-cpu/tests/unary_xla.rs checks that on these points (dense grids, the approximations'
switch points, and the specials).
Run: python3 scripts/gen_unary_fixtures.py   (needs jax==0.10.2)
"""
import os
import numpy as np
import jax
import jax.numpy as jnp

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "testdata")
SPECIALS = [0.0, -0.0, 1e-30, -1e-45, 100.0, -100.0, np.inf, -np.inf, np.nan, 3.4e38, -3.4e38]


def write(name, fn, grids, specials):
    x = np.concatenate([np.linspace(lo, hi, n, dtype=np.float32) for lo, hi, n in grids]
                       + [np.float32(SPECIALS + specials)])
    y = np.asarray(jax.jit(fn)(x))
    out = os.path.join(ROOT, f"xla_f32_{name}")
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "in0.npy"), x)
    np.save(os.path.join(out, "out0.npy"), y)
    print(f"{name}: {len(x)} points in {out}")


write("tanh", jnp.tanh, [(-9, 9, 20001)],
      [0.0004, -0.0004, float(np.nextafter(np.float32(0.0004), np.float32(0))),
       7.998811721801758, 7.9988, 8.0, -8.0])
write("exponential", jnp.exp, [(-90, 90, 20001), (-88.5, -86.5, 4001), (88.3, 88.8, 4001)],
      [-88.3762626647949, -87.33654, -87.33655, 88.3762626647950, 88.72283, 88.72284,
       1e-8, -1e-8, -200.0])
