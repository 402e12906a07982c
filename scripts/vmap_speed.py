#!/usr/bin/env python3
"""Times a module batched by `xla vmap` against N runs of the unbatched module.

    python3 scripts/vmap_speed.py MODULE.hlo --batched 6,7 --size 4 [--grad 0,1] [--iters 20]
        [--rounds 3] [--xla BIN]

`--batched` lists the parameters that get the batch (at dimension 0); the others are
shared. `--grad` batches the gradient module (`xla grad --wrt ...`) instead of the module.
Inputs are random (floats N(0, 0.05), integers in [0, 10)). Prints, per round (the two
modules interleaved): the median wall time of `xla bench` for the unbatched module and for
the batched one, and the median CPU time per run on one thread (`XLA_CPU_THREADS=1`;
`median_cpu_s` of `xla bench`: the process's user + system time around each run, median
over at least `--cpu-seconds` of runs), which a loaded machine disturbs far less than
wall time; then batched / (N x unbatched) of each, and at the end the median of the
rounds' CPU ratios.

Session 14: the CPU time used to be the difference of the user times of two `xla bench`
processes (5 and 5 + n runs). That carries the start-up of both processes (compiling,
clearing fresh pages) as noise: on `B1_matmul_1024.hlo` at load 12 it gave 4 unbatched
runs 84, 98, 100 and 128 ms of CPU in four rounds of the same binary. The per-run median
of one process leaves start-up out (a run itself faults no page: `perf stat -e
page-faults` is the same at 5 and 55 runs of the batched `B2`).
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


def bench(xla, module, inputs, iters, env=None, key="median_s"):
    r = subprocess.run([xla, "bench", module, *inputs, "--iters", str(iters)],
                       capture_output=True, text=True, check=True, env=env)
    return float(re.search(key + r"=([\d.e-]+)", r.stdout).group(1))


def cpu_per_run(xla, module, inputs, iters):
    """Median CPU seconds (user + system) of one run on one thread, over `iters` runs of
    one `xla bench` process."""
    env = dict(os.environ, XLA_CPU_THREADS="1")
    return bench(xla, module, inputs, iters, env, key="median_cpu_s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("module")
    ap.add_argument("--batched", default="")
    ap.add_argument("--size", type=int, default=4)
    ap.add_argument("--grad", default="", help="batch `xla grad --wrt GRAD` of the module")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--cpu-seconds", type=float, default=2.0,
                    help="at least this much CPU time of runs per CPU-time measurement")
    ap.add_argument("--xla", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "xla"))
    a = ap.parse_args()
    module = a.module
    tmpdir = tempfile.TemporaryDirectory()
    if a.grad:
        module = os.path.join(tmpdir.name, "grad.hlo")
        r = subprocess.run([a.xla, "grad", a.module, "--wrt", a.grad],
                           capture_output=True, text=True, check=True)
        open(module, "w").write(r.stdout)
    text = open(module).read()
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
        r = subprocess.run([a.xla, "vmap", module, "--in-axes", axes, "--size", str(a.size)],
                           capture_output=True, text=True, check=True)
        open(bm, "w").write(r.stdout)
        name = os.path.basename(a.module) + (f" grad({a.grad})" if a.grad else "")
        print(f"{name} N={a.size} batched={sorted(batched)}")
        ratios = []
        for k in range(a.rounds):
            t1 = bench(a.xla, module, one, a.iters)
            tn = bench(a.xla, bm, many, a.iters)
            # at least --cpu-seconds of runs (wall time per run bounds CPU time per run)
            c1 = cpu_per_run(a.xla, module, one, max(a.size * a.iters, int(a.cpu_seconds / t1)))
            cn = cpu_per_run(a.xla, bm, many, max(a.iters, int(a.cpu_seconds / tn)))
            ratios.append(cn / (a.size * c1))
            load = open("/proc/loadavg").read().split()[0]
            print(f"  round {k + 1}: wall median unbatched {t1*1e3:.3f} ms, batched {tn*1e3:.3f} ms "
                  f"({tn / (a.size * t1):.2f}x); median CPU per run at 1 thread: N x unbatched "
                  f"{a.size*c1*1e3:.2f} ms, batched {cn*1e3:.2f} ms ({ratios[-1]:.3f}x); "
                  f"load {load}", flush=True)
        ratios.sort()
        print(f"  CPU ratio: median {ratios[len(ratios) // 2]:.3f}, range {ratios[0]:.3f}-{ratios[-1]:.3f}")
    tmpdir.cleanup()


if __name__ == "__main__":
    main()
