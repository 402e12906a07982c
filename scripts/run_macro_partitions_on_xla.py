"""Runs the modules `#[computation(replicas = R, partitions = P)]` prints (tests/
macro_partitions.rs) on real XLA:CPU with R x P devices, as manually partitioned SPMD
programs, and commits XLA's results for the cargo test `printed_modules_run_on_real_xla`.

1. `XLA_RS_WRITE_MODULES=1 cargo test --release --test macro_partitions
   printed_modules_run_on_real_xla` writes each computation's HLO text to
   testdata/macro_partitions/on_xla/NAME/module.hlo (this script runs that command).
2. Each module runs on real XLA (/work/shared/conformance/replica_exec.py, or
   $REPLICA_EXEC_DIR) on the input of the JAX shard_map case it mirrors
   (testdata/macro_partitions/CASE/in0.npy); the script checks that XLA's result is JAX's
   (out0.npy of that case) and writes on_xla/NAME/in0.npy and out*.npy. `gather_pairs_2x4`
   (a tuple result: each leaf marked manual) has no JAX case: device d holds [d], and the
   cargo test `gathers_over_each_kind_of_group` checks the values by hand.
3. The marks are needed: `ids_2x2` without them is run too and real XLA must reject it
   (partition-id "is not supported for SPMD partitioning").

The cargo test then needs no Python: the macro's text must equal the committed module.hlo,
and our run_stacked must give XLA's out0.npy.

Run from the repository root: python3 scripts/run_macro_partitions_on_xla.py (jax 0.10.2).
"""
import os
import shutil
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.environ.get("REPLICA_EXEC_DIR", "/work/shared/conformance"))
import numpy as np  # noqa: E402
import replica_exec  # noqa: E402

CASES = os.path.join(ROOT, "testdata", "macro_partitions")
ON_XLA = os.path.join(CASES, "on_xla")
# The JAX case whose input and result each printed module is run on and checked against.
JAX_CASE = {"psum_rap_2x2": "psum_rp_2x2"}


def write_modules():
    env = dict(os.environ, XLA_RS_WRITE_MODULES="1", CARGO_BUILD_JOBS="2")
    cmd = ["nice", "-n", "19", "cargo", "test", "--release", "--test", "macro_partitions",
           "printed_modules_run_on_real_xla"]
    subprocess.run(cmd, cwd=ROOT, env=env, check=True)


def main():
    if "--no-cargo" not in sys.argv:
        write_modules()
    failed = 0
    for name in sorted(os.listdir(ON_XLA)):
        d = os.path.join(ON_XLA, name)
        with open(os.path.join(d, "module.hlo")) as f:
            text = f.read()
        for old in os.listdir(d):
            if old.startswith("out") and old.endswith(".npy"):
                os.remove(os.path.join(d, old))
        if name == "gather_pairs_2x4":
            x = np.arange(8, dtype=np.float32).reshape(8, 1)
            outs = replica_exec.run(text, [x])
            print(f"{name}: real XLA {[o.shape for o in outs]} (values checked by hand in Rust)")
        else:
            case = os.path.join(CASES, JAX_CASE.get(name, name))
            x = np.load(os.path.join(case, "in0.npy"))
            outs = replica_exec.run(text, [x])
            jax_out = np.load(os.path.join(case, "out0.npy"))
            ok = len(outs) == 1 and outs[0].shape == jax_out.shape and np.allclose(
                outs[0], jax_out, rtol=1e-6, atol=1e-6)
            print(f"{name}: real XLA {outs[0].shape} {'==' if ok else '!='} JAX shard_map")
            failed += not ok
        np.save(os.path.join(d, "in0.npy"), x)
        for k, o in enumerate(outs):
            np.save(os.path.join(d, f"out{k}.npy"), o)
    with open(os.path.join(ON_XLA, "ids_2x2", "module.hlo")) as f:
        bare = f.read().replace(", sharding={manual}", "")
    try:
        replica_exec.run(bare, [np.zeros((4, 8), np.float32)])
        print("ids_2x2 without sharding={manual}: real XLA ran it (the marks would not be needed)")
        failed += 1
    except Exception as e:  # noqa: BLE001 -- XLA's error type is internal
        print(f"ids_2x2 without sharding={{manual}}: rejected ({str(e).splitlines()[0][:120]})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
