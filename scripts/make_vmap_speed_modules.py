#!/usr/bin/env python3
"""Writes the single-example modules `scripts/vmap_speed.py` batches (JAX 0.10.2).

    python3 scripts/make_vmap_speed_modules.py

testdata/vmap_speed/mlp_digits_loss.hlo: the softmax cross-entropy of ONE example of the
digits perceptron of examples/per_example_grads.rs (64 -> 128 ReLU -> 10; x f32[64], y
the s32 label). `vmap_speed.py --grad 0,1,2,3 --batched 4,5 --size 32` times its gradient
batched over 32 examples against 32 single-example calls.
"""
import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "vmap_speed")


def mlp_digits_loss(w1, b1, w2, b2, x, y):
    h = jax.nn.relu(x @ w1 + b1)
    logits = h @ w2 + b2
    return -jax.nn.log_softmax(logits)[y]


def main():
    os.makedirs(OUT, exist_ok=True)
    f32 = jnp.float32
    ex = [jnp.zeros((64, 128), f32), jnp.zeros(128, f32), jnp.zeros((128, 10), f32),
          jnp.zeros(10, f32), jnp.zeros(64, f32), jnp.zeros((), jnp.int32)]
    text = jax.jit(mlp_digits_loss).lower(*ex).as_text(dialect="hlo")
    open(os.path.join(OUT, "mlp_digits_loss.hlo"), "w").write(text)
    print("wrote", os.path.join(OUT, "mlp_digits_loss.hlo"))


if __name__ == "__main__":
    main()
