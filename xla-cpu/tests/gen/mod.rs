//! What the random-module tests share: a seeded generator, inputs holding NaN, ±inf and
//! ±0, shape text, and results as bit patterns.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use xla_core::Literal;

/// A seeded xorshift generator.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    pub fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[(self.next() % from.len() as u64) as usize]
    }
}

/// Values in [-4, 4) with NaN, ±inf and ±0 sprinkled in.
pub fn values(n: usize, rng: &mut Rng) -> Vec<f32> {
    (0..n)
        .map(|_| match rng.next() % 16 {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            3 => 0.0,
            4 => -0.0,
            _ => (rng.next() >> 40) as f32 / (1u64 << 24) as f32 * 8.0 - 4.0,
        })
        .collect()
}

/// An f32 array of `dims` holding [`values`].
pub fn f32s(dims: &[i64], rng: &mut Rng) -> Literal {
    let n = dims.iter().product::<i64>() as usize;
    Literal::from_array_data(
        xla_core::Shape::array(xla_core::PrimitiveType::F32, dims.to_vec()),
        xla_core::literal::ArrayData::F32(values(n, rng)),
    )
    .unwrap()
}

/// `TY[d0,d1,...]`.
pub fn shape_of(ty: &str, dims: &[i64]) -> String {
    let d: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("{ty}[{}]", d.join(","))
}

/// `f32[d0,d1,...]`.
pub fn shape_text(dims: &[i64]) -> String {
    shape_of("f32", dims)
}

/// The f32 elements of a result (each element of a tuple in turn) as bit patterns, every
/// NaN as one pattern: which of two NaN operands an op returns (and so the sign and
/// payload) is left open by IEEE 754 and by LLVM, which treats `a * b` and `b * a` as
/// the same and picks the order per build, so the reference's own NaN bits change when
/// unrelated code changes.
pub fn bits(l: &Literal) -> Vec<u32> {
    let mut v = Vec::new();
    for e in l.tuple_elements().unwrap_or(std::slice::from_ref(l)) {
        v.extend(e.data::<f32>().unwrap().iter().map(|x| {
            if x.is_nan() {
                0x7fc0_0000
            } else {
                x.to_bits()
            }
        }));
    }
    v
}

/// Runs module `text` fused (at 1 and 2 threads) and checks its results bit for bit
/// against the same module compiled without rewrites and run one instruction at a time;
/// returns the ops a profiled fused run ran. `case` names the module in a failure.
pub fn fused_matches_reference(case: usize, text: &str, args: &[Literal]) -> Vec<String> {
    use xla_cpu::Executable;
    let m = xla_core::text::parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let refs: Vec<&Literal> = args.iter().collect();
    let plain = Executable::compile_without_rewrites(&m).unwrap();
    let want = bits(&plain.execute_unfused(&refs).unwrap());
    fused_gives(case, text, args, &want)
}

/// Runs module `text` compiled as usual (native loops dropped), at 1 and 2 threads, and
/// checks its results' bits are `want`; returns the ops a profiled run ran.
pub fn fused_gives(case: usize, text: &str, args: &[Literal], want: &[u32]) -> Vec<String> {
    use xla_cpu::Executable;
    let m = xla_core::text::parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let refs: Vec<&Literal> = args.iter().collect();
    let mut exe = Executable::compile(&m).unwrap();
    exe.drop_native_loops();
    for threads in [1, 2] {
        exe.set_threads(threads);
        let got = bits(&exe.execute_borrowed(&refs).unwrap());
        if got != want {
            let diff: Vec<usize> = (0..got.len().max(want.len()))
                .filter(|&i| got.get(i) != want.get(i))
                .collect();
            let at = diff[0];
            panic!(
                "case {case}, {threads} threads: {} of {} values differ, the first at {at}: \
                 got {:?}, want {:?} (bits)\n{text}",
                diff.len(),
                want.len(),
                got.get(at).map(|b| format!("{b:#010x}")),
                want.get(at).map(|b| format!("{b:#010x}")),
            );
        }
    }
    exe.set_profiling(true);
    exe.execute_borrowed(&refs).unwrap();
    exe.profile().into_iter().map(|e| e.op).collect()
}
