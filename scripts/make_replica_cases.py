#!/usr/bin/env python3
"""Makes the multi-device cases of testdata/replicas/own/ on real XLA:CPU.

Each case is a module whose header declares replica_count / num_partitions, its inputs
stacked along a leading axis of replicas x partitions devices (device = replica * P +
partition), and the outputs real XLA gives for them, stacked the same way (the convention of
/work/shared/conformance/replicas_public). Cover what the public cases do not: reduce-scatter
and all-to-all on dimension 1, iota groups over 8 replicas, an all-gather in a while loop, a
collective-permute inside a conditional, and a module with both replicas and partitions
where every group mode (and the device order of cross-replica-and-partition groups) shows.

    python3 scripts/make_replica_cases.py [/work/shared/conformance]
"""
import json
import os
import re
import sys

import numpy as np

SHARED = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/conformance"
sys.path.insert(0, SHARED)
import replica_exec  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "replicas", "own")

ADD = """add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
"""

MAX_S32 = """max_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = s32[] maximum(a, b)
}
"""


def manual(text):
    """Marks every instruction sharding={manual} (needed by XLA with num_partitions > 1)."""
    out = []
    for line in text.split("\n"):
        if re.match(r"\s*(ROOT )?[\w.]+ = ", line):
            m = re.match(r"\s*(ROOT )?[\w.]+ = \(", line)
            if m:
                n = line.split(") ", 1)[0].count(",") + 1
                line += ", sharding={" + ", ".join(["{manual}"] * n) + "}"
            else:
                line += ", sharding={manual}"
        out.append(line)
    return "\n".join(out)


CASES = []


def case(name, what, hlo, inputs, rtol=1e-5, atol=1e-6):
    CASES.append((name, what, hlo, inputs, rtol, atol))


rng = np.random.default_rng(12)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


case("reducescatter_dim1", "reduce-scatter along dimension 1 over 4 replicas",
     "HloModule m, replica_count=4\n\n" + ADD + """
ENTRY main {
  x = f32[3,8]{1,0} parameter(0)
  ROOT r = f32[3,2]{1,0} reduce-scatter(x), replica_groups={}, dimensions={1}, to_apply=add_f32
}
""", [f32(4, 3, 8)])

case("reducescatter_iota_groups", "reduce-scatter over iota groups [2,4]<=[8] (s32 max)",
     "HloModule m, replica_count=8\n\n" + MAX_S32 + """
ENTRY main {
  x = s32[8,2]{1,0} parameter(0)
  ROOT r = s32[2,2]{1,0} reduce-scatter(x), replica_groups=[2,4]<=[8], dimensions={0}, to_apply=max_s32
}
""", [rng.integers(-100, 100, (8, 8, 2)).astype(np.int32)])

case("alltoall_dim1", "array all-to-all along dimension 1 with unordered groups",
     "HloModule m, replica_count=4\n\n" + """
ENTRY main {
  x = f32[2,4]{1,0} parameter(0)
  ROOT r = f32[2,4]{1,0} all-to-all(x), replica_groups={{3,0},{1,2}}, dimensions={1}
}
""", [f32(4, 2, 4)])

case("allgather_in_while", "an all-gather inside a while body (3 rounds)",
     "HloModule m, replica_count=2\n\n" + """
cond {
  p = (s32[], f32[2]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[2]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[2]{0} get-tuple-element(p), index=1
  g = f32[4]{0} all-gather(x), replica_groups={{1,0}}, dimensions={0}
  lo = f32[2]{0} slice(g), slice={[0:2]}
  hi = f32[2]{0} slice(g), slice={[2:4]}
  d = f32[2]{0} subtract(lo, hi)
  r = u32[] replica-id()
  rf = f32[] convert(r)
  rb = f32[2]{0} broadcast(rf), dimensions={}
  y = f32[2]{0} add(d, rb)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[2]{0}) tuple(j, y)
}

ENTRY main {
  x = f32[2]{0} parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[2]{0}) tuple(z, x)
  w = (s32[], f32[2]{0}) while(t), condition=cond, body=body
  ROOT r = f32[2]{0} get-tuple-element(w), index=1
}
""", [f32(2, 2)])

case("permute_in_conditional", "collective-permute inside the branches of a conditional",
     "HloModule m, replica_count=4\n\n" + """
fwd {
  p = f32[3]{0} parameter(0)
  ROOT q = f32[3]{0} collective-permute(p), source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
}

back {
  p = f32[3]{0} parameter(0)
  ROOT q = f32[3]{0} collective-permute(p), source_target_pairs={{1,0},{2,1},{3,2}}
}

ENTRY main {
  x = f32[3]{0} parameter(0)
  b = s32[1]{0} parameter(1)
  bs = s32[] reshape(b)
  ROOT r = f32[3]{0} conditional(bs, x, x), branch_computations={fwd, back}
}
""", [f32(4, 3), np.ones((4, 1), np.int32)])

case("permute_in_conditional_branch0", "the same conditional taking the ring branch",
     CASES[-1][2], [f32(4, 3), np.zeros((4, 1), np.int32)])

MIXED = manual("""HloModule m, replica_count=2, num_partitions=2

""" + ADD + """
ENTRY main {
  x = f32[4]{0} parameter(0)
  a1 = f32[4]{0} all-reduce(x), replica_groups={}, to_apply=add_f32
  a2 = f32[4]{0} all-reduce(x), channel_id=1, replica_groups={}, use_global_device_ids=false, to_apply=add_f32
  a3 = f32[4]{0} all-reduce(x), channel_id=2, replica_groups=[2,2]<=[2,2]T(1,0), use_global_device_ids=true, to_apply=add_f32
  g1 = f32[8]{0} all-gather(x), replica_groups={{1,0}}, dimensions={0}
  g2 = f32[16]{0} all-gather(x), channel_id=3, replica_groups={{1,0}}, dimensions={0}, use_global_device_ids=false
  g3 = f32[8]{0} all-gather(x), channel_id=4, replica_groups=[2,2]<=[2,2]T(1,0), dimensions={0}, use_global_device_ids=true
  t1 = f32[4]{0} all-to-all(x), channel_id=5, replica_groups={{1,0}}, dimensions={0}
  p1 = f32[4]{0} collective-permute(x), channel_id=6, source_target_pairs={{0,1}}
  p2 = f32[4]{0} collective-permute(x), source_target_pairs={{1,0}}
  r = u32[] replica-id()
  p = u32[] partition-id()
  rb = u32[1]{0} broadcast(r), dimensions={}
  pb = u32[1]{0} broadcast(p), dimensions={}
  ROOT t = (f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[8]{0}, f32[16]{0}, f32[8]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}, u32[1]{0}, u32[1]{0}) tuple(a1, a2, a3, g1, g2, g3, t1, p1, p2, rb, pb)
}
""")
case("replicas_and_partitions_modes",
     "R=2, P=2: every group mode (no channel; channel without / with global ids; "
     "cross-partition all-to-all and permute), iota groups T(1,0), the device order of a "
     "cross-replica-and-partition all-gather over replica group {1,0}",
     MIXED, [f32(4, 4)])

case("async_in_loop", "all-reduce-start/-done and collective-permute-start/-done in a loop",
     "HloModule m, replica_count=3\n\n" + ADD + """
cond {
  p = (s32[], f32[2]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[2]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[2]{0} get-tuple-element(p), index=1
  s = f32[2]{0} all-reduce-start(x), replica_groups={}, to_apply=add_f32
  d = f32[2]{0} all-reduce-done(s)
  ps = (f32[2]{0}, f32[2]{0}, u32[], u32[]) collective-permute-start(x), source_target_pairs={{0,1},{1,2},{2,0}}
  pd = f32[2]{0} collective-permute-done(ps)
  k = f32[] constant(0.25)
  kb = f32[2]{0} broadcast(k), dimensions={}
  y = f32[2]{0} multiply(d, kb)
  z = f32[2]{0} add(y, pd)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[2]{0}) tuple(j, z)
}

ENTRY main {
  x = f32[2]{0} parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[2]{0}) tuple(z, x)
  w = (s32[], f32[2]{0}) while(t), condition=cond, body=body
  ROOT r = f32[2]{0} get-tuple-element(w), index=1
}
""", [f32(3, 2)])


def reducer(name, ty, op):
    return f"""{name} {{
  a = {ty}[] parameter(0)
  b = {ty}[] parameter(1)
  ROOT c = {ty}[] {op}(a, b)
}}
"""


case("allreduce_ints_pred",
     "all-reduce over 3 replicas of u8 add and s8 multiply (wrap-around), s16 max, u16 min, "
     "pred and/or (what MPI reduces with its built-in ops)",
     "HloModule m, replica_count=3\n\n" + reducer("add_u8", "u8", "add")
     + reducer("mul_s8", "s8", "multiply") + reducer("max_s16", "s16", "maximum")
     + reducer("min_u16", "u16", "minimum") + reducer("and_pred", "pred", "and")
     + reducer("or_pred", "pred", "or") + """
ENTRY main {
  a = u8[5]{0} parameter(0)
  b = s8[5]{0} parameter(1)
  c = s16[5]{0} parameter(2)
  d = u16[5]{0} parameter(3)
  e = pred[6]{0} parameter(4)
  ra = u8[5]{0} all-reduce(a), replica_groups={}, to_apply=add_u8
  rb = s8[5]{0} all-reduce(b), replica_groups={}, to_apply=mul_s8
  rc = s16[5]{0} all-reduce(c), replica_groups={}, to_apply=max_s16
  rd = u16[5]{0} all-reduce(d), replica_groups={}, to_apply=min_u16
  re = pred[6]{0} all-reduce(e), replica_groups={}, to_apply=and_pred
  rf = pred[6]{0} all-reduce(e), replica_groups={}, to_apply=or_pred
  ROOT t = (u8[5]{0}, s8[5]{0}, s16[5]{0}, u16[5]{0}, pred[6]{0}, pred[6]{0}) tuple(ra, rb, rc, rd, re, rf)
}
""", [np.array([[200, 100, 255, 0, 7], [100, 200, 1, 0, 8], [1, 250, 255, 255, 9]], np.uint8),
      np.array([[100, -7, 127, -128, 3], [3, 50, 2, -1, -5], [-2, 9, 2, -1, 11]], np.int8),
      np.array([[-30000, 5, 7, -1, 0], [32767, -5, 8, -2, 0], [12, 0, -9, -3, 1]], np.int16),
      np.array([[65535, 5, 7, 1, 0], [65534, 6, 8, 2, 3], [12, 0, 9, 3, 1]], np.uint16),
      np.array([[1, 1, 0, 0, 1, 0], [1, 0, 0, 1, 1, 0], [1, 1, 0, 0, 0, 0]], bool)],
     rtol=0, atol=0)


# collective-broadcast is not in these cases: XLA:CPU rejects it ("HLO opcode
# `collective-broadcast` is not supported by XLA:CPU ThunkEmitter", jax 0.10.2).
case("allreduce_c64_groups",
     "all-reduce of c64 (add) over groups {0,2} and {3,1} of 4 replicas",
     "HloModule m, replica_count=4\n\n" + reducer("add_c64", "c64", "add") + """
ENTRY main {
  x = c64[3]{0} parameter(0)
  ROOT r = c64[3]{0} all-reduce(x), replica_groups={{0,2},{3,1}}, to_apply=add_c64
}
""", [(f32(4, 3) + 1j * f32(4, 3)).astype(np.complex64)])


def write_case(name, what, hlo, inputs, rtol, atol, made_by="scripts/make_replica_cases.py",
               **extra):
    """Runs `hlo` on real XLA and writes the case to OUT/name; returns XLA's outputs."""
    reps, parts = replica_exec.devices_of(hlo)
    outs = replica_exec.run(hlo, inputs)
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "module.hlo"), "w") as f:
        f.write(hlo)
    for i, a in enumerate(inputs):
        np.save(os.path.join(d, f"in{i}.npy"), a)
    for i, o in enumerate(outs):
        np.save(os.path.join(d, f"out{i}.npy"), o)
    meta = {"what": what, "replicas": reps, "partitions": parts, "rtol": rtol,
            "atol": atol, **extra, "convention": "inputs and outputs stacked along a leading "
            "axis of replicas*partitions devices", "made_by": made_by}
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(f"{name}: {len(outs)} output(s) on {reps}x{parts} devices")
    return outs


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, what, hlo, inputs, rtol, atol in CASES:
        write_case(name, what, hlo, inputs, rtol, atol)


if __name__ == "__main__":
    main()
