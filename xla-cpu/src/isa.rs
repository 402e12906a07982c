//! Which vector instructions the kernels may use: what the CPU has, capped by
//! `XLA_CPU_ISA` (`avx512`, `avx2` or `baseline`, so one machine can measure every path)
//! and forced to the baseline by `XLA_CPU_NO_SIMD`. A leaf: the fused kernels, the
//! generated code and the plain kernels (`kernels/matvec.rs`) all read it here.

/// 2: AVX-512, 1: AVX2 with FMA, 0: the baseline (decided once per process).
pub(crate) fn level() -> u8 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::OnceLock;
        static LEVEL: OnceLock<u8> = OnceLock::new();
        *LEVEL.get_or_init(|| {
            let cap = cap(std::env::var("XLA_CPU_ISA").ok().as_deref());
            let found = if std::env::var_os("XLA_CPU_NO_SIMD").is_some() {
                0
            } else if is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512bw")
                && is_x86_feature_detected!("avx512dq")
                && is_x86_feature_detected!("avx512vl")
            {
                2
            } else if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
                1
            } else {
                0
            };
            found.min(cap)
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        0
    }
}

/// Bytes of the last-level cache (the largest level `sysfs` lists for CPU 0; 32 MiB
/// where it cannot be read).
pub(crate) fn last_level_cache() -> usize {
    use std::sync::OnceLock;
    static BYTES: OnceLock<usize> = OnceLock::new();
    *BYTES.get_or_init(|| {
        (0..8)
            .filter_map(|i| {
                let p = format!("/sys/devices/system/cpu/cpu0/cache/index{i}/size");
                cache_size(&std::fs::read_to_string(p).ok()?)
            })
            .max()
            .unwrap_or(32 << 20)
    })
}

/// A `sysfs` cache size (`32768K`, `2M`) in bytes.
fn cache_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (num, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => s.split_at(i),
        None => (s, ""),
    };
    let n: usize = num.parse().ok()?;
    let mul = match unit.trim() {
        "" => 1,
        "K" | "KB" | "KiB" => 1 << 10,
        "M" | "MB" | "MiB" => 1 << 20,
        "G" | "GB" | "GiB" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(mul)
}

/// The most `XLA_CPU_ISA` allows (2 when unset or not one of the names).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn cap(v: Option<&str>) -> u8 {
    match v.map(str::trim) {
        Some("baseline") => 0,
        Some("avx2") => 1,
        _ => 2,
    }
}

#[cfg(test)]
#[test]
fn isa_names_cap_the_level() {
    assert_eq!(cap(Some("baseline")), 0);
    assert_eq!(cap(Some("avx2")), 1);
    assert_eq!(cap(Some("avx512")), 2);
    assert_eq!(cap(None), 2);
}

#[cfg(test)]
#[test]
fn cache_sizes_read_as_sysfs_writes_them() {
    assert_eq!(cache_size("32768K\n"), Some(32 << 20));
    assert_eq!(cache_size("2M"), Some(2 << 20));
    assert_eq!(cache_size("512"), Some(512));
    assert_eq!(cache_size("lots"), None);
    assert!(last_level_cache() >= 1 << 16);
}
