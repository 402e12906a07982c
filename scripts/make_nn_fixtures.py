"""Fixtures for xla::nn (tests/nn_fixtures.rs): flax.linen Dense and LayerNorm and
optax.softmax_cross_entropy (mean over the batch) and its gradient, on fixed random inputs
at two batch sizes. Writes testdata/nn/<name>.txt: one `name dims... : values...` line per
array. Usage: python3 scripts/make_nn_fixtures.py"""
import os

import jax
import jax.numpy as jnp
import numpy as np
import flax.linen as nn
import optax

jax.config.update("jax_platforms", "cpu")
OUT = os.path.join(os.path.dirname(__file__), "..", "testdata", "nn")


def write(name, arrays):
    with open(os.path.join(OUT, name + ".txt"), "w") as f:
        for key, a in arrays:
            a = np.asarray(a, np.float32)
            dims = " ".join(str(d) for d in a.shape)
            vals = " ".join(repr(float(v)) for v in a.reshape(-1))
            f.write(f"{key} {dims} : {vals}\n")


rng = np.random.default_rng(0)
for b in (3, 5):
    x = rng.normal(size=(b, 6)).astype(np.float32)
    dense = nn.Dense(4)
    params = dense.init(jax.random.PRNGKey(b), x)
    w, bias = params["params"]["kernel"], params["params"]["bias"]
    bias = bias + rng.normal(size=4).astype(np.float32)  # flax initialises it to zero
    y = dense.apply({"params": {"kernel": w, "bias": bias}}, x)
    write(f"dense_b{b}", [("x", x), ("w", w), ("b", bias), ("y", y)])

    ln = nn.LayerNorm()  # epsilon 1e-6, over the last axis, with scale and bias
    scale = rng.normal(size=6).astype(np.float32)
    shift = rng.normal(size=6).astype(np.float32)
    y = ln.apply({"params": {"scale": scale, "bias": shift}}, x)
    write(f"layer_norm_b{b}", [("x", x), ("scale", scale), ("bias", shift), ("y", y)])

    logits = rng.normal(size=(b, 10)).astype(np.float32) * 3
    labels = jax.nn.one_hot(rng.integers(0, 10, size=b), 10)
    loss_fn = lambda l: optax.softmax_cross_entropy(l, labels).mean()
    loss, grad = jax.value_and_grad(loss_fn)(logits)
    write(f"softmax_cross_entropy_b{b}", [("logits", logits), ("labels", labels), ("loss", loss), ("grad", grad)])
