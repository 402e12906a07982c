#!/usr/bin/env python3
"""Fixtures and manifests for the `.npy` tests, written by numpy itself.

1. `npy/*.npy`: small arrays of every dtype XLA has, little- and big-endian, C and Fortran
   order, 0-d and size-0 arrays, format versions 1.0, 2.0 and 3.0, bf16 as ml_dtypes saves it
   (`<V2`). `npy/manifest.txt` lists, tab-separated: file, XLA element type, dims, and the
   elements' bit patterns in row-major order (hex; complex as `re:im`).
2. `conformance_npy_manifest.txt`: for every `in*.npy`/`out*.npy` under
   `testdata/conformance/{public,grad_public}`: path (relative to `testdata/conformance`), XLA
   element type, dims as numpy reads them, and the FNV-1a 64-bit hash of the elements as
   little-endian bytes in row-major order (bool as one byte 0/1).

Run from anywhere: `python3 xla-core/tests/data/gen_npy_fixtures.py` (needs numpy, ml_dtypes).
"""
import glob
import os

import ml_dtypes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
OUT = os.path.join(HERE, "npy")

XLA = {"bool": "pred", "int8": "s8", "int16": "s16", "int32": "s32", "int64": "s64",
       "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64", "float16": "f16",
       "bfloat16": "bf16", "float32": "f32", "float64": "f64", "complex64": "c64",
       "complex128": "c128"}
BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def xla_type(dtype):
    return XLA[np.dtype(dtype).name]


def bits(arr):
    flat = np.ascontiguousarray(arr).reshape(-1)
    flat = flat.astype(flat.dtype.newbyteorder("="))
    if flat.dtype.kind == "c":
        comp = flat.view(np.float32 if flat.dtype.itemsize == 8 else np.float64)
        u = comp.view(BITS[comp.dtype.itemsize])
        return ",".join(f"{u[2 * i]:x}:{u[2 * i + 1]:x}" for i in range(flat.size))
    if flat.dtype == np.bool_:
        return ",".join("1" if b else "0" for b in flat)
    return ",".join(f"{b:x}" for b in flat.view(BITS[flat.dtype.itemsize]))


def values(dtype, shape):
    n = int(np.prod(shape))
    k = np.arange(n)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        v = k % 3 == 1
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        v = (k * 37 + 5).astype(np.int64) % 200 - (100 if dt.kind == "i" else 0)
        v = v.astype(dt)
        if n >= 2:
            v[0], v[-1] = info.min, info.max
    elif dt.kind == "c":
        v = (k - 2.5 + 1j * (k * 0.25 - 1)).astype(dt)
    else:
        v = ((k - 2.5) * 1.25).astype(dt)
        if n >= 4:
            v[1], v[2], v[3] = np.inf, np.nan, -0.0
    return v.reshape(shape)


manifest = []


def save(name, arr, version=None, fortran=False):
    path = os.path.join(OUT, name + ".npy")
    data = np.asfortranarray(arr) if fortran else arr.copy(order="C")
    with open(path, "wb") as fh:
        np.lib.format.write_array(fh, data, version=version, allow_pickle=False)
    back = np.load(path)
    assert back.shape == arr.shape and back.tobytes() == arr.tobytes()
    dims = ",".join(str(d) for d in arr.shape)
    manifest.append(f"{name}.npy\t{xla_type(arr.dtype)}\t{dims}\t{bits(arr)}")


os.makedirs(OUT, exist_ok=True)
for f in glob.glob(os.path.join(OUT, "*.npy")):
    os.remove(f)
TYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
         np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]
for t in TYPES:
    dt = np.dtype(t)
    orders = ["<", ">"] if dt.itemsize > 1 else ["|"]
    for o in orders:
        edt = dt.newbyteorder(o) if o != "|" else dt
        tag = {"<": "le", ">": "be", "|": "na"}[o]
        save(f"{xla_type(dt)}_{tag}_c", values(dt, (2, 3)).astype(edt))
        save(f"{xla_type(dt)}_{tag}_f", values(dt, (2, 3, 4)).astype(edt), fortran=True)
    save(f"{xla_type(dt)}_scalar", values(dt, ()))
    save(f"{xla_type(dt)}_empty", values(dt, (0, 3)))
save("f32_empty_f", values(np.float32, (3, 0, 2)), fortran=True)
save("f32_vec", values(np.float32, (5,)))
save("f32_v2", values(np.float32, (2, 3)), version=(2, 0))
save("f64_v3_be_f", values(np.float64, (3, 2)).astype(">f8"), version=(3, 0), fortran=True)
bf = np.array([1.0, -2.5, np.inf, np.nan, 0.1, -0.0], dtype=ml_dtypes.bfloat16).reshape(2, 3)
save("bf16_c", bf)
with open(os.path.join(OUT, "manifest.txt"), "w") as fh:
    fh.write("\n".join(manifest) + "\n")


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


conf = []
base = os.path.join(ROOT, "testdata", "conformance")
for path in sorted(glob.glob(os.path.join(base, "*", "*", "*.npy"))):
    arr = np.load(path)
    le = arr.astype(arr.dtype.newbyteorder("<")) if arr.dtype.itemsize > 1 else arr
    data = np.ascontiguousarray(le).tobytes()
    dims = ",".join(str(d) for d in arr.shape)
    conf.append(f"{os.path.relpath(path, base)}\t{xla_type(arr.dtype)}\t{dims}\t{fnv1a64(data):016x}")
with open(os.path.join(HERE, "conformance_npy_manifest.txt"), "w") as fh:
    fh.write("\n".join(conf) + "\n")
print(f"{len(manifest)} fixtures, {len(conf)} conformance files")
