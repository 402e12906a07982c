//! `xla vmap`: prints a batched module that parses, runs with the batched shapes, and
//! reports bad axes with exit status 2.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Output};

fn xla(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xla"))
        .args(args)
        .output()
        .unwrap()
}

/// `xla ARGS` must succeed; the module it prints, parsed.
fn batched(args: &[&str]) -> xla::core::Module {
    let out = xla(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    xla::core::text::parse_module(&String::from_utf8(out.stdout).unwrap()).unwrap()
}

/// `xla vmap MODULE ARGS` exits with status 2 and says `says`.
fn exits_2_saying(module: &str, args: Vec<&str>, says: &str) {
    let mut all = vec!["vmap", module];
    all.extend(args);
    let out = xla(&all);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{all:?}: {err}");
    assert!(err.contains(says), "{all:?}: {err}");
}

fn case(name: &str) -> String {
    format!(
        "{}/testdata/vmap/{name}/module.hlo",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn prints_a_batched_module() {
    let m = batched(&[
        "vmap",
        &case("dot_lhs_batched"),
        "--in-axes",
        "1,none",
        "--size",
        "3",
    ]);
    let e = m.entry_computation().unwrap();
    let dims: Vec<Vec<i64>> = e
        .parameter_shapes()
        .iter()
        .map(|s| s.dims().to_vec())
        .collect();
    assert_eq!(dims, vec![vec![4, 3], vec![4, 2]]);
    assert_eq!(e.result_shape().unwrap().dims(), &[3, 2]);
}

#[test]
fn out_axes_and_none() {
    let m = batched(&[
        "vmap",
        &case("out_axis_1"),
        "--in-axes",
        "0,none",
        "--out-axes",
        "1,0",
        "--size",
        "4",
    ]);
    let r = m
        .entry_computation()
        .unwrap()
        .result_shape()
        .unwrap()
        .clone();
    assert_eq!(r.to_string(), "(f32[3,4], f32[4])");
}

#[test]
fn bad_input_exits_with_status_2() {
    let m = case("dot_lhs_batched");
    for (args, says) in [
        (
            vec!["--in-axes", "2,none", "--size", "3"],
            "in_axes[0] = 2 is out of range",
        ),
        (
            vec!["--in-axes", "0", "--size", "3"],
            "in_axes has 1 entries",
        ),
        (
            vec!["--in-axes", "0,x", "--size", "3"],
            "`x` is neither a dimension number nor `none`",
        ),
        (vec!["--in-axes", "0,none"], "--size N is needed"),
        (vec!["--in-axes", "0,none", "--size", "0"], "batch size 0"),
    ] {
        exits_2_saying(&m, args, says);
    }
}

#[test]
fn a_custom_call_and_bad_out_axes_exit_with_status_2() {
    let dir = std::env::temp_dir().join(format!("xla_vmap_cli_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cc = dir.join("custom_call.hlo");
    std::fs::write(
        &cc,
        "HloModule cc, entry_computation_layout={(f32[3]{0})->f32[3]{0}}\n\n\
         ENTRY main {\n  x = f32[3]{0} parameter(0)\n  \
         ROOT c = f32[3]{0} custom-call(x), custom_call_target=\"my_kernel\"\n}\n",
    )
    .unwrap();
    let cc = cc.to_str().unwrap().to_string();
    let dot = case("dot_lhs_batched");
    for (args, says) in [
        (
            vec!["vmap", cc.as_str(), "--in-axes", "0", "--size", "2"],
            "no batching rule for `c` (custom-call) target \"my_kernel\"",
        ),
        (
            vec![
                "vmap",
                dot.as_str(),
                "--in-axes",
                "0,none",
                "--out-axes",
                "5",
                "--size",
                "3",
            ],
            "out axis 5 is out of range for result 0 of shape f32[2] (batched rank 2)",
        ),
        (
            vec![
                "vmap",
                dot.as_str(),
                "--in-axes",
                "0,none",
                "--out-axes",
                "0,0",
                "--size",
                "3",
            ],
            "out_axes has 2 entries but the result has 1",
        ),
    ] {
        let out = xla(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?} printed a module");
    }
    // unbatched, the custom-call is copied as it is and the result broadcast
    let out = xla(&["vmap", cc.as_str(), "--in-axes", "none", "--size", "2"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("custom_call_target=\"my_kernel\""), "{text}");
    let m = xla::core::text::parse_module(&text).unwrap();
    let e = m.entry_computation().unwrap();
    assert_eq!(e.result_shape().unwrap().dims(), &[2, 3]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// With the batched inputs given, the batch size is read from their batch axes (no
/// `--size`); inputs that disagree on it, or do not fit their parameter, exit with status 2
/// naming them.
#[test]
fn the_size_comes_from_the_batched_inputs() {
    let dir = format!(
        "{}/testdata/vmap/dot_lhs_batched",
        env!("CARGO_MANIFEST_DIR")
    );
    let (x, w) = (format!("{dir}/in0.npy"), format!("{dir}/in1.npy"));
    let m = case("dot_lhs_batched");
    // x: f32[4,3] with the batch (3) on axis 1, w: f32[4,2] shared.
    let e = batched(&["vmap", &m, &x, &w, "--in-axes", "1,none"]);
    assert_eq!(
        e.entry_computation()
            .unwrap()
            .result_shape()
            .unwrap()
            .dims(),
        &[3, 2]
    );
    for (args, says) in [
        // w batched on axis 1 too: sizes 3 and 2 differ.
        (vec![x.as_str(), w.as_str(), "--in-axes", "1,1"], "batch sizes differ: parameter 0 has size 3 on its batch axis but parameter 1 has size 2"),
        // x given for the shared w: f32[4,3] is not w's f32[4,2].
        (vec![x.as_str(), x.as_str(), "--in-axes", "1,none"], "input 1 is f32[4,3] but the batched parameter 1 is f32[4,2]"),
        (vec![x.as_str(), w.as_str(), "--in-axes", "1,none", "--size", "5"], "size 5 was given but parameter 0 has batch size 3"),
    ] {
        exits_2_saying(&m, args, says);
    }
}
