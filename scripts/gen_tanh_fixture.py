"""Writes testdata/tanh_f32/{in0,out0}.npy: f32 tanh as real XLA:CPU computes it.

xla-cpu's f32 tanh reproduces XLA's rational approximation bit for bit; the test
xla-cpu/tests/tanh_xla.rs checks that on these points (a dense grid over [-9, 9],
the approximation's switch points, and the specials).
Run: python3 scripts/gen_tanh_fixture.py   (needs jax==0.10.2)
"""
import os
import numpy as np
import jax
import jax.numpy as jnp

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "testdata", "tanh_f32")

grid = np.linspace(-9, 9, 20001, dtype=np.float32)
specials = np.float32([0.0, -0.0, 0.0004, -0.0004, np.nextafter(np.float32(0.0004), np.float32(0)),
                       1e-30, -1e-45, 7.998811721801758, 7.9988, 8.0, -8.0, 100.0, -100.0,
                       np.inf, -np.inf, np.nan, 3.4e38, -3.4e38])
x = np.concatenate([grid, specials])
y = np.asarray(jax.jit(jnp.tanh)(x))
os.makedirs(OUT, exist_ok=True)
np.save(os.path.join(OUT, "in0.npy"), x)
np.save(os.path.join(OUT, "out0.npy"), y)
print(f"wrote {len(x)} points to {OUT}")
