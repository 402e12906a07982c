//! Reading JAX fixture directories (`meta.json`, `in<i>.npy`), shared by the fixture tests.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use xla_core::{Literal, Module};

/// A fixture's `meta.json`: the parameters differentiated and the tolerances.
pub struct Meta {
    pub wrt: Vec<usize>,
    pub rtol: f64,
    pub atol: f64,
}

/// `dir/module.hlo`, parsed.
pub fn read_module(dir: &Path) -> Module {
    let text = std::fs::read_to_string(dir.join("module.hlo")).unwrap();
    xla_core::text::parse_module(&text)
        .unwrap_or_else(|e| panic!("{}: parse module.hlo: {e}", dir.display()))
}

/// `dir/meta.json`.
pub fn read_meta(dir: &Path) -> Meta {
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
    let wrt = meta["wrt"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    Meta {
        wrt,
        rtol: meta["rtol"].as_f64().unwrap(),
        atol: meta["atol"].as_f64().unwrap(),
    }
}

/// `dir/in0.npy`, `dir/in1.npy`, ... while they exist.
pub fn read_inputs(dir: &Path) -> Vec<Literal> {
    (0..)
        .map(|i| dir.join(format!("in{i}.npy")))
        .take_while(|p| p.exists())
        .map(|p| Literal::read_npy(&p).unwrap())
        .collect()
}
