//! Convolutions whose kernels hold NaN and ±inf, against real XLA:CPU
//! (`scripts/gen_conv_fill_fixtures.py`, `testdata/xla_conv_fill`): where XLA multiplies the
//! zeros of padding by the weights (f16/bf16/f32, 1-3 spatial dims, no lhs dilation, no
//! window reversal: Eigen's convolution) a NaN weight reaches the border outputs; where it
//! skips them (f64, lhs dilation, reversed windows, 4 spatial dims: its loop emitter) it
//! does not. NaN positions must agree exactly, other values within 1e-5, at one and two
//! threads.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod cases;

use cases::{compare, read_numbered, rtol_for};
use std::path::Path;

#[test]
fn nonfinite_kernels_match_xla() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/xla_conv_fill");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 13, "{} cases", dirs.len());
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(dir.join("module.hlo")).unwrap();
        let mut exe =
            xla_cpu::Executable::compile(&xla_core::text::parse_module(&text).unwrap()).unwrap();
        let args = read_numbered(&dir, "in").unwrap();
        let want = &read_numbered(&dir, "out").unwrap()[0];
        for threads in [1, 2] {
            exe.set_threads(threads);
            let got = exe.execute(&args).unwrap();
            let rtol = rtol_for(want.shape().element_type(), 1e-5);
            compare(&got, want, rtol, 1e-5)
                .unwrap_or_else(|e| panic!("{name}, {threads} thread(s): {e}"));
        }
    }
}
