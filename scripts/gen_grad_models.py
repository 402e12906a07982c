#!/usr/bin/env python3
"""Whole-model gradient fixtures: small models whose loss gradients JAX computes, for
`xla-autodiff/tests/whole_models.rs` (which needs no Python: it reads what this writes).

    python3 scripts/gen_grad_models.py [testdata/grad_models]    # needs jax==0.10.2

Models (all small; the whole directory stays well under 300 KB):

- `mlp`: 64-32-10 MLP (tanh), softmax cross-entropy, batch 16, f32. Forward module from
  `jax.jit(loss).lower(...).as_text(dialect="hlo")`.
- `cnn`: conv 3x3 (NCHW, 1->4 channels, 8x8 input, SAME), batch norm as JAX computes it in
  training (mean/var over N,H,W, written with jnp ops), ReLU, 2x2 max-pool, dense -> 10,
  softmax cross-entropy, batch 8, f32. Forward module lowered by JAX.
- `cnn_bn_op`: the same network written by hand in HLO with XLA's `batch-norm-training`
  op (JAX never emits it); expected gradients are those of the jnp model (same function).
- `gp`: Gaussian-process negative log marginal likelihood, RBF kernel, parameters log
  length-scale, log signal variance, log noise (f64 scalars), 12 points. JAX lowers
  `cholesky`/`solve_triangular` to LAPACK custom-calls, so the forward module is HLO text
  written by hand with XLA's `cholesky` and `triangular-solve`; the expected gradient is
  `jax.grad` of the same function in JAX.

Per model DIR/<model>/: `module.hlo` (forward, scalar loss), `in<i>.npy` (one per
parameter), `loss.npy` (JAX's loss), `grad<k>.npy` (jax.grad w.r.t. the k-th entry of
`wrt`), `meta.json` (`wrt`, `rtol`, `atol`). Every forward module is run on real XLA
(jaxlib's HLO text parser + PjRt CPU) and must reproduce JAX's loss, which checks the
hand-written ones.
"""
import json
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import numpy as np  # noqa: E402
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jax._src.lib import xla_client as xc, _jax  # noqa: E402
from jax._src import xla_bridge  # noqa: E402

assert jax.__version__ == "0.10.2", f"needs jax==0.10.2, found {jax.__version__}"

F32_TOL = (1e-4, 1e-5)
F64_TOL = (1e-9, 1e-9)


def run_hlo_text(text, inputs):
    """Executes HLO text on XLA:CPU (XLA's own text parser); returns the output leaves."""
    mod = xc.hlo.hlo_module_from_text(text)
    mlir = _jax.mlir.hlo_to_stablehlo(mod.as_serialized_hlo_module_proto())
    be = xla_bridge.get_backend("cpu")
    devs = be.local_devices()[:1]
    exe = be.compile_and_load(mlir, xc.DeviceList(tuple(devs)), xc.CompileOptions())
    bufs = [jax.device_put(np.asarray(a), devs[0]) for a in inputs]
    outs = exe.execute_sharded(bufs).disassemble_into_single_device_arrays()
    return [np.asarray(o[0]) for o in outs]


def softmax_xent(logits, labels):
    logp = jax.nn.log_softmax(logits, axis=-1)
    onehot = jax.nn.one_hot(labels, logits.shape[-1], dtype=logits.dtype)
    return -jnp.mean(jnp.sum(onehot * logp, axis=-1))


def mlp_loss(w1, b1, w2, b2, x, labels):
    h = jnp.tanh(x @ w1 + b1)
    return softmax_xent(h @ w2 + b2, labels)


def batch_norm_train(y, gamma, beta, eps=1e-5):
    mean = jnp.mean(y, axis=(0, 2, 3), keepdims=True)
    var = jnp.mean(jnp.square(y - mean), axis=(0, 2, 3), keepdims=True)
    yhat = (y - mean) * lax.rsqrt(var + eps)
    return yhat * gamma[None, :, None, None] + beta[None, :, None, None]


def cnn_loss(k, gamma, beta, w, b, x, labels):
    y = lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW"))
    y = jax.nn.relu(batch_norm_train(y, gamma, beta))
    y = lax.reduce_window(y, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
    return softmax_xent(y.reshape(y.shape[0], -1) @ w + b, labels)


def gp_nll(log_ls, log_sf, log_sn, x, y):
    ls2 = jnp.exp(2.0 * log_ls)
    sf2 = jnp.exp(2.0 * log_sf)
    sn2 = jnp.exp(2.0 * log_sn)
    d = x[:, None] - x[None, :]
    k = sf2 * jnp.exp(-0.5 * d * d / ls2) + sn2 * jnp.eye(x.shape[0], dtype=x.dtype)
    chol = jnp.linalg.cholesky(k)
    v = jax.scipy.linalg.solve_triangular(chol, y[:, None], lower=True)
    alpha = jax.scipy.linalg.solve_triangular(chol, v, lower=True, trans="T")
    n = x.shape[0]
    return (0.5 * jnp.sum(y[:, None] * alpha) + jnp.sum(jnp.log(jnp.diagonal(chol)))
            + 0.5 * n * jnp.log(2.0 * jnp.pi))


CNN_BN_OP_HLO = """HloModule cnn_bn_op, entry_computation_layout={(f32[4,1,3,3]{3,2,1,0}, f32[4]{0}, f32[4]{0}, f32[64,10]{1,0}, f32[10]{0}, f32[8,1,8,8]{3,2,1,0}, s32[8]{0})->f32[]}

max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  k = f32[4,1,3,3]{3,2,1,0} parameter(0)
  gamma = f32[4]{0} parameter(1)
  beta = f32[4]{0} parameter(2)
  w = f32[64,10]{1,0} parameter(3)
  b = f32[10]{0} parameter(4)
  x = f32[8,1,8,8]{3,2,1,0} parameter(5)
  labels = s32[8]{0} parameter(6)
  conv = f32[8,4,8,8]{3,2,1,0} convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  bn = (f32[8,4,8,8]{3,2,1,0}, f32[4]{0}, f32[4]{0}) batch-norm-training(conv, gamma, beta), epsilon=1e-05, feature_index=1
  normed = f32[8,4,8,8]{3,2,1,0} get-tuple-element(bn), index=0
  zero = f32[] constant(0)
  zeros = f32[8,4,8,8]{3,2,1,0} broadcast(zero), dimensions={}
  relu = f32[8,4,8,8]{3,2,1,0} maximum(normed, zeros)
  ninf = f32[] constant(-inf)
  pool = f32[8,4,4,4]{3,2,1,0} reduce-window(relu, ninf), window={size=1x1x2x2 stride=1x1x2x2}, to_apply=max_f32
  flat = f32[8,64]{1,0} reshape(pool)
  mm = f32[8,10]{1,0} dot(flat, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[8,10]{1,0} broadcast(b), dimensions={1}
  logits = f32[8,10]{1,0} add(mm, bb)
  mx = f32[8]{0} reduce(logits, ninf), dimensions={1}, to_apply=max_f32
  mxb = f32[8,10]{1,0} broadcast(mx), dimensions={0}
  shifted = f32[8,10]{1,0} subtract(logits, mxb)
  ex = f32[8,10]{1,0} exponential(shifted)
  se = f32[8]{0} reduce(ex, zero), dimensions={1}, to_apply=add_f32
  lse = f32[8]{0} log(se)
  lseb = f32[8,10]{1,0} broadcast(lse), dimensions={0}
  logp = f32[8,10]{1,0} subtract(shifted, lseb)
  cls = s32[8,10]{1,0} iota(), iota_dimension=1
  lb = s32[8,10]{1,0} broadcast(labels), dimensions={0}
  hit = pred[8,10]{1,0} compare(lb, cls), direction=EQ
  zeros.1 = f32[8,10]{1,0} broadcast(zero), dimensions={}
  picked = f32[8,10]{1,0} select(hit, logp, zeros.1)
  total = f32[] reduce(picked, zero), dimensions={0,1}, to_apply=add_f32
  negn = f32[] constant(-0.125)
  ROOT loss = f32[] multiply(total, negn)
}
"""

GP_HLO = """HloModule gp_nll, entry_computation_layout={(f64[], f64[], f64[], f64[12]{0}, f64[12]{0})->f64[]}

add_f64 {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT s = f64[] add(a, b)
}

ENTRY main {
  log_ls = f64[] parameter(0)
  log_sf = f64[] parameter(1)
  log_sn = f64[] parameter(2)
  x = f64[12]{0} parameter(3)
  y = f64[12]{0} parameter(4)
  two = f64[] constant(2)
  tls = f64[] multiply(two, log_ls)
  ls2 = f64[] exponential(tls)
  tsf = f64[] multiply(two, log_sf)
  sf2 = f64[] exponential(tsf)
  tsn = f64[] multiply(two, log_sn)
  sn2 = f64[] exponential(tsn)
  xi = f64[12,12]{1,0} broadcast(x), dimensions={0}
  xj = f64[12,12]{1,0} broadcast(x), dimensions={1}
  d = f64[12,12]{1,0} subtract(xi, xj)
  d2 = f64[12,12]{1,0} multiply(d, d)
  mhalf = f64[] constant(-0.5)
  s = f64[] divide(mhalf, ls2)
  sb = f64[12,12]{1,0} broadcast(s), dimensions={}
  e = f64[12,12]{1,0} multiply(d2, sb)
  ex = f64[12,12]{1,0} exponential(e)
  sf2b = f64[12,12]{1,0} broadcast(sf2), dimensions={}
  kse = f64[12,12]{1,0} multiply(sf2b, ex)
  r = s32[12,12]{1,0} iota(), iota_dimension=0
  c = s32[12,12]{1,0} iota(), iota_dimension=1
  diag = pred[12,12]{1,0} compare(r, c), direction=EQ
  zero = f64[] constant(0)
  zeros = f64[12,12]{1,0} broadcast(zero), dimensions={}
  sn2b = f64[12,12]{1,0} broadcast(sn2), dimensions={}
  noise = f64[12,12]{1,0} select(diag, sn2b, zeros)
  k = f64[12,12]{1,0} add(kse, noise)
  l = f64[12,12]{1,0} cholesky(k), lower=true
  ycol = f64[12,1]{1,0} reshape(y)
  v = f64[12,1]{1,0} triangular-solve(l, ycol), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  alpha = f64[12,1]{1,0} triangular-solve(l, v), left_side=true, lower=true, transpose_a=TRANSPOSE
  ya = f64[12,1]{1,0} multiply(ycol, alpha)
  quad = f64[] reduce(ya, zero), dimensions={0,1}, to_apply=add_f64
  half = f64[] constant(0.5)
  hq = f64[] multiply(half, quad)
  ldiag = f64[12,12]{1,0} select(diag, l, zeros)
  dl = f64[12]{0} reduce(ldiag, zero), dimensions={1}, to_apply=add_f64
  logd = f64[12]{0} log(dl)
  logdet = f64[] reduce(logd, zero), dimensions={0}, to_apply=add_f64
  const = f64[] constant(11.027262398456072)
  a1 = f64[] add(hq, logdet)
  ROOT nll = f64[] add(a1, const)
}
"""


def save(out_dir, name, text, inputs, wrt, fn, tol, check_fn=None):
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "module.hlo"), "w") as f:
        f.write(text)
    for i, a in enumerate(inputs):
        np.save(os.path.join(d, f"in{i}.npy"), np.asarray(a))
    loss = np.asarray(fn(*inputs))
    grads = jax.grad(fn, argnums=tuple(wrt))(*inputs)
    for k, g in enumerate(grads):
        np.save(os.path.join(d, f"grad{k}.npy"), np.asarray(g))
    np.save(os.path.join(d, "loss.npy"), loss)
    (got,) = run_hlo_text(text, inputs)
    rtol, atol = tol
    if not np.allclose(got, loss, rtol=rtol, atol=atol):
        sys.exit(f"{name}: XLA runs module.hlo to {got}, JAX's loss is {loss}")
    meta = {"model": name, "wrt": list(wrt), "rtol": rtol, "atol": atol,
            "xla_loss": float(got), "jax_loss": float(loss)}
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    print(f"{name}: loss {loss} (XLA {got}), {len(grads)} gradients")


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "grad_models")
    rng = np.random.default_rng(20261122)
    f32 = np.float32

    mlp_in = [
        (rng.standard_normal((64, 32)) / 8).astype(f32),
        (rng.standard_normal(32) * 0.1).astype(f32),
        (rng.standard_normal((32, 10)) / 6).astype(f32),
        (rng.standard_normal(10) * 0.1).astype(f32),
        rng.standard_normal((16, 64)).astype(f32),
        rng.integers(0, 10, 16).astype(np.int32),
    ]
    text = jax.jit(mlp_loss).lower(*mlp_in).as_text(dialect="hlo")
    save(out_dir, "mlp", text, mlp_in, [0, 1, 2, 3], mlp_loss, F32_TOL)

    cnn_in = [
        (rng.standard_normal((4, 1, 3, 3)) / 3).astype(f32),
        (1.0 + 0.1 * rng.standard_normal(4)).astype(f32),
        (0.1 * rng.standard_normal(4)).astype(f32),
        (rng.standard_normal((64, 10)) / 8).astype(f32),
        (rng.standard_normal(10) * 0.1).astype(f32),
        rng.standard_normal((8, 1, 8, 8)).astype(f32),
        rng.integers(0, 10, 8).astype(np.int32),
    ]
    text = jax.jit(cnn_loss).lower(*cnn_in).as_text(dialect="hlo")
    save(out_dir, "cnn", text, cnn_in, [0, 1, 2, 3, 4], cnn_loss, F32_TOL)
    save(out_dir, "cnn_bn_op", CNN_BN_OP_HLO, cnn_in, [0, 1, 2, 3, 4], cnn_loss, F32_TOL)

    gp_in = [
        np.float64(np.log(0.8)),
        np.float64(np.log(1.2)),
        np.float64(np.log(0.3)),
        np.sort(rng.uniform(-3.0, 3.0, 12)),
        None,
    ]
    gp_in[4] = np.sin(gp_in[3]) + 0.2 * rng.standard_normal(12)
    assert abs(0.5 * 12 * np.log(2 * np.pi) - 11.027262398456072) < 1e-12
    save(out_dir, "gp", GP_HLO, gp_in, [0, 1, 2], gp_nll, F64_TOL)


if __name__ == "__main__":
    main()
