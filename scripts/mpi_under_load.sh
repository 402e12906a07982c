#!/usr/bin/env bash
# MPI under load: wall time of `cnn_digits --replicas 2 --backend mpi` (the full 15-epoch run,
# or `--steps K`) on 2 ranks, with Open MPI's waiting spinning (OMPI_MCA_mpi_yield_when_idle=0,
# its default here) and yielding (=1), each without and with a background busy loop
# (`nice -n 19`, one per core); 2 threads of one process for reference.
# Usage: scripts/mpi_under_load.sh CNN_DIGITS_BINARY [K|all] [ROUNDS]   (built with --features mpi)
set -euo pipefail
bin=${1:?usage: $0 CNN_DIGITS_BINARY [K] [ROUNDS]}
steps=${2:-all}
if [ "$steps" = all ]; then limit=(); else limit=(--steps "$steps"); fi
rounds=${3:-2}
cores=$(nproc)

secs() { # runs "$@", prints its wall time in seconds
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}

busy_pids=()
start_busy() {
  for _ in $(seq "$cores"); do
    nice -n 19 bash -c 'while :; do :; done' &
    busy_pids+=($!)
  done
}
stop_busy() {
  for p in "${busy_pids[@]}"; do kill "$p"; done
  busy_pids=()
}
trap 'if [ ${#busy_pids[@]} -gt 0 ]; then stop_busy; fi' EXIT

mpi() { # $1: yield_when_idle
  secs env OMPI_MCA_mpi_yield_when_idle="$1" mpirun --allow-run-as-root --oversubscribe \
    -x OMPI_MCA_mpi_yield_when_idle -np 2 "$bin" --replicas 2 --backend mpi "${limit[@]}"
}
threads() {
  secs "$bin" --replicas 2 --backend threads "${limit[@]}"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); steps $steps; rounds $rounds"
for load in none busy; do
  [ "$load" = busy ] && start_busy
  for r in $(seq "$rounds"); do
    echo "$load round $r: mpi spin $(mpi 0) s, mpi yield $(mpi 1) s, threads $(threads) s"
  done
  [ "$load" = busy ] && stop_busy
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
