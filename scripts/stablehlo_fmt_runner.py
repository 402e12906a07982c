#!/usr/bin/env python3
"""A check.py runner that tests `xla fmt --stablehlo`: our binary prints CASE/module.hlo as
StableHLO and real XLA:CPU (jaxlib) compiles and runs the printed text.

    python3 check.py public --runner "python3 scripts/stablehlo_fmt_runner.py target/release/xla"
"""
import os
import subprocess
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")


def main(argv):
    binary, module = argv[0], argv[1]
    rest = argv[2:]
    k = rest.index("--out")
    out, inputs = rest[k + 1], rest[:k] + rest[k + 2:]
    text = subprocess.run([binary, "fmt", "--stablehlo", module], check=True, capture_output=True, text=True).stdout
    import numpy as np
    import jax
    jax.config.update("jax_enable_x64", True)
    from jax._src.lib import xla_client as xc
    from jax._src import xla_bridge
    be = xla_bridge.get_backend("cpu")
    dev = be.local_devices()[0]
    exe = be.compile_and_load(text, xc.DeviceList((dev,)), xc.CompileOptions())
    bufs = [jax.device_put(np.load(p, allow_pickle=False), dev) for p in inputs]
    outs = exe.execute_sharded(bufs).disassemble_into_single_device_arrays()
    os.makedirs(out, exist_ok=True)
    for i, o in enumerate(outs):
        np.save(os.path.join(out, f"out{i}.npy"), np.asarray(o[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
