"""The fixture format of testdata/nn (read by tests/nn_common/mod.rs): one
`name dims... : values...` line per array."""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "testdata", "nn")


def write(name, arrays):
    with open(os.path.join(OUT, name + ".txt"), "w") as f:
        for key, a in arrays:
            a = np.asarray(a, np.float32)
            dims = " ".join(str(d) for d in a.shape)
            vals = " ".join(repr(float(v)) for v in a.reshape(-1))
            f.write(f"{key} {dims} : {vals}\n")
