#!/usr/bin/env python3
"""Fixtures from XLA's own CPU benchmark models (openxla/xla
`xla/backends/cpu/benchmarks/hlo/*.hlo`, constants elided as `constant({...})`, metadata
dropped): each `testdata/xla_benchmarks/NAME/module.hlo` is run on real XLA (jaxlib's HLO
parser fills an elided constant with counting bit patterns, as ours does) with random
inputs, and the outputs saved. `NAME_probe` is the same module returning intermediate
values too (the final outputs of these models are NaN once placeholder bit patterns reach
them, so the intermediates are what shows the two agree: the gathers from the elided
embedding tables, bit for bit).

XLA's placeholder counter is global to the process (it continues across every module the
process parses), so each module runs on real XLA in a fresh process: then its values are
those of a first parse, which is what ours gives every module.

    python3 scripts/make_xla_benchmark_cases.py testdata/xla_benchmarks [MODEL]

`ssd_mobilenet_tf` (1 MB of input, 0.7 MB of output) is kept small: its probe computes its
input inside the module (`x[i] = i mod 251`, a 300x300 RGB image of bytes) instead of taking
a parameter, and returns only a corner (at most 8 along each axis, 64 along the last) of
each value it probes: the first convolutions and ReLU6 layers, whose placeholder weights are
tiny normal numbers (not subnormals), the first layers where the placeholder NaNs arrive,
and the two outputs (NaN on both sides). No plain fixture is stored for it.

Needs /work/shared/conformance/hlo_exec.py (or HLO_EXEC_DIR) for real XLA.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.environ.get("HLO_EXEC_DIR", "/work/shared/conformance"))
import numpy as np  # noqa: E402
import hlo_exec  # noqa: E402

RNG = np.random.default_rng(0)

# name -> (input makers, intermediates the probe returns)
MODELS = {
    "graphsage_tf": (
        [lambda: RNG.integers(0, 56945, 10).astype(np.int32),
         lambda: RNG.integers(0, 56945, (128, 10)).astype(np.int32),
         lambda: RNG.integers(0, 56945, 1).astype(np.int32)],
        # Data movement only: the placeholder f32 weights are subnormal, which XLA:CPU
        # flushes to zero and we do not, so arithmetic on them is not comparable.
        ["embedding_lookup.3", "embedding_lookup_1.3", "embedding_lookup_2.3", "Reshape_1.1",
         "Reshape_3.1", "Sum.9", "Sigmoid.1"],
    ),
    # Input computed in the probe (see above); bf16 throughout, placeholder weights of the
    # first layers are tiny normals (1e-35..1e-32), the NaN patterns arrive at Conv2d_4.
    "ssd_mobilenet_tf": (
        None,
        ["add.2", "Conv2D.68", "Conv2D.69", "FusedBatchNormV3.107", "Relu6.179", "Relu6.184",
         "Relu6.189", "Relu6.194", "Relu6.199", "Relu6.209", "Relu6.219", "Relu6.229",
         "Relu6.289", "XLA_Retvals.3", "XLA_Retvals.4"],
    ),
}

# ssd_mobilenet_tf's probe input: `x[i] = i mod 251` as f32[1,300,300,3], in the module.
IOTA_INPUT = """  %probe_iota = s32[270000]{0} iota(), iota_dimension=0
  %probe_m = s32[] constant(251)
  %probe_mb = s32[270000]{0} broadcast(%probe_m), dimensions={}
  %probe_rem = s32[270000]{0} remainder(%probe_iota, %probe_mb)
  %probe_f = f32[270000]{0} convert(%probe_rem)
  %arg0.1 = f32[1,300,300,3]{3,2,1,0} reshape(%probe_f)"""


def shape_of(text, name):
    m = re.search(r"%" + re.escape(name) + r" = (\S+) ", text)
    return m.group(1)


def corner(text, name, k):
    """A `slice` of `%name`'s first elements (8 along each axis, 64 along the last, all of
    a vector): its instruction text and shape."""
    shape = shape_of(text, name)
    ty, dims = re.match(r"(\w+)\[([0-9,]*)\]", shape).groups()
    dims = [int(d) for d in dims.split(",")] if dims else []
    caps = [d if len(dims) == 1 else min(d, 64 if i == len(dims) - 1 else 8)
            for i, d in enumerate(dims)]
    out = f"{ty}[{','.join(map(str, caps))}]"
    ranges = ", ".join(f"[0:{c}]" for c in caps)
    return f"  %probe_{k} = {out} slice(%{name}), slice={{{ranges}}}", out


def small_probe(text, names):
    """ssd_mobilenet_tf's probe: input computed in the module, corners of `names`."""
    lines = text.rstrip().split("\n")
    root = max(i for i, l in enumerate(lines) if l.strip().startswith("ROOT "))
    lines[root] = lines[root].replace("ROOT ", "")
    slices = [corner(text, n, k) for k, n in enumerate(names)]
    shapes = ", ".join(s for _, s in slices)
    args = ", ".join(f"%probe_{k}" for k in range(len(names)))
    lines[root + 1:root + 1] = [l for l, _ in slices] + [f"  ROOT %probe = ({shapes}) tuple({args})"]
    arg = next(i for i, l in enumerate(lines) if l.strip().startswith("%arg0.1 = "))
    lines[arg] = IOTA_INPUT
    head = lines[0]
    lines[0] = head[:head.index("entry_computation_layout={(")] + "entry_computation_layout={()->(" + shapes + ")}"
    e = next(i for i, l in enumerate(lines) if l.startswith("ENTRY "))
    lines[e] = re.sub(r" \(arg0\.1: [^)]*\) -> .*\{$", " () -> (" + shapes + ") {", lines[e])
    return "\n".join(lines) + "\n"


def probe(text, names):
    """The module with its ROOT replaced by a tuple of `names`."""
    lines = text.rstrip().split("\n")
    root = max(i for i, l in enumerate(lines) if l.strip().startswith("ROOT "))
    lines[root] = lines[root].replace("ROOT ", "")
    shapes = ", ".join(shape_of(text, n) for n in names)
    args = ", ".join("%" + n for n in names)
    lines.insert(root + 1, f"  ROOT %probe = ({shapes}) tuple({args})")
    out = "\n".join(lines) + "\n"
    # The entry's declared result changes with the root.
    out = re.sub(r"->f32\[1,121\]\{1,0\}\}", "->(" + shapes + ")}", out, count=1)
    out = re.sub(r"(ENTRY [^\n]*\) -> )[^{]*\{", lambda m: m.group(1) + "(" + re.sub(r"\{[0-9,]*\}", "", shapes) + ") {", out, count=1)
    return out


def write(d, text, ins, tol, atol=None):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "module.hlo"), "w") as f:
        f.write(text)
    outs = hlo_exec.run_hlo_text(text, ins)
    for i, a in enumerate(ins):
        np.save(os.path.join(d, f"in{i}.npy"), a)
    for i, a in enumerate(outs):
        np.save(os.path.join(d, f"out{i}.npy"), a)
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump({"source": "openxla/xla xla/backends/cpu/benchmarks/hlo", "rtol": tol, "atol": tol if atol is None else atol}, f)
    print(d, len(outs), "outputs", sum(int(np.isnan(o).sum()) if o.dtype.kind == "f" else 0 for o in outs), "NaN")


def main(root, model=None, which=None):
    for name, (makers, names) in MODELS.items():
        if model is not None and name != model:
            continue
        d = os.path.join(root, name)
        text = open(os.path.join(d, "module.hlo")).read()
        if which is None:
            # One fresh process per module (see above).
            for w in ("plain", "probe") if makers else ("probe",):
                subprocess.run([sys.executable, __file__, root, name, w], check=True)
        elif makers is None:
            # Tiny values: atol 0, so zeros must be zeros and the rest within rtol.
            write(os.path.join(root, name + "_probe"), small_probe(text, names), [], 1e-2, 0.0)
        elif which == "plain":
            write(d, text, [m() for m in makers], 1e-2)
        else:
            write(os.path.join(root, name + "_probe"), probe(text, names),
                  [m() for m in makers], 1e-2)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "testdata/xla_benchmarks",
         sys.argv[2] if len(sys.argv) > 2 else None,
         sys.argv[3] if len(sys.argv) > 3 else None)
