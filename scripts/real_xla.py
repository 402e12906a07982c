"""Runs an HLO text module on real XLA:CPU through jaxlib (shared by the vmap scripts)."""
import jax
import numpy as np
from jax._src import xla_bridge
from jax._src.lib import _jax, xla_client as xc


def run_on_xla(text, inputs):
    """XLA's own HLO parser reads `text`, XLA:CPU compiles and runs it on `inputs`
    (arrays, one per entry parameter); returns the flattened outputs as numpy arrays."""
    be = xla_bridge.get_backend("cpu")
    mod = xc.hlo.hlo_module_from_text(text)
    mlir = _jax.mlir.hlo_to_stablehlo(mod.as_serialized_hlo_module_proto())
    devs = be.local_devices()[:1]
    exe = be.compile_and_load(mlir, xc.DeviceList(tuple(devs)), xc.CompileOptions())
    bufs = [jax.device_put(np.asarray(a), devs[0]) for a in inputs]
    outs = exe.execute_sharded(bufs).disassemble_into_single_device_arrays()
    return [np.asarray(o[0]) for o in outs]
