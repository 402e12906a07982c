"""Writes testdata/xla_scalar_product/{in0,in1,out0}.npy: `h * (k * 0.2)` (h a scalar
broadcast, k f32[4]) as real XLA:CPU computes it.

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
