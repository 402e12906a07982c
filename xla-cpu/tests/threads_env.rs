#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

//! `XLA_CPU_THREADS` sets the default thread count of executables compiled afterwards (a
//! test binary of its own: it changes the process environment).

use xla_cpu::{Executable, THREADS_ENV};

#[test]
fn the_environment_variable_sets_the_default() {
    let text = "HloModule m\n\nENTRY main {\n  ROOT p = f32[2] parameter(0)\n}\n";
    let module = xla_core::text::parse_module(text).unwrap();
    for (value, want) in [("3", Some(3)), ("1", Some(1)), ("0", None), ("many", None)] {
        std::env::set_var(THREADS_ENV, value);
        let exe = Executable::compile(&module).unwrap();
        let all = std::thread::available_parallelism().map_or(1, usize::from);
        assert_eq!(exe.threads(), want.unwrap_or(all), "{THREADS_ENV}={value}");
    }
    std::env::remove_var(THREADS_ENV);
}
