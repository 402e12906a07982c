"""Fixtures for a CNN training step whose parameters (and Adam state) are nested tuples,
one tuple per layer (tests/nn_train_step.rs): a flax CNN (Conv 3x3 SAME 1->4 with
bias, relu, max_pool 2x2, Dense ->3) on 6x6 images, optax.softmax_cross_entropy (mean)
and optax.adam(0.01) over the pytree ((kernel, bias), (kernel, bias)), two jitted steps
(value_and_grad, opt.update, apply_updates) on a batch of 3 and then of 2.
Writes testdata/nn/train_step_cnn_tuples.txt.
Usage: python3 scripts/make_train_step_fixtures.py"""
import jax
import jax.numpy as jnp
import numpy as np
import flax.linen as nn
import optax

from nn_fixture_io import write

jax.config.update("jax_platforms", "cpu")

H = 6


class Cnn(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Conv(4, (3, 3), padding="SAME", name="conv")(x)
        x = nn.max_pool(nn.relu(x), (2, 2), (2, 2))
        x = x.reshape((x.shape[0], -1))
        return nn.Dense(3, name="dense")(x)


model = Cnn()
rng = np.random.default_rng(1313)


def batch(b):
    x = rng.normal(size=(b, H, H, 1)).astype(np.float32)
    y = np.asarray(jax.nn.one_hot(rng.integers(0, 3, size=b), 3))
    return x, y


(x1, y1), (x2, y2) = batch(3), batch(2)
init = model.init(jax.random.PRNGKey(0), x1)["params"]
# flax initialises the biases to zero: perturb them so their gradients matter.
params = (
    (init["conv"]["kernel"], jnp.asarray(rng.normal(size=4).astype(np.float32) * 0.1)),
    (init["dense"]["kernel"], jnp.asarray(rng.normal(size=3).astype(np.float32) * 0.1)),
)


def loss_fn(p, x, y):
    (k, c), (w, b) = p
    variables = {"params": {"conv": {"kernel": k, "bias": c}, "dense": {"kernel": w, "bias": b}}}
    return optax.softmax_cross_entropy(model.apply(variables, x), y).mean()


opt = optax.adam(0.01)


@jax.jit
def step(p, state, x, y):
    loss, g = jax.value_and_grad(loss_fn)(p, x, y)
    updates, state = opt.update(g, state, p)
    return optax.apply_updates(p, updates), state, loss, g


names = ["k", "c", "w", "b"]


def flat(p):
    return jax.tree_util.tree_leaves(p)


arrays = [(f"p0_{n}", a) for n, a in zip(names, flat(params))]
state = opt.init(params)
for k, (x, y) in enumerate([(x1, y1), (x2, y2)], start=1):
    params, state, loss, g = step(params, state, x, y)
    adam = state[0]
    arrays += [(f"x{k}", x), (f"y{k}", y), (f"loss{k}", loss)]
    arrays += [(f"g{k}_{n}", a) for n, a in zip(names, flat(g))]
    arrays += [(f"p{k}_{n}", a) for n, a in zip(names, flat(params))]
    arrays += [(f"m{k}_{n}", a) for n, a in zip(names, flat(adam.mu))]
    arrays += [(f"v{k}_{n}", a) for n, a in zip(names, flat(adam.nu))]
write("train_step_cnn_tuples", arrays)
