#!/usr/bin/env bash
# The fixed cost of one replicated run on threads: `xla bench` of an all-reduce of f32[4]
# on R = 2, 4, 8 replicas (so the run is almost all overhead), median wall time of N runs,
# and the CPU time per run (user + system of a bench with N + 1000 runs minus one with N,
# over 1000: start-up and compile cancel out).
# Prints `replicas median_wall_us cpu_us_per_run`, one line per replica count.
# Usage: scripts/replicated_fixed_cost.sh [XLA_BINARY] [N]
set -euo pipefail
xla=${1:-target/release/xla}
n=${2:-200}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cpu() { /usr/bin/time -f "%U %S" "$xla" bench "$dir/m.hlo" "$dir/x.npy" --iters "$1" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2}'; }
for r in 2 4 8; do
  cat > "$dir/m.hlo" <<HLO
HloModule tiny, replica_count=$r
add { a = f32[] parameter(0)
 b = f32[] parameter(1)
 ROOT c = f32[] add(a, b) }
ENTRY e { x = f32[4] parameter(0)
 ROOT s = f32[4] all-reduce(x), replica_groups={}, to_apply=add }
HLO
  python3 -c "import numpy as np; np.save('$dir/x.npy', np.ones(($r, 4), np.float32))"
  wall=$("$xla" bench "$dir/m.hlo" "$dir/x.npy" --iters "$n" | sed -n 's/median_s=//p')
  short=$(cpu "$n")
  long=$(cpu $((n + 1000)))
  awk -v r="$r" -v w="$wall" -v a="$short" -v b="$long" \
    'BEGIN { printf "%d %.1f %.1f\n", r, w * 1e6, (b - a) * 1e6 / 1000 }'
done
