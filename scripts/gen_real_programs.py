#!/usr/bin/env python3
"""Programs as people write them with JAX's libraries, lowered to HLO for side-by-side timing.

    python3 scripts/gen_real_programs.py benches/real/hlo     # writes R*.hlo and E*.hlo

B1-B17 (../shared/perf) were the workloads we were measured on; these are the ones we were not
tuned for, written the way the libraries' own examples write them:

R (flax.linen models, optax optimizers: one jitted training step each)
    R1 MLP classifier, Adam                     R5 causal transformer LM, AdamW, clipping
    R2 CNN with BatchNorm + Dropout, SGD+mom.   R6 VAE (dense), Adam
    R3 LSTM sequence classifier (nn.RNN), Adam  R7 conv1d text classifier with embedding
    R4 GRU language model (nn.RNN), Adam        R8 conv autoencoder with ConvTranspose

E (the wider JAX ecosystem)
    E1 conjugate gradients (jax.scipy.sparse.linalg.cg) on a 256x256 SPD system
    E2 BiCGSTAB (jax.scipy.sparse.linalg.bicgstab) on a 128x128 system
    E3 BFGS (jax.scipy.optimize.minimize) of a logistic-regression loss
    E4 odeint (Dopri5, adaptive) of Lotka-Volterra and its gradient (adjoint: nested while loops)
    E5 a GRU cell scanned over 200 steps at batch 1
    E6 Bayesian logistic regression: log density and its gradient over 1000 points
    E7 Kalman filter over 500 steps (lax.scan of 4x4 matrix algebra)
    E8 eight-schools HMC: 100 leapfrog steps (fori_loop) of a hierarchical model's gradient

Inputs follow side_by_side.py's rule (standard-normal floats, integers in [0, 10)); each program
scales or shapes them into a valid range (weights of a trained net's size, an SPD matrix).
"""
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

F = jnp.float32


def shapes(*s):
    return jax.ShapeDtypeStruct(s, F)


def ishapes(*s):
    return jax.ShapeDtypeStruct(s, jnp.int32)


def xent(logits, y, n):
    return -jnp.mean(jnp.sum(jax.nn.one_hot(y, n) * jax.nn.log_softmax(logits), -1))


def flax_step(model, opt, init_args, batch, loss_of, scale=0.1, mutable=None, rng=False):
    """One optax training step of a flax model, lowered: (params, opt_state, batch..., [seed])."""
    variables = jax.eval_shape(lambda: model.init(jax.random.key(0), *init_args))
    params = variables["params"]
    extra = {k: v for k, v in variables.items() if k != "params"}
    opt_state = jax.eval_shape(opt.init, params)

    def step(params, extra, opt_state, *args):
        if rng:
            *args, seed = args
            key = jax.random.key(seed)
        else:
            key = None
        params = jax.tree.map(lambda a: a * scale, params)
        opt_state = jax.tree.map(lambda a: jnp.abs(a) * 0.01 if a.dtype == F else a, opt_state)

        def loss(p):
            return loss_of(model, {"params": p, **extra}, key, *args)
        (l, aux), g = jax.value_and_grad(loss, has_aux=True)(params)
        import optax
        upd, opt_state = opt.update(g, opt_state, params)
        return optax.apply_updates(params, upd), aux, opt_state, l
    seed = [jax.ShapeDtypeStruct((), jnp.int32)] if rng else []
    return jax.jit(step).lower(params, extra, opt_state, *batch, *seed)


def r1():
    import flax.linen as nn
    import optax

    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x):
            for f in (512, 512):
                x = nn.relu(nn.Dense(f)(x))
            return nn.Dense(10)(x)

    def loss(m, v, _, x, y):
        return xent(m.apply(v, x), y, 10), {}
    return flax_step(MLP(), optax.adam(1e-3), [jnp.zeros((1, 784))], [shapes(128, 784), ishapes(128)], loss)


def r2():
    import flax.linen as nn
    import optax

    class CNN(nn.Module):
        @nn.compact
        def __call__(self, x, train):
            for f in (32, 64):
                x = nn.Conv(f, (3, 3))(x)
                x = nn.BatchNorm(use_running_average=not train)(x)
                x = nn.relu(x)
                x = nn.max_pool(x, (2, 2), (2, 2))
            x = x.reshape((x.shape[0], -1))
            x = nn.Dropout(0.5, deterministic=not train)(nn.relu(nn.Dense(128)(x)))
            return nn.Dense(10)(x)

    def loss(m, v, key, x, y):
        logits, upd = m.apply(v, x, True, mutable=["batch_stats"], rngs={"dropout": key})
        return xent(logits, y, 10), upd["batch_stats"]
    model = CNN()
    variables = jax.eval_shape(lambda: model.init(jax.random.key(0), jnp.zeros((1, 28, 28, 1)), False))
    params, stats = variables["params"], variables["batch_stats"]
    opt = optax.sgd(0.05, momentum=0.9)
    opt_state = jax.eval_shape(opt.init, params)

    def step(params, stats, opt_state, x, y, seed):
        params = jax.tree.map(lambda a: a * 0.1, params)
        stats = jax.tree.map(jnp.abs, stats)
        (l, stats), g = jax.value_and_grad(
            lambda p: loss(model, {"params": p, "batch_stats": stats}, jax.random.key(seed), x, y),
            has_aux=True)(params)
        upd, opt_state = opt.update(g, opt_state, params)
        return optax.apply_updates(params, upd), stats, opt_state, l
    return jax.jit(step).lower(params, stats, opt_state, shapes(64, 28, 28, 1), ishapes(64),
                               jax.ShapeDtypeStruct((), jnp.int32))


def r3():
    import flax.linen as nn
    import optax

    class Classifier(nn.Module):
        @nn.compact
        def __call__(self, x):
            h = nn.RNN(nn.LSTMCell(128))(x)
            return nn.Dense(10)(h[:, -1])

    def loss(m, v, _, x, y):
        return xent(m.apply(v, x), y, 10), {}
    return flax_step(Classifier(), optax.adam(1e-3), [jnp.zeros((1, 50, 32))],
                     [shapes(32, 50, 32), ishapes(32)], loss)


def r4():
    import flax.linen as nn
    import optax
    V = 64

    class LM(nn.Module):
        @nn.compact
        def __call__(self, toks):
            x = nn.Embed(V, 64)(toks)
            h = nn.RNN(nn.GRUCell(256))(x)
            return nn.Dense(V)(h)

    def loss(m, v, _, toks):
        logits = m.apply(v, toks[:, :-1])
        return xent(logits, toks[:, 1:], V), {}
    return flax_step(LM(), optax.adam(1e-3), [jnp.zeros((1, 64), jnp.int32)], [ishapes(16, 65)], loss)


def r5():
    import flax.linen as nn
    import optax
    V, T, D = 64, 64, 128

    class Block(nn.Module):
        @nn.compact
        def __call__(self, x, mask):
            h = nn.LayerNorm()(x)
            x = x + nn.MultiHeadDotProductAttention(num_heads=4)(h, h, mask=mask)
            h = nn.LayerNorm()(x)
            return x + nn.Dense(D)(nn.gelu(nn.Dense(4 * D)(h)))

    class LM(nn.Module):
        @nn.compact
        def __call__(self, toks):
            x = nn.Embed(V, D)(toks) + self.param("pos", nn.initializers.normal(0.02), (T, D))
            mask = nn.make_causal_mask(toks)
            for _ in range(2):
                x = Block()(x, mask)
            return nn.Dense(V)(nn.LayerNorm()(x))

    def loss(m, v, _, toks):
        return xent(m.apply(v, toks[:, :-1]), toks[:, 1:], V), {}
    opt = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(3e-4, weight_decay=0.1))
    return flax_step(LM(), opt, [jnp.zeros((1, T), jnp.int32)], [ishapes(16, T + 1)], loss)


def r6():
    import flax.linen as nn
    import optax

    class VAE(nn.Module):
        @nn.compact
        def __call__(self, x, key):
            h = nn.relu(nn.Dense(400)(x))
            mu, logvar = nn.Dense(20)(h), nn.Dense(20)(h)
            z = mu + jnp.exp(0.5 * logvar) * jax.random.normal(key, mu.shape)
            out = nn.Dense(784)(nn.relu(nn.Dense(400)(z)))
            return out, mu, logvar

    def loss(m, v, key, x):
        logits, mu, logvar = m.apply(v, x, key)
        target = jax.nn.sigmoid(x)
        bce = jnp.sum(optax.sigmoid_binary_cross_entropy(logits, target), -1)
        kld = -0.5 * jnp.sum(1 + logvar - mu ** 2 - jnp.exp(logvar), -1)
        return jnp.mean(bce + kld), {}
    model = VAE()
    return flax_step(model, optax.adam(1e-3), [jnp.zeros((1, 784)), jax.random.key(0)],
                     [shapes(128, 784)], loss, rng=True)


def r7():
    import flax.linen as nn
    import optax
    V = 10

    class TextCNN(nn.Module):
        @nn.compact
        def __call__(self, toks):
            x = nn.Embed(V, 64)(toks)
            x = nn.relu(nn.Conv(128, (5,))(x))
            x = nn.max_pool(x, (2,), (2,))
            x = nn.relu(nn.Conv(128, (5,))(x))
            x = jnp.max(x, axis=1)
            return nn.Dense(2)(x)

    def loss(m, v, _, toks, y):
        return xent(m.apply(v, toks), y % 2, 2), {}
    return flax_step(TextCNN(), optax.adam(1e-3), [jnp.zeros((1, 200), jnp.int32)],
                     [ishapes(64, 200), ishapes(64)], loss)


def r8():
    import flax.linen as nn
    import optax

    class AE(nn.Module):
        @nn.compact
        def __call__(self, x):
            h = nn.relu(nn.Conv(16, (3, 3), strides=(2, 2))(x))
            h = nn.relu(nn.Conv(32, (3, 3), strides=(2, 2))(h))
            h = nn.relu(nn.ConvTranspose(16, (3, 3), strides=(2, 2))(h))
            return nn.ConvTranspose(1, (3, 3), strides=(2, 2))(h)

    def loss(m, v, _, x):
        return jnp.mean((m.apply(v, x) - x) ** 2), {}
    return flax_step(AE(), optax.adam(1e-3), [jnp.zeros((1, 28, 28, 1))], [shapes(64, 28, 28, 1)], loss)


def spd(m):
    n = m.shape[0]
    return m @ m.T / n + jnp.eye(n, dtype=m.dtype)


def e1():
    from jax.scipy.sparse.linalg import cg

    def solve(m, b):
        a = spd(m)
        x, _ = cg(lambda v: a @ v, b, tol=1e-6, maxiter=200)
        return x
    return jax.jit(solve).lower(shapes(256, 256), shapes(256))


def e2():
    from jax.scipy.sparse.linalg import bicgstab

    def solve(m, b):
        a = m / np.sqrt(128.0) * 0.3 + 2.0 * jnp.eye(128, dtype=F)
        x, _ = bicgstab(lambda v: a @ v, b, tol=1e-6, maxiter=200)
        return x
    return jax.jit(solve).lower(shapes(128, 128), shapes(128))


def e3():
    from jax.scipy.optimize import minimize

    def fit(x, y):
        y = (y > 4).astype(F)

        def loss(w):
            z = x @ w[:-1] + w[-1]
            return jnp.mean(jnp.logaddexp(0.0, z) - y * z) + 1e-3 * jnp.sum(w * w)
        return minimize(loss, jnp.zeros(x.shape[1] + 1, F), method="BFGS", options={"maxiter": 50}).x
    return jax.jit(fit).lower(shapes(500, 10), ishapes(500))


def e4():
    from jax.experimental.ode import odeint

    def lv(y, t, p):
        a, b, c, d = p
        return jnp.stack([a * y[0] - b * y[0] * y[1], d * y[0] * y[1] - c * y[1]])

    def loss(y0, p):
        y0 = jnp.abs(y0) + 1.0
        p = jnp.abs(p) * 0.1 + jnp.array([1.0, 0.1, 1.5, 0.075], F)
        ts = jnp.linspace(0.0, 5.0, 20)
        ys = odeint(lv, y0, ts, p, rtol=1e-5, atol=1e-5)
        return jnp.sum(ys ** 2)
    return jax.jit(jax.value_and_grad(loss, argnums=(0, 1))).lower(shapes(2), shapes(4))


def e5():
    def run(wx, wh, b, xs, h0):
        wx, wh = wx * 0.1, wh * 0.1

        def cell(h, x):
            zr = x @ wx[:, :128] + h @ wh[:, :128] + b[:128]
            z, r = jax.nn.sigmoid(zr[:64]), jax.nn.sigmoid(zr[64:])
            n = jnp.tanh(x @ wx[:, 128:] + (r * h) @ wh[:, 128:] + b[128:])
            h = (1 - z) * n + z * h
            return h, h
        h, hs = lax.scan(cell, h0, xs)
        return h, hs.sum()
    return jax.jit(run).lower(shapes(16, 192), shapes(64, 192), shapes(192), shapes(200, 16), shapes(64))


def e6():
    def logp(w, x, y):
        y = (y > 4).astype(F)
        z = x @ w
        return jnp.sum(y * z - jnp.logaddexp(0.0, z)) - 0.5 * jnp.sum(w * w)
    return jax.jit(jax.value_and_grad(logp)).lower(shapes(20), shapes(1000, 20), ishapes(1000))


def e7():
    def kf(a, q, y):
        A = jnp.eye(4, dtype=F) + 0.01 * a
        Q = 0.1 * spd(q)
        H = jnp.eye(2, 4, dtype=F)
        R = 0.5 * jnp.eye(2, dtype=F)

        def step(c, yt):
            m, P = c
            m, P = A @ m, A @ P @ A.T + Q
            S = H @ P @ H.T + R
            K = P @ H.T @ jnp.linalg.inv(S)
            m = m + K @ (yt - H @ m)
            P = (jnp.eye(4, dtype=F) - K @ H) @ P
            return (m, P), m
        (_, _), ms = lax.scan(step, (jnp.zeros(4, F), jnp.eye(4, dtype=F)), y)
        return ms
    return jax.jit(kf).lower(shapes(4, 4), shapes(4, 4), shapes(500, 2))


def e8():
    ys = jnp.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0], F)
    sig = jnp.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0], F)

    def logp(q):
        mu, logtau, theta = q[0], q[1], q[2:]
        tau = jnp.exp(logtau)
        lp = -0.5 * mu ** 2 / 25.0 - jnp.log1p((tau / 5.0) ** 2) + logtau
        lp += jnp.sum(-0.5 * ((theta - mu) / tau) ** 2 - jnp.log(tau))
        return lp + jnp.sum(-0.5 * ((ys - theta) / sig) ** 2)

    def hmc(q, p):
        q = q * 0.1
        eps = 0.01

        def step(i, s):
            q, p = s
            p = p + 0.5 * eps * jax.grad(logp)(q)
            q = q + eps * p
            p = p + 0.5 * eps * jax.grad(logp)(q)
            return q, p
        return lax.fori_loop(0, 100, step, (q, p))
    return jax.jit(hmc).lower(shapes(10), shapes(10))


PROGRAMS = [("R1_flax_mlp_adam", r1), ("R2_flax_cnn_bn_dropout", r2), ("R3_flax_lstm_classifier", r3),
            ("R4_flax_gru_lm", r4), ("R5_flax_transformer_lm", r5), ("R6_flax_vae", r6),
            ("R7_flax_text_cnn", r7), ("R8_flax_conv_autoencoder", r8),
            ("E1_cg_solve", e1), ("E2_bicgstab", e2), ("E3_bfgs_logreg", e3), ("E4_odeint_grad", e4),
            ("E5_gru_scan_b1", e5), ("E6_logreg_logp_grad", e6), ("E7_kalman_scan", e7),
            ("E8_eight_schools_hmc", e8)]


def main(out, only=None, programs=None):
    os.makedirs(out, exist_ok=True)
    for name, f in programs or PROGRAMS:
        if only and not any(name.startswith(o) for o in only.split(",")):
            continue
        text = f().as_text(dialect="hlo")
        with open(os.path.join(out, name + ".hlo"), "w") as fh:
            fh.write(text)
        print(name, len(text.splitlines()), "lines")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
