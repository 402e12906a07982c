"""Fixtures for a whole training step as one computation (tests/nn_train_step.rs): a
flax MLP (Dense 4->8, relu, Dense 8->3) with optax.softmax_cross_entropy (mean) and
optax.adam(0.01), two jitted steps (value_and_grad, opt.update, apply_updates) on a batch
of 5 and then of 3. Writes testdata/nn/train_step_mlp_adam.txt.
Usage: python3 scripts/make_train_step_fixtures.py"""
import jax
import jax.numpy as jnp
import numpy as np
import flax.linen as nn
import optax

from nn_fixture_io import write

jax.config.update("jax_platforms", "cpu")


class Mlp(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(8, name="d1")(x))
        return nn.Dense(3, name="d2")(x)


model = Mlp()
rng = np.random.default_rng(13)
x1 = rng.normal(size=(5, 4)).astype(np.float32)
y1 = np.asarray(jax.nn.one_hot(rng.integers(0, 3, size=5), 3))
x2 = rng.normal(size=(3, 4)).astype(np.float32)
y2 = np.asarray(jax.nn.one_hot(rng.integers(0, 3, size=3), 3))
params = model.init(jax.random.PRNGKey(0), x1)["params"]
# flax initialises the biases to zero: perturb them so their gradients matter.
params = jax.tree_util.tree_map(lambda a: a, params)
params["d1"]["bias"] = jnp.asarray(rng.normal(size=8).astype(np.float32) * 0.1)
params["d2"]["bias"] = jnp.asarray(rng.normal(size=3).astype(np.float32) * 0.1)


def loss_fn(p, x, y):
    return optax.softmax_cross_entropy(model.apply({"params": p}, x), y).mean()


opt = optax.adam(0.01)


@jax.jit
def step(p, state, x, y):
    loss, g = jax.value_and_grad(loss_fn)(p, x, y)
    updates, state = opt.update(g, state, p)
    return optax.apply_updates(p, updates), state, loss, g


def flat(p):
    return [p["d1"]["kernel"], p["d1"]["bias"], p["d2"]["kernel"], p["d2"]["bias"]]


names = ["w1", "b1", "w2", "b2"]
arrays = [(n, a) for n, a in zip(names, flat(params))]
state = opt.init(params)
for k, (x, y) in enumerate([(x1, y1), (x2, y2)], start=1):
    params, state, loss, g = step(params, state, x, y)
    adam = state[0]
    arrays += [(f"x{k}", x), (f"y{k}", y), (f"loss{k}", loss)]
    arrays += [(f"g{k}_{n}", a) for n, a in zip(names, flat(g))]
    arrays += [(f"p{k}_{n}", a) for n, a in zip(names, flat(params))]
    arrays += [(f"m{k}_{n}", a) for n, a in zip(names, flat(adam.mu))]
    arrays += [(f"v{k}_{n}", a) for n, a in zip(names, flat(adam.nu))]
write("train_step_mlp_adam", arrays)
