"""Fixtures for the xla::nn layers of tests/nn_layers.rs, values and gradients: flax
OptimizedLSTMCell and GRUCell (their per-gate weights stacked as xla::nn takes them),
MultiHeadDotProductAttention with a mask, and two jitted steps of
optax.chain(clip_by_global_norm, adamw) on a logistic regression. Each gradient is of
`sum(out * r)` for a fixed random `r` (so every output element matters), w.r.t. every
input and weight. Writes testdata/nn/<name>.txt (scripts/nn_fixture_io.py).
Usage: python3 scripts/make_nn_layer_fixtures.py"""
import jax
import jax.numpy as jnp
import numpy as np
import flax.linen as nn
import optax

from nn_fixture_io import write

jax.config.update("jax_platforms", "cpu")
rng = np.random.default_rng(2613)


def normal(*shape, scale=1.0):
    return (rng.normal(size=shape) * scale).astype(np.float32)


def split(a, n):
    return jnp.split(a, n, axis=-1)


def lstm(b, i, f):
    x, c, h = normal(b, i), normal(b, f), normal(b, f)
    wi, wh, bias = normal(i, 4 * f, scale=0.5), normal(f, 4 * f, scale=0.5), normal(4 * f, scale=0.3)
    rc, rh = normal(b, f), normal(b, f)
    cell = nn.OptimizedLSTMCell(f)

    def run(x, c, h, wi, wh, bias):
        params = {}
        for gate, k_i, k_h, bb in zip("ifgo", split(wi, 4), split(wh, 4), split(bias, 4)):
            params["i" + gate] = {"kernel": k_i}
            params["h" + gate] = {"kernel": k_h, "bias": bb}
        (c2, h2), _ = cell.apply({"params": params}, (c, h), x)
        return c2, h2

    def loss(*args):
        c2, h2 = run(*args)
        return (c2 * rc).sum() + (h2 * rh).sum()

    args = (x, c, h, wi, wh, bias)
    c2, h2 = run(*args)
    grads = jax.grad(loss, argnums=tuple(range(6)))(*args)
    names = ["x", "c", "h", "wi", "wh", "b"]
    write(f"lstm_cell_b{b}", list(zip(names, args)) + [("rc", rc), ("rh", rh), ("c2", c2), ("h2", h2),
                                                      ("loss", loss(*args))]
          + [("g_" + n, g) for n, g in zip(names, grads)])


def gru(b, i, f):
    x, h = normal(b, i), normal(b, f)
    wi, bi = normal(i, 3 * f, scale=0.5), normal(3 * f, scale=0.3)
    wh, bhn = normal(f, 3 * f, scale=0.5), normal(f, scale=0.3)
    r = normal(b, f)
    cell = nn.GRUCell(f)

    def run(x, h, wi, bi, wh, bhn):
        (ir, iz, inn), (bir, biz, bin_), (hr, hz, hn) = split(wi, 3), split(bi, 3), split(wh, 3)
        params = {"ir": {"kernel": ir, "bias": bir}, "iz": {"kernel": iz, "bias": biz},
                  "in": {"kernel": inn, "bias": bin_}, "hr": {"kernel": hr}, "hz": {"kernel": hz},
                  "hn": {"kernel": hn, "bias": bhn}}
        h2, _ = cell.apply({"params": params}, h, x)
        return h2

    loss = lambda *args: (run(*args) * r).sum()
    args = (x, h, wi, bi, wh, bhn)
    grads = jax.grad(loss, argnums=tuple(range(6)))(*args)
    names = ["x", "h", "wi", "bi", "wh", "bhn"]
    write(f"gru_cell_b{b}", list(zip(names, args)) + [("r", r), ("h2", run(*args)), ("loss", loss(*args))]
          + [("g_" + n, g) for n, g in zip(names, grads)])


def attention(b, q, k, e, heads, d, o):
    xq, xkv = normal(b, q, e), normal(b, k, e)
    mask = rng.random(size=(b, q, k)) < 0.6
    mask[:, :, 0] = True  # every query sees at least one key
    mask[0, 0, :] = False  # ... but one sees none: flax's softmax over f32.min logits is uniform
    ws = {n: normal(e, heads, d, scale=0.4) for n in ("query", "key", "value")}
    bs = {n: normal(heads, d, scale=0.2) for n in ("query", "key", "value")}
    wo, bo = normal(heads, d, o, scale=0.4), normal(o, scale=0.2)
    r = normal(b, q, o)
    attn = nn.MultiHeadDotProductAttention(num_heads=heads, qkv_features=heads * d, out_features=o)

    def run(xq, xkv, wq, bq, wk, bk, wv, bv, wo, bo):
        params = {"query": {"kernel": wq, "bias": bq}, "key": {"kernel": wk, "bias": bk},
                  "value": {"kernel": wv, "bias": bv}, "out": {"kernel": wo, "bias": bo}}
        return attn.apply({"params": params}, xq, xkv, mask=mask[:, None])

    loss = lambda *args: (run(*args) * r).sum()
    args = (xq, xkv, ws["query"], bs["query"], ws["key"], bs["key"], ws["value"], bs["value"], wo, bo)
    grads = jax.grad(loss, argnums=tuple(range(10)))(*args)
    names = ["xq", "xkv", "wq", "bq", "wk", "bk", "wv", "bv", "wo", "bo"]
    write(f"attention_b{b}q{q}k{k}", list(zip(names, args)) + [("mask", mask), ("r", r), ("y", run(*args)),
                                                              ("loss", loss(*args))]
          + [("g_" + n, g) for n, g in zip(names, grads)])


def adamw_clip():
    w, bias = normal(4, 3), normal(3, scale=0.1)
    batches = [(normal(5, 4, scale=2), np.asarray(jax.nn.one_hot(rng.integers(0, 3, 5), 3))),
               (normal(3, 4, scale=2), np.asarray(jax.nn.one_hot(rng.integers(0, 3, 3), 3)))]
    params = {"w": w, "b": bias}
    loss_fn = lambda p, x, y: optax.softmax_cross_entropy(x @ p["w"] + p["b"], y).mean()
    opt = optax.chain(optax.clip_by_global_norm(0.5), optax.adamw(0.01, weight_decay=0.1))
    state = opt.init(params)

    @jax.jit
    def step(p, state, x, y):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        updates, state = opt.update(g, state, p)
        return optax.apply_updates(p, updates), state, loss, optax.global_norm(g)

    arrays = [("w", w), ("b", bias)]
    for k, (x, y) in enumerate(batches, start=1):
        params, state, loss, norm = step(params, state, x, y)
        assert norm > 0.5, "the test wants the clipping to act"
        adam = state[1][0]
        arrays += [(f"x{k}", x), (f"y{k}", y), (f"loss{k}", loss), (f"norm{k}", norm),
                   (f"p{k}_w", params["w"]), (f"p{k}_b", params["b"]), (f"m{k}_w", adam.mu["w"]),
                   (f"m{k}_b", adam.mu["b"]), (f"v{k}_w", adam.nu["w"]), (f"v{k}_b", adam.nu["b"])]
    write("train_step_logreg_adamw_clip", arrays)


for b in (2, 3):
    lstm(b, 3, 4)
    gru(b, 3, 4)
attention(2, 3, 4, 6, 2, 2, 5)
attention(1, 2, 5, 6, 2, 2, 5)
adamw_clip()
