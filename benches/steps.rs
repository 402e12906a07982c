//! Whole training steps and the data-movement kernels inside them: JAX's MLP and CNN
//! training steps (`testdata/perf/B2_mlp_step.hlo`, `B3_cnn_step.hlo`, copies of
//! `../shared/perf/hlo/`), JAX's 2×2 max-pool forward (`B8_maxpool_fwd.hlo`), a batch-norm
//! reduce over {0,2,3}, a weight transpose and a per-channel broadcast; and the programs
//! people run (B10–B17: a transformer training step, a scanned LSTM step, a ResNet step in
//! NHWC, KV-cache decoding, the Flax MNIST CNN step, batch-1 MLP latency, an adaptive RK45
//! solve and HMC leapfrog steps).
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{criterion_group, criterion_main, Criterion};
use xla::core::literal::ArrayData;
use xla::cpu::Executable;
use xla::{Literal, PrimitiveType};

/// Deterministic inputs for every entry parameter: f32 in [-0.5, 0.5), s32 labels in 0..10.
fn inputs(m: &xla::core::ir::Module) -> Vec<Literal> {
    let entry = m.entry_computation().unwrap();
    entry
        .parameters()
        .iter()
        .enumerate()
        .map(|(k, &p)| {
            let shape = entry.instr(p).shape.without_layout();
            let n = shape.element_count().unwrap() as usize;
            let h = |i: usize| (i as u32 ^ k as u32).wrapping_mul(2_654_435_761);
            let data = match shape.element_type() {
                PrimitiveType::S32 => ArrayData::S32((0..n).map(|i| (h(i) % 10) as i32).collect()),
                _ => ArrayData::F32(
                    (0..n)
                        .map(|i| h(i) as f32 / u32::MAX as f32 - 0.5)
                        .collect(),
                ),
            };
            Literal::from_array_data(shape, data).unwrap()
        })
        .collect()
}

fn bench(c: &mut Criterion, name: &str, text: &str) {
    let m = xla::core::text::parse_module(text).unwrap();
    let exe = Executable::compile(&m).unwrap();
    let args = inputs(&m);
    let refs: Vec<&Literal> = args.iter().collect();
    c.bench_function(name, |b| b.iter(|| exe.execute_borrowed(&refs).unwrap()));
}

const BN_REDUCE: &str = "HloModule r
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY main {
  x = f32[64,32,28,28] parameter(0)
  zero = f32[] constant(0)
  ROOT s = f32[32] reduce(x, zero), dimensions={0,2,3}, to_apply=add
}";

const TRANSPOSE: &str = "HloModule t
ENTRY main {
  w = f32[784,512] parameter(0)
  ROOT t = f32[512,784] transpose(w), dimensions={1,0}
}";

const CHANNEL_BROADCAST: &str = "HloModule b
ENTRY main {
  g = f32[32] parameter(0)
  ROOT b = f32[64,32,28,28] broadcast(g), dimensions={1}
}";

fn steps(c: &mut Criterion) {
    // As a training program would: freed buffers are reused instead of page-faulted in.
    xla::cpu::retain_freed_memory();
    let file = |f: &str| {
        std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("testdata/perf")
                .join(f),
        )
        .unwrap()
    };
    bench(c, "mlp_step_B2", &file("B2_mlp_step.hlo"));
    bench(c, "cnn_step_B3", &file("B3_cnn_step.hlo"));
    bench(c, "maxpool_fwd_B8", &file("B8_maxpool_fwd.hlo"));
    bench(c, "bn_reduce_64x32x28x28", BN_REDUCE);
    bench(c, "transpose_784x512", TRANSPOSE);
    bench(c, "channel_broadcast_64x32x28x28", CHANNEL_BROADCAST);
    for (name, f) in [
        ("transformer_step_B10", "B10_transformer_step.hlo"),
        ("lstm_lm_step_B11", "B11_lstm_lm_step.hlo"),
        ("resnet_step_B12", "B12_resnet_step.hlo"),
        ("decode_kv_cache_B13", "B13_decode_kv_cache.hlo"),
        ("flax_mnist_cnn_step_B14", "B14_flax_mnist_cnn_step.hlo"),
        ("mlp_latency_B15", "B15_mlp_latency.hlo"),
        ("rk45_adaptive_B16", "B16_rk45_adaptive.hlo"),
        ("hmc_leapfrog_B17", "B17_hmc_leapfrog.hlo"),
    ] {
        bench(c, name, &file(f));
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = steps
}
criterion_main!(benches);
