//! What the macro's symbolic check costs on a generic computation: the front end at the
//! generic point and the classification over the residue classes of the sizes
//! ([`xla_dsl::preconditions`]), timed as the macro runs them.
//!
//! `cargo run --release -p xla-dsl --example classify_cost [FILE.rs ...]` times every
//! `#[computation]` function with size parameters in the files (functions inside
//! `macro_rules!` are not seen), or, without files, the built-in cases below: the repo's
//! largest generic functions and worst cases with several divisions. Run it in the debug
//! profile too: a debug build compiles the macro without optimisation.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proc_macro2::TokenStream;
use std::time::Instant;

/// Built-in cases: `(what, source)`.
const CASES: &[(&str, &str)] = &[
    (
        "cnn predict (examples/common/cnn.rs; `32*(H/4)*(W/4)` is sampled)",
        "fn predict<const B: usize, const H: usize, const W: usize>(
            k1: Tensor<f32, 16, 1, 3, 3>, g1: Tensor<f32, 16>, b1: Tensor<f32, 16>,
            k2: Tensor<f32, 32, 16, 3, 3>, g2: Tensor<f32, 32>, b2: Tensor<f32, 32>,
            w: Tensor<f32, { 32 * (H / 4) * (W / 4) }, 10>, b: Tensor<f32, 10>,
            mean1: Tensor<f32, 16>, var1: Tensor<f32, 16>, mean2: Tensor<f32, 32>,
            var2: Tensor<f32, 32>, x: Tensor<f32, B, 1, H, W>,
        ) -> Tensor<f32, B, 10> {
            let h = x.conv(k1, [1, 1], SAME).batch_norm_inference(g1, b1, mean1, var1, 0.001, 1);
            let h = h.relu().max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
            let h = h.conv(k2, [1, 1], SAME).batch_norm_inference(g2, b2, mean2, var2, 0.001, 1);
            let h = h.relu().max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
            h.reshape([B, { 32 * (H / 4) * (W / 4) }]).dot(w) + b
        }",
    ),
    (
        "CNN on square images through nn layers (conv2d_same, max_pool, layer_norm; H % 4)",
        "fn f<const B: usize, const H: usize>(
            x: Tensor<f32, B, H, H, 1>, k1: Tensor<f32, 3, 3, 1, 8>, k2: Tensor<f32, 3, 3, 8, 8>,
        ) -> Tensor<f32, B, { H / 4 }, { H / 4 }, 8> {
            let h = nn::conv2d_same::<1, 1>(x, k1).relu();
            let h = nn::max_pool::<2, 2, 0>(h);
            let h = nn::conv2d_same::<1, 1>(h, k2).relu();
            nn::max_pool::<2, 2, 0>(h)
        }",
    ),
    (
        "4 sizes, each divided by 4 (256 classes, the most enumerated)",
        "fn f<const A: usize, const B: usize, const C: usize, const D: usize>(
            a: Tensor<f32, A>, b: Tensor<f32, B>, c: Tensor<f32, C>, d: Tensor<f32, D>,
        ) -> Tensor<f32, { A / 4 + B / 4 + C / 4 + D / 4 }> {
            concat([a.reshape([{ A / 4 }, 4]).sum([1]), b.reshape([{ B / 4 }, 4]).sum([1]),
                    c.reshape([{ C / 4 }, 4]).sum([1]), d.reshape([{ D / 4 }, 4]).sum([1])], 0)
        }",
    ),
    (
        "8 sizes, each halved (256 classes, 17 points each)",
        "fn f<const A: usize, const B: usize, const C: usize, const D: usize,
              const E: usize, const F: usize, const G: usize, const K: usize>(
            a: Tensor<f32, A>, b: Tensor<f32, B>, c: Tensor<f32, C>, d: Tensor<f32, D>,
            e: Tensor<f32, E>, f: Tensor<f32, F>, g: Tensor<f32, G>, k: Tensor<f32, K>,
        ) -> Tensor<f32, { A / 2 + B / 2 + C / 2 + D / 2 + E / 2 + F / 2 + G / 2 + K / 2 }> {
            concat([a.max_pool([2], [2]), b.max_pool([2], [2]), c.max_pool([2], [2]),
                    d.max_pool([2], [2]), e.max_pool([2], [2]), f.max_pool([2], [2]),
                    g.max_pool([2], [2]), k.max_pool([2], [2])], 0)
        }",
    ),
];

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    let mut cases: Vec<(String, syn::ItemFn, TokenStream)> = Vec::new();
    if files.is_empty() {
        for (what, src) in CASES {
            let item: syn::ItemFn = syn::parse_str(src).expect("a built-in case parses");
            cases.push((what.to_string(), item, TokenStream::new()));
        }
    }
    for path in &files {
        let text = std::fs::read_to_string(path).expect("the file reads");
        let file = syn::parse_file(&text).expect("the file parses");
        for item in file.items {
            let syn::Item::Fn(mut item) = item else {
                continue;
            };
            let Some(at) = item
                .attrs
                .iter()
                .position(|a| a.path().is_ident("computation"))
            else {
                continue;
            };
            let attr = match item.attrs.remove(at).meta {
                syn::Meta::List(list) => list.tokens,
                _ => TokenStream::new(),
            };
            if item.sig.generics.const_params().next().is_some() {
                cases.push((format!("{path}: {}", item.sig.ident), item, attr));
            }
        }
    }
    for (what, item, attr) in cases {
        measure(&what, &item, &attr);
    }
}

/// Times the macro's front end and classification of `item`, best of three runs.
fn measure(what: &str, item: &syn::ItemFn, attr: &TokenStream) {
    let mut best = f64::INFINITY;
    let mut outcome = String::new();
    for _ in 0..3 {
        let start = Instant::now();
        let (cx, c) = xla_dsl::instantiate::parse_at_generic_point(attr, item);
        let front = xla_dsl::instantiate::front(cx, c);
        let plan = plan(item, &front);
        let k = xla_dsl::preconditions::classify(attr, item, front);
        best = best.min(start.elapsed().as_secs_f64());
        let errors = k.front.cx.messages();
        outcome = format!(
            "{plan}; {} precondition(s), {} error(s){}",
            k.preconditions.len(),
            errors.len(),
            errors.first().map(|e| format!(": {e}")).unwrap_or_default()
        );
    }
    println!("{what}\n    {:.3} s — {outcome}", best);
}

/// The residue classes and front-end runs the classification plans (or why it samples).
fn plan(item: &syn::ItemFn, front: &xla_dsl::instantiate::Front) -> String {
    use xla_dsl::preconditions::periods;
    let sizes = front.cx.sizes();
    let n = sizes.names.len();
    let integer = xla_dsl::instantiate::integer_sizes(item);
    let calls = calls(&front.computation);
    let classes = periods::residues(&sizes, &integer, front.checked.as_ref());
    match classes.and_then(|r| periods::within_budget(r, n, calls)) {
        Ok(r) => format!(
            "{n} sizes, {} classes, {} front-end runs ({calls} generic calls each)",
            r.classes.len(),
            r.classes.len() * (1 + 2 * n)
        ),
        Err(why) => format!("{n} sizes, sampled: {why}"),
    }
}

/// The calls to generic computations in the body of `c`.
fn calls(c: &xla_dsl::ast::Computation) -> usize {
    use xla_dsl::ast::{ExprKind, Walk};
    let mut calls = 0;
    c.body.walk(&mut |e| {
        if let ExprKind::Call { func, .. } = &e.kind {
            calls += usize::from(c.options.generic_callees.iter().any(|(n, ..)| n == func));
        }
    });
    calls
}
