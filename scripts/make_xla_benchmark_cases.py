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

    python3 scripts/make_xla_benchmark_cases.py testdata/xla_benchmarks

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
}


def shape_of(text, name):
    m = re.search(r"%" + re.escape(name) + r" = (\S+) ", text)
    return m.group(1)


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


def write(d, text, ins, tol):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "module.hlo"), "w") as f:
        f.write(text)
    outs = hlo_exec.run_hlo_text(text, ins)
    for i, a in enumerate(ins):
        np.save(os.path.join(d, f"in{i}.npy"), a)
    for i, a in enumerate(outs):
        np.save(os.path.join(d, f"out{i}.npy"), a)
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump({"source": "openxla/xla xla/backends/cpu/benchmarks/hlo", "rtol": tol, "atol": tol}, f)
    print(d, len(outs), "outputs", sum(int(np.isnan(o).sum()) if o.dtype.kind == "f" else 0 for o in outs), "NaN")


def main(root, which=None):
    for name, (makers, names) in MODELS.items():
        d = os.path.join(root, name)
        text = open(os.path.join(d, "module.hlo")).read()
        ins = [m() for m in makers]
        if which is None:
            # One fresh process per module (see above).
            for w in ("plain", "probe"):
                subprocess.run([sys.executable, __file__, root, w], check=True)
        elif which == "plain":
            write(d, text, ins, 1e-2)
        else:
            write(os.path.join(root, name + "_probe"), probe(text, names), ins, 1e-2)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "testdata/xla_benchmarks",
         sys.argv[2] if len(sys.argv) > 2 else None)
