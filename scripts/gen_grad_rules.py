#!/usr/bin/env python3
"""Single-rule gradient fixtures from JAX, for `xla-autodiff/tests/jax_rules.rs` (which
needs no Python: it reads what this writes).

    python3 scripts/gen_grad_rules.py [testdata/grad_rules]    # needs jax==0.10.2

Each case is one op whose rule finite differences cannot pin down alone (three-way ties
of scatter max/min, where a central difference sees 1/2 but JAX splits 1/3 each), whose
convention must be JAX's (complex triangular solves, cotangents unconjugated), or whose
rule is new (scatter multiply, variadic scatter, max reduce-window with base dilation).
The forward module is HLO text written by hand with the XLA op; the expected values are
`jax.vjp` of the same function written with `lax`, at the same inputs and cotangent.
Every forward module is run on real XLA (jaxlib's HLO text parser + PjRt CPU) and must
reproduce JAX's forward value, which checks the hand-written HLO.

Per case DIR/<case>/: `module.hlo`, `in<i>.npy` (one per parameter), `ct.npy` (the
cotangent of the result), `out.npy` (JAX's forward value), `vjp<k>.npy` (JAX's
cotangent of the k-th entry of `wrt`), `t<k>.npy` (a tangent of the k-th entry of `wrt`),
`jvp.npy` (`jax.jvp` of the function along those tangents), `meta.json` (`wrt`, `rtol`, `atol`, `note`).
"""
import json
import zlib
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import numpy as np  # noqa: E402
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
from jax import lax  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_grad_models import run_hlo_text  # noqa: E402

assert jax.__version__ == "0.10.2", f"needs jax==0.10.2, found {jax.__version__}"

TOL = 1e-10
DROP = lax.GatherScatterMode.FILL_OR_DROP

COMBINERS = """
add { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT r = f64[] add(a, b) }
mul { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT r = f64[] multiply(a, b) }
max { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT r = f64[] maximum(a, b) }
min { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT r = f64[] minimum(b, a) }
addmax {
  a0 = f64[] parameter(0)  a1 = f64[] parameter(1)  b0 = f64[] parameter(2)  b1 = f64[] parameter(3)
  s = f64[] add(a0, b0)  m = f64[] maximum(a1, b1)
  ROOT t = (f64[], f64[]) tuple(s, m)
}
"""


def module(body):
    return f"HloModule m\n{COMBINERS}\nENTRY main {{\n{body}\n}}\n"


def rows_dnums():
    """Scatter of rows: `s32[k,1]` row indices into a rank-1 or rank-2 operand."""
    return lax.ScatterDimensionNumbers(
        update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )


def write_case(root, name, body, fn, inputs, wrt, note):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    text = module(body)
    inputs = [np.asarray(a) for a in inputs]
    out, pullback = jax.vjp(lambda *w: fn(*merge(inputs, wrt, w)), *[inputs[i] for i in wrt])
    out = np.asarray(out)
    ct = rng.uniform(-1, 1, out.shape)
    if np.iscomplexobj(out):
        ct = ct + 1j * rng.uniform(-1, 1, out.shape)
    ct = ct.astype(out.dtype)
    cts = pullback(ct)
    ts = []
    for i in wrt:
        t = rng.uniform(-1, 1, inputs[i].shape)
        if np.iscomplexobj(inputs[i]):
            t = t + 1j * rng.uniform(-1, 1, inputs[i].shape)
        ts.append(t.astype(inputs[i].dtype))
    _, jv = jax.jvp(lambda *w: fn(*merge(inputs, wrt, w)), [inputs[i] for i in wrt], ts)
    xla_out = run_hlo_text(text, inputs)[0]
    assert np.allclose(xla_out, out, rtol=1e-12, atol=1e-12), (name, xla_out, out)
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "module.hlo"), "w") as f:
        f.write(text)
    for i, a in enumerate(inputs):
        np.save(os.path.join(d, f"in{i}.npy"), a)
    np.save(os.path.join(d, "ct.npy"), ct)
    np.save(os.path.join(d, "out.npy"), out)
    for k, c in enumerate(cts):
        np.save(os.path.join(d, f"vjp{k}.npy"), np.asarray(c))
    for k, t in enumerate(ts):
        np.save(os.path.join(d, f"t{k}.npy"), t)
    np.save(os.path.join(d, "jvp.npy"), np.asarray(jv))
    meta = {"wrt": wrt, "rtol": TOL, "atol": TOL, "note": note}
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(name, [np.asarray(c).round(4).tolist() for c in cts])


def merge(inputs, wrt, w):
    args = list(inputs)
    for i, v in zip(wrt, w):
        args[i] = v
    return args


def scatter_cases(root):
    x = np.array([0.5, 0.2, -0.3, 0.9])
    idx = np.array([[0], [0], [2], [1], [3], [4]], np.int32)
    u = np.array([0.5, 0.5, 0.4, 0.2, 0.1, 0.9])
    for name, op, sign in [("scatter_max_ties", lax.scatter_max, 1.0), ("scatter_min_ties", lax.scatter_min, -1.0)]:
        comb = "max" if sign > 0 else "min"
        body = (
            "x = f64[4] parameter(0)\ni = s32[6,1] parameter(1)\nu = f64[6] parameter(2)\n"
            f"ROOT s = f64[4] scatter(x, i, u), update_window_dims={{}}, inserted_window_dims={{0}}, "
            f"scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply={comb}"
        )
        fn = lambda x, i, u, op=op: op(x, i, u, rows_dnums(), mode=DROP)  # noqa: E731
        note = "three-way tie (operand and two updates) at 0, two-way at 1, an out-of-bounds update"
        write_case(root, name, body, fn, [sign * x, idx, sign * u], [0, 2], note)

    rng = np.random.default_rng(7)
    win = lax.ScatterDimensionNumbers(
        update_window_dims=(1, 2), inserted_window_dims=(), scatter_dims_to_operand_dims=(0, 1)
    )
    wbody = (
        "x = f64[4,5] parameter(0)\ni = s32[3,2] parameter(1)\nu = f64[3,2,2] parameter(2)\n"
        "ROOT s = f64[4,5] scatter(x, i, u), update_window_dims={1,2}, inserted_window_dims={}, "
        "scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=max"
    )
    widx = np.array([[0, 1], [1, 2], [3, 3]], np.int32)
    wfn = lambda x, i, u: lax.scatter_max(x, i, u, win, mode=DROP)  # noqa: E731
    xs, us = rng.uniform(-1, 1, (4, 5)), rng.uniform(-1, 1, (3, 2, 2))
    us[1, 0, 0] = us[0, 1, 1]  # two overlapping windows tie at (1, 2)
    xs[1, 2] = min(xs[1, 2], us[0, 1, 1] - 0.5)
    write_case(root, "scatter_max_windows", wbody, wfn, [xs, widx, us], [0, 2],
               "2x2 windows, two overlapping (tied at their overlap), one out of bounds")

    mbody = (
        "x = f64[5,3] parameter(0)\ni = s32[3,1] parameter(1)\nu = f64[3,3] parameter(2)\n"
        "ROOT s = f64[5,3] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, "
        "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=mul"
    )
    mdn = lax.ScatterDimensionNumbers(
        update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )
    mfn = lambda x, i, u: lax.scatter_mul(x, i, u, mdn, unique_indices=True, mode=DROP)  # noqa: E731
    write_case(root, "scatter_mul", mbody, mfn,
               [rng.uniform(-1, 1, (5, 3)), np.array([[4], [0], [7]], np.int32), rng.uniform(-1, 1, (3, 3))],
               [0, 2], "unique indices (JAX differentiates scatter-mul only then), one out of bounds")

    vbody = (
        "x = f64[5,3] parameter(0)\ny = f64[5,3] parameter(1)\ni = s32[4,1] parameter(2)\n"
        "u = f64[4,3] parameter(3)\nv = f64[4,3] parameter(4)\n"
        "t = (f64[5,3], f64[5,3]) scatter(x, y, i, u, v), update_window_dims={1}, inserted_window_dims={0}, "
        "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=addmax\n"
        "a = f64[5,3] get-tuple-element(t), index=0\nb = f64[5,3] get-tuple-element(t), index=1\n"
        "ROOT r = f64[5,3] multiply(a, b)"
    )

    def vfn(x, y, i, u, v):
        a = lax.scatter_add(x, i, u, mdn, mode=DROP)
        return a * lax.scatter_max(y, i, v, mdn, mode=DROP)

    vin = [rng.uniform(-1, 1, (5, 3)), rng.uniform(-1, 1, (5, 3)), np.array([[1], [3], [1], [7]], np.int32),
           rng.uniform(-1, 1, (4, 3)), rng.uniform(-1, 1, (4, 3))]
    write_case(root, "scatter_variadic_add_max", vbody, vfn, vin, [0, 1, 3, 4],
               "variadic scatter (add, max) as two scatters in JAX; duplicate and out-of-bounds rows")


def window_cases(root):
    rng = np.random.default_rng(5)
    body = (
        "x = f64[7,6] parameter(0)\nz = f64[] constant(-inf)\n"
        "ROOT r = f64[7,5] reduce-window(x, z), window={size=2x3 stride=2x1 pad=1_0x0_1 lhs_dilate=2x1}, to_apply=max"
    )
    fn = lambda x: lax.reduce_window(  # noqa: E731
        x, -np.inf, lax.max, (2, 3), (2, 1), ((1, 0), (0, 1)), base_dilation=(2, 1))
    write_case(root, "reduce_window_max_base_dilated", body, fn, [rng.uniform(-1, 1, (7, 6))], [0],
               "max reduce-window with base dilation and padding (JAX: select_and_gather_add)")


def trsm_cases(root):
    rng = np.random.default_rng(11)
    cases = [
        ("trsm_c128_left_lower_adjoint", True, True, "ADJOINT", False, [3, 3], [3, 2]),
        ("trsm_c128_right_upper_adjoint_unit", False, False, "ADJOINT", True, [3, 3], [2, 3]),
        ("trsm_c128_batched_left_upper_adjoint", True, False, "ADJOINT", False, [2, 3, 3], [2, 3, 2]),
        ("trsm_c128_left_upper_transpose", True, False, "TRANSPOSE", False, [3, 3], [3, 2]),
        ("trsm_c128_right_lower_no_transpose", False, True, "NO_TRANSPOSE", False, [3, 3], [2, 3]),
    ]
    for name, left, lower, mode, unit, ad, bd in cases:
        a = rng.uniform(-0.5, 0.5, ad) + 1j * rng.uniform(-0.5, 0.5, ad) + 2 * np.eye(ad[-1])
        b = rng.uniform(-1, 1, bd) + 1j * rng.uniform(-1, 1, bd)
        dims = lambda s: ",".join(map(str, s))  # noqa: E731
        body = (
            f"a = c128[{dims(ad)}] parameter(0)\nb = c128[{dims(bd)}] parameter(1)\n"
            f"ROOT x = c128[{dims(bd)}] triangular-solve(a, b), left_side={str(left).lower()}, "
            f"lower={str(lower).lower()}, unit_diagonal={str(unit).lower()}, transpose_a={mode}"
        )
        fn = lambda a, b, left=left, lower=lower, mode=mode, unit=unit: lax.linalg.triangular_solve(  # noqa: E731
            a, b, left_side=left, lower=lower, transpose_a=mode != "NO_TRANSPOSE",
            conjugate_a=mode == "ADJOINT", unit_diagonal=unit)
        write_case(root, name, body, fn, [a, b], [0, 1], f"complex triangular solve, transpose_a={mode}")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "testdata/grad_rules"
    scatter_cases(root)
    window_cases(root)
    trsm_cases(root)


if __name__ == "__main__":
    main()
