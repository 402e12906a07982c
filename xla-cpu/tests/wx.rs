//! W^X: generated machine code (Cranelift's native loops, the AVX-512 fused kernels) is
//! never writable and executable at once. After compiling and running modules that
//! generate both, `/proc/self/maps` must show new read+execute anonymous mappings (the
//! code) and no mapping that is both writable and executable.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use xla_core::Literal;
use xla_cpu::Executable;

/// The permission field and the rest of each line of `/proc/self/maps`.
fn maps() -> Vec<(String, String)> {
    std::fs::read_to_string("/proc/self/maps")
        .unwrap()
        .lines()
        .map(|l| {
            let mut f = l.split_whitespace();
            let range = f.next().unwrap_or_default().to_string();
            let perms = f.next().unwrap_or_default().to_string();
            (perms, format!("{range} {}", f.nth(3).unwrap_or("[anon]")))
        })
        .collect()
}

fn executable_anon(m: &[(String, String)]) -> Vec<String> {
    m.iter()
        .filter(|(p, rest)| p.starts_with("r-x") && rest.ends_with("[anon]"))
        .map(|(_, rest)| rest.clone())
        .collect()
}

/// A scalar loop (native code) and a fused f32 chain (machine code on AVX-512 CPUs).
const MODULE: &str = r#"HloModule wx

cond {
  s = s32[] parameter(0)
  n = s32[] constant(1000)
  ROOT lt = pred[] compare(s, n), direction=LT
}

body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT j = s32[] add(s, one)
}

ENTRY main {
  x = f32[4096] parameter(0)
  e = f32[4096] exponential(x)
  t = f32[4096] tanh(e)
  m = f32[4096] multiply(t, x)
  zero = s32[] constant(0)
  w = s32[] while(zero), condition=cond, body=body
  ROOT r = (f32[4096], s32[]) tuple(m, w)
}
"#;

#[test]
fn generated_code_is_never_writable_and_executable() {
    let before = executable_anon(&maps());
    let mut exe = Executable::compile(&xla_core::text::parse_module(MODULE).unwrap()).unwrap();
    assert_eq!(exe.native_loop_count(), 1, "the loop must be native code");
    let x = Literal::vec1(&vec![0.5f32; 4096]);
    exe.set_profiling(true);
    let out = exe.execute(&[x]).unwrap();
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx512f") && std::env::var_os("XLA_CPU_NO_JIT").is_none() {
        let ops: Vec<String> = exe.profile().into_iter().map(|e| e.op).collect();
        assert!(
            ops.iter().any(|o| o.contains("code")),
            "no generated fused kernel: {ops:?}"
        );
    }
    assert_eq!(
        out.tuple_elements().unwrap()[1].data::<i32>(),
        Some(&[1000][..])
    );
    let after = maps();
    let writable_and_executable: Vec<_> = after
        .iter()
        .filter(|(p, _)| p.contains('w') && p.contains('x'))
        .collect();
    assert!(
        writable_and_executable.is_empty(),
        "W+X mappings: {writable_and_executable:?}"
    );
    let new: Vec<_> = executable_anon(&after)
        .into_iter()
        .filter(|m| !before.contains(m))
        .collect();
    assert!(
        !new.is_empty(),
        "no new read+execute anonymous mapping: where is the code?"
    );
    drop(exe);
}
