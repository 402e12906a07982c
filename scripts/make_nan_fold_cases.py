#!/usr/bin/env python3
"""Makes the all-reduce cases of testdata/replicas/own/ whose outputs must match real XLA:CPU
to the bit: NaNs of different payloads on several members, -0, +-inf, NaN-dropping maximum and
minimum, over 2 replicas (the pair MPI reduces with MPI_Allreduce), 4 replicas in a shuffled
group, and a reduce-scatter over 3, in f32, f64, f16, bf16 and c64.

What real XLA:CPU does there (jax 0.10.2, see devices/xla_fold.rs): the last NaN in group order
survives an add or multiply, a sum of -0 only is +0, maximum/minimum skip NaNs (all-NaN gives
-inf/+inf), f16/bf16 NaN results are the canonical NaN with their sign.

    python3 scripts/make_nan_fold_cases.py [/work/shared/conformance]
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_replica_cases import write_case  # noqa: E402  (also puts replica_exec on the path)


def reducer(name, ty, op):
    return f"""{name} {{
  a = {ty}[] parameter(0)
  b = {ty}[] parameter(1)
  ROOT c = {ty}[] {op}(a, b)
}}
"""


def bits(dtype, words):
    """An array of `dtype` from its bit patterns."""
    width = {np.float32: np.uint32, np.float64: np.uint64}[dtype]
    return np.array(words, dtype=width).view(dtype)


def nan32(k, neg=False):
    return (0xFFC00000 if neg else 0x7FC00000) + k


ONE, NZ, PZ, INF, NINF = 0x3F800000, 0x80000000, 0, 0x7F800000, 0xFF800000
CASES = []

# Two replicas: each column a situation; the rows are the devices.
pair = bits(np.float32, [
    [nan32(1), nan32(1), ONE, nan32(3), NZ, NZ, INF, 0x40400000],
    [nan32(2), nan32(2, neg=True), nan32(2), ONE, NZ, PZ, NINF, 0xC0000000],
])
pair64 = bits(np.float64, [
    [0x7FF8000000000001, 0x8000000000000000, 0x3FF0000000000000],
    [0x7FF8000000000002, 0x8000000000000000, 0x7FF8000000000005],
])
CASES.append(("allreduce_nan_pair",
              "all-reduce over 2 replicas of f32 add, multiply, maximum, minimum and f64 add "
              "with NaNs of different payloads, -0, +-inf (XLA's bits)",
              "HloModule m, replica_count=2\n\n" + reducer("add", "f32", "add")
              + reducer("mul", "f32", "multiply") + reducer("max", "f32", "maximum")
              + reducer("min", "f32", "minimum") + reducer("add64", "f64", "add") + """
ENTRY main {
  x = f32[8]{0} parameter(0)
  y = f64[3]{0} parameter(1)
  a = f32[8]{0} all-reduce(x), replica_groups={}, to_apply=add
  m = f32[8]{0} all-reduce(x), replica_groups={}, to_apply=mul
  hi = f32[8]{0} all-reduce(x), replica_groups={}, to_apply=max
  lo = f32[8]{0} all-reduce(x), replica_groups={}, to_apply=min
  d = f64[3]{0} all-reduce(y), replica_groups={}, to_apply=add64
  ROOT t = (f32[8]{0}, f32[8]{0}, f32[8]{0}, f32[8]{0}, f64[3]{0}) tuple(a, m, hi, lo, d)
}
""", [pair, pair64]))

# Four replicas in the group order {2,0,3,1}: device k holds payload k+1 where it holds a NaN.
quad = np.ones((4, 6), np.uint32) * ONE
for d in range(4):
    quad[d, 0] = nan32(d + 1)            # all NaN
    quad[d, 1] = nan32(d + 1) if d in (0, 2) else ONE   # NaN on the first and third devices
    quad[d, 2] = nan32(d + 1, neg=d == 1) if d in (1, 3) else NZ
    quad[d, 3] = NZ                      # -0 only
    quad[d, 4] = nan32(d + 1) if d == 2 else 0x40000000 + d  # NaN on the first member only
    quad[d, 5] = 0x3F000000 + 0x100000 * d
quad = quad.view(np.float32)
half = np.array([[0x7E01, 0x8000, 0xFE03, 0x3C00], [0x7E02, 0x8000, 0x3C00, 0x7E04],
                 [0x3C00, 0x8000, 0x3C00, 0x4000], [0x4000, 0x8000, 0x3C00, 0x4000]], np.uint16)
bf = np.array([[0x7FC1, 0x8000, 0xFFC3, 0x3F80], [0x7FC2, 0x8000, 0x3F80, 0x7FC4],
               [0x3F80, 0x8000, 0x3F80, 0x4000], [0x4000, 0x8000, 0x3F80, 0x4000]], np.uint16)
cplx = (quad[:, :3] + 1j * quad[:, 3:]).astype(np.complex64)
CASES.append(("allreduce_nan_group_order",
              "all-reduce over 4 replicas in the group {2,0,3,1} of f32 add, maximum, minimum, "
              "f16 and bf16 add and maximum (bf16 as its u16 bits), c64 add, with NaNs of different payloads (XLA's bits)",
              "HloModule m, replica_count=4\n\n" + reducer("add", "f32", "add")
              + reducer("max", "f32", "maximum") + reducer("min", "f32", "minimum")
              + reducer("addh", "f16", "add") + reducer("maxh", "f16", "maximum")
              + reducer("addb", "bf16", "add") + reducer("maxb", "bf16", "maximum")
              + reducer("addc", "c64", "add") + """
ENTRY main {
  x = f32[6]{0} parameter(0)
  h = f16[4]{0} parameter(1)
  bu = u16[4]{0} parameter(2)
  b = bf16[4]{0} bitcast-convert(bu)
  c = c64[3]{0} parameter(3)
  a = f32[6]{0} all-reduce(x), replica_groups={{2,0,3,1}}, to_apply=add
  hi = f32[6]{0} all-reduce(x), replica_groups={{2,0,3,1}}, to_apply=max
  lo = f32[6]{0} all-reduce(x), replica_groups={{2,0,3,1}}, to_apply=min
  ha = f16[4]{0} all-reduce(h), replica_groups={{2,0,3,1}}, to_apply=addh
  hm = f16[4]{0} all-reduce(h), replica_groups={{2,0,3,1}}, to_apply=maxh
  ba0 = bf16[4]{0} all-reduce(b), replica_groups={{2,0,3,1}}, to_apply=addb
  bm0 = bf16[4]{0} all-reduce(b), replica_groups={{2,0,3,1}}, to_apply=maxb
  ba = u16[4]{0} bitcast-convert(ba0)
  bm = u16[4]{0} bitcast-convert(bm0)
  ca = c64[3]{0} all-reduce(c), replica_groups={{2,0,3,1}}, to_apply=addc
  ROOT t = (f32[6]{0}, f32[6]{0}, f32[6]{0}, f16[4]{0}, f16[4]{0}, u16[4]{0}, u16[4]{0}, c64[3]{0}) tuple(a, hi, lo, ha, hm, ba, bm, ca)
}
""", [quad, half.view(np.float16), bf, cplx]))

tri = bits(np.float32, [
    [nan32(1), NZ, nan32(1), ONE, nan32(1), NZ],
    [nan32(2), NZ, ONE, ONE, ONE, NZ],
    [nan32(3), NZ, ONE, nan32(3), nan32(3), PZ],
])
CASES.append(("reducescatter_nan_payloads",
              "reduce-scatter over 3 replicas of f32 add and maximum with NaNs of different "
              "payloads and -0 (XLA's bits)",
              "HloModule m, replica_count=3\n\n" + reducer("add", "f32", "add")
              + reducer("max", "f32", "maximum") + """
ENTRY main {
  x = f32[6]{0} parameter(0)
  a = f32[2]{0} reduce-scatter(x), replica_groups={}, dimensions={0}, to_apply=add
  m = f32[2]{0} reduce-scatter(x), replica_groups={}, dimensions={0}, to_apply=max
  ROOT t = (f32[2]{0}, f32[2]{0}) tuple(a, m)
}
""", [tri]))


def main():
    for name, what, hlo, inputs in CASES:
        outs = write_case(name, what, hlo, inputs, 0, 0,
                          made_by="scripts/make_nan_fold_cases.py", bits=True)
        for o in outs:
            w = {4: np.uint32, 8: np.uint64, 2: np.uint16}[o.dtype.itemsize if o.dtype.kind != "c" else 4]
            print("  ", o.dtype, [hex(v) for v in o[0].reshape(-1).view(w)])


if __name__ == "__main__":
    main()
