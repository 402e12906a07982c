#!/usr/bin/env python3
"""Writes the "N unbatched calls" baselines of the vmap cost measurement (README, Batching).

    python3 scripts/make_vmap_loop_baselines.py

From testdata/perf/B2_mlp_step.hlo (one MLP training step: parameters 0-5 the weights,
6-7 the batch), two modules that run the step 4 times in one run, each call on its own data,
which is what "running the unbatched module N times" means for the two vmap cases:

- testdata/vmap_speed/B2_ensemble_loop4.hlo: 4 weight sets (parameters 6k..6k+5 for call k),
  one shared batch (parameters 24, 25); the counterpart of vmap over parameters 0-5.
- testdata/vmap_speed/B2_minibatch_loop4.hlo: shared weights (0-5), 4 batches (6+2k, 7+2k);
  the counterpart of vmap over parameters 6, 7.

The result is a tuple of the 4 calls' results; each equals the batched module's lane k.
"""
import os
import re

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SRC = os.path.join(ROOT, "testdata", "perf", "B2_mlp_step.hlo")
OUT = os.path.join(ROOT, "testdata", "vmap_speed")


def split(text):
    """(the module's computations with ENTRY made an ordinary computation, its name,
    parameter shapes by number, result type)."""
    body = text.split("\n", 1)[1]
    m = re.search(r"ENTRY (\S+) \{", body)
    name = m.group(1)
    entry = body[m.start():]
    shapes = {int(i): s for _, s, i in re.findall(r"(\S+) = (\S+) parameter\((\d+)\)", entry)}
    root = re.search(r"ROOT \S+ = (\(.*?\)) tuple", entry).group(1)
    return body.replace(f"ENTRY {name} {{", f"{name} {{"), name, shapes, root


def module(title, comps, step, root, params, calls):
    lines = [f"ENTRY {title} {{"]
    lines += [f"  {n} = {s} parameter({i})" for i, (n, s) in enumerate(params)]
    lines += [f"  c{k} = {root} call({', '.join(a)}), to_apply={step}" for k, a in enumerate(calls)]
    lines.append(f"  ROOT r = ({', '.join([root] * len(calls))}) tuple({', '.join(f'c{k}' for k in range(len(calls)))})")
    return f"HloModule {title}\n{comps}\n" + "\n".join(lines) + "\n}\n"


def main():
    comps, step, shapes, root = split(open(SRC).read())
    ens = [(f"w{k}_{i}", shapes[i]) for k in range(4) for i in range(6)] + [("d6", shapes[6]), ("d7", shapes[7])]
    ens_calls = [[f"w{k}_{i}" for i in range(6)] + ["d6", "d7"] for k in range(4)]
    mb = [(f"w{i}", shapes[i]) for i in range(6)] + [(f"d{k}_{i}", shapes[i]) for k in range(4) for i in (6, 7)]
    mb_calls = [[f"w{i}" for i in range(6)] + [f"d{k}_6", f"d{k}_7"] for k in range(4)]
    os.makedirs(OUT, exist_ok=True)
    for fname, title, params, calls in [("B2_ensemble_loop4.hlo", "ensemble_loop4", ens, ens_calls),
                                        ("B2_minibatch_loop4.hlo", "minibatch_loop4", mb, mb_calls)]:
        with open(os.path.join(OUT, fname), "w") as fh:
            fh.write(module(title, comps, step, root, params, calls))
        print(fname)


if __name__ == "__main__":
    main()
