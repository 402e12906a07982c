#!/usr/bin/env python3
"""Writes testdata/vmap_collectives/<case>/: `vmap` of collectives against JAX.

Each case is a per-device function `f` of ONE example run on D=4 devices by `shard_map`
(JAX 0.10.2 on XLA:CPU with --xla_force_host_platform_device_count=4). `module.hlo` is the
per-device program JAX lowers (the shard_map body as the entry, `num_partitions=4`, the
convention of the conformance's replica cases). The expected outputs are
`shard_map(jax.vmap(f, in_axes))`: each device batches its own lanes and the collective
still runs across the devices. Files follow the multi-device convention: `inK.npy` stacks
the per-device values of parameter K along a leading device axis (each holding the batch at
its `in_axes` entry), `outK.npy` likewise (batch at 0), so `xla vmap MODULE --in-axes ...
--size 3` then `xla run BATCHED in*.npy --out DIR` checks a case (10 of 10 match).

Run: python3 scripts/make_vmap_collective_cases.py   (from the repository root)
"""
import json
import os
import shutil

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from jax.sharding import Mesh, PartitionSpec as P  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "vmap_collectives")
D = 4
B = 3
MESH = Mesh(np.array(jax.devices()[:D]), ("i",))
rng = np.random.default_rng(41)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def sharded(f, n_in):
    return jax.shard_map(f, mesh=MESH, in_specs=(P("i"),) * n_in, out_specs=P("i"))


def per_device_module(name, f, examples):
    """The shard_map body of `f` on one example per device, as its own module."""
    glob = [jnp.asarray(np.concatenate([x] * D, axis=0)) for x in examples]
    text = jax.jit(sharded(f, len(examples))).lower(*glob).as_text(dialect="hlo")
    comps, cur = [], None
    for line in text.splitlines()[1:]:
        if cur is None and line.endswith("{") and not line.startswith(" "):
            cur = [line]
        elif cur is not None:
            cur.append(line)
            if line == "}":
                comps.append("\n".join(cur))
                cur = None
    keep, body = [], None
    for c in comps:
        head = c.split(" ", 1)[0]
        if head == "ENTRY":
            continue
        if head.startswith("xla.sdy.manual_computation_body"):
            body = "ENTRY " + c
        else:
            keep.append(c)
    assert body is not None, text
    return f"HloModule {name}, num_partitions={D}\n\n" + "\n\n".join(keep + [body]) + "\n"


def save(name, f, per_device, in_axes, tol=(1e-5, 1e-5)):
    """`per_device[k]`: parameter k's values stacked over devices, `[D, ...]`, each device's
    value batched at `in_axes[k]` (or unbatched)."""
    d = os.path.join(OUT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    examples = [x[0] if a is None else np.take(x[0], 0, axis=a) for x, a in zip(per_device, in_axes)]
    with open(os.path.join(d, "module.hlo"), "w") as fh:
        fh.write(per_device_module(name, f, examples))
    # Each device's block of the global array is its own value (shard_map splits axis 0).
    glob = [jnp.asarray(x.reshape((D * x.shape[1],) + x.shape[2:])) for x in per_device]
    outs = jax.jit(sharded(jax.vmap(f, in_axes=tuple(in_axes)), len(glob)))(*glob)
    leaves = jax.tree_util.tree_leaves(outs)
    for i, x in enumerate(per_device):
        np.save(os.path.join(d, f"in{i}.npy"), x)
    for i, y in enumerate(leaves):
        y = np.asarray(y)
        np.save(os.path.join(d, f"out{i}.npy"), y.reshape((D, y.shape[0] // D) + y.shape[1:]))
    meta = {"in_axes": list(in_axes), "out_axes": [0], "size": B, "partitions": D,
            "rtol": tol[0], "atol": tol[1]}
    with open(os.path.join(d, "meta.json"), "w") as fh:
        json.dump(meta, fh, indent=1)
    print(name, [x.shape for x in per_device], "->", [np.shape(y) for y in leaves])


def main():
    ring = [(k, (k + 1) % D) for k in range(D)]
    # all-reduce: a batched operand and a shared per-device scale
    save("psum_shared_scale", lambda x, w: lax.psum(x * w, "i") + x,
         [normal(D, B, 3, 4), normal(D, 1, 4)], [0, None])
    # all-reduce (max) with the batch at dimension 1
    save("pmax_axis1", lambda x: lax.pmax(jnp.tanh(x), "i") - x,
         [normal(D, 2, B, 5)], [1])
    save("all_gather_dim0", lambda x: lax.all_gather(x, "i", axis=0, tiled=True) * 2.0,
         [normal(D, B, 2, 3)], [0])
    save("all_gather_dim1_batch_axis1", lambda x: lax.all_gather(x, "i", axis=1, tiled=True),
         [normal(D, 2, B, 3)], [1])
    save("psum_scatter_dim0", lambda x: lax.psum_scatter(x, "i", scatter_dimension=0, tiled=True),
         [normal(D, B, 8, 3)], [0])
    save("psum_scatter_dim1", lambda x: lax.psum_scatter(x, "i", scatter_dimension=1, tiled=True),
         [normal(D, B, 2, 8)], [0])
    save("all_to_all_dim0", lambda x: lax.all_to_all(x, "i", 0, 0, tiled=True),
         [normal(D, B, 8, 2)], [0])
    save("all_to_all_split1_concat0", lambda x: lax.all_to_all(x, "i", 1, 0, tiled=True),
         [normal(D, B, 2, 8)], [0])
    save("ppermute_ring", lambda x, y: lax.ppermute(x, "i", ring) + y,
         [normal(D, B, 3), normal(D, 1, 3)], [0, None])
    save("ppermute_partial_batch_axis1", lambda x: lax.ppermute(x * 3.0, "i", [(0, 2), (1, 3)]),
         [normal(D, 2, B)], [1])


if __name__ == "__main__":
    main()
