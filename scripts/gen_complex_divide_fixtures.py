"""Writes testdata/xla_complex_divide/{c64,c128}/{in0,in1,out0,out1}.npy: complex division
`in0 / in1` as real XLA:CPU computes it (`jax.lax.div`, jax==0.10.2), and `out1`: the last
1024 elements of `in0` over the last element of `in1`, broadcast.

The operands are every pairing of a grid of special component values (0, -0, +-1,
+-1e30, +-1e-30, +-inf, NaN, two subnormals in c64; one subnormal and 1e300
in c128) in the
numerator's and the divisor's real and imaginary parts, then random values whose
exponents span the type's range (Smith's algorithm's overflow and underflow paths,
ties |re| == |im|). xla-cpu/tests/complex_divide.rs checks xla-cpu gives XLA's bits
(any NaN matches any NaN), fused and unfused.
Run: python3 scripts/gen_complex_divide_fixtures.py   (needs jax==0.10.2)
"""
import itertools
import os
import numpy as np
import jax

jax.config.update("jax_enable_x64", True)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "testdata", "xla_complex_divide")
rng = np.random.default_rng(15)

GRID = [0.0, -0.0, 1.0, -1.0, 1e30, -1e30, 1e-30, -1e-30, np.inf, -np.inf, np.nan]
SUB = {np.float32: [1e-40, -3e-39], np.float64: [-3e-320, 1e300]}


def randoms(real, n, max_exp):
    mant = rng.uniform(1.0, 10.0, n) * rng.choice([-1.0, 1.0], n)
    return (mant * 10.0 ** rng.integers(-max_exp, max_exp + 1, n)).astype(real)


def operands(real, cplx, max_exp):
    vals = np.array(GRID + SUB[real], real)
    quads = np.array(list(itertools.product(vals, repeat=4)), real)
    n = 4096
    rand = np.stack([randoms(real, n, max_exp) for _ in range(4)], axis=1)
    # ties: the divisor's |re| == |im|
    rand[: n // 8, 3] = rand[: n // 8, 2] * rng.choice([-1.0, 1.0], n // 8).astype(real)
    q = np.concatenate([quads, rand])
    a, b = np.empty(len(q), cplx), np.empty(len(q), cplx)
    a.real, a.imag, b.real, b.imag = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    return a, b


for name, real, cplx, max_exp in [
    ("c64", np.float32, np.complex64, 37),
    ("c128", np.float64, np.complex128, 307),
]:
    a, b = operands(real, cplx, max_exp)
    y = np.asarray(jax.jit(jax.lax.div)(a, b))
    # A divisor broadcast from a scalar (XLA keeps a complex divide a divide; it turns
    # only real ones into a multiply by the reciprocal): the last 1024 numerators over
    # the last (random) divisor.
    x, d = a[-1024:], b[-1:]
    y1 = np.asarray(jax.jit(lambda x, d: x / d[0])(x, d))
    assert y.dtype == cplx and y1.dtype == cplx
    out = os.path.join(ROOT, name)
    os.makedirs(out, exist_ok=True)
    for f, v in [("in0", a), ("in1", b), ("out0", y), ("out1", y1)]:
        np.save(os.path.join(out, f + ".npy"), v)
    print(f"{name}: {a.size} divisions")
