#!/usr/bin/env bash
# Data-parallel training across processes follows the threads run: `cnn_digits --steps K`
# on 2 MPI ranks must print the same losses, to the bits, as on 2 threads of one process
# (sums of two floats are commutative, so MPI_Allreduce and the fold in group order agree);
# and both follow the single-device run to a relative 1e-5 (a different summation order in
# the synchronised batch norm).
# Usage: scripts/check_mpi_training.sh CNN_DIGITS_BINARY [K]   (built with --features mpi)
set -euo pipefail
bin=${1:?usage: $0 CNN_DIGITS_BINARY [K]}
steps=${2:-3}
single=$("$bin" --steps "$steps")
threads=$("$bin" --replicas 2 --backend threads --steps "$steps")
mpi=$(mpirun --allow-run-as-root --oversubscribe -np 2 "$bin" --replicas 2 --backend mpi --steps "$steps")
echo "2 threads:"
echo "$threads"
if [ "$(grep -c '^step ' <<<"$threads")" != "$steps" ]; then
  echo "error: expected $steps loss lines on threads" >&2
  exit 1
fi
if [ "$threads" != "$mpi" ]; then
  echo "error: the losses on 2 MPI ranks differ from those on 2 threads:" >&2
  diff <(echo "$threads") <(echo "$mpi") >&2 || true
  exit 1
fi
echo "2 MPI ranks: the same losses, to the bits"
paste -d' ' <(echo "$single") <(echo "$threads") | awk -v n="$steps" '
  { a = $4; b = $10; d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a); if (m < 1) m = 1
    if (d > 1e-5 * m) { print "error: step " $2 ": 2 devices " b " vs 1 device " a > "/dev/stderr"; bad = 1 }
    k++ }
  END { if (k != n) { print "error: expected " n " single-device losses" > "/dev/stderr"; bad = 1 }
        if (!bad) print "1 device: the same losses to a relative 1e-5"; exit bad }'
