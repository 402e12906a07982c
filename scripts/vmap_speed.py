#!/usr/bin/env python3
"""Times a module batched by `xla vmap` against N runs of the unbatched module.

    python3 scripts/vmap_speed.py MODULE.hlo --batched 6,7 --size 4 [--iters 20] [--xla BIN]

`--batched` lists the parameters that get the batch (at dimension 0); the others are
shared. Inputs are random (floats N(0, 0.05), integers in [0, 10)). Prints the median of
`xla bench` for the unbatched module, for the batched one, and batched / (N x unbatched).
"""
import argparse
import os
import re
import subprocess
import tempfile

import numpy as np

TYPES = {"f32": np.float32, "f64": np.float64, "s32": np.int32, "s64": np.int64, "pred": np.bool_}


def param_shapes(text):
    layout = re.search(r"entry_computation_layout=\{\((.*?)\)->", text).group(1)
    layout = re.sub(r"/\*.*?\*/", "", layout)
    out = []
    for ty, dims in re.findall(r"(\w+)\[([\d,]*)\]", layout):
        out.append((ty, [int(d) for d in dims.split(",") if d]))
    return out


def bench(xla, module, inputs, iters):
    r = subprocess.run([xla, "bench", module, *inputs, "--iters", str(iters)],
                       capture_output=True, text=True, check=True)
    return float(re.search(r"median_s=([\d.e-]+)", r.stdout).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("module")
    ap.add_argument("--batched", default="")
    ap.add_argument("--size", type=int, default=4)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--xla", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "xla"))
    a = ap.parse_args()
    text = open(a.module).read()
    shapes = param_shapes(text)
    batched = {int(i) for i in a.batched.split(",") if i}
    rng = np.random.default_rng(0)
    def make(ty, dims):
        if ty.startswith("f"):
            return (rng.standard_normal(dims) * 0.05).astype(TYPES[ty])
        return rng.integers(0, 10, dims).astype(TYPES[ty])
    with tempfile.TemporaryDirectory() as tmp:
        one, many = [], []
        for i, (ty, dims) in enumerate(shapes):
            p1, pn = os.path.join(tmp, f"one{i}.npy"), os.path.join(tmp, f"many{i}.npy")
            np.save(p1, make(ty, dims))
            np.save(pn, make(ty, [a.size] + dims) if i in batched else make(ty, dims))
            one.append(p1)
            many.append(pn)
        axes = ",".join("0" if i in batched else "none" for i in range(len(shapes)))
        bm = os.path.join(tmp, "batched.hlo")
        r = subprocess.run([a.xla, "vmap", a.module, "--in-axes", axes, "--size", str(a.size)],
                           capture_output=True, text=True, check=True)
        open(bm, "w").write(r.stdout)
        t1 = bench(a.xla, a.module, one, a.iters)
        tn = bench(a.xla, bm, many, a.iters)
    print(f"{os.path.basename(a.module)} N={a.size} batched={sorted(batched)}: unbatched {t1*1e3:.3f} ms, "
          f"batched {tn*1e3:.3f} ms, batched/(N x unbatched) = {tn / (a.size * t1):.2f}")


if __name__ == "__main__":
    main()
