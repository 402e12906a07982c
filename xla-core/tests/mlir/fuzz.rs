//! Arbitrary text, token soup and mutated modules never make the reader panic.

use xla_core::mlir::parse_stablehlo;

const SAMPLE: &str = r#"module @m attributes {mhlo.num_partitions = 1 : i32} {
  func.func private @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2xf32>
    return %1 : tensor<2xf32>
  }
  func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<i32>) -> (tensor<2xf32>, tensor<2xi1>) {
    %c = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
    %0:2 = stablehlo.while(%i = %arg1, %v = %arg0) : tensor<i32>, tensor<2xf32>
    cond {
      %p = stablehlo.compare LT, %i, %arg1 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %w = func.call @f(%v) : (tensor<2xf32>) -> tensor<2xf32>
      stablehlo.return %i, %w : tensor<i32>, tensor<2xf32>
    }
    %1 = "stablehlo.compare"(%0#1, %c) <{comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %2 = stablehlo.slice %0#1 [0:2:1] : (tensor<2xf32>) -> tensor<2xf32>
    return %2, %1 : tensor<2xf32>, tensor<2xi1>
  }
}
"#;

#[test]
fn the_sample_parses() {
    parse_stablehlo(SAMPLE).unwrap();
}

proptest::proptest! {
    #[test]
    fn arbitrary_text_never_panics(s in "\\PC*", soup in proptest::collection::vec(0usize..1000, 0..200)) {
        let _ = parse_stablehlo(&s);
        let pieces = [
            "module ", "{", "}", "(", ")", "[", "]", "<", ">", ",", "=", ":", "->", "%0", "%a#1", "@f",
            "func.func @main", "tensor<2x3xf32>", "tensor<complex<f32>>", "tuple<", "dense<", "\"0x00\"",
            "stablehlo.add", "\"stablehlo.case\"", "stablehlo.while", "cond", "do", "^bb0", "return",
            "array<i64: 1>", "#stablehlo<precision DEFAULT>", "#stablehlo.conv<", "[b, 0, f]x[0, i, o]->[b, 0, f]",
            "1.5e-3", "-7", "0x7FC00000", "true", "loc(", "#loc", "\n", "applies", "init:",
        ];
        let text: String = soup.iter().map(|&i| pieces[i % pieces.len()]).collect();
        let _ = parse_stablehlo(&text);
    }

    #[test]
    fn mutated_sample_never_panics(cut in 0usize..2000, len in 0usize..40, insert in "\\PC{0,8}") {
        let mut s: Vec<char> = SAMPLE.chars().collect();
        let at = cut.min(s.len());
        let end = (at + len).min(s.len());
        s.splice(at..end, insert.chars());
        let text: String = s.into_iter().collect();
        let _ = parse_stablehlo(&text);
    }
}
