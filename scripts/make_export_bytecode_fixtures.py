#!/usr/bin/env python3
"""Fixtures for reading `jax.export` serializations (issue 15, item 2): each model is
exported with `jax.export.export(jax.jit(f))`, and its folder under testdata/jax_export holds
the bytes of `exported.serialize()` (exported.bin: a flatbuffer around MLIR bytecode in the
VHLO dialect), `exported.mlir_module()` (module.mlir, for reading side by side), the inputs
(in*.npy) and the outputs of the deserialized export called on real XLA (out*.npy).

    python3 scripts/make_export_bytecode_fixtures.py testdata/jax_export [NAME ...]

(with names, only those folders are written; the inputs are drawn in the same order).

Models: an MLP (dot_general, tanh, softmax's reduce), a CNN (convolution, reduce_window max
and avg pooling, broadcast), a scan (while loop with a tuple carry), jnp.linalg (LAPACK FFI
custom calls: cholesky, solve, eigh), sort/argmax/top_k (sort with a comparator, reduce with
two operands, compare, iota), gather/scatter (indexing and .at[].add), integer and bool types
(convert, select, bit ops, i1 constants); sharded exports over a one-device mesh: Shardy's
sdy.mesh / sdy.sharding / sdy.sharding_constraint (sharded), GSPMD's mhlo.sharding and
custom_call @Sharding (sharded_gspmd), shard_map with a psum (shard_map).
"""
import json
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import export  # noqa: E402
from jax.sharding import NamedSharding, PartitionSpec as P  # noqa: E402

jax.config.update("jax_enable_x64", True)
RNG = np.random.default_rng(15)


def f32(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def mlp(w1, b1, w2, b2, x):
    h = jnp.tanh(x @ w1 + b1)
    return jax.nn.softmax(h @ w2 + b2, axis=-1)


def cnn(k1, k2, x):
    dn = ("NHWC", "HWIO", "NHWC")
    y = jax.lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=dn)
    y = jax.nn.relu(y)
    y = jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    y = jax.lax.conv_general_dilated(y, k2, (2, 2), ((1, 1), (1, 1)), dimension_numbers=dn,
                                     rhs_dilation=(1, 1))
    avg = jax.lax.reduce_window(y, 0.0, jax.lax.add, (1, 2, 2, 1), (1, 1, 1, 1), "SAME") / 4.0
    return avg.mean(axis=(1, 2)), y


def scan(xs, h0, w):
    def step(h, x):
        h = jnp.tanh(h @ w + x)
        return h, h.sum()

    h, ys = jax.lax.scan(step, h0, xs)
    i = jax.lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 1.5), (0, h))
    return h, ys, i[1]


def linalg(a, b):
    spd = a @ a.T + 4.0 * jnp.eye(a.shape[0], dtype=a.dtype)
    chol = jnp.linalg.cholesky(spd)
    x = jnp.linalg.solve(spd, b)
    w, v = jnp.linalg.eigh(spd)
    return chol, x, w, jnp.abs(v)


def sorting(x, keys):
    s = jnp.sort(x, axis=-1)
    order = jnp.argsort(keys)
    top_v, top_i = jax.lax.top_k(x, 3)
    return s, order, jnp.argmax(x, axis=1), jnp.argmin(x, axis=0), top_v, top_i


def indexing(table, idx, upd):
    g = table[idx]
    s = table.at[idx].add(upd)
    d = jax.lax.dynamic_slice(table, (idx[0], jnp.int32(1)), (2, 2))
    return g, s, d


def ints(a, b, m):
    c = (a * 3 + b) >> 1
    d = jnp.where(m, c, a ^ b)
    u = d.astype(jnp.uint8)
    return d, u, jnp.clip(a, -2, 5).astype(jnp.float64) / 3.0, (a > b) & m


def sharded(w, x):
    # A sharded export over a one-device mesh (Shardy: sdy.mesh, sdy.sharding on the
    # arguments and results, sdy.sharding_constraint inside).
    y = jax.lax.with_sharding_constraint(jnp.tanh(x @ w), _row_sharding())
    return y.sum(axis=1), x * 2


def psum_rows(x):
    # shard_map over the one-device mesh: a psum (all_reduce over replica group [[0]]).
    return jax.shard_map(lambda b: jax.lax.psum(b.sum(0), "x") * 2.0, mesh=_mesh(),
                         in_specs=P("x"), out_specs=P())(x)


def _mesh():
    return jax.make_mesh((1,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))


def _row_sharding():
    return NamedSharding(_mesh(), P("x"))


def sharded_jit():
    rep = NamedSharding(_mesh(), P())
    return jax.jit(sharded, in_shardings=(rep, _row_sharding()),
                   out_shardings=(_row_sharding(), _row_sharding()))


# Exported with Shardy off (GSPMD: mhlo.sharding attributes, custom_call @Sharding).
GSPMD = {"sharded_gspmd"}


def models():
    i32 = lambda *s: RNG.integers(-9, 9, s).astype(np.int32)  # noqa: E731
    return {
        "mlp": (mlp, [f32(6, 16, scale=0.4), f32(16), f32(16, 3, scale=0.4), f32(3), f32(5, 6)],
                2e-5),
        "cnn": (cnn, [f32(3, 3, 2, 4, scale=0.5), f32(3, 3, 4, 5, scale=0.3),
                      f32(2, 8, 8, 2)], 2e-5),
        "scan": (scan, [f32(7, 4), f32(4), f32(4, 4, scale=0.5)], 2e-5),
        "linalg": (linalg, [RNG.standard_normal((4, 4)), RNG.standard_normal((4, 2))], 1e-10),
        "sort": (sorting, [f32(4, 6), RNG.permutation(10).astype(np.int32)], 0.0),
        "indexing": (indexing, [f32(5, 3), np.array([3, 0, 3], np.int32), f32(3, 3)], 2e-6),
        "ints": (ints, [i32(6), i32(6), RNG.integers(0, 2, 6).astype(bool)], 1e-15),
        "sharded": (sharded_jit, [f32(4, 3), f32(5, 4)], 2e-6),
        "sharded_gspmd": (sharded_jit, [f32(4, 3), f32(5, 4)], 2e-6),
        "shard_map": (lambda: jax.jit(psum_rows), [f32(6, 3)], 2e-6),
    }


def main(out_dir, only=()):
    for name, (fn, args, tol) in models().items():
        if only and name not in only:
            continue
        jax.config.update("jax_use_shardy_partitioner", name not in GSPMD)
        spec = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in args]
        fun = fn() if fn in (sharded_jit,) or name == "shard_map" else jax.jit(fn)
        exported = export.export(fun)(*spec)
        d = os.path.join(out_dir, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "module.mlir"), "w") as f:
            f.write(exported.mlir_module())
        blob = exported.serialize()
        with open(os.path.join(d, "exported.bin"), "wb") as f:
            f.write(blob)
        for i, a in enumerate(args):
            np.save(os.path.join(d, f"in{i}.npy"), a)
        # (JAX 0.10.2 cannot call a GSPMD export back: its wrapper's verifier wants Shardy
        # shardings; the jitted function gives the same program's outputs on real XLA.)
        called = fun if name in GSPMD else export.deserialize(blob).call
        outs = jax.tree.leaves(called(*args))
        for i, o in enumerate(outs):
            np.save(os.path.join(d, f"out{i}.npy"), np.asarray(o))
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump({"source": "jax.export serialize()", "jax": jax.__version__,
                       "rtol": tol, "atol": tol, "program": name}, f, indent=1)
        print(f"{name}: {len(blob)} bytes, {len(outs)} outputs")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "testdata/jax_export", tuple(sys.argv[2:]))
