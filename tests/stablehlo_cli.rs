//! `xla grad` and `xla vmap` on a `.mlir` file (issue 15, item 4): a loss JAX lowered to
//! StableHLO (`as_text()`, testdata/stablehlo_cli_grad_vmap_loss, made by
//! scripts/make_mlir_grad_vmap_fixture.py) is differentiated and batched by the command
//! line; the printed modules run with `xla run` and give what real XLA computed for
//! `jax.grad(loss, argnums=(0, 1))` and `jax.vmap(loss, in_axes=(None, None, 0, 0))`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn xla(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xla"))
        .args(args)
        .output()
        .unwrap()
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/stablehlo_cli_grad_vmap_loss")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}

/// A scratch directory for this test, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("xla-mlir-cli-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
    fn file(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `xla CMD module.mlir ARGS...`, writes the printed module to the scratch dir, runs
/// it on `inputs` and returns the flattened f32 outputs.
fn print_then_run(cmd: &[&str], inputs: &[String], tmp: &Scratch, outs: usize) -> Vec<Vec<f32>> {
    let module = fixture("module.mlir");
    let mut args = vec![cmd[0], module.as_str()];
    args.extend(&cmd[1..]);
    let printed = xla(&args);
    assert_eq!(
        printed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&printed.stderr)
    );
    let path = tmp.file("printed.hlo");
    std::fs::write(&path, &printed.stdout).unwrap();
    let out = tmp.file("out");
    let mut run = vec!["run", path.as_str()];
    run.extend(inputs.iter().map(String::as_str));
    run.extend(["--out", out.as_str()]);
    let o = xla(&run);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    (0..outs)
        .map(|i| {
            let lit = xla::Literal::read_npy(Path::new(&out).join(format!("out{i}.npy"))).unwrap();
            lit.to_vec::<f32>().unwrap()
        })
        .collect()
}

fn assert_close(got: &[f32], want_file: &str) {
    let want = xla::Literal::read_npy(fixture(want_file)).unwrap();
    let want = want.to_vec::<f32>().unwrap();
    assert_eq!(got.len(), want.len(), "{want_file}");
    for (g, w) in got.iter().zip(&want) {
        assert!(
            (g - w).abs() <= 1e-5 + 1e-5 * w.abs(),
            "{want_file}: {g} vs {w}"
        );
    }
}

#[test]
fn grad_of_a_mlir_file_matches_jax_grad() {
    let tmp = Scratch::new("grad");
    let ins: Vec<String> = (0..4).map(|i| fixture(&format!("in{i}.npy"))).collect();
    let outs = print_then_run(&["grad", "--wrt", "0,1"], &ins, &tmp, 2);
    assert_close(&outs[0], "grad_out0.npy");
    assert_close(&outs[1], "grad_out1.npy");
}

#[test]
fn vmap_of_a_mlir_file_matches_jax_vmap() {
    let tmp = Scratch::new("vmap");
    let ins = vec![
        fixture("in0.npy"),
        fixture("in1.npy"),
        fixture("vmap_in2.npy"),
        fixture("vmap_in3.npy"),
    ];
    let cmd = ["vmap", "--in-axes", "none,none,0,0", "--size", "3"];
    let outs = print_then_run(&cmd, &ins, &tmp, 1);
    assert_close(&outs[0], "vmap_out0.npy");
}

#[test]
fn grad_and_vmap_of_a_bad_mlir_file_exit_2_naming_the_place() {
    let tmp = Scratch::new("bad");
    let bad = tmp.file("bad.mlir");
    std::fs::write(
        &bad,
        "func.func public @main(%a: tensor<2xf32>) -> tensor<f32> {\n  %0 = stablehlo.frobnicate %a : tensor<2xf32>\n  return %0 : tensor<f32>\n}\n",
    )
    .unwrap();
    for args in [
        vec!["grad", bad.as_str()],
        vec!["vmap", bad.as_str(), "--in-axes", "0", "--size", "2"],
    ] {
        let o = xla(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(o.stdout.is_empty(), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(err.contains("bad.mlir:2:"), "{err}");
        assert!(err.contains("frobnicate"), "{err}");
    }
}
