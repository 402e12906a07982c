//! From JAX to Rust: run a program JAX lowered to StableHLO (`jax.jit(f).lower(...).as_text()`)
//! with no Python. The module is one optimiser step (an MLP with Adam written in jnp) that
//! `scripts/make_stablehlo_fixtures.py` wrote, with its inputs and the outputs JAX computed.
//!
//! ```sh
//! cargo run --release --example from_jax
//! ```

use std::path::Path;
use xla::core::mlir::parse_stablehlo;
use xla::cpu::Executable;
use xla::Literal;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/stablehlo_jax/mlp_adam");
    let text = std::fs::read_to_string(dir.join("module.mlir"))?;
    let module = parse_stablehlo(&text)?; // StableHLO with JAX's sdy/mhlo attributes, chlo ops
    let exe = Executable::compile(&module)?;
    let inputs: Vec<Literal> = (0..)
        .map(|i| dir.join(format!("in{i}.npy")))
        .take_while(|p| p.exists())
        .map(Literal::read_npy)
        .collect::<Result<_, _>>()?;
    let out = exe.execute(&inputs)?;
    let outs = out.decompose_tuple()?;
    let loss = outs.first().ok_or("no outputs")?.to_scalar::<f32>()?;
    let jax_loss = Literal::read_npy(dir.join("out0.npy"))?.to_scalar::<f32>()?;
    println!(
        "loss: ours {loss}, JAX {jax_loss}; {} outputs (loss, params, m, v, t)",
        outs.len()
    );
    Ok(())
}
