#!/usr/bin/env bash
# Writes fuzz/hlo.dict, the libFuzzer dictionary for the HLO text targets (`hlo_parse`,
# `hlo_run`; run with -dict=hlo.dict, see fuzz/README.md): every op name xla-core prints
# (followed by "("), every attribute name its parser reads (followed by "="), the element
# types, and the parser's keywords. Mutations that splice in whole tokens reach far more
# of the parser, verifier and compiler than byte flips of the seeds alone.
# Usage: scripts/fuzz_hlo_dict.sh   (from anywhere; rerun when ops or attributes change)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
core="$root/xla-core/src"
{
    echo '# libFuzzer dictionary for hlo_parse and hlo_run; made by scripts/fuzz_hlo_dict.sh.'
    cat "$core/ir/op.rs" "$core/attrs.rs" | grep -oE '=> "[a-z][a-z0-9-]+"' | cut -d'"' -f2 |
        grep -vxE 'default|high|highest' | sort -u | sed 's/.*/"&("/'
    cat "$core"/text/parse/*.rs | grep -oE '"[a-z_]{3,}"' | cut -d'"' -f2 | sort -u |
        sed 's/.*/"&="/'
    for t in pred s8 s16 s32 s64 u8 u16 u32 u64 f16 bf16 f32 f64 c64 c128 token; do
        echo "\"$t[\""
    done
    for k in HloModule ENTRY ROOT EQ NE LT LE GT GE TOTALORDER FLOAT SIGNED UNSIGNED \
        FFT IFFT RFFT IRFFT DEFAULT HIGH HIGHEST rng_default rng_philox rng_three_fry \
        rng_uniform rng_normal entry_computation_layout replica_count num_partitions \
        true false inf -inf nan '->' '<=' '{1,0}' '{}' '[0:1]' 'size=' 'pad=' 'stride=' \
        'lhs_dilate=' 'rhs_dilate=' 'b01f_01io->b01f' lapack_spotrf_ffi lapack_sgetrf_ffi \
        lapack_dgeqrf_ffi lapack_dorgqr_ffi lapack_ssyevd_ffi lapack_sgesdd_ffi \
        lapack_strsm_ffi; do
        echo "\"$k\""
    done
} >"$root/fuzz/hlo.dict"
