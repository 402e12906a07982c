#!/usr/bin/env python3
"""Runs the macro's graphs, printed as StableHLO, on real XLA:CPU (jaxlib 0.10.2).

`tests/grad_models_macro.rs::macro_graphs_print_as_stablehlo_that_real_xla_runs` writes
testdata/macro_stablehlo/MODEL/macro.mlir (the `#[computation]`'s forward module) and
macro_grad.mlir (its `::grad` module) with `print_stablehlo` when XLA_RS_WRITE_MODULES=1,
and checks the committed texts are what it prints. This script compiles each text with
real XLA, runs it on the model's testdata/grad_models/MODEL/in*.npy and compares with what JAX computed for the same
model (loss.npy, grad*.npy, written by scripts/gen_grad_models.py): f32 to 1e-4 relative
+ 1e-5 absolute, f64 to 1e-9 + 1e-9.

    XLA_RS_WRITE_MODULES=1 cargo test --test grad_models_macro macro_graphs_print
    python3 scripts/run_macro_stablehlo_on_xla.py
"""
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import numpy as np  # noqa: E402
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
from jax._src import xla_bridge  # noqa: E402
from jax._src.lib import xla_client as xc  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata")
ROOT = os.path.join(DATA, "grad_models")
TEXTS = os.path.join(DATA, "macro_stablehlo")


def run_on_xla(text, inputs):
    be = xla_bridge.get_backend("cpu")
    dev = be.local_devices()[0]
    exe = be.compile_and_load(text, xc.DeviceList((dev,)), xc.CompileOptions())
    bufs = [jax.device_put(a, dev) for a in inputs]
    return [np.asarray(o[0]) for o in exe.execute_sharded(bufs).disassemble_into_single_device_arrays()]


def main():
    bad = 0
    for model in sorted(os.listdir(ROOT)):
        d = os.path.join(ROOT, model)
        t = os.path.join(TEXTS, model)
        if not os.path.exists(os.path.join(t, "macro.mlir")):
            continue
        n = 0
        while os.path.exists(os.path.join(d, f"in{n}.npy")):
            n += 1
        inputs = [np.load(os.path.join(d, f"in{i}.npy")) for i in range(n)]
        ngrad = 0
        while os.path.exists(os.path.join(d, f"grad{ngrad}.npy")):
            ngrad += 1
        for file, wants in [("macro.mlir", ["loss"]), ("macro_grad.mlir", [f"grad{k}" for k in range(ngrad)])]:
            text = open(os.path.join(t, file)).read()
            outs = run_on_xla(text, inputs)
            if len(outs) != len(wants):
                print(f"FAIL {model}/{file}: {len(outs)} outputs, JAX has {len(wants)}")
                bad += 1
                continue
            for got, name in zip(outs, wants):
                want = np.load(os.path.join(d, name + ".npy"))
                rtol, atol = (1e-9, 1e-9) if want.dtype == np.float64 else (1e-4, 1e-5)
                err = np.max(np.abs(got.astype(np.float64) - want) - rtol * np.abs(want)) if want.size else 0.0
                ok = got.shape == want.shape and got.dtype == want.dtype and err <= atol
                print(f"{'ok  ' if ok else 'FAIL'} {model}/{file} {name}: {got.dtype}{list(got.shape)}, max |xla - jax| - rtol|jax| = {err:.3g}")
                bad += not ok
    print("all match" if bad == 0 else f"{bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
