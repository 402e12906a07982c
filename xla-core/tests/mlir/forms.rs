//! Pretty and generic spellings of the same ops read to the same HLO.

use xla_core::mlir::parse_stablehlo;
use xla_core::text::print_module;
use xla_core::{Module, Op};

fn m(body: &str, sig: &str) -> String {
    format!("module @m {{\n  func.func @main{sig} {{\n{body}\n  }}\n}}\n")
}

fn ops(module: &Module) -> Vec<String> {
    let e = module.entry_computation().unwrap();
    e.instructions
        .iter()
        .map(|i| format!("{} {}", i.op.name(), i.shape))
        .collect()
}

#[test]
fn pretty_and_generic_forms_agree() {
    let sig = "(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32>";
    let pretty = m(
        "    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>\n    %1 = stablehlo.compare GT, %0, %0, FLOAT : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>\n    %2 = stablehlo.select %1, %0, %0 : tensor<2x4xi1>, tensor<2x4xf32>\n    return %2 : tensor<2x4xf32>",
        sig,
    );
    let generic = m(
        "    %0 = \"stablehlo.dot_general\"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>\n    %1 = \"stablehlo.compare\"(%0, %0) <{comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type FLOAT>}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>\n    %2 = \"stablehlo.select\"(%1, %0, %0) : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>\n    \"func.return\"(%2) : (tensor<2x4xf32>) -> ()",
        sig,
    );
    let (p, g) = (
        parse_stablehlo(&pretty).unwrap(),
        parse_stablehlo(&generic).unwrap(),
    );
    assert_eq!(ops(&p), ops(&g));
    let e = p.entry_computation().unwrap();
    let dot = e
        .instructions
        .iter()
        .find(|i| i.op.name() == "dot")
        .unwrap();
    match &dot.op {
        Op::Dot { dims, precision } => {
            assert_eq!(
                (
                    dims.lhs_contracting_dims.clone(),
                    dims.rhs_contracting_dims.clone()
                ),
                (vec![1], vec![0])
            );
            assert_eq!(precision.operand_precision.len(), 2);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn convolution_both_syntaxes() {
    let sig = "(%x: tensor<1x8x8x2xf32>, %k: tensor<3x3x2x4xf32>) -> tensor<1x4x4x4xf32>";
    let types = ": (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x4x4x4xf32>";
    let pretty = m(&format!("    %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [2, 2], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} {types}\n    return %0 : tensor<1x4x4x4xf32>"), sig);
    let generic = m(&format!("    %0 = \"stablehlo.convolution\"(%x, %k) <{{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, padding = dense<1> : tensor<2x2xi64>, window_strides = array<i64: 2, 2>}}> {types}\n    return %0 : tensor<1x4x4x4xf32>"), sig);
    let (p, g) = (
        parse_stablehlo(&pretty).unwrap(),
        parse_stablehlo(&generic).unwrap(),
    );
    assert_eq!(
        print_module(&p).replace(&p.name, ""),
        print_module(&g).replace(&g.name, "")
    );
}

#[test]
fn jax_attributes_locations_and_private_calls() {
    let text = r#"#loc1 = loc("x")
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32, sdy.mesh = #sdy.mesh<["a"=1]>} {
  func.func public @main(%arg0: tensor<4xf32> {mhlo.sharding = "{replicated}", sdy.sharding = #sdy.sharding<@mesh, [{}]>} loc("x")) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = call @helper(%arg0) : (tensor<4xf32>) -> tensor<4xf32> loc(#loc1)
    %1 = chlo.erf_inv %0 : tensor<4xf32> -> tensor<4xf32>
    return %1 : tensor<4xf32> loc(#loc1)
  } loc(#loc1)
  func.func private @helper(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<[1.0, -2.5, 0x7FC00000, 3.0]> : tensor<4xf32>
    %0 = stablehlo.multiply %arg0, %cst : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
} loc(#loc1)
"#;
    let m = parse_stablehlo(text).unwrap();
    assert_eq!(m.name, "jit_f");
    let names: Vec<&str> = m
        .entry_computation()
        .unwrap()
        .instructions
        .iter()
        .map(|i| i.op.name())
        .collect();
    assert!(names.contains(&"call"), "{names:?}");
    let helper = m
        .computations
        .iter()
        .find(|c| c.name.starts_with("helper"))
        .unwrap();
    let c = helper.instructions.iter().find_map(|i| match &i.op {
        Op::Constant { literal } => Some(literal.clone()),
        _ => None,
    });
    let v = c.unwrap().to_vec::<f32>().unwrap();
    assert_eq!((v[0], v[1], v[3]), (1.0, -2.5, 3.0));
    assert!(v[2].is_nan());
}

#[test]
fn regions_capture_outer_values() {
    let text = m(
        "    %c = stablehlo.constant dense<3> : tensor<i32>\n    %0:2 = stablehlo.while(%i = %n, %acc = %x) : tensor<i32>, tensor<f32>\n    cond {\n      %p = stablehlo.compare LT, %i, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>\n      stablehlo.return %p : tensor<i1>\n    } do {\n      %one = stablehlo.constant dense<1> : tensor<i32>\n      %j = stablehlo.add %i, %one : tensor<i32>\n      %a = stablehlo.multiply %acc, %x : tensor<f32>\n      stablehlo.return %j, %a : tensor<i32>, tensor<f32>\n    }\n    %1 = \"stablehlo.case\"(%n) ({\n      stablehlo.return %0#1 : tensor<f32>\n    }, {\n      %t = stablehlo.negate %x : tensor<f32>\n      stablehlo.return %t : tensor<f32>\n    }) : (tensor<i32>) -> tensor<f32>\n    return %1 : tensor<f32>",
        "(%n: tensor<i32>, %x: tensor<f32>) -> tensor<f32>",
    );
    let module = parse_stablehlo(&text).unwrap();
    xla_core::verify::verify_module(&module).unwrap();
    let e = module.entry_computation().unwrap();
    let w = e
        .instructions
        .iter()
        .find(|i| i.op.name() == "while")
        .unwrap();
    // the loop state carries (i, acc) and the captured %c and %x
    assert_eq!(w.shape.to_string(), "(s32[], f32[], s32[], f32[])");
}

#[test]
fn custom_call_is_kept_by_name() {
    let text = m(
        "    %0 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {api_version = 4 : i32, backend_config = {uplo = 76 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<3x3xf32>) -> tensor<3x3xf32>\n    return %0 : tensor<3x3xf32>",
        "(%a: tensor<3x3xf32>) -> tensor<3x3xf32>",
    );
    let module = parse_stablehlo(&text).unwrap();
    let e = module.entry_computation().unwrap();
    let cc = e.instructions.iter().find_map(|i| match &i.op {
        Op::CustomCall { config, .. } => Some(config.clone()),
        _ => None,
    });
    let cc = cc.unwrap();
    assert_eq!(cc.target, "lapack_spotrf_ffi");
    assert_eq!(cc.backend_config, "{uplo = 76 : ui8}");
    assert_eq!(cc.api_version, "API_VERSION_TYPED_FFI");
}

#[test]
fn element_types_and_tuples() {
    let text = m(
        "    %t = stablehlo.tuple %a, %b : tuple<tensor<2xui16>, tensor<complex<f64>>>\n    %0 = stablehlo.get_tuple_element %t[1] : (tuple<tensor<2xui16>, tensor<complex<f64>>>) -> tensor<complex<f64>>\n    %c = stablehlo.constant dense<(1.5, -2.0)> : tensor<complex<f64>>\n    %1 = stablehlo.add %0, %c : tensor<complex<f64>>\n    %h = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xbf16>\n    %g = stablehlo.convert %h : (tensor<2xbf16>) -> tensor<2xf16>\n    %p = stablehlo.constant dense<[true, false]> : tensor<2xi1>\n    return %1, %g, %p : tensor<complex<f64>>, tensor<2xf16>, tensor<2xi1>",
        "(%a: tensor<2xui16>, %b: tensor<complex<f64>>) -> (tensor<complex<f64>>, tensor<2xf16>, tensor<2xi1>)",
    );
    let module = parse_stablehlo(&text).unwrap();
    let root = module
        .entry_computation()
        .unwrap()
        .root_instruction()
        .unwrap();
    assert_eq!(root.shape.to_string(), "(c128[], f16[2], pred[2])");
}
