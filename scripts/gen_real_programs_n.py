#!/usr/bin/env python3
"""A third set of programs people run, lowered to HLO for side-by-side timing (see
gen_real_programs.py for R and E; same input rule, same `flax_step`).

    python3 scripts/gen_real_programs_n.py benches/real/hlo     # writes N*.hlo

N (patterns R and E do not cover)
    N1 CNN with GroupNorm + SiLU (a diffusion-model block), NHWC, Adam
    N2 WaveNet-style causal dilated conv1d stack, Adam
    N3 graph network: messages gathered by edge, summed per node (segment_sum), Adam
    N4 Gaussian-process marginal likelihood and its gradient (Cholesky, cho_solve), 256 points
    N5 linear recurrence by associative_scan (S4/LRU-style) over 1024 steps, and its gradient
    N6 per-example gradients (vmap of grad) with clipping: DP-SGD step of an MLP
    N7 Fourier layer (rfft, spectral weights, irfft: an FNO block) training step, Adam
    N8 MobileNet-style depthwise-separable CNN with BatchNorm, NHWC, SGD+momentum
    N9 ranking: top_k, argsort, cumsum of a scored batch (a listwise loss) and its gradient
    N10 ViT-style patch embedding (strided conv) + 2 attention blocks, AdamW
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from gen_real_programs import F, flax_step, ishapes, main, shapes, xent  # noqa: E402


def n1():
    import flax.linen as nn
    import optax

    class Net(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.Conv(32, (3, 3))(x)
            for _ in range(2):
                h = nn.silu(nn.GroupNorm(num_groups=8)(x))
                h = nn.Conv(32, (3, 3))(h)
                h = nn.silu(nn.GroupNorm(num_groups=8)(h))
                x = x + nn.Conv(32, (3, 3))(h)
            return nn.Conv(3, (3, 3))(x)

    def loss(m, v, _, x):
        return jnp.mean((m.apply(v, x) - x) ** 2), {}
    return flax_step(Net(), optax.adam(1e-3), [jnp.zeros((1, 32, 32, 3))], [shapes(16, 32, 32, 3)], loss)


def n2():
    import flax.linen as nn
    import optax

    class WaveNet(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.Conv(32, (1,))(x)
            skip = 0
            for d in (1, 2, 4, 8, 16, 32):
                h = nn.Conv(64, (2,), kernel_dilation=(d,), padding=[(d, 0)])(x)
                h = jnp.tanh(h[..., :32]) * jax.nn.sigmoid(h[..., 32:])
                skip = skip + nn.Conv(32, (1,))(h)
                x = x + nn.Conv(32, (1,))(h)
            return nn.Conv(1, (1,))(nn.relu(skip))

    def loss(m, v, _, x):
        y = m.apply(v, x[:, :-1])
        return jnp.mean((y - x[:, 1:]) ** 2), {}
    return flax_step(WaveNet(), optax.adam(1e-3), [jnp.zeros((1, 256, 1))], [shapes(8, 1025, 1)], loss)


def n3():
    import flax.linen as nn
    import optax
    N, E = 1000, 5000

    class GNN(nn.Module):
        @nn.compact
        def __call__(self, x, src, dst):
            for f in (64, 64):
                msg = nn.Dense(f)(x)[src]
                agg = jax.ops.segment_sum(msg, dst, num_segments=N)
                x = nn.relu(nn.Dense(f)(x) + agg)
            return nn.Dense(10)(x)

    def loss(m, v, _, x, edges, y):
        src = (edges[0] * 97 + edges[1] * 13) % N
        dst = (edges[1] * 89 + edges[0] * 7 + 1) % N
        return xent(m.apply(v, x, src, dst), y, 10), {}
    return flax_step(GNN(), optax.adam(1e-3), [jnp.zeros((N, 32)), jnp.zeros(E, jnp.int32),
                                                jnp.zeros(E, jnp.int32)],
                     [shapes(N, 32), ishapes(2, E), ishapes(N)], loss)


def n4():
    from jax.scipy.linalg import cho_factor, cho_solve

    def nll(params, x, y):
        ls, amp, noise = jnp.exp(params[0]), jnp.exp(params[1]), jnp.exp(params[2]) + 1e-3
        d2 = jnp.sum((x[:, None, :] - x[None, :, :]) ** 2, -1)
        k = amp * jnp.exp(-0.5 * d2 / ls ** 2) + noise * jnp.eye(x.shape[0], dtype=F)
        c = cho_factor(k, lower=True)
        alpha = cho_solve(c, y)
        return 0.5 * y @ alpha + jnp.sum(jnp.log(jnp.diag(c[0])))

    def f(params, x, y):
        return jax.value_and_grad(nll)(params * 0.1, x, y)
    return jax.jit(f).lower(shapes(3), shapes(256, 4), shapes(256))


def n5():
    def layer(w, x):
        a = jax.nn.sigmoid(w[0])[None, :] * 0.98
        b = x @ w[1:]

        def comb(l, r):
            return (l[0] * r[0], r[0] * l[1] + r[1])
        _, h = lax.associative_scan(comb, (jnp.broadcast_to(a, b.shape), b))
        return jnp.mean(jnp.tanh(h) ** 2)

    def f(w, x):
        return jax.value_and_grad(layer)(w * 0.1, x)
    return jax.jit(f).lower(shapes(17, 128), shapes(1024, 16))


def n6():
    def mlp(p, x):
        h = jnp.tanh(x @ p[0] + p[1])
        h = jnp.tanh(h @ p[2] + p[3])
        return h @ p[4] + p[5]

    def loss(p, x, y):
        return xent(mlp(p, x[None])[0][None], y[None], 10)

    def step(w1, b1, w2, b2, w3, b3, x, y, noise):
        p = [w1 * 0.05, b1, w2 * 0.05, b2, w3 * 0.05, b3]
        g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(p, x, y)
        norms = jnp.sqrt(sum(jnp.sum(gi.reshape(gi.shape[0], -1) ** 2, 1) for gi in g))
        scale = jnp.minimum(1.0, 1.0 / (norms + 1e-6))
        g = [jnp.mean(gi * scale.reshape((-1,) + (1,) * (gi.ndim - 1)), 0) for gi in g]
        g[0] = g[0] + 0.01 * noise
        return [pi - 0.1 * gi for pi, gi in zip(p, g)]
    return jax.jit(step).lower(shapes(784, 256), shapes(256), shapes(256, 256), shapes(256),
                               shapes(256, 10), shapes(10), shapes(64, 784), ishapes(64), shapes(784, 256))


def n7():
    import flax.linen as nn
    import optax
    M, C = 16, 32

    class Fourier(nn.Module):
        @nn.compact
        def __call__(self, x):
            wr = self.param("wr", nn.initializers.normal(0.02), (M, C, C))
            wi = self.param("wi", nn.initializers.normal(0.02), (M, C, C))
            xf = jnp.fft.rfft(x, axis=1)[:, :M]
            yf = jnp.einsum("bmc,mcd->bmd", xf, wr + 1j * wi)
            y = jnp.fft.irfft(yf, n=x.shape[1], axis=1)
            return nn.gelu(y + nn.Dense(C)(x))

    class FNO(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.Dense(C)(x)
            for _ in range(3):
                x = Fourier()(x)
            return nn.Dense(1)(x)

    def loss(m, v, _, x):
        return jnp.mean((m.apply(v, x) - jnp.sin(x)) ** 2), {}
    return flax_step(FNO(), optax.adam(1e-3), [jnp.zeros((1, 256, 1))], [shapes(32, 256, 1)], loss)


def n8():
    import flax.linen as nn
    import optax

    class Mobile(nn.Module):
        @nn.compact
        def __call__(self, x, train):
            x = nn.relu(nn.BatchNorm(use_running_average=not train)(nn.Conv(32, (3, 3), strides=2)(x)))
            for f, s in ((64, 1), (128, 2), (128, 1)):
                c = x.shape[-1]
                x = nn.Conv(c, (3, 3), strides=s, feature_group_count=c)(x)
                x = nn.relu(nn.BatchNorm(use_running_average=not train)(x))
                x = nn.Conv(f, (1, 1))(x)
                x = nn.relu(nn.BatchNorm(use_running_average=not train)(x))
            return nn.Dense(10)(jnp.mean(x, (1, 2)))

    model = Mobile()
    variables = jax.eval_shape(lambda: model.init(jax.random.key(0), jnp.zeros((1, 64, 64, 3)), False))
    params, stats = variables["params"], variables["batch_stats"]
    opt = optax.sgd(0.05, momentum=0.9)
    opt_state = jax.eval_shape(opt.init, params)

    def step(params, stats, opt_state, x, y):
        params = jax.tree.map(lambda a: a * 0.1, params)
        stats = jax.tree.map(jnp.abs, stats)

        def loss(p):
            logits, upd = model.apply({"params": p, "batch_stats": stats}, x, True, mutable=["batch_stats"])
            return xent(logits, y, 10), upd["batch_stats"]
        (l, stats), g = jax.value_and_grad(loss, has_aux=True)(params)
        upd, opt_state = opt.update(g, opt_state, params)
        import optax as ox
        return ox.apply_updates(params, upd), stats, opt_state, l
    return jax.jit(step).lower(params, stats, opt_state, shapes(32, 64, 64, 3), ishapes(32))


def n9():
    def listwise(w, x, rel):
        s = jnp.tanh(x @ w) @ jnp.ones((w.shape[1],), F)
        top, idx = lax.top_k(s, 32)
        order = jnp.argsort(-s, axis=-1)
        sorted_rel = jnp.take_along_axis(rel.astype(F), order, axis=-1)
        disc = 1.0 / jnp.log2(jnp.arange(s.shape[-1], dtype=F) + 2.0)
        dcg = jnp.sum(sorted_rel * disc, -1)
        lse = jnp.cumsum(jnp.exp(s - jnp.max(s, -1, keepdims=True)), -1)
        return jnp.mean(jnp.log(lse[:, -1]) - jnp.sum(jax.nn.softmax(top) * s[:, :32], -1)) - 1e-3 * jnp.mean(dcg)

    def f(w, x, rel):
        return jax.value_and_grad(listwise)(w * 0.1, x, rel)
    return jax.jit(f).lower(shapes(64, 32), shapes(256, 1024, 64), ishapes(256, 1024))


def n10():
    import flax.linen as nn
    import optax
    D = 128

    class Block(nn.Module):
        @nn.compact
        def __call__(self, x):
            h = nn.LayerNorm()(x)
            x = x + nn.MultiHeadDotProductAttention(num_heads=4)(h, h)
            h = nn.LayerNorm()(x)
            return x + nn.Dense(D)(nn.gelu(nn.Dense(2 * D)(h)))

    class ViT(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.Conv(D, (4, 4), strides=(4, 4))(x)
            x = x.reshape((x.shape[0], -1, D))
            x = x + self.param("pos", nn.initializers.normal(0.02), (1, x.shape[1], D))
            for _ in range(2):
                x = Block()(x)
            return nn.Dense(10)(jnp.mean(nn.LayerNorm()(x), 1))

    def loss(m, v, _, x, y):
        return xent(m.apply(v, x), y, 10), {}
    opt = optax.adamw(3e-4, weight_decay=0.05)
    return flax_step(ViT(), opt, [jnp.zeros((1, 32, 32, 3))], [shapes(32, 32, 32, 3), ishapes(32)], loss)


PROGRAMS = [("N1_flax_groupnorm_silu_cnn", n1), ("N2_flax_wavenet", n2), ("N3_flax_gnn_segment_sum", n3),
            ("N4_gp_marginal_likelihood", n4), ("N5_associative_scan_rnn", n5), ("N6_dpsgd_vmap_grad", n6),
            ("N7_flax_fourier_layer", n7), ("N8_flax_mobilenet_bn", n8), ("N9_ranking_topk_sort", n9),
            ("N10_flax_vit", n10)]


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None, PROGRAMS)
