//! Fused elementwise kernels: `gelu_tanh(x) * y + z` over f32[1M] and a row softmax of
//! f32[1024,1024]: generated machine code (on AVX-512 CPUs), the block interpreter
//! (`set_codegen(false)`), and the unfused reference.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{criterion_group, criterion_main, Criterion};
use xla::core::literal::ArrayData;
use xla::cpu::Executable;
use xla::{Literal, PrimitiveType, Shape};

const GELU: &str = "HloModule g
ENTRY main {
  x = f32[1048576] parameter(0)
  y = f32[1048576] parameter(1)
  z = f32[1048576] parameter(2)
  x2 = f32[1048576] multiply(x, x)
  x3 = f32[1048576] multiply(x2, x)
  c0 = f32[] constant(0.044715)
  b0 = f32[1048576] broadcast(c0), dimensions={}
  m = f32[1048576] multiply(x3, b0)
  a = f32[1048576] add(x, m)
  c1 = f32[] constant(0.797884583)
  b1 = f32[1048576] broadcast(c1), dimensions={}
  t = f32[1048576] multiply(a, b1)
  th = f32[1048576] tanh(t)
  c2 = f32[] constant(1)
  b2 = f32[1048576] broadcast(c2), dimensions={}
  s = f32[1048576] add(th, b2)
  c3 = f32[] constant(0.5)
  b3 = f32[1048576] broadcast(c3), dimensions={}
  h = f32[1048576] multiply(s, b3)
  g = f32[1048576] multiply(x, h)
  gy = f32[1048576] multiply(g, y)
  ROOT r = f32[1048576] add(gy, z)
}";

const SOFTMAX: &str = "HloModule s
mx { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT m = f32[] maximum(a, b) }
sum { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY main {
  x = f32[1024,1024] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[1024] reduce(x, ninf), dimensions={1}, to_apply=mx
  bm = f32[1024,1024] broadcast(m), dimensions={0}
  d = f32[1024,1024] subtract(x, bm)
  e = f32[1024,1024] exponential(d)
  zero = f32[] constant(0)
  s = f32[1024] reduce(e, zero), dimensions={1}, to_apply=sum
  bs = f32[1024,1024] broadcast(s), dimensions={0}
  ROOT r = f32[1024,1024] divide(e, bs)
}";

fn input(dims: &[i64], seed: u32) -> Literal {
    let n = dims.iter().product::<i64>() as usize;
    let v = (0..n)
        .map(|i| {
            ((i as u32).wrapping_mul(2_654_435_761) ^ seed) as f32 / u32::MAX as f32 * 4.0 - 2.0
        })
        .collect();
    Literal::from_array_data(
        Shape::array(PrimitiveType::F32, dims.to_vec()),
        ArrayData::F32(v),
    )
    .unwrap()
}

fn bench(c: &mut Criterion, name: &str, text: &str, args: &[Literal]) {
    let module = xla::core::text::parse_module(text).unwrap();
    let exe = Executable::compile(&module).unwrap();
    xla::cpu::set_codegen(false);
    let interpreted = Executable::compile(&module).unwrap();
    xla::cpu::set_codegen(true);
    let refs: Vec<&Literal> = args.iter().collect();
    c.bench_function(&format!("{name}/fused"), |b| {
        b.iter(|| exe.execute_borrowed(&refs).unwrap())
    });
    c.bench_function(&format!("{name}/fused_interpreted"), |b| {
        b.iter(|| interpreted.execute_borrowed(&refs).unwrap())
    });
    c.bench_function(&format!("{name}/unfused"), |b| {
        b.iter(|| exe.execute_unfused(&refs).unwrap())
    });
}

fn elementwise(c: &mut Criterion) {
    let v = [1_048_576i64];
    bench(
        c,
        "gelu_fma_1M",
        GELU,
        &[input(&v, 1), input(&v, 2), input(&v, 3)],
    );
    bench(c, "softmax_1024x1024", SOFTMAX, &[input(&[1024, 1024], 4)]);
}

criterion_group!(benches, elementwise);
criterion_main!(benches);
