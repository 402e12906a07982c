"""Fixtures for xla::nn (tests/nn_fixtures.rs): flax.linen Dense, LayerNorm, RMSNorm and
Embed, optax.softmax_cross_entropy and squared_error (means) with their gradients, and one
optax.adam / optax.sgd(momentum) update, on fixed random inputs at two sizes. Writes testdata/nn/<name>.txt: one `name dims... : values...` line per
array. Usage: python3 scripts/make_nn_fixtures.py"""
import jax
import jax.numpy as jnp
import numpy as np
import flax.linen as nn
import optax

from nn_fixture_io import write

jax.config.update("jax_platforms", "cpu")


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

    rms = nn.RMSNorm()  # epsilon 1e-6, over the last axis, with scale
    y = rms.apply({"params": {"scale": scale}}, x)
    write(f"rms_norm_b{b}", [("x", x), ("scale", scale), ("y", y)])

    emb = nn.Embed(7, 4)
    table = rng.normal(size=(7, 4)).astype(np.float32)
    ids = rng.integers(0, 7, size=b).astype(np.int32)
    y = emb.apply({"params": {"embedding": table}}, ids)
    write(f"embedding_n{b}", [("table", table), ("ids", ids), ("y", y)])

    pred = rng.normal(size=(b, 3)).astype(np.float32)
    target = rng.normal(size=(b, 3)).astype(np.float32)
    mse_fn = lambda p: optax.squared_error(p, target).mean()
    loss, grad = jax.value_and_grad(mse_fn)(pred)
    write(f"mse_b{b}", [("pred", pred), ("target", target), ("loss", loss), ("grad", grad)])

for n in (4, 9):
    p = rng.normal(size=n).astype(np.float32)
    grads = [rng.normal(size=n).astype(np.float32) for _ in range(3)]
    opt = optax.adam(0.01)
    state = opt.init(p)
    params = p
    for g in grads:  # three steps, so the bias corrections at t = 1, 2, 3 are all used
        updates, state = opt.update(g, state, params)
        params = optax.apply_updates(params, updates)
    adam_state = state[0]
    write(f"adam_n{n}", [("p", p), ("g1", grads[0]), ("g2", grads[1]), ("g3", grads[2]),
                          ("p3", params), ("m3", adam_state.mu), ("v3", adam_state.nu)])
    opt = optax.sgd(0.1, momentum=0.9)
    state = opt.init(p)
    params = p
    for g in grads:
        updates, state = opt.update(g, state, params)
        params = optax.apply_updates(params, updates)
    write(f"sgd_momentum_n{n}", [("p", p), ("g1", grads[0]), ("g2", grads[1]), ("g3", grads[2]),
                                  ("p3", params), ("trace3", state[0].trace)])

for (b, h, w) in ((2, 5, 6), (1, 4, 3)):
    c, o = 3, 4
    x = rng.normal(size=(b, h, w, c)).astype(np.float32)
    conv = nn.Conv(o, (3, 3), padding="SAME", use_bias=False)
    k = rng.normal(size=(3, 3, c, o)).astype(np.float32)
    y = conv.apply({"params": {"kernel": k}}, x)
    write(f"conv2d_nhwc_{b}x{h}x{w}", [("x", x), ("k", k), ("y", y)])
    x_nchw = np.transpose(x, (0, 3, 1, 2))
    k_oihw = np.transpose(k, (3, 2, 0, 1))
    y = jax.lax.conv_general_dilated(x_nchw, k_oihw, (1, 1), "SAME",
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"))
    write(f"conv2d_nchw_{b}x{h}x{w}", [("x", x_nchw), ("k", k_oihw), ("y", y)])
    write(f"max_pool_{b}x{h}x{w}", [("x", x), ("y", nn.max_pool(x, (2, 2), (2, 2)))])
    write(f"avg_pool_{b}x{h}x{w}", [("x", x), ("y", nn.avg_pool(x, (2, 2), (2, 2)))])

for (b, h, w) in ((2, 3, 4), (3, 2, 2)):
    c = 5
    x = rng.normal(size=(b, h, w, c)).astype(np.float32) * 2 + 1
    scale = rng.normal(size=c).astype(np.float32)
    bias = rng.normal(size=c).astype(np.float32)
    mean = rng.normal(size=c).astype(np.float32) * 0.1
    var = rng.uniform(0.5, 1.5, size=c).astype(np.float32)
    bn = nn.BatchNorm(use_running_average=False, momentum=0.99, epsilon=1e-5)
    variables = {"params": {"scale": scale, "bias": bias},
                 "batch_stats": {"mean": mean, "var": var}}
    y, updated = bn.apply(variables, x, mutable=["batch_stats"])
    stats = updated["batch_stats"]
    write(f"batch_norm_train_{b}x{h}x{w}", [("x", x), ("scale", scale), ("bias", bias), ("mean", mean),
                                           ("var", var), ("y", y), ("new_mean", stats["mean"]),
                                           ("new_var", stats["var"])])
    bn = nn.BatchNorm(use_running_average=True, epsilon=1e-5)
    y = bn.apply(variables, x)
    write(f"batch_norm_infer_{b}x{h}x{w}", [("x", x), ("scale", scale), ("bias", bias), ("mean", mean),
                                           ("var", var), ("y", y)])
