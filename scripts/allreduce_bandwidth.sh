#!/usr/bin/env bash
# Our all-reduce (sum of f32) for 1 KB .. 64 MB per device, `xla bench` median of ITERS
# (default 10; which
# includes splitting the stacked input and stacking the output): on 2 thread devices, and
# when XLA is built with `--features mpi` on 2 MPI ranks (MPI_Allreduce, and with
# XLA_MPI_ALLREDUCE=gather the MPI_Allgatherv + fold path), next to Open MPI's own
# MPI_Allreduce on 2 ranks (benches/mpi_allreduce_probe.c).
# Prints `bytes ours_threads_s mpi_probe_s [ours_mpi_s ours_mpi_gather_s]`.
# Usage: scripts/allreduce_bandwidth.sh [XLA_BINARY] [--mpi]
set -euo pipefail
xla=${1:-target/release/xla}
with_mpi=${2:-}
iters=${ITERS:-10}
dir=$(mktemp -d)
mpirun_2=(mpirun --allow-run-as-root --oversubscribe -np 2)
mpicc -O2 benches/mpi_allreduce_probe.c -o "$dir/probe"
"${mpirun_2[@]}" "$dir/probe" > "$dir/mpi.txt"
median() { sed -n 's/.*median_s=//p'; }
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
  ours=$("$xla" bench "$dir/m.hlo" "$dir/x.npy" --iters "$iters" < /dev/null | median)
  if [ "$with_mpi" = --mpi ]; then
    on_mpi=$("${mpirun_2[@]}" "$xla" bench --backend mpi "$dir/m.hlo" "$dir/x.npy" --iters "$iters" < /dev/null | median)
    gather=$("${mpirun_2[@]}" -x XLA_MPI_ALLREDUCE=gather "$xla" bench --backend mpi "$dir/m.hlo" "$dir/x.npy" --iters "$iters" < /dev/null | median)
    echo "$bytes $ours $mpi_s $on_mpi $gather"
  else
    echo "$bytes $ours $mpi_s"
  fi
done < "$dir/mpi.txt"
rm -rf "$dir"
