#!/usr/bin/env python3
"""Checks that what `xla vmap` prints runs on real XLA with jax.vmap's values.

For every case of testdata/vmap/ (see scripts/make_vmap_cases.py) that has no `grad`
step: `xla vmap module.hlo --in-axes ... --out-axes ... --size N` prints the batched
module; XLA's own HLO parser (jaxlib) parses it, XLA:CPU runs it on the case's inputs, and
the outputs are compared with `jax.vmap`'s (`out*.npy`). Cases with a `grad` step run
`xla grad` first.

Run from the repository root after `cargo build --release --bin xla`:
    python3 scripts/vmap_on_xla.py [target/release/xla]
"""
import glob
import json
import os
import subprocess
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import numpy as np  # noqa: E402
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from real_xla import run_on_xla  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def axes(v):
    return ",".join("none" if a is None else str(a) for a in v)


def case(xla, d):
    meta = json.load(open(os.path.join(d, "meta.json")))
    module = os.path.join(d, "module.hlo")
    if "grad" in meta:
        g = subprocess.run([xla, "grad", module, "--wrt", axes(meta["grad"])],
                           capture_output=True, text=True, check=True).stdout
        module = os.path.join(d, "..", ".grad.tmp.hlo")
        open(module, "w").write(g)
    for lvl in meta.get("levels", [meta]):
        r = subprocess.run([xla, "vmap", module, "--in-axes", axes(lvl["in_axes"]),
                            "--out-axes", axes(lvl["out_axes"]), "--size", str(lvl["size"])],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return f"xla vmap failed: {r.stderr.strip()}"
        module = os.path.join(d, "..", ".level.tmp.hlo")
        open(module, "w").write(r.stdout)
    inputs = [np.load(p) for p in sorted(glob.glob(os.path.join(d, "in*.npy")),
                                         key=lambda p: int(os.path.basename(p)[2:-4]))]
    wants = [np.load(p) for p in sorted(glob.glob(os.path.join(d, "out*.npy")),
                                        key=lambda p: int(os.path.basename(p)[3:-4]))]
    try:
        gots = run_on_xla(r.stdout, inputs)
    except Exception as e:  # XLA's parser or compiler rejected the text
        return f"XLA: {str(e).splitlines()[0]}"
    if len(gots) != len(wants):
        return f"{len(gots)} outputs, expected {len(wants)}"
    for k, (g, w) in enumerate(zip(gots, wants)):
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"out{k}: {g.dtype}{list(g.shape)} vs {w.dtype}{list(w.shape)}"
        if w.dtype.kind in "fc":
            if not np.allclose(g, w, rtol=meta["rtol"], atol=meta["atol"], equal_nan=True):
                return f"out{k}: max diff {np.max(np.abs(g - w))}"
        elif not np.array_equal(g, w):
            return f"out{k}: values differ"
    return None


def main():
    xla = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release", "xla")
    dirs = sorted(glob.glob(os.path.join(ROOT, "testdata", "vmap", "*", "module.hlo")))
    failed = 0
    for m in dirs:
        d = os.path.dirname(m)
        err = case(xla, d)
        if err:
            failed += 1
            print(f"FAIL {os.path.basename(d)}: {err}")
    for t in (".grad.tmp.hlo", ".level.tmp.hlo"):
        tmp = os.path.join(ROOT, "testdata", "vmap", t)
        if os.path.exists(tmp):
            os.remove(tmp)
    print(f"{len(dirs) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
