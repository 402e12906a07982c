//! Bad input: one error with line and column, of the right kind.

use xla_core::mlir::{parse_stablehlo, MlirErrorKind};

fn main_with(body: &str) -> String {
    format!("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {{\n{body}\n}}\n")
}

fn error(text: &str) -> (usize, usize, MlirErrorKind, String) {
    let e = parse_stablehlo(text).unwrap_err();
    (e.line, e.column, e.kind, e.message)
}

#[test]
fn unknown_op_and_dialect() {
    let (l, c, k, msg) = error(&main_with(
        "  %0 = stablehlo.frobnicate %a : tensor<2xf32>\n  return %0 : tensor<2xf32>",
    ));
    assert_eq!((l, c, k), (2, 3, MlirErrorKind::UnknownOp), "{msg}");
    let (l, _, k, msg) = error(&main_with(
        "  %0 = tosa.add %a, %a : tensor<2xf32>\n  return %0 : tensor<2xf32>",
    ));
    assert_eq!((l, k), (2, MlirErrorKind::UnknownOp));
    assert!(msg.contains("tosa"), "{msg}");
}

#[test]
fn undefined_value_points_at_the_use() {
    let (l, c, k, _) = error(&main_with(
        "  %0 = stablehlo.add %a, %zz : tensor<2xf32>\n  return %0 : tensor<2xf32>",
    ));
    assert_eq!((l, c, k), (2, 26, MlirErrorKind::UndefinedName));
}

#[test]
fn shape_rule_broken_names_op_and_shapes() {
    let text = "func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %a, %b : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}";
    let (l, c, k, msg) = error(text);
    assert_eq!((l, c, k), (2, 3, MlirErrorKind::Shape));
    assert!(msg.contains("f32[2]") && msg.contains("f32[3]"), "{msg}");
}

#[test]
fn declared_type_must_match() {
    let (l, _, k, msg) = error(&main_with("  %0 = stablehlo.negate %a : (tensor<2xf32>) -> tensor<3xf32>\n  return %0 : tensor<3xf32>"));
    assert_eq!((l, k), (2, MlirErrorKind::Type));
    assert!(msg.contains("f32[3]"), "{msg}");
}

#[test]
fn unsupported_types_and_bad_constants() {
    let (_, _, k, _) = error("func.func @main(%a: tensor<?xf32>) -> tensor<2xf32> {\n}");
    assert_eq!(k, MlirErrorKind::Type);
    let (_, _, k, _) = error("func.func @main(%a: tensor<2xf8E4M3FN>) -> tensor<2xf32> {\n}");
    assert_eq!(k, MlirErrorKind::Type);
    let (l, _, k, msg) = error(&main_with("  %0 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<2xf32>\n  return %0 : tensor<2xf32>"));
    assert_eq!((l, k), (2, MlirErrorKind::Attribute), "{msg}");
    let (_, _, k, _) = error(&main_with(
        "  %0 = stablehlo.constant dense<300> : tensor<2xi8>\n  return %0 : tensor<2xi8>",
    ));
    assert_eq!(k, MlirErrorKind::Attribute);
}

#[test]
fn truncated_and_malformed_text() {
    let full =
        main_with("  %0 = stablehlo.add %a, %a : tensor<2xf32>\n  return %0 : tensor<2xf32>");
    for cut in 0..full.trim_end().len() {
        if let Some(prefix) = full.get(..cut) {
            assert!(
                parse_stablehlo(prefix).is_err(),
                "prefix of {cut} bytes parsed"
            );
        }
    }
    let (_, _, k, _) = error("module {\n  func.func @main() -> () {\n    return\n  }\n  func.func @main() -> () {\n    return\n  }\n}");
    assert_eq!(k, MlirErrorKind::Duplicate);
}

#[test]
fn recursion_and_deep_nesting_are_errors() {
    let text = "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = call @main(%a) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}";
    assert!(parse_stablehlo(text).is_err());
    let deep = format!(
        "func.func @main(%a: {}f32{}) -> tensor<f32> {{\n}}",
        "tuple<".repeat(10_000),
        ">".repeat(10_000)
    );
    assert_eq!(
        parse_stablehlo(&deep).unwrap_err().kind,
        MlirErrorKind::TooDeep
    );
}
