"""Fixtures for tests/macro_partitions.rs: JAX `shard_map` programs on a mesh of 4 CPU
devices, whose per-device results the `#[computation(replicas = R, partitions = P)]`
functions of that test must reproduce.

Each case writes testdata/macro_partitions/NAME/in0.npy (the per-device inputs stacked along
a leading axis of 4, in device order) and out0.npy (the per-device results stacked the same
way). The mesh's devices are numbered like XLA's global device ids: on the (2, 2) mesh
('r', 'p'), device r * 2 + p, so JAX's axis 'r' is the macro's replicas and 'p' its
partitions; on the (4,) mesh ('p',) every device is a partition.

Run: python3 scripts/make_macro_partition_fixtures.py (jax 0.10.2).
"""
import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4"
).strip()

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.sharding import Mesh, PartitionSpec as P  # noqa: E402

try:
    from jax import shard_map  # noqa: E402
except ImportError:  # older jax
    from jax.experimental.shard_map import shard_map  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "testdata", "macro_partitions")
DEVS = np.array(jax.devices()[:4])
MESH_2x2 = Mesh(DEVS.reshape(2, 2), ("r", "p"))
MESH_4 = Mesh(DEVS, ("p",))


def run(mesh, body, stacked):
    """Runs `body` on every device of `mesh` with device d's input `stacked[d]`; returns
    the per-device results stacked along a leading axis (device order)."""
    axes = mesh.axis_names
    n = stacked.shape[0]
    # Device d's block of the global array is stacked[d] (one leading row per device).
    glob = stacked.reshape((n,) + stacked.shape[1:])
    spec = P(axes)

    def per_device(x):
        return body(x[0])[None]

    f = jax.jit(shard_map(per_device, mesh=mesh, in_specs=spec, out_specs=spec))
    return np.asarray(f(glob))


def save(name, x, y):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, "in0.npy"), x)
    np.save(os.path.join(d, "out0.npy"), y)
    print(name, x.shape, "->", y.shape)


def main():
    rng = np.random.default_rng(12)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    # 2 x 2 mesh: 'r' = replicas, 'p' = partitions.
    save("psum_p_2x2", x, run(MESH_2x2, lambda v: jax.lax.psum(v, "p"), x))
    save("psum_r_2x2", x, run(MESH_2x2, lambda v: jax.lax.psum(v, "r"), x))
    save("psum_rp_2x2", x, run(MESH_2x2, lambda v: jax.lax.psum(v, ("r", "p")), x))
    save(
        "all_gather_p_2x2",
        x,
        run(MESH_2x2, lambda v: jax.lax.all_gather(v, "p", axis=0, tiled=True), x),
    )
    ring = [(0, 1), (1, 0)]
    save("ppermute_p_2x2", x, run(MESH_2x2, lambda v: jax.lax.ppermute(v, "p", ring), x))
    save(
        "ids_2x2",
        x,
        run(
            MESH_2x2,
            lambda v: v * (10 * jax.lax.axis_index("r") + jax.lax.axis_index("p")).astype(v.dtype),
            x,
        ),
    )
    # A 4-device mesh of partitions.
    save(
        "psum_scatter_p_4",
        x,
        run(MESH_4, lambda v: jax.lax.psum_scatter(v, "p", scatter_dimension=0, tiled=True), x),
    )
    save(
        "all_to_all_p_4",
        x,
        run(MESH_4, lambda v: jax.lax.all_to_all(v, "p", 0, 0, tiled=True), x),
    )
    ring4 = [(0, 1), (1, 2), (2, 3), (3, 0)]
    save("ppermute_ring_p_4", x, run(MESH_4, lambda v: jax.lax.ppermute(v, "p", ring4), x))
    save("pmax_p_4", x, run(MESH_4, lambda v: jax.lax.pmax(v, "p"), x))
    # Show what JAX emits for one of them (kept in the README of the fixtures).
    f = jax.jit(
        shard_map(
            lambda v: jax.lax.psum(v, "p"), mesh=MESH_2x2, in_specs=P(("r", "p")),
            out_specs=P(("r", "p")),
        )
    )
    text = f.lower(jnp.zeros((4, 8), jnp.float32)).compile().as_text()
    with open(os.path.join(OUT, "psum_p_2x2.compiled.hlo.txt"), "w") as fh:
        fh.write(text)


if __name__ == "__main__":
    main()
