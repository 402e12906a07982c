"""Fixtures for the rank-generic optimizers of xla::nn (tests/nn_optim_ranks.rs): three
optax steps on one pytree of parameters of ranks 0, 1, 2 and 4 (a scale, a bias, a dense
kernel and a convolution kernel), with fixed random gradients, for optax.adam(0.01),
optax.adamw(0.01, weight_decay=0.1), optax.sgd(0.1, momentum=0.9) and
optax.chain(clip_by_global_norm(0.5), adam(0.01)). Writes testdata/nn/optim_ranks_<opt>.txt
(`name dims... : values...` per array; scripts/nn_fixture_io.py): the parameters `p_<leaf>`,
the gradients `g<t>_<leaf>` and, after the third step, `p3_<leaf>` and the optimizer state
(`m3_`/`v3_` for Adam's moments, `trace3_` for the momentum).
Usage: python3 scripts/make_optim_rank_fixtures.py"""
import jax
import numpy as np
import optax

from nn_fixture_io import write

jax.config.update("jax_platforms", "cpu")

SHAPES = {"s": (), "b": (3,), "w": (2, 3), "k": (3, 3, 2, 4)}
rng = np.random.default_rng(13)
params = {n: rng.normal(size=s).astype(np.float32) for n, s in SHAPES.items()}
grads = [{n: rng.normal(size=s).astype(np.float32) for n, s in SHAPES.items()} for _ in range(3)]


def adam_state(state):
    return [s for s in jax.tree_util.tree_leaves(state, is_leaf=lambda x: isinstance(x, optax.ScaleByAdamState)) if isinstance(s, optax.ScaleByAdamState)][0]


def trace_state(state):
    return [s for s in jax.tree_util.tree_leaves(state, is_leaf=lambda x: isinstance(x, optax.TraceState)) if isinstance(s, optax.TraceState)][0]


OPTIMIZERS = {
    "adam": optax.adam(0.01),
    "adamw": optax.adamw(0.01, weight_decay=0.1),
    "sgd_momentum": optax.sgd(0.1, momentum=0.9),
    "clip_adam": optax.chain(optax.clip_by_global_norm(0.5), optax.adam(0.01)),
}

for name, opt in OPTIMIZERS.items():
    p = dict(params)
    state = opt.init(p)
    for g in grads:
        updates, state = jax.jit(opt.update)(g, state, p)
        p = optax.apply_updates(p, updates)
    arrays = [(f"p_{n}", params[n]) for n in SHAPES]
    for t, g in enumerate(grads, 1):
        arrays += [(f"g{t}_{n}", g[n]) for n in SHAPES]
    arrays += [(f"p3_{n}", p[n]) for n in SHAPES]
    if name == "sgd_momentum":
        arrays += [(f"trace3_{n}", trace_state(state).trace[n]) for n in SHAPES]
    else:
        s = adam_state(state)
        arrays += [(f"m3_{n}", s.mu[n]) for n in SHAPES]
        arrays += [(f"v3_{n}", s.nu[n]) for n in SHAPES]
    if name == "clip_adam":
        norms = [float(np.sqrt(sum(float((g[n] ** 2).sum()) for n in SHAPES))) for g in grads]
        assert min(norms) > 0.5, norms  # every step is clipped
    write(f"optim_ranks_{name}", arrays)
