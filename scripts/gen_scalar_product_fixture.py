"""Writes testdata/xla_scalar_product/{in0,in1,out0}.npy: `h * (k * 0.2)` (h a scalar
broadcast, k f32[4]) as real XLA:CPU computes it, and testdata/xla_scalar_product/kept/
{in0,in1,in2,out0,out1}.npy: `h * (k * g)` with g a parameter and `(k * h) * 0.2`, which XLA
computes in the written order.

XLA's algebraic simplifier multiplies the two broadcast scalars first (`k * (h * 0.2)`),
which differs from the written order by an ulp in half of these elements (the values are
an RK45 step of testdata/perf/B16_rk45_adaptive.hlo); xla-cpu/tests/rewrite.rs checks
xla-cpu gives XLA's bits.
Run: python3 scripts/gen_scalar_product_fixture.py   (needs jax==0.10.2)
"""
import os
import numpy as np
import jax
import jax.numpy as jnp

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "testdata", "xla_scalar_product")
h = np.array(1036831949, dtype=np.uint32).view(np.float32)
k = np.array([3188147839, 1041774968, 1037489631, 3227994390], dtype=np.uint32).view(np.float32)
y = np.asarray(jax.jit(lambda h, k: h * (k * jnp.float32(0.2)))(h, k))
os.makedirs(OUT, exist_ok=True)
for f, v in [("in0", h), ("in1", k), ("out0", y)]:
    np.save(os.path.join(OUT, f + ".npy"), v)
written = h * (k * np.float32(0.2))
print("XLA:", y.view(np.uint32), "written order:", written.view(np.uint32))

KEPT = os.path.join(OUT, "kept")
os.makedirs(KEPT, exist_ok=True)
rng = np.random.default_rng(1)
k2 = rng.standard_normal(64).astype(np.float32)
h2, g2 = (np.float32(v) for v in rng.standard_normal(2))
o0 = np.asarray(jax.jit(lambda h, k, g: h * (k * g))(h2, k2, g2))
o1 = np.asarray(jax.jit(lambda h, k: (k * h) * jnp.float32(0.2))(h2, k2))
for f, v in [("in0", h2), ("in1", k2), ("in2", g2), ("out0", o0), ("out1", o1)]:
    np.save(os.path.join(KEPT, f + ".npy"), v)
print("kept: written order", np.array_equal(o0, h2 * (k2 * g2)), np.array_equal(o1, (k2 * h2) * np.float32(0.2)))
