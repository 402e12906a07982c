//! Reading the fixtures of testdata/nn (made by scripts/make_*_fixtures.py through
//! scripts/nn_fixture_io.py) and comparing with them.
#![allow(clippy::unwrap_used, dead_code)]

use std::collections::HashMap;
use xla::Literal;

/// The arrays of one fixture file: `name dims... : values...` per line.
pub fn fixture(name: &str) -> HashMap<String, Literal> {
    let path = format!("{}/testdata/nn/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut out = HashMap::new();
    for line in text.lines() {
        let (head, values) = line.split_once(" : ").unwrap();
        let mut head = head.split(' ');
        let key = head.next().unwrap().to_string();
        let dims: Vec<i64> = head
            .filter(|d| !d.is_empty())
            .map(|d| d.parse().unwrap())
            .collect();
        let values: Vec<f32> = values.split(' ').map(|v| v.parse().unwrap()).collect();
        let lit = if dims.is_empty() {
            Literal::scalar(values[0])
        } else {
            Literal::from_vec(&dims, values).unwrap()
        };
        out.insert(key, lit);
    }
    out
}

/// Within `tol` of flax's values, relative to the value's size.
pub fn close(got: &Literal, want: &Literal, tol: f32) {
    assert_eq!(got.shape(), want.shape());
    for (g, w) in got
        .data::<f32>()
        .unwrap()
        .iter()
        .zip(want.data::<f32>().unwrap())
    {
        assert!((g - w).abs() <= tol * (1.0 + w.abs()), "{g} vs {w}");
    }
}

/// A layer's value `y` against the fixture `f`, and `value_and_grad`'s tuple `vg` of a
/// `sum(layer · r)` probe (`loss`, then `g_x` and, with a kernel, `g_k`), within `tol`.
pub fn check_value_and_grad(f: &HashMap<String, Literal>, y: &Literal, vg: &Literal, tol: f32) {
    close(y, &f["y"], tol);
    let parts = vg.tuple_elements().unwrap();
    close(&parts[0], &f["loss"], tol);
    close(&parts[1], &f["g_x"], tol);
    match parts.get(2) {
        Some(gk) => close(gk, &f["g_k"], tol),
        None => assert!(!f.contains_key("k")),
    }
}
