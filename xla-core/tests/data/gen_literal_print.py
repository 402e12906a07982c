#!/usr/bin/env python3
"""Ground truth for literal printing, produced by real XLA (via jax/jaxlib).

Writes `literal_print_cases.txt` next to this script. Each line is one case, tab-separated:

    kind  type  dims  bits  expected

* kind `body`: `expected` is the text XLA's HLO printer writes inside `constant(...)` for an
  array of `type[dims]` whose elements have the given bit patterns (hex, comma-separated,
  row-major; complex elements are `re:im`). The constant is built from a numpy array, so the
  bits are exact, and printed by `jax.jit(...).lower(...).as_text(dialect="hlo")`.
* kind `tostring`: `expected` is XLA's `Literal::ToString()` (newlines escaped as `\\n`),
  taken from `str(jaxlib._hlo.Literal(shape))`; that literal holds whatever memory it got, so
  the element bits are recovered by parsing the printed text (XLA prints round-trippable
  values) and written in `bits`.

Run: `python3 xla-core/tests/data/gen_literal_print.py` (needs jax, numpy, ml_dtypes).
"""
import os
import re

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax._src.lib import hlo

jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(20261122)

TYPES = {
    "pred": (np.bool_, np.uint8), "s8": (np.int8, np.uint8), "s16": (np.int16, np.uint16),
    "s32": (np.int32, np.uint32), "s64": (np.int64, np.uint64), "u8": (np.uint8, np.uint8),
    "u16": (np.uint16, np.uint16), "u32": (np.uint32, np.uint32), "u64": (np.uint64, np.uint64),
    "f16": (np.float16, np.uint16), "bf16": (ml_dtypes.bfloat16, np.uint16),
    "f32": (np.float32, np.uint32), "f64": (np.float64, np.uint64),
    "c64": (np.complex64, np.uint32), "c128": (np.complex128, np.uint64),
}


def bits_of(ty, arr):
    dt, ut = TYPES[ty]
    flat = np.ascontiguousarray(arr).reshape(-1)
    if ty in ("c64", "c128"):
        comp = flat.view(np.float32 if ty == "c64" else np.float64).view(ut)
        return ",".join(f"{comp[2 * i]:x}:{comp[2 * i + 1]:x}" for i in range(flat.size))
    return ",".join(f"{b:x}" for b in flat.view(ut))


def hlo_body(arr):
    def f(x):
        return x, jnp.asarray(arr)

    text = jax.jit(f).lower(np.float32(0)).as_text(dialect="hlo")
    for line in text.splitlines():
        if " constant(" in line and "ROOT" not in line:
            return line[line.index(" constant(") + len(" constant("):line.rindex(")")]
    raise RuntimeError(text)


def from_bits(ty, bits, dims):
    dt, ut = TYPES[ty]
    return np.array(bits, dtype=ut).view(dt).reshape(dims)


lines = []


def body(ty, arr):
    arr = np.asarray(arr, dtype=TYPES[ty][0])
    dims = ",".join(str(d) for d in arr.shape)
    lines.append(f"body\t{ty}\t{dims}\t{bits_of(ty, arr)}\t{hlo_body(arr)}")


# Specials, hand-picked decimals and random bit patterns, per float type.
F32_SPECIAL = [0x7FC00000, 0xFFC00000, 0x7FC00001, 0x7F800001, 0xFF800001, 0x7FFFFFFF,
               0x80000000, 0, 1, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x7F800000, 0xFF800000,
               0x3F800000, 0x4B800000, 0x4B7FFFFF]
F64_SPECIAL = [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000000001, 0x7FF0000000000001,
               0x8000000000000000, 0, 1, 0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000,
               0xFFF0000000000000, 0x3FF0000000000000, 0x0010000000000000]
F16_SPECIAL = [0x7E00, 0xFE00, 0x7E01, 0x7C01, 0x7FFF, 0x8000, 0, 1, 0x3FF, 0x400, 0x7BFF,
               0x7C00, 0xFC00, 0x3C00]
DECIMALS = [1.0, 0.1, 1e-5, 3.4e38, -3.5233877e-06, 1e-30, 123456789.0, 1e16, 0.5, 2.5, -1.5,
            1e10, 16777216.0, 1e-4, 123456.0, 1234567.0, 0.0001234, 100.0, 1e6, 999999.5,
            0.3, 2.0 / 3.0, 1e-7, 65504.0, 1024.0, 3.14159265358979, 1e300, 5e-324]

body("f32", from_bits("f32", F32_SPECIAL, (len(F32_SPECIAL),)))
body("f64", from_bits("f64", F64_SPECIAL, (len(F64_SPECIAL),)))
body("f16", from_bits("f16", F16_SPECIAL, (len(F16_SPECIAL),)))
body("bf16", from_bits("bf16", F16_SPECIAL + [0x7FC0, 0xFFC0, 0x7FC1, 0x7F81, 0x7F7F, 0x3DCD],
                       (len(F16_SPECIAL) + 6,)))
with np.errstate(over="ignore"):
    for ty in ("f32", "f64", "f16", "bf16"):
        body(ty, np.array(DECIMALS).astype(TYPES[ty][0]))
        body(ty, (rng.standard_normal(300) * 10.0 ** rng.integers(-12, 12, 300)).astype(TYPES[ty][0]))
for ty, n in (("f32", 1000), ("f64", 600), ("f16", 1000), ("bf16", 1000)):
    ut = TYPES[ty][1]
    raw = rng.integers(0, np.iinfo(ut).max, n, dtype=ut, endpoint=True)
    body(ty, raw.view(TYPES[ty][0]))
body("f16", np.arange(0, 65536, 7, dtype=np.uint16).view(np.float16))
for ty in ("s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"):
    info = np.iinfo(TYPES[ty][0])
    vals = [info.min, info.max, 0, 1, info.max // 3] + ([-1, info.min + 1] if info.min else [])
    body(ty, np.array(vals + list(rng.integers(info.min, info.max, 20, dtype=TYPES[ty][0], endpoint=True)),
                      dtype=TYPES[ty][0]))
body("pred", np.array([True, False, True]))
for ty in ("c64", "c128"):
    re_ = np.array(DECIMALS[:10] + [np.nan, -np.inf, -0.0])
    body(ty, (re_ + 1j * re_[::-1]).astype(TYPES[ty][0]))

# Shapes: scalars, every rank up to 5, size-0 and size-1 dimensions.
SCALARS = [("f32", 1.5), ("f32", -np.inf), ("f32", np.nan), ("f32", 1.0), ("pred", True),
           ("pred", False), ("s32", -7), ("u64", 2**64 - 1), ("c64", 1 + 2j), ("f16", 0.1),
           ("bf16", -2.0), ("f64", 1e-5), ("c128", -0.0 - 1e300j), ("s8", -128)]
for ty, v in SCALARS:
    body(ty, np.array(v, dtype=TYPES[ty][0]))
for dims in [(0,), (1,), (2, 0), (0, 3), (2, 1), (1, 2), (1, 1), (2, 3), (2, 2, 2), (3, 1, 2),
             (2, 2, 2, 2), (1, 2, 1, 2), (2, 0, 2, 2), (2, 2, 0, 3), (2, 2, 2, 0), (2, 1, 2, 1, 2),
             (1, 1, 1, 1, 1), (0, 2, 2, 2)]:
    n = int(np.prod(dims))
    body("f32", (np.arange(n, dtype=np.float32) / 4 - 1).reshape(dims))
    body("pred", (np.arange(n) % 3 == 0).reshape(dims))
body("s32", np.arange(24, dtype=np.int32).reshape(2, 3, 4))
body("c64", (np.arange(4) + 1j).astype(np.complex64).reshape(2, 2))

# Literal::ToString: structure from XLA, element values read back from its text.
NUM = re.compile(r"true|false|-?nan(?:\(0x[0-9a-f]+\))?|-?inf|-?[0-9][0-9.e+-]*")


def parse_f32(tok):
    m = re.fullmatch(r"(-?)nan(?:\((0x[0-9a-f]+)\))?", tok)
    if m:
        payload = int(m.group(2), 16) if m.group(2) else 0x400000
        return (0x80000000 if m.group(1) else 0) | 0x7F800000 | payload
    return int(np.array(float(tok), np.float32).view(np.uint32))


def tostring(ty, dims):
    pt = {"f32": hlo.PrimitiveType.F32, "s32": hlo.PrimitiveType.S32,
          "pred": hlo.PrimitiveType.PRED}[ty]
    text = str(hlo.Literal(hlo.Shape.array_shape(pt, dims)))
    values = text[text.index("]") + 1:]
    values = re.sub(r"/\*i[0-9]+=[0-9]+\*/", "", values)
    toks = NUM.findall(values)
    if ty == "f32":
        bits = [parse_f32(t) for t in toks]
    elif ty == "s32":
        bits = [int(t) & 0xFFFFFFFF for t in toks]
    else:
        bits = [0 if t in ("0", "false") else 1 for t in toks]
    assert len(bits) == int(np.prod(dims)), (text, toks)
    d = ",".join(str(x) for x in dims)
    b = ",".join(f"{x:x}" for x in bits)
    lines.append(f"tostring\t{ty}\t{d}\t{b}\t" + text.replace("\n", "\\n"))


for dims in [(), (3,), (0,), (2, 3), (2, 1), (0, 2), (2, 0), (2, 2, 2), (2, 2, 2, 2), (1, 2, 1, 2, 1)]:
    for ty in ("f32", "s32", "pred"):
        tostring(ty, dims)

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "literal_print_cases.txt")
with open(out, "w") as fh:
    fh.write("\n".join(lines) + "\n")
print(f"wrote {len(lines)} cases to {out}")
