#!/usr/bin/env python3
"""Every conformance module batched: `xla vmap` with in_axes all 0 over 3 perturbed copies
of the case's inputs, run with `xla run`, each lane compared with `xla run` of the
unbatched module on that copy (the case's rtol/atol). Nothing is copied into the repo:
the case directory is an argument.

    python3 scripts/vmap_public.py CASES_DIR [--xla target/release/xla] [--filter RE]

Prints `FAIL name: reason` per failing case and `N passed, M failed` last. Copies: lane 0
is the inputs as they are; lane k adds 0.05·k·N(0,1) noise to floats, k to integers
(wrapping) and negates predicates in lane 2, so loops and branches may differ per lane.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

LANES = 3


def numbered(folder, prefix):
    found = {}
    for f in os.listdir(folder):
        m = re.fullmatch(re.escape(prefix) + r"(\d+)\.npy", f)
        if m:
            found[int(m.group(1))] = os.path.join(folder, f)
    return [found[k] for k in sorted(found)]


def perturb(x, k, rng):
    if k == 0:
        return x
    if x.dtype.kind == "f":
        noise = rng.standard_normal(x.shape) * 0.05 * k
        return (x.astype(np.float64) + noise).astype(x.dtype)
    if x.dtype.kind == "c":
        noise = rng.standard_normal(x.shape) * 0.05 * k
        return (x + noise).astype(x.dtype)
    if x.dtype.kind in "iu":
        return (x.astype(np.int64) + k).astype(x.dtype)
    if x.dtype.kind == "b":
        return np.logical_not(x) if k == 2 else x
    return x


def close(a, e, rtol, atol):
    with np.errstate(all="ignore"):
        return close_inner(a, e, rtol, atol)


def close_inner(a, e, rtol, atol):
    if a.dtype != e.dtype or a.shape != e.shape:
        return f"{a.dtype}{list(a.shape)} vs {e.dtype}{list(e.shape)}"
    if e.dtype.kind in "fc":
        a64, e64 = a.astype(np.complex128), e.astype(np.complex128)
        for part in (np.real, np.imag):
            x, y = part(a64), part(e64)
            if np.any(np.isnan(x) != np.isnan(y)):
                return "NaN mismatch"
            ok = np.isnan(y) | (x == y) | (np.abs(x - y) <= atol + rtol * np.abs(y))
            if not np.all(ok):
                return f"max diff {np.nanmax(np.abs(x - y))}"
        return None
    return None if np.array_equal(a, e) else "values differ"


def run(xla, module, inputs, tmp, tag):
    paths = []
    for i, x in enumerate(inputs):
        p = os.path.join(tmp, f"{tag}_in{i}.npy")
        np.save(p, x)
        paths.append(p)
    out = os.path.join(tmp, f"{tag}_out")
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        os.remove(os.path.join(out, f))
    r = subprocess.run([xla, "run", module, *paths, "--out", out], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"xla run: {r.stderr.strip()[:200]}")
    return [np.load(p) for p in numbered(out, "out")]


def case(xla, d, tmp):
    meta = json.load(open(os.path.join(d, "meta.json")))
    rtol, atol = meta.get("rtol", 1e-5), meta.get("atol", 1e-5)
    inputs = [np.load(p) for p in numbered(d, "in")]
    rng = np.random.default_rng(14)
    copies = [[perturb(x, k, rng) for x in inputs] for k in range(LANES)]
    module = os.path.join(d, "module.hlo")
    try:
        refs = [run(xla, module, c, tmp, f"lane{k}") for k, c in enumerate(copies)]
    except RuntimeError as e:
        return f"unbatched run failed on a perturbed copy ({e})", True
    axes = ",".join("0" for _ in inputs)
    cmd = [xla, "vmap", module, "--size", str(LANES)] + (["--in-axes", axes] if inputs else [])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return f"xla vmap: {r.stderr.strip()[:300]}", False
    batched = os.path.join(tmp, "batched.hlo")
    open(batched, "w").write(r.stdout)
    stacked = [np.stack([c[i] for c in copies]) for i in range(len(inputs))]
    try:
        outs = run(xla, batched, stacked, tmp, "batched")
    except RuntimeError as e:
        return str(e), False
    if len(outs) != len(refs[0]):
        return f"{len(outs)} outputs, expected {len(refs[0])}", False
    for j, o in enumerate(outs):
        for k in range(LANES):
            err = close(o[k], refs[k][j], rtol, atol)
            if err:
                return f"out{j} lane {k}: {err}", False
    return None, False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases")
    ap.add_argument("--xla", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "xla"))
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    dirs = sorted(d for d in os.listdir(a.cases) if re.search(a.filter, d)
                  and os.path.exists(os.path.join(a.cases, d, "module.hlo")))
    passed = failed = skipped = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in dirs:
            err, skip = case(a.xla, os.path.join(a.cases, name), tmp)
            if skip:
                skipped += 1
                print(f"SKIP {name}: {err}")
            elif err:
                failed += 1
                print(f"FAIL {name}: {err}")
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
