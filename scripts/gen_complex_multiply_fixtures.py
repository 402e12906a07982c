"""Writes testdata/xla_complex_multiply/{c64,c128}/*.npy: complex multiply, complex
reductions and complex dots as real XLA:CPU computes them (jax==0.10.2).

- `mul_a`, `mul_b`, `mul_out`: `jax.lax.mul(a, b)` elementwise over every pairing of a
  grid of special component values (0, -0, +-1, +-1e30, +-1e-30, +-inf, NaN, two
  subnormals in c64; one subnormal and 1e300 in c128) in both operands' real and
  imaginary parts, then random values spanning the type's exponent range and random
  normal values near 1 (where a fused multiply-add's rounding shows).
- `red_x{n}`, `sum{n}`, `prod{n}`: `jnp.sum` / `jnp.prod` of a random vector of n
  elements near the unit circle (n = 7, 64, 1000, 5000, 100003), and `red2_x`,
  `sum2_ax{0,1}`, `prod2_ax{0,1}`: the same over each axis of a [96, 130] array.
- `dot_{name}_a`, `dot_{name}_b`, `dot_{name}_out`: `jnp.dot` of random complex operands,
  vector.vector, matrix.vector, matrix.matrix, small and 64x64.
xla-cpu/tests/complex_multiply.rs compares xla-cpu with these.
Run: python3 scripts/gen_complex_multiply_fixtures.py   (needs jax==0.10.2)
"""
import itertools
import os
import numpy as np
import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "testdata", "xla_complex_multiply")
rng = np.random.default_rng(1515)

GRID = [0.0, -0.0, 1.0, -1.0, 1e30, -1e30, 1e-30, -1e-30, np.inf, -np.inf, np.nan]
SUB = {np.float32: [1e-40, -3e-39], np.float64: [-3e-320, 1e300]}
RED_SIZES = [7, 64, 1000, 5000, 100003]
DOTS = {
    "vv": ((33,), (33,)),
    "mv": ((17, 29), (29,)),
    "vm": ((29,), (29, 13)),
    "mm_small": ((5, 7), (7, 3)),
    "mm64": ((64, 64), (64, 64)),
    "mm_rect": ((40, 70), (70, 24)),
}


def randoms(real, n, max_exp):
    mant = rng.uniform(1.0, 10.0, n) * rng.choice([-1.0, 1.0], n)
    return (mant * 10.0 ** rng.integers(-max_exp, max_exp + 1, n)).astype(real)


def cplx_of(real, cplx, parts):
    z = np.empty(parts.shape[0], cplx)
    z.real, z.imag = parts[:, 0], parts[:, 1]
    return z


def mul_operands(real, cplx, max_exp):
    vals = np.array(GRID + SUB[real], real)
    quads = np.array(list(itertools.product(vals, repeat=4)), real)
    n = 4096
    wide = np.stack([randoms(real, n, max_exp) for _ in range(4)], axis=1)
    near = rng.normal(size=(n, 4)).astype(real)
    q = np.concatenate([quads, wide, near])
    return cplx_of(real, cplx, q[:, :2]), cplx_of(real, cplx, q[:, 2:])


def unit_ish(real, cplx, shape):
    """Random values with modulus near 1, so long products neither overflow nor vanish."""
    n = int(np.prod(shape))
    ang = rng.uniform(0, 2 * np.pi, n)
    mod = np.exp(rng.normal(0.0, 0.05, n))
    z = np.empty(n, cplx)
    z.real, z.imag = (mod * np.cos(ang)).astype(real), (mod * np.sin(ang)).astype(real)
    return z.reshape(shape)


def normal(real, cplx, shape):
    z = np.empty(shape, cplx)
    z.real, z.imag = rng.normal(size=shape).astype(real), rng.normal(size=shape).astype(real)
    return z


for name, real, cplx, max_exp in [
    ("c64", np.float32, np.complex64, 37),
    ("c128", np.float64, np.complex128, 307),
]:
    out = {}
    a, b = mul_operands(real, cplx, max_exp)
    out["mul_a"], out["mul_b"] = a, b
    out["mul_out"] = np.asarray(jax.jit(jax.lax.mul)(a, b))
    for n in RED_SIZES:
        x = unit_ish(real, cplx, (n,))
        out[f"red_x{n}"] = x
        out[f"sum{n}"] = np.asarray(jax.jit(jnp.sum)(x))
        out[f"prod{n}"] = np.asarray(jax.jit(jnp.prod)(x))
    x2 = unit_ish(real, cplx, (96, 130))
    out["red2_x"] = x2
    for ax in [0, 1]:
        out[f"sum2_ax{ax}"] = np.asarray(jax.jit(lambda v, ax=ax: jnp.sum(v, axis=ax))(x2))
        out[f"prod2_ax{ax}"] = np.asarray(jax.jit(lambda v, ax=ax: jnp.prod(v, axis=ax))(x2))
    for dn, (sa, sb) in DOTS.items():
        da, db = normal(real, cplx, sa), normal(real, cplx, sb)
        out[f"dot_{dn}_a"], out[f"dot_{dn}_b"] = da, db
        out[f"dot_{dn}_out"] = np.asarray(jax.jit(jnp.dot)(da, db))
    d = os.path.join(ROOT, name)
    os.makedirs(d, exist_ok=True)
    for f, v in out.items():
        assert v.dtype == cplx, (f, v.dtype)
        np.save(os.path.join(d, f + ".npy"), v)
    print(f"{name}: {a.size} products, {len(RED_SIZES) + 1} reductions, {len(DOTS)} dots")
