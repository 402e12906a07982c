#!/usr/bin/env python3
"""Fixtures for the LAPACK custom calls JAX's CPU lowering emits (`lapack_*potrf_ffi`,
`*getrf_ffi`, `*trsm_ffi`): `jnp.linalg` / `jax.scipy.linalg` programs lowered to HLO text,
with inputs and the outputs real XLA gives.

    python3 scripts/make_lapack_cases.py testdata/lapack

Each case folder holds module.hlo (HLO text), module.mlir (StableHLO, as JAX prints it), in*.npy, out*.npy and meta.json (rtol, atol).
"""
import json
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jax.scipy.linalg as jsl  # noqa: E402

jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(7)


def spd(n, batch=(), dt=np.float32):
    m = rng.standard_normal(batch + (n, n))
    return (m @ np.swapaxes(m, -1, -2) / n + np.eye(n)).astype(dt)


def gen(n, batch=(), dt=np.float32):
    return (rng.standard_normal(batch + (n, n)) + 2 * np.eye(n)).astype(dt)


def vec(shape, dt=np.float32):
    return rng.standard_normal(shape).astype(dt)


def kalman(a, q, y):
    A = jnp.eye(4, dtype=a.dtype) + 0.01 * a
    Q = 0.1 * (q @ q.T / 4 + jnp.eye(4, dtype=a.dtype))
    H = jnp.eye(2, 4, dtype=a.dtype)
    R = 0.5 * jnp.eye(2, dtype=a.dtype)

    def step(c, yt):
        m, P = c
        m, P = A @ m, A @ P @ A.T + Q
        S = H @ P @ H.T + R
        K = P @ H.T @ jnp.linalg.inv(S)
        m = m + K @ (yt - H @ m)
        P = (jnp.eye(4, dtype=a.dtype) - K @ H) @ P
        return (m, P), m
    (_, _), ms = jax.lax.scan(step, (jnp.zeros(4, a.dtype), jnp.eye(4, dtype=a.dtype)), y)
    return ms


def gp_nll(x, y):
    k = jnp.exp(-0.5 * (x[:, None] - x[None, :]) ** 2) + 0.1 * jnp.eye(x.shape[0], dtype=x.dtype)
    L = jnp.linalg.cholesky(k)
    alpha = jsl.cho_solve((L, True), y)
    return 0.5 * y @ alpha + jnp.sum(jnp.log(jnp.diag(L)))


CASES = {
    "solve_f32": (jnp.linalg.solve, [gen(6), vec((6,))]),
    "solve_batched_f64": (jnp.linalg.solve, [gen(5, (3,), np.float64), vec((3, 5, 2), np.float64)]),
    "inv_f32": (jnp.linalg.inv, [gen(7)]),
    "det_f32": (jnp.linalg.det, [gen(5, (2,))]),
    "slogdet_f64": (lambda a: jnp.linalg.slogdet(a), [gen(6, (), np.float64)]),
    "lu_f32": (jsl.lu_factor, [gen(6)]),
    "lu_rect_f32": (lambda a: jax.lax.linalg.lu(a), [vec((5, 3))]),
    "cholesky_f32": (jnp.linalg.cholesky, [spd(8)]),
    "cholesky_upper_f64": (lambda a: jsl.cholesky(a, lower=False), [spd(5, (2,), np.float64)]),
    "cholesky_not_pd_f32": (jnp.linalg.cholesky, [gen(4) - 5 * np.eye(4, dtype=np.float32)]),
    "cho_solve_f32": (lambda a, b: jsl.cho_solve(jsl.cho_factor(a), b), [spd(6), vec((6, 3))]),
    "solve_triangular_f32": (lambda a, b: jsl.solve_triangular(a, b, lower=True), [gen(5), vec((5, 2))]),
    "solve_triangular_trans_unit_f64": (
        lambda a, b: jsl.solve_triangular(a, b, trans=1, unit_diagonal=True, lower=False),
        [gen(5, (), np.float64), vec((5,), np.float64)]),
    "solve_triangular_right_f32": (
        lambda a, b: jax.lax.linalg.triangular_solve(a, b, left_side=False, lower=True),
        [gen(4), vec((3, 4))]),
    "kalman_scan_f32": (kalman, [vec((4, 4)), vec((4, 4)), vec((50, 2))]),
    "gp_nll_grad_f64": (jax.value_and_grad(gp_nll, argnums=(0, 1)),
                        [vec((20,), np.float64), vec((20,), np.float64)]),
    # Large enough for the blocked LU.
    "solve_large_f64": (jnp.linalg.solve, [gen(120, (), np.float64), vec((120, 3), np.float64)]),
    "inv_large_f32": (jnp.linalg.inv, [gen(96)]),
}


def main(out):
    for name, (f, args) in CASES.items():
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        text = jax.jit(f).lower(*args).as_text(dialect="hlo")
        assert "lapack_" in text, name
        with open(os.path.join(d, "module.hlo"), "w") as fh:
            fh.write(text)
        with open(os.path.join(d, "module.mlir"), "w") as fh:
            fh.write(jax.jit(f).lower(*args).as_text())
        for i, a in enumerate(args):
            np.save(os.path.join(d, f"in{i}.npy"), a)
        outs = jax.tree.leaves(jax.jit(f)(*args))
        for i, o in enumerate(outs):
            np.save(os.path.join(d, f"out{i}.npy"), np.asarray(o))
        f64 = any(a.dtype == np.float64 for a in args)
        meta = {"rtol": 1e-9 if f64 else 2e-4, "atol": 1e-9 if f64 else 2e-5}
        with open(os.path.join(d, "meta.json"), "w") as fh:
            json.dump(meta, fh)
        print(name, len(outs), "outputs")


if __name__ == "__main__":
    main(sys.argv[1])
