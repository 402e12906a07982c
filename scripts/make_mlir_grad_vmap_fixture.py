#!/usr/bin/env python3
"""Fixture of `xla grad` and `xla vmap` on a `.mlir` file (tests/stablehlo_cli.rs): a small
JAX loss (dense layer, tanh, softmax cross-entropy) lowered with `jax.jit(f).lower(...)
.as_text()` (StableHLO, what JAX prints by default), its inputs, and what real XLA computes
for `jax.grad(loss, argnums=(0, 1))` and for `jax.vmap(loss, in_axes=(None, None, 0, 0))`
over a batch of 3 examples.

    python3 scripts/make_mlir_grad_vmap_fixture.py testdata/stablehlo_cli_grad_vmap_loss
"""
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

RNG = np.random.default_rng(15)


def loss(w, b, x, y):
    logits = jnp.tanh(x @ w + b)
    return -jnp.sum(y * jax.nn.log_softmax(logits, axis=-1)) / x.shape[0]


def main(d):
    os.makedirs(d, exist_ok=True)
    w = (RNG.standard_normal((4, 3)) * 0.5).astype(np.float32)
    b = (RNG.standard_normal(3) * 0.1).astype(np.float32)
    x = RNG.standard_normal((2, 4)).astype(np.float32)
    y = np.eye(3, dtype=np.float32)[[0, 2]]
    with open(os.path.join(d, "module.mlir"), "w") as f:
        f.write(jax.jit(loss).lower(w, b, x, y).as_text())
    for i, a in enumerate([w, b, x, y]):
        np.save(os.path.join(d, f"in{i}.npy"), a)
    gw, gb = jax.jit(jax.grad(loss, argnums=(0, 1)))(w, b, x, y)
    np.save(os.path.join(d, "grad_out0.npy"), np.asarray(gw))
    np.save(os.path.join(d, "grad_out1.npy"), np.asarray(gb))
    xs = RNG.standard_normal((3, 2, 4)).astype(np.float32)
    ys = np.eye(3, dtype=np.float32)[[[0, 1], [2, 2], [1, 0]]]
    np.save(os.path.join(d, "vmap_in2.npy"), xs)
    np.save(os.path.join(d, "vmap_in3.npy"), ys)
    out = jax.jit(jax.vmap(loss, in_axes=(None, None, 0, 0)))(w, b, xs, ys)
    np.save(os.path.join(d, "vmap_out0.npy"), np.asarray(out))
    print(open(os.path.join(d, "module.mlir")).read())


if __name__ == "__main__":
    main(sys.argv[1])
