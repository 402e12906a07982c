//! The gradient graphs of the MLP and CNN training-step benchmarks stay lean: no more
//! instructions than JAX's own `jax.grad` lowering of the same loss.
//!
//! `testdata/perf/{mlp,cnn}_loss.hlo` and `{mlp,cnn}_jax_grad.hlo` are written by
//! `scripts/grad_counts.py` (JAX 0.10.2) from the models of the B2/B3 benchmarks.

#![allow(clippy::unwrap_used, clippy::panic)]

use xla_autodiff::grad_module;
use xla_core::text::parse_module;
use xla_core::Module;

fn load(name: &str) -> Module {
    let path = format!("{}/../testdata/perf/{name}.hlo", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    parse_module(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn count(m: &Module) -> usize {
    m.computations.iter().map(|c| c.instructions.len()).sum()
}

fn check(model: &str, params: usize) -> (usize, usize) {
    let wrt: Vec<usize> = (0..params).collect();
    let ours = grad_module(&load(&format!("{model}_loss")), Some(&wrt)).unwrap();
    xla_core::verify::verify_module(&ours).unwrap();
    let jax = load(&format!("{model}_jax_grad"));
    let (o, j) = (count(&ours), count(&jax));
    println!("{model}: ours {o} instructions, JAX {j}");
    assert!(
        o <= j,
        "{model}: our gradient graph has {o} instructions, JAX's {j}"
    );
    (o, j)
}

#[test]
fn mlp_gradient_is_no_larger_than_jax() {
    check("mlp", 6);
}

#[test]
fn cnn_gradient_is_no_larger_than_jax() {
    check("cnn", 8);
}
