#!/usr/bin/env python3
"""Fixtures for the LAPACK custom calls JAX's CPU lowering emits (`lapack_*potrf_ffi`,
`*getrf_ffi`, `*trsm_ffi`): `jnp.linalg` / `jax.scipy.linalg` programs lowered to HLO text,
with inputs and the outputs real XLA gives.

    python3 scripts/make_lapack_cases.py testdata/lapack [CASE ...]

(with CASE names, only those folders are written; the random inputs are drawn in the same
order either way, so the other folders would be unchanged).

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


def cplx(shape, dt=np.complex64):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)


def herm(n, batch=(), dt=np.complex64):
    m = cplx(batch + (n, n), dt)
    return ((m + np.conj(np.swapaxes(m, -1, -2))) / 2).astype(dt)


def sym(n, batch=(), dt=np.float32):
    m = rng.standard_normal(batch + (n, n))
    return ((m + np.swapaxes(m, -1, -2)) / 2).astype(dt)


def ct(x):
    return jnp.conj(jnp.swapaxes(x, -1, -2))


# Eigenvectors and singular vectors are unique only up to sign (phase), and eig's
# eigenvalue order is the QR iteration's: such programs return what is unique, which
# real XLA and we must then agree on: eigenvalues (sorted where the order is not
# LAPACK's), the projector v v^H of each vector, reconstructions, V^H V, residuals and
# norms.
def projectors(v):
    return jnp.einsum("...ik,...jk->...kij", v, jnp.conj(v))


def eigh_unique(a):
    w, v = jnp.linalg.eigh(a)
    return w, projectors(v), ct(v) @ v


def eigh_upper(a):
    v, w = jax.lax.linalg.eigh(a, lower=False, symmetrize_input=False)
    return w, projectors(v)


def svd_gesvd(a):
    u, s, vt = jax.lax.linalg.svd(a, full_matrices=False, algorithm=jax.lax.linalg.SvdAlgorithm.QR)
    return s, (u * s[None, :]) @ vt, projectors(u), projectors(vt.T)


def svd_unique(full):
    def f(a):
        u, s, vt = jnp.linalg.svd(a, full_matrices=full)
        k = s.shape[-1]
        rec = (u[..., :k] * s[..., None, :].astype(u.dtype)) @ vt[..., :k, :]
        out = [s, rec, projectors(u[..., :k]), projectors(ct(vt[..., :k, :]))]
        if full:
            out += [u[..., k:] @ ct(u[..., k:]), ct(vt[..., k:, :]) @ vt[..., k:, :],
                    ct(u) @ u, vt @ ct(vt)]
        return out
    return f


def eig_unique(a):
    w, vl, vr = jax.lax.linalg.eig(a, compute_left_eigenvectors=True)
    ac = a.astype(vr.dtype)
    res_r = jnp.max(jnp.abs(ac @ vr - vr * w[..., None, :]))
    res_l = jnp.max(jnp.abs(ct(vl) @ ac - w[..., :, None] * ct(vl)))
    big = lambda v: jnp.take_along_axis(v, jnp.argmax(jnp.abs(v), axis=-2)[..., None, :], -2)
    return (jnp.sort(w.real), jnp.sort(w.imag), jnp.sort(jnp.abs(w)), res_r, res_l,
            jnp.linalg.norm(vr, axis=-2), jnp.linalg.norm(vl, axis=-2),
            big(vr).imag, big(vl).imag)


def schur_unique(output):
    def f(a):
        t, z = jsl.schur(a, output=output)
        rec = z @ t @ ct(z)
        low = jnp.tril(t, -2 if t.dtype.kind == "f" else -1)
        return rec, ct(z) @ z, low, jnp.sort(jnp.diagonal(t).real), jnp.sort(jnp.abs(jnp.diagonal(t, -1)) > 0)
    return f


CASES.update({
    # Complex potrf / getrf / trsm.
    "cholesky_c64": (jnp.linalg.cholesky, [(herm(5) + 5 * np.eye(5)).astype(np.complex64)]),
    "solve_c128": (jnp.linalg.solve, [cplx((2, 5, 5), np.complex128), cplx((2, 5, 2), np.complex128)]),
    "lu_c64": (jsl.lu_factor, [cplx((6, 6))]),
    "solve_triangular_adjoint_c64": (
        lambda a, b: jsl.solve_triangular(a, b, trans=2, lower=True),
        [cplx((4, 4)) + 3 * np.eye(4, dtype=np.complex64), cplx((4, 2))]),
    # QR: deterministic Householder reflectors, compared directly.
    "geqrf_f32": (jax._src.lax.linalg.geqrf, [vec((2, 5, 3))]),
    "qr_f64": (jnp.linalg.qr, [vec((6, 4), np.float64)]),
    "qr_complete_f32": (lambda a: jnp.linalg.qr(a, mode="complete"), [vec((2, 5, 3))]),
    "qr_wide_f64": (jnp.linalg.qr, [vec((3, 5), np.float64)]),
    "qr_c64": (jnp.linalg.qr, [cplx((5, 3))]),
    "qr_complete_c128": (lambda a: jnp.linalg.qr(a, mode="complete"), [cplx((2, 4, 3), np.complex128)]),
    "lstsq_qr_f32": (lambda a, b: jsl.solve_triangular(jnp.linalg.qr(a)[1], jnp.linalg.qr(a)[0].T @ b),
                     [vec((8, 3)), vec((8,))]),
    # Hessenberg and tridiagonal reductions: deterministic, compared directly.
    "hessenberg_f64": (jax.lax.linalg.hessenberg, [vec((2, 5, 5), np.float64)]),
    "hessenberg_q_f32": (lambda a: jsl.hessenberg(a, calc_q=True), [vec((6, 6))]),
    "hessenberg_c64": (jax.lax.linalg.hessenberg, [cplx((5, 5))]),
    "hessenberg_c128": (lambda a: jsl.hessenberg(a, calc_q=True), [cplx((4, 4), np.complex128)]),
    "tridiagonal_f32": (jax.lax.linalg.tridiagonal, [sym(5, (2,))]),
    "tridiagonal_upper_f64": (lambda a: jax.lax.linalg.tridiagonal(a, lower=False), [sym(6, (), np.float64)]),
    "tridiagonal_c64": (jax.lax.linalg.tridiagonal, [herm(5)]),
    "tridiagonal_upper_c128": (lambda a: jax.lax.linalg.tridiagonal(a, lower=False), [herm(4, (2,), np.complex128)]),
    # Symmetric / Hermitian eigendecomposition: eigenvalues, projectors, V^H V.
    "eigh_f32": (eigh_unique, [sym(6)]),
    "eigh_batched_f64": (eigh_unique, [sym(5, (3,), np.float64)]),
    # Only the upper triangle of a non-symmetric operand is read.
    "eigh_upper_f64": (eigh_upper, [vec((5, 5), np.float64)]),
    "eigvalsh_f32": (jnp.linalg.eigvalsh, [sym(7, (2,))]),
    "eigh_c64": (eigh_unique, [herm(5)]),
    "eigh_c128": (eigh_unique, [herm(4, (2,), np.complex128)]),
    "eigh_nan_f32": (jnp.linalg.eigh, [np.full((3, 3), np.nan, np.float32)]),
    # SVD: singular values, reconstruction, projectors, orthogonality.
    "svd_f32": (svd_unique(True), [vec((2, 5, 3))]),
    "svd_thin_f64": (svd_unique(False), [vec((4, 6), np.float64)]),
    "svd_values_f32": (lambda a: jnp.linalg.svd(a, compute_uv=False), [vec((3, 4, 4))]),
    "svd_c64": (svd_unique(True), [cplx((3, 4))]),
    "svd_thin_c128": (svd_unique(False), [cplx((2, 5, 3), np.complex128)]),
    "svd_gesvd_f64": (svd_gesvd, [vec((5, 3), np.float64)]),
    "pinv_f32": (jnp.linalg.pinv, [vec((5, 3))]),
    "matrix_norm2_f64": (lambda a: jnp.linalg.norm(a, 2), [vec((4, 4), np.float64)]),
    # General eigendecomposition: sorted eigenvalue parts, residuals, norms, the largest
    # component real.
    "eig_f32": (eig_unique, [vec((5, 5))]),
    "eig_batched_f64": (eig_unique, [vec((2, 6, 6), np.float64)]),
    "eig_c64": (eig_unique, [cplx((4, 4))]),
    "eig_c128": (eig_unique, [cplx((5, 5), np.complex128)]),
    "eigvals_f64": (lambda a: jnp.sort(jnp.linalg.eigvals(a).real), [vec((6, 6), np.float64)]),
    # Schur: reconstruction, Z^H Z, zeros below the (quasi-)triangle, sorted diagonal.
    "schur_f64": (schur_unique("real"), [vec((6, 6), np.float64)]),
    "schur_f32": (schur_unique("real"), [vec((5, 5))]),
    "schur_complex_f32": (schur_unique("complex"), [vec((4, 4))]),
    "schur_c128": (schur_unique("complex"), [cplx((5, 5), np.complex128)]),
    "sqrtm_f64": (jsl.sqrtm, [spd(4, (), np.float64)]),
})

_one_nan = np.eye(3, dtype=np.float32) + 0.5
_one_nan[1, 1] = np.nan
CASES.update({
    # NaN operands: JAX's wrappers turn LAPACK's failure into NaN results; the Householder
    # reductions propagate a NaN as LAPACK's own loops do.
    "svd_nan_f32": (jnp.linalg.svd, [np.full((3, 3), np.nan, np.float32)]),
    "eig_nan_f32": (jnp.linalg.eig, [np.full((3, 3), np.nan, np.float32)]),
    "qr_one_nan_f32": (jnp.linalg.qr, [_one_nan]),
    "hessenberg_one_nan_f32": (jax.lax.linalg.hessenberg, [_one_nan]),
})

_orm = jax.lax.linalg.ormqr
CASES.update({
    # ormqr / unmqr: Q c, Q^H c, c Q, c Q^H with geqrf's reflectors, compared directly.
    "ormqr_left_f32": (lambda a, c: _orm(*jax._src.lax.linalg.geqrf(a), c, left=True, transpose=False),
                       [vec((5, 3)), vec((5, 2))]),
    "ormqr_left_t_f64": (lambda a, c: _orm(*jax._src.lax.linalg.geqrf(a), c, left=True, transpose=True),
                         [vec((2, 5, 3), np.float64), vec((2, 5, 4), np.float64)]),
    "unmqr_right_c64": (lambda a, c: _orm(*jax._src.lax.linalg.geqrf(a), c, left=False, transpose=False),
                        [cplx((4, 3)), cplx((2, 4))]),
    "unmqr_right_h_c128": (lambda a, c: _orm(*jax._src.lax.linalg.geqrf(a), c, left=False, transpose=True),
                           [cplx((4, 4), np.complex128), cplx((3, 4), np.complex128)]),
    # gtsv: tridiagonal solves (dl[0] = du[-1] = 0), with and without row interchanges.
    "tridiagonal_solve_f32": (jax.lax.linalg.tridiagonal_solve,
                              [np.r_[0, vec((5,))].astype(np.float32), vec((6,)),
                               np.r_[vec((5,)), 0].astype(np.float32), vec((6, 2))]),
    "tridiagonal_solve_batched_f64": (jax.lax.linalg.tridiagonal_solve,
                                      [np.concatenate([np.zeros((3, 1)), vec((3, 4), np.float64)], 1),
                                       vec((3, 5), np.float64) + 3,
                                       np.concatenate([vec((3, 4), np.float64), np.zeros((3, 1))], 1),
                                       vec((3, 5, 1), np.float64)]),
    "tridiagonal_solve_c64": (jax.lax.linalg.tridiagonal_solve,
                              [np.r_[0, cplx((3,))].astype(np.complex64), cplx((4,)),
                               np.r_[cplx((3,)), 0].astype(np.complex64), cplx((4, 3))]),
})



# NaN confinement and defective Schur forms (LAPACK's own behaviour, through JAX): eigh of a
# matrix whose NaN no reflector reaches keeps it to one eigenvalue (LAPACK's selection sort
# leaves it in place), a NaN the reduction spreads makes every output NaN; schur of a
# triangular or diagonal matrix with a NaN is the matrix itself (balancing isolates every
# eigenvalue), of a dense one NaN. Each matrix of a batch is independent.
def _nan_diag(vals, dt):
    return np.diag(np.array(vals, dtype=dt))


def _block_nan(dt):
    b = np.zeros((5, 5))
    b[2:, 2:] = sym(3, (), np.float64)
    b[0, 0], b[1, 1] = np.nan, -7.0
    return b.astype(dt)


def _spread_nan(dt):
    b = np.zeros((5, 5))
    b[:3, :3] = sym(3, (), np.float64)
    b[3, 3], b[4, 4] = np.nan, 2.0
    return b.astype(dt)


def _similar(t, dt):
    """`P t P⁻¹` for a random well-conditioned `P`: a dense matrix with t's Jordan form."""
    n = t.shape[0]
    p = rng.standard_normal((n, n)) + 3 * np.eye(n)
    return (p @ t @ np.linalg.inv(p)).astype(dt)


def schur_backward(output):
    """What a defective matrix's Schur form determines well: Z T Zᴴ, Zᴴ Z, the zeros below
    the (quasi-)triangle and the trace (its eigenvalues are ill-conditioned)."""
    def f(a):
        t, z = jsl.schur(a, output=output)
        low = jnp.tril(t, -2 if t.dtype.kind == "f" else -1)
        return z @ t @ ct(z), ct(z) @ z, low, jnp.trace(t)
    return f


_jordan = np.diag([2.0] * 4) + np.diag([1.0] * 3, 1)
_nilpotent = np.triu(np.ones((4, 4)), 1)
_companion = np.array([[3.0, -3.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])  # (x - 1)^3
CASES.update({
    "eigh_nan_diag_f64": (eigh_unique, [np.stack([_nan_diag([3.0, np.nan, 1.0, -2.0], np.float64),
                                                  sym(4, (), np.float64)])]),
    "eigh_nan_block_f32": (eigh_unique, [_block_nan(np.float32)]),
    "eigh_nan_spread_f32": (jnp.linalg.eigh, [_spread_nan(np.float32)]),
    "eigh_nan_diag_c64": (eigh_unique, [np.stack([_nan_diag([1.0, 2.0, np.nan], np.complex64),
                                                  herm(3)])]),
    "schur_nan_diag_f64": (jsl.schur, [_nan_diag([1.0, np.nan, 3.0, -1.0], np.float64)]),
    "schur_nan_triu_f32": (jsl.schur, [np.triu(vec((4, 4))) + np.diag([0, np.nan, 0, 0]).astype(np.float32)]),
    "schur_nan_dense_batch_f32": (schur_unique("real"), [np.stack([vec((4, 4)), np.where(np.eye(4) > 0, np.nan, vec((4, 4))).astype(np.float32)])]),
    "schur_defective_jordan_f64": (schur_backward("real"), [_similar(_jordan, np.float64)]),
    "schur_defective_companion_f64": (schur_backward("real"), [_companion]),
    "schur_defective_jordan_f32": (schur_backward("real"), [_jordan.astype(np.float32)]),
    "schur_nilpotent_c128": (schur_backward("complex"), [_similar(_nilpotent, np.complex128)]),
    "schur_defective_complex_f32": (schur_backward("complex"), [_similar(_jordan, np.float32)]),
})


# NaN and infinity at the sizes where LAPACK changes algorithm (JAX 0.10.2's syevd:
# xSTEQR up to n = 25, divide and conquer xSTEDC from 26, blocked xSYTRD from 33, blocked
# xORMQR from 64): a batch of patterns per size, each matrix independent. Outputs: the
# eigenvalues and |V| (sign-free; every finite eigenvalue here is simple).
def _nan_patterns(n, dt, val=np.nan):
    a = sym(n, (), np.float64)
    out = []
    for i, j in [(n // 2, n // 2), (0, 0), (n - 1, 0)]:
        b = a.copy()
        b[i, j] = b[j, i] = val
        out.append(b)
    d = np.diag(np.arange(1.0, n + 1))
    d[n // 2, n // 2] = val
    out.append(d)
    blk = np.zeros((n, n))
    blk[1:, 1:] = a[1:, 1:]
    blk[0, 0] = val
    out.append(blk)
    return out


def _eigh_nan_batch(n, dt, herm_=False):
    mats = _nan_patterns(n, dt) + _nan_patterns(n, dt, np.inf)[:2] + [sym(n, (), np.float64)]
    if herm_:
        def h(m):
            m = m + 0.3j * np.tril(rng.standard_normal((n, n)), -1)
            return np.tril(m) + np.conj(np.tril(m, -1)).T
        mats = [h(m) for m in mats]
    return np.stack(mats).astype(dt)


def eigh_abs(lower=True):
    def f(a):
        v, w = jax.lax.linalg.eigh(a, lower=lower, symmetrize_input=False)
        return w, jnp.abs(v)
    return f


CASES.update({
    f"eigh_nan_n{n}_{tag}": (eigh_abs(), [_eigh_nan_batch(n, dt)])
    for n, dt, tag in [(8, np.float64, "f64"), (26, np.float64, "f64"), (33, np.float64, "f64"),
                       (40, np.float64, "f64"), (64, np.float64, "f64"), (100, np.float64, "f64"),
                       (40, np.float32, "f32"), (100, np.float32, "f32")]
})
CASES.update({
    "eigh_nan_n40_c128": (eigh_abs(), [_eigh_nan_batch(40, np.complex128, True)]),
    "eigh_nan_n64_upper_f64": (eigh_abs(False), [np.swapaxes(_eigh_nan_batch(64, np.float64), -1, -2)]),
})


# xGEES scales a matrix whose largest entry is below sqrt(safmin)/eps or above its inverse
# (f32: 9.1e-13, 1.1e12; f64: 6.7e-139, 1.5e138) before the Schur iteration and T back
# after; an infinity scales by 0 (NaN where the infinity was, zeros elsewhere) and back by
# inf (a NaN Hessenberg part, Z finite). Outputs divided by the scale are O(1).
def schur_scaled(output, s):
    def f(a):
        t, z = jsl.schur(a, output=output)
        low = jnp.tril(t, -2 if t.dtype.kind == "f" else -1)
        return (z @ (t / s) @ ct(z), ct(z) @ z, low / s, jnp.sort(jnp.diagonal(t).real / s),
                jnp.sort(jnp.abs(jnp.diagonal(t, -1)) > 0))
    return f


def _with(a, i, j, v):
    a = a.copy()
    a[..., i, j] = v
    return a


CASES.update({
    "schur_huge_f32": (schur_scaled("real", 1e20), [vec((6, 6)) * np.float32(1e20)]),
    "schur_tiny_f32": (schur_scaled("real", 1e-20), [vec((5, 5)) * np.float32(1e-20)]),
    "schur_huge_f64": (schur_scaled("real", 1e200), [vec((2, 6, 6), np.float64) * 1e200]),
    "schur_tiny_f64": (schur_scaled("real", 1e-200), [vec((5, 5), np.float64) * 1e-200]),
    "schur_huge_c64": (schur_scaled("complex", 1e15), [cplx((5, 5)) * np.float32(1e15)]),
    "schur_inf_f64": (jsl.schur, [np.stack([_with(vec((8, 8), np.float64), 4, 4, np.inf),
                                            _with(vec((8, 8), np.float64), 7, 0, -np.inf),
                                            _with(np.diag(vec((8,), np.float64)), 3, 3, np.inf)])]),
})


# A NaN or an infinity in the middle of a dense matrix, in its last row's first column, on
# a diagonal matrix and on a triangular one, at n = 8, 33 and 40 (JAX's outputs as they
# are: NaN where LAPACK leaves NaN, the rest compared as values).
def _probe_batch(n, spd=False):
    r = np.random.default_rng(3 + n)
    out = []
    for val in [np.nan, np.inf]:
        a = r.standard_normal((n, n))
        if spd:
            a = a @ a.T / n + np.eye(n)
        for i, j in [(n // 2, n // 2), (n - 1, 0)]:
            out.append(_with(a, i, j, val))
        d = np.diag(r.standard_normal(n) + (3 if spd else 0))
        out.append(_with(d, n // 2, n // 2, val))
        out.append(_with(np.triu(a), n // 2, n // 2, val))
    return np.stack(out)


for _n in (8, 33, 40):
    CASES.update({
        f"qr_nan_n{_n}_f64": (jnp.linalg.qr, [_probe_batch(_n)]),
        f"eig_nan_n{_n}_f64": (jnp.linalg.eig, [_probe_batch(_n)]),
        f"schur_nan_n{_n}_f64": (jsl.schur, [_probe_batch(_n)]),
    })


# potrf of an SPD matrix with a NaN or an infinity (OpenBLAS's potrf stops only at a pivot
# <= 0, so a NaN flows through with info 0 and JAX returns NaN where it reaches): in the
# middle, first and last pivots, the last row's first column, the second column; a
# diagonal and a symmetric matrix; an infinite pivot with a NaN below it (xSCAL zeroes
# the column at n <= 32). jnp.linalg.cholesky symmetrizes first, so an off-diagonal value
# also lands in the other triangle.
def _chol_probe(n, dt=np.float64):
    r = np.random.default_rng(11 + n)
    out = []
    for val in [np.nan, np.inf, -np.inf]:
        a = r.standard_normal((n, n))
        if np.dtype(dt).kind == "c":
            a = a + 1j * r.standard_normal((n, n))
        a = (a @ a.conj().T / n + np.eye(n)).astype(dt)
        for i, j in [(n // 2, n // 2), (n - 1, 0), (0, 0), (n - 1, n - 1), (n // 2, 1)]:
            out.append(_with(a, i, j, val))
        out.append(_with(np.diag(r.standard_normal(n) + 3).astype(dt), n // 2, n // 2, val))
    b = _with(out[0], n // 2, n // 2, np.inf)
    out.append(_with(_with(b, n - 1, n // 2, np.nan), n // 2, n - 1, np.nan))
    return np.stack(out)


for _n in (8, 33, 40):
    CASES[f"cholesky_nan_n{_n}_f64"] = (jnp.linalg.cholesky, [_chol_probe(_n)])
CASES["cholesky_nan_n8_f32"] = (jnp.linalg.cholesky, [_chol_probe(8, np.float32)])
CASES["cholesky_nan_n8_c128"] = (jnp.linalg.cholesky, [_chol_probe(8, np.complex128)])
CASES["cholesky_upper_nan_n8_f64"] = (
    lambda a: jsl.cholesky(a, lower=False), [_chol_probe(8)])


# getrf of a matrix with a NaN or an infinity: JAX's pivots come from OpenBLAS's own
# getrf (recursive panels, left-looking getf2, a NaN pivot recorded but not swapped) and
# its SIMD i?amax, whose answer with a NaN depends on the entry's address; f32's Haswell
# strsm turns an infinity in the first row of a row pair into NaN. Sizes on both sides of
# where OpenBLAS switches from one getf2 to panels (f64 33/34, f32 17/18).
def _lu_probe(n, dt):
    r = np.random.default_rng(5 + n)
    out = []
    for val in [np.nan, np.inf, -np.inf]:
        a = r.standard_normal((n, n)).astype(dt)
        for i, j in [(n // 2, n // 2), (n - 1, 0), (0, 0), (n - 1, n - 1), (n // 2, 1), (1, n // 2)]:
            out.append(_with(a, i, j, val))
        out.append(_with(np.diag(r.standard_normal(n)).astype(dt), n // 2, n // 2, val))
        out.append(_with(np.triu(a), n // 2, n // 2, val))
        out.append(_with(_with(a, 2, 0, val), n - 2, n // 3, val))
    return np.stack(out)


for _n, _dt, _tag in [(8, np.float64, "f64"), (33, np.float64, "f64"), (34, np.float64, "f64"),
                      (64, np.float64, "f64"), (8, np.float32, "f32"), (17, np.float32, "f32"),
                      (18, np.float32, "f32"), (40, np.float32, "f32")]:
    CASES[f"lu_nan_n{_n}_{_tag}"] = (jax.lax.linalg.lu, [_lu_probe(_n, _dt)])



# Complex getrf with a NaN or an infinity in the real or the imaginary part: OpenBLAS's
# izamax on |re| + |im|, zgetf2's pivot test (either part >= DBL_MIN) and its complex
# kernels (GEMV/GEMM add alpha = (-1, 0) times the sum as a complex product, trsm multiplies
# by the unit diagonal (1, 0)), which turn an infinite part into NaN. Sizes on both sides of
# where complex getrf switches from one zgetf2 to panels (9/10).
def _lu_probe_cplx(n, dt):
    r = np.random.default_rng(7 + n)
    out = []
    for val in [np.nan, np.inf, -np.inf]:
        for part in (0, 1):
            def w(b, i, j):
                b = b.copy()
                b[i, j] = complex(val, b[i, j].imag) if part == 0 else complex(b[i, j].real, val)
                return b
            a = (r.standard_normal((n, n)) + 1j * r.standard_normal((n, n))).astype(dt)
            for i, j in [(n // 2, n // 2), (n - 1, 0), (0, 0), (n - 1, n - 1), (n // 2, 1), (1, n // 2)]:
                out.append(w(a, i, j))
            out.append(w(np.diag(r.standard_normal(n)).astype(dt), n // 2, n // 2))
            out.append(w(np.triu(a), n // 2, n // 2))
            out.append(w(w(a, 2, 0), n - 2, n // 3))
    return np.stack(out)


for _n, _dt, _tag in [(9, np.complex128, "c128"), (10, np.complex128, "c128"),
                      (33, np.complex128, "c128"), (9, np.complex64, "c64"),
                      (10, np.complex64, "c64"), (40, np.complex64, "c64")]:
    CASES[f"lu_nan_n{_n}_{_tag}"] = (jax.lax.linalg.lu, [_lu_probe_cplx(_n, _dt)])

# A complex matrix times 1e-200: `gees` scales it; the program's `t / 1e-200` is a complex
# division that XLA does by Smith's algorithm (no |b|² to underflow to 0). Last, so the
# random draws of the cases above stay as they were.
CASES["schur_tiny_c128"] = (schur_scaled("complex", 1e-200),
                            [cplx((4, 4), np.complex128) * 1e-200])

def main(out, only=()):
    for name, (f, args) in CASES.items():
        if only and name not in only:
            continue
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
        f64 = any(a.dtype in (np.float64, np.complex128) for a in args)
        meta = {"rtol": 1e-9 if f64 else 2e-4, "atol": 1e-9 if f64 else 2e-5}
        if name.startswith("lu_nan"):
            # After a NaN pivot that is not swapped the remaining rows are badly
            # conditioned: LU's rounding differs from OpenBLAS's by up to ~2e-4 (f64).
            meta = {"rtol": 1e-3, "atol": 1e-6} if f64 else {"rtol": 1e-3, "atol": 1e-3}
            if name == "lu_nan_n64_f64":
                meta["rtol"] = 1e-2  # ~1.3e-3 after two panels of that growth
        if name == "eigh_nan_n100_f32":
            # f32 eigenvectors of a 99x99 block: faer's and LAPACK's divide and conquer
            # agree to ~1e-3 on the closest eigenvalue pairs.
            meta = {"rtol": 2e-3, "atol": 2e-4}
        with open(os.path.join(d, "meta.json"), "w") as fh:
            json.dump(meta, fh)
        print(name, len(outs), "outputs")


if __name__ == "__main__":
    main(sys.argv[1], tuple(sys.argv[2:]))
