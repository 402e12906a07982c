//! A ui pass case: this `#[computation]` crate compiles and its `main` runs to success.
use xla::computation;

#[computation]
fn scalars(
    a: f32,
    b: f64,
    c: f16,
    d: bf16,
    e: i8,
    f: i16,
    g: i32,
    h: i64,
    i: u8,
    j: u16,
    k: u32,
    l: u64,
    m: bool,
    n: c64,
    o: c128,
) -> (
    f32,
    f64,
    f16,
    bf16,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    bool,
    c64,
    c128,
) {
    (
        a + 1.0,
        b * 2.0,
        -c,
        d.abs(),
        e + 1,
        f - 1,
        g * 3,
        h % 2,
        i / 2,
        j & 1,
        k | 2,
        l ^ 3,
        !m,
        n + n,
        o * o,
    )
}

#[computation]
pub(crate) fn convert_and_compare(x: Tensor<i32, 4>) -> Tensor<bool, 4> {
    let y: Tensor<f64, 4> = x.convert::<f64>();
    y.ge(0.5)
}

fn main() {
    assert_eq!(scalars::PARAMETERS.len(), 15);
    assert!(scalars::HLO.contains("bf16[] abs("));
    assert!(convert_and_compare::HLO.contains("compare("));
}
