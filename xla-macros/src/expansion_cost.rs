//! The compile-time cost of the macro: the time `expand::computation` takes on a function
//! of 50 operations (parse, shape-check with xla-core's builder, print the HLO, emit the
//! module), with and without a gradient. Run with
//! `cargo test -p xla-macros --release --lib expansion_cost -- --ignored --nocapture`;
//! ignored by default because it only measures.

use quote::quote;
use std::time::Instant;

/// A two-layer network with its loss: 50 HLO-producing operations in the body (counted
/// in the comments; implicit broadcasts and literal constants add more instructions).
fn fifty_ops() -> proc_macro2::TokenStream {
    quote! {
        fn net(x: Tensor<f32, 32, 64>, w1: Tensor<f32, 64, 128>, b1: Tensor<f32, 128>,
               w2: Tensor<f32, 128, 10>, b2: Tensor<f32, 10>, y: Tensor<f32, 32, 10>) -> f32 {
            let h = (x.dot(w1) + b1).relu();                          // 3
            let h = h * 0.5 + h.tanh() * 0.5;                         // 4
            let h = h - h.mean([1]).reshape([32, 1]);                 // 3
            let v = (h * h).mean([1]).reshape([32, 1]);               // 3
            let h = h * (v + 0.00001).rsqrt();                        // 3
            let z = h.dot(w2) + b2;                                   // 2
            let m = z.max([1]).reshape([32, 1]);                      // 2
            let e = (z - m).exp();                                    // 2
            let s = e.sum([1]).reshape([32, 1]);                      // 2
            let logp = z - m - s.ln();                                // 3
            let nll = -(logp * y).sum([1]);                           // 3
            let l2 = (w1 * w1).sum() + (w2 * w2).sum();               // 5
            let reg = l2 * 0.0001;                                    // 1
            let p = e / s;                                            // 1
            let conf = p.max([1]).mean();                             // 2
            let ent = -(p * (p + 0.000001).ln()).sum([1]).mean();     // 6
            let t = nll.mean() + reg;                                 // 2
            t + (conf - conf) + ent * 0.0 + (b1.sum() + b2.sum()) * 0.0 // 8
        }
    }
}

/// Median of `runs` timings of expanding `item` with `attr`, in milliseconds.
fn median_ms(attr: &proc_macro2::TokenStream, item: &proc_macro2::TokenStream, runs: usize) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let out = crate::expand::computation(attr.clone(), item.clone());
            let elapsed = start.elapsed().as_secs_f64() * 1e3;
            assert!(!out.to_string().contains("compile_error"), "{out}");
            elapsed
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[runs / 2]
}

#[test]
#[ignore = "a measurement, not a check"]
fn expansion_cost() {
    let item = fifty_ops();
    let plain = median_ms(&quote! {}, &item, 21);
    let grad = median_ms(&quote! { grad }, &item, 21);
    let out = crate::expand::computation(quote! {}, item.clone()).to_string();
    let instructions = out.matches(" = ").count();
    println!("expansion of a 50-op function: {plain:.2} ms (median of 21)");
    println!("with `grad` (every f32 parameter): {grad:.2} ms (median of 21)");
    println!(
        "generated tokens: {} chars, ~{instructions} `=` in the HLO and code",
        out.len()
    );
}
