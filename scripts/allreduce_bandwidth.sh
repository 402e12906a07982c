#!/usr/bin/env bash
# Our all-reduce on 2 thread devices (`xla bench`, median of 10; includes splitting the
# stacked input and stacking the output) for 1 KB .. 64 MB per device, next to Open MPI's
# MPI_Allreduce on 2 ranks (benches/mpi_allreduce_probe.c). Prints `bytes ours_s mpi_s`.
# Usage: scripts/allreduce_bandwidth.sh [XLA_BINARY]
set -euo pipefail
xla=${1:-target/release/xla}
dir=$(mktemp -d)
mpicc -O2 benches/mpi_allreduce_probe.c -o "$dir/probe"
mpirun --allow-run-as-root --oversubscribe -np 2 "$dir/probe" > "$dir/mpi.txt"
while read -r bytes mpi_s; do
  n=$((bytes / 4))
  cat > "$dir/m.hlo" <<HLO
HloModule ar, replica_count=2
add { a = f32[] parameter(0)
 b = f32[] parameter(1)
 ROOT c = f32[] add(a, b) }
ENTRY e { x = f32[$n] parameter(0)
 ROOT s = f32[$n] all-reduce(x), replica_groups={}, to_apply=add }
HLO
  python3 -c "import numpy as np; np.save('$dir/x.npy', np.ones((2, $n), np.float32))"
  ours=$("$xla" bench "$dir/m.hlo" "$dir/x.npy" --iters 10 | sed -n 's/.*median_s=//p')
  echo "$bytes $ours $mpi_s"
done < "$dir/mpi.txt"
rm -rf "$dir"
