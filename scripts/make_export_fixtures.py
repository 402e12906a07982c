#!/usr/bin/env python3
"""Fixtures of `jax.export`: a small MLP exported with `jax.export.export`, written as the
text `exported.mlir_module()` prints (module.mlir, which `xla run` runs) and as the bytes of
`exported.serialize()` (exported.bin: a flatbuffer around MLIR bytecode in the VHLO
dialect, which we recognise and reject with a clear message), with inputs and the outputs of
`exported.call` (real XLA).

    python3 scripts/make_export_fixtures.py testdata/stablehlo_jax

Needs the `flatbuffers` Python package (for `serialize`).
"""
import json
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import export  # noqa: E402

RNG = np.random.default_rng(3)


def mlp(params, x):
    (w1, b1), (w2, b2) = params
    h = jax.nn.gelu(x @ w1 + b1)
    return jax.nn.softmax(h @ w2 + b2, axis=-1)


def main(out_dir):
    params = [(RNG.standard_normal((6, 16)).astype(np.float32) * 0.4, np.zeros(16, np.float32)),
              (RNG.standard_normal((16, 3)).astype(np.float32) * 0.4, np.full(3, 0.1, np.float32))]
    x = RNG.standard_normal((5, 6)).astype(np.float32)
    spec = jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), (params, x))
    exported = export.export(jax.jit(mlp))(*spec)
    d = os.path.join(out_dir, "export_mlp")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "module.mlir"), "w") as f:
        f.write(exported.mlir_module())
    with open(os.path.join(d, "exported.bin"), "wb") as f:
        f.write(exported.serialize())
    leaves = jax.tree.leaves((params, x))
    for i, a in enumerate(leaves):
        np.save(os.path.join(d, f"in{i}.npy"), a)
    # Round trip: what a JAX user deserialises and calls.
    again = export.deserialize(exported.serialize())
    np.save(os.path.join(d, "out0.npy"), np.asarray(again.call(params, x)))
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump({"source": "jax.export", "jax": jax.__version__, "rtol": 2e-5, "atol": 2e-5,
                   "program": "mlp"}, f, indent=1)
    print("export_mlp: 1 output")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "testdata/stablehlo_jax")
