"""Time from a call at a new batch size to its first result under jax.jit (trace, lower,
compile, run), and a second call at the same size (cached), for the MLP loss and gradient
of examples/generic_sizes.rs. Usage: python3 scripts/jax_retrace_time.py"""
import time

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_platforms", "cpu")


def mlp_loss(w1, b1, w2, b2, x, labels):
    h = jax.nn.relu(x @ w1 + b1)
    logits = h @ w2 + b2
    logp = jax.nn.log_softmax(logits, axis=1)
    return -(logp * labels).sum() / x.shape[0]


step = jax.jit(jax.value_and_grad(mlp_loss, argnums=(0, 1, 2, 3)))
w1 = (np.arange(784 * 128) % 13 - 6.0).astype(np.float32).reshape(784, 128) * 0.01
b1 = np.full(128, 0.01, np.float32)
w2 = (np.arange(128 * 10) % 7 - 3.0).astype(np.float32).reshape(128, 10) * 0.02
b2 = np.zeros(10, np.float32)
print("| B | first call (trace + compile + run) | second call (cached) |")
print("| --- | --- | --- |")
for b in [1, 7, 32, 100, 256]:
    x = (np.arange(b * 784) % 255 / 255.0).astype(np.float32).reshape(b, 784)
    i = np.arange(b * 10)
    labels = (i % 10 == (i // 10) % 10).astype(np.float32).reshape(b, 10)
    t = time.perf_counter()
    jax.block_until_ready(step(w1, b1, w2, b2, x, labels))
    first = (time.perf_counter() - t) * 1e3
    t = time.perf_counter()
    jax.block_until_ready(step(w1, b1, w2, b2, x, labels))
    second = (time.perf_counter() - t) * 1e3
    print(f"| {b} | {first:.1f} ms | {second:.2f} ms |")
