#!/usr/bin/env python3
"""Writes the forward loss modules of the MLP and CNN training-step benchmarks (B2, B3) and
JAX's own gradient modules for them, so the instruction counts of our gradient graphs
(`xla grad`) can be compared with JAX's (`jax.grad`).

    python3 scripts/grad_counts.py testdata/perf      # needs jax==0.10.2 and ../shared/perf

Writes DIR/{mlp,cnn}_loss.hlo (forward: scalar loss) and DIR/{mlp,cnn}_jax_grad.hlo.
The models are exactly those of the benchmark modules (imported from jax_bench.py).
"""
import os
import sys

import jax

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "shared", "perf"))
import jax_bench as jb  # noqa: E402


def main(out):
    os.makedirs(out, exist_ok=True)
    for name, loss, inputs in [("mlp", jb.mlp_loss, jb.b2_inputs()), ("cnn", jb.cnn_loss, jb.b3_inputs())]:
        fwd = jax.jit(loss).lower(*inputs).as_text(dialect="hlo")
        grad = jax.jit(jax.grad(loss)).lower(*inputs).as_text(dialect="hlo")
        for suffix, text in [("loss", fwd), ("jax_grad", grad)]:
            with open(os.path.join(out, f"{name}_{suffix}.hlo"), "w") as f:
                f.write(text)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "testdata/perf")
