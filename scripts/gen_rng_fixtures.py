#!/usr/bin/env python3
"""`rng-bit-generator` fixtures from real XLA, for `xla-cpu/tests/rng_xla.rs` (which needs no
Python: it reads what this writes).

    python3 scripts/gen_rng_fixtures.py [testdata/rng]    # needs jax==0.10.2

Every case is a hand-written HLO module

    ENTRY main {
      s = u64[K] parameter(0)
      ROOT r = (u64[K], TY[DIMS]) rng-bit-generator(s), algorithm=ALG
    }

run on XLA:CPU through XLA's own HLO text parser and PjRt (the `run_hlo_text` helper of
`scripts/gen_grad_models.py`). Per case DIR/<case>/: `module.hlo`, `in0.npy` (the u64[K]
state), `out0.npy` (the new state XLA returns) and `out1.npy` (the bits XLA returns).

What the cases cover:

- `layout_*`: ThreeFry and Philox x u32/u64/u8/u16 x shapes `[]`, `[1]`, `[3]`, `[7]`,
  `[1000]`, `[2,3,5]`, `[3,5,7]` (no even dimension), `[4,3]` and `[3,4]` (even dimension
  first / last), `[0]`, each with its own random state.
- `state_*`: the all-zeros state, counters near 2^64 (the per-element counters wrap inside the
  array), key and counter all ones; Philox with the 3-word `u64[3]` state, including a low
  counter word that carries into the high word and a 128-bit counter that wraps.
- `default_*`: `rng_default` with 2- and 3-word states (XLA:CPU expands it as Philox).
- `float_*`: f16/f32/f64 results: raw generator bits reinterpreted as floats (f16 keeps the
  low 16 bits of each 32-bit word, like u16), compared bit for bit.
- `signed_*`: s8/s16/s32/s64 results. XLA:CPU hands these back with the *unsigned* dtype of
  the same width (same bits); the fixture stores them viewed as the declared signed type.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
from gen_grad_models import run_hlo_text  # noqa: E402  (also pins jax==0.10.2)

U64_MAX = (1 << 64) - 1
ALGS = {"three_fry": "rng_three_fry", "philox": "rng_philox", "default": "rng_default"}
NP_TYPES = {
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
}


def module_text(alg, k, ty, dims):
    d = ",".join(str(x) for x in dims)
    return (
        "HloModule rng_bit_generator\n\n"
        "ENTRY main {\n"
        f"  s = u64[{k}] parameter(0)\n"
        f"  ROOT r = (u64[{k}], {ty}[{d}]) rng-bit-generator(s), algorithm={ALGS[alg]}\n"
        "}\n"
    )


def save(out_dir, name, alg, ty, dims, state):
    state = np.array(state, dtype=np.uint64)
    text = module_text(alg, len(state), ty, dims)
    new_state, bits = run_hlo_text(text, [state])
    want = NP_TYPES[ty]
    if new_state.dtype != np.uint64 or new_state.shape != state.shape:
        sys.exit(f"{name}: XLA returned state {new_state.dtype}{new_state.shape}")
    if bits.shape != tuple(dims) or bits.dtype.itemsize != np.dtype(want).itemsize:
        sys.exit(f"{name}: XLA returned bits {bits.dtype}{bits.shape}")
    bits = bits.view(want)  # signed results come back with the unsigned dtype (same bits)
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "module.hlo"), "w") as f:
        f.write(text)
    np.save(os.path.join(d, "in0.npy"), state)
    np.save(os.path.join(d, "out0.npy"), new_state)
    np.save(os.path.join(d, "out1.npy"), bits)
    return 1


def rand_state(rng, k):
    return [int(x) for x in rng.integers(0, U64_MAX, size=k, dtype=np.uint64, endpoint=True)]


def layout_cases(out_dir, rng):
    shapes = [[], [1], [3], [7], [1000], [2, 3, 5], [3, 5, 7], [4, 3], [3, 4], [0]]
    n = 0
    for alg in ["three_fry", "philox"]:
        for ty in ["u32", "u64", "u8", "u16"]:
            for dims in shapes:
                name = f"layout_{alg}_{ty}_{'x'.join(map(str, dims)) or 'scalar'}"
                n += save(out_dir, name, alg, ty, dims, rand_state(rng, 2))
    return n


def state_cases(out_dir, rng):
    k = int(rng.integers(1, U64_MAX, dtype=np.uint64))
    two = {
        "zeros": [0, 0],
        "wrap": [k, U64_MAX - 2],
        "ones": [U64_MAX, U64_MAX],
        "key_only": [k, 0],
    }
    three = {
        "zeros3": [0, 0, 0],
        "carry3": [k, U64_MAX - 2, 7],
        "wrap3": [k, U64_MAX - 1, U64_MAX],
        "random3": rand_state(rng, 3),
    }
    n = 0
    for alg in ["three_fry", "philox"]:
        for sname, st in two.items():
            for ty, dims in [("u32", [7]), ("u64", [3]), ("u32", [2, 3, 5])]:
                dn = "x".join(map(str, dims))
                n += save(out_dir, f"state_{alg}_{sname}_{ty}_{dn}", alg, ty, dims, st)
    for sname, st in three.items():
        for ty, dims in [("u32", [7]), ("u64", [5]), ("u8", [3]), ("u32", [9])]:
            dn = "x".join(map(str, dims))
            n += save(out_dir, f"state_philox_{sname}_{ty}_{dn}", "philox", ty, dims, st)
    return n


def default_and_signed_cases(out_dir, rng):
    n = 0
    for ty, dims, k in [("u32", [7], 2), ("u64", [2, 3, 5], 2), ("u16", [5], 2),
                        ("u32", [7], 3), ("u64", [3], 3), ("u8", [3, 5, 7], 3)]:
        dn = "x".join(map(str, dims))
        n += save(out_dir, f"default_{ty}_{dn}_k{k}", "default", ty, dims, rand_state(rng, k))
    for alg in ["three_fry", "philox"]:
        for ty, dims in [("s8", [7]), ("s16", [2, 3, 5]), ("s32", [3, 5, 7]), ("s64", [7])]:
            dn = "x".join(map(str, dims))
            n += save(out_dir, f"signed_{alg}_{ty}_{dn}", alg, ty, dims, rand_state(rng, 2))
    return n


def float_cases(out_dir, rng):
    n = 0
    for alg in ["three_fry", "philox"]:
        for ty, dims in [("f16", [7]), ("f32", [2, 3, 5]), ("f64", [3, 5, 7])]:
            dn = "x".join(map(str, dims))
            n += save(out_dir, f"float_{alg}_{ty}_{dn}", alg, ty, dims, rand_state(rng, 2))
    return n


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "rng")
    rng = np.random.default_rng(20261122)
    n = layout_cases(out_dir, rng)
    n += state_cases(out_dir, rng)
    n += default_and_signed_cases(out_dir, rng)
    n += float_cases(out_dir, rng)
    print(f"{n} cases written to {out_dir}")


if __name__ == "__main__":
    main()
