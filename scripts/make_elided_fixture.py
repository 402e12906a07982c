#!/usr/bin/env python3
"""Expected outputs of testdata/hlo_elided/module.hlo from real XLA: HLO text whose
constants are elided as `constant({...})`, as XLA's dumps print large constants. XLA's parser
fills them with placeholder values (counting 32-bit words across the process), so this runs
in a fresh process and parses the module exactly once.

    python3 scripts/make_elided_fixture.py /work/shared/conformance testdata/hlo_elided
"""
import os
import sys

import numpy as np


def main(conformance_dir, case_dir):
    sys.path.insert(0, conformance_dir)
    import hlo_exec  # noqa: E402  (real XLA through jaxlib)

    text = open(os.path.join(case_dir, "module.hlo")).read()
    x = (np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5)
    np.save(os.path.join(case_dir, "in0.npy"), x)
    outs = hlo_exec.run_hlo_text(text, [x])
    for i, o in enumerate(outs):
        np.save(os.path.join(case_dir, f"out{i}.npy"), np.asarray(o))
        print(i, np.asarray(o).dtype, np.asarray(o).view(np.uint8).tobytes().hex(" ")[:80])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
