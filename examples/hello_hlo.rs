//! Build a small graph with the builder — a dense layer with a row softmax — print it in
//! XLA's HLO text format, parse the text back, verify it and run it on the CPU.
//!
//! ```sh
//! cargo run --release --example hello_hlo
//! ```

use xla::core::builder::{Combiner, XlaBuilder};
use xla::core::text::{parse_module, print_module};
use xla::core::verify::verify_module;
use xla::cpu::Executable;
use xla::{Literal, PrimitiveType::F32, Shape};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // softmax(x · w + b) for x: f32[2,3], w: f32[3,4], b: f32[4]
    let b = XlaBuilder::new("dense_softmax");
    let x = b.parameter(0, Shape::array(F32, [2, 3]), "x");
    let w = b.parameter(1, Shape::array(F32, [3, 4]), "w");
    let bias = b.parameter(2, Shape::array(F32, [4]), "b");
    // The bias is broadcast along dimension 1 of the product (XLA's broadcast_dimensions).
    let logits = b.add_with_broadcast(b.dot(&x, &w), &bias, &[1]);
    let row_max = b.reduce(
        &logits,
        b.constant_r0(f32::NEG_INFINITY),
        &[1],
        Combiner::Max,
    );
    let e = b.sub_with_broadcast(&logits, &row_max, &[0]).exp();
    let sum = b.reduce(&e, b.constant_r0(0.0f32), &[1], Combiner::Add);
    let probs = b.div_with_broadcast(&e, &sum, &[0]);
    let module = b.build_with_root(&probs)?;

    let text = print_module(&module);
    println!("{text}");

    // The text is XLA's own format: it parses back to a module that prints the same.
    let reparsed = parse_module(&text)?;
    assert_eq!(print_module(&reparsed), text);
    verify_module(&reparsed)?;

    let exe = Executable::compile(&reparsed)?;
    let x = Literal::from_vec(&[2, 3], vec![1.0f32, 2.0, 3.0, -1.0, 0.0, 1.0])?;
    let w = Literal::from_vec(&[3, 4], (0..12).map(|i| i as f32 * 0.1).collect())?;
    let bias = Literal::vec1(&[0.5f32, 0.0, -0.5, 0.0]);
    let out = exe.execute(&[x, w, bias])?;
    println!("softmax(x·w + b) = {}", out.to_string_oneline());
    Ok(())
}
