#!/usr/bin/env python3
"""Writes testdata/xla_conv_fill/<case>/{module.hlo,in0.npy,in1.npy,out0.npy}: convolutions
whose kernels hold NaN and ±inf, run on real XLA:CPU (jaxlib 0.10.2).

What they pin down: XLA:CPU runs f16/bf16/f32 convolutions with 1-3 spatial dims, no lhs
dilation and no window reversal on Eigen's spatial convolution, which pads the input with
zeros and multiplies them by the weights, so a NaN or infinite weight reaches every output
element of its feature, border included; every other convolution (f64, complex, lhs
dilation, reversed windows, 4 spatial dims) runs on XLA's loop emitter, which skips taps
outside the input. xla-cpu/tests/conv_fill.rs checks xla-cpu gives the same NaN positions
and values.
Run: python3 scripts/gen_conv_fill_fixtures.py   (needs jax==0.10.2)
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmap_on_xla import run_on_xla  # noqa: E402  (HLO text on XLA:CPU through jaxlib)
import numpy as np  # noqa: E402
import jax  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "xla_conv_fill")
NP = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": jax.numpy.bfloat16}


def dims(s):
    return ",".join(map(str, s))


# name, type, lhs dims, rhs dims, output dims, window and other attributes, dim_labels
CASES = [
    ("nhwc_same", "f32", (1, 5, 5, 3), (3, 3, 3, 4), (1, 5, 5, 4),
     "window={size=3x3 pad=1_1x1_1}", "b01f_01io->b01f"),
    ("nchw_same", "f32", (2, 3, 5, 5), (4, 3, 3, 3), (2, 4, 5, 5),
     "window={size=3x3 pad=1_1x1_1}", "bf01_oi01->bf01"),
    ("stride2_pad0_1", "f32", (1, 6, 6, 4), (3, 3, 4, 3), (1, 3, 3, 3),
     "window={size=3x3 stride=2x2 pad=0_1x0_1}", "b01f_01io->b01f"),
    ("depthwise", "f32", (1, 5, 5, 4), (3, 3, 1, 4), (1, 5, 5, 4),
     "window={size=3x3 pad=1_1x1_1}, feature_group_count=4", "b01f_01io->b01f"),
    ("window_dilated", "f32", (1, 7, 7, 2), (3, 3, 2, 3), (1, 7, 7, 3),
     "window={size=3x3 pad=2_2x2_2 rhs_dilate=2x2}", "b01f_01io->b01f"),
    ("one_d", "f32", (2, 9, 3), (3, 3, 2), (2, 9, 2),
     "window={size=3 pad=1_1}", "b0f_0io->b0f"),
    ("three_d", "f32", (1, 4, 4, 4, 2), (3, 3, 3, 2, 2), (1, 4, 4, 4, 2),
     "window={size=3x3x3 pad=1_1x1_1x1_1}", "b012f_012io->b012f"),
    ("bf16_same", "bf16", (1, 5, 5, 3), (3, 3, 3, 4), (1, 5, 5, 4),
     "window={size=3x3 pad=1_1x1_1}", "b01f_01io->b01f"),
    ("f16_same", "f16", (1, 5, 5, 3), (3, 3, 3, 4), (1, 5, 5, 4),
     "window={size=3x3 pad=1_1x1_1}", "b01f_01io->b01f"),
    # The loop emitter: taps outside the input skipped.
    ("f64_same", "f64", (1, 5, 5, 3), (3, 3, 3, 4), (1, 5, 5, 4),
     "window={size=3x3 pad=1_1x1_1}", "b01f_01io->b01f"),
    ("reversed", "f32", (1, 5, 5, 3), (3, 3, 3, 4), (1, 5, 5, 4),
     "window={size=3x3 pad=1_1x1_1 rhs_reversal=1x1}", "b01f_01io->b01f"),
    ("lhs_dilated", "f32", (1, 4, 4, 3), (3, 3, 3, 2), (1, 7, 7, 2),
     "window={size=3x3 pad=1_1x1_1 lhs_dilate=2x2}", "b01f_01io->b01f"),
    ("four_d", "f32", (1, 3, 3, 3, 3, 2), (3, 3, 3, 3, 2, 2), (1, 3, 3, 3, 3, 2),
     "window={size=3x3x3x3 pad=1_1x1_1x1_1x1_1}", "b0123f_0123io->b0123f"),
]


def main():
    rng = np.random.default_rng(11)
    shutil.rmtree(ROOT, ignore_errors=True)
    for name, ty, ld, rd, od, window, labels in CASES:
        x = rng.uniform(-1, 1, ld).astype(NP[ty])
        k = rng.uniform(-1, 1, rd).astype(NP[ty])
        flat = k.reshape(-1)
        # A NaN, +inf and -inf at three kernel positions (one of them the first tap, which
        # reads padding for the first output row).
        flat[0], flat[len(flat) // 2 + 1], flat[-1] = np.nan, np.inf, -np.inf
        text = f"""HloModule {name}

ENTRY main {{
  x = {ty}[{dims(ld)}] parameter(0)
  k = {ty}[{dims(rd)}] parameter(1)
  ROOT c = {ty}[{dims(od)}] convolution(x, k), {window}, dim_labels={labels}
}}
"""
        (y,) = run_on_xla(text, [x, k])
        out = os.path.join(ROOT, name)
        os.makedirs(out)
        with open(os.path.join(out, "module.hlo"), "w") as f:
            f.write(text)
        for f, v in [("in0", x), ("in1", k), ("out0", y)]:
            np.save(os.path.join(out, f + ".npy"), v)
        with open(os.path.join(out, "meta.json"), "w") as f:
            f.write('{"rtol": 1e-5, "atol": 1e-5}\n')
        print(f"{name}: {np.isnan(np.asarray(y, np.float64)).mean():.3f} of the outputs NaN")


if __name__ == "__main__":
    main()
