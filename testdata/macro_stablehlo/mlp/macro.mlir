module @mlp {
  func.func private @max_F32.18(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>) {
    %v1 = "stablehlo.maximum"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    "func.return"(%v1) : (tensor<f32>) -> ()
  }
  func.func private @add_F32.27(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>) {
    %v1 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    "func.return"(%v1) : (tensor<f32>) -> ()
  }
  func.func @main(%arg0: tensor<64x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32x10xf32>, %arg3: tensor<10xf32>, %arg4: tensor<16x64xf32>, %arg5: tensor<16xi32>) -> (tensor<f32>) {
    %v1 = "stablehlo.dot_general"(%arg4, %arg0) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<16x64xf32>, tensor<64x32xf32>) -> (tensor<16x32xf32>)
    %v2 = "stablehlo.broadcast_in_dim"(%arg1) <{broadcast_dimensions = array<i64: 1>}> : (tensor<32xf32>) -> (tensor<16x32xf32>)
    %v3 = "stablehlo.add"(%v1, %v2) : (tensor<16x32xf32>, tensor<16x32xf32>) -> (tensor<16x32xf32>)
    %v4 = "stablehlo.tanh"(%v3) : (tensor<16x32xf32>) -> (tensor<16x32xf32>)
    %v5 = "stablehlo.dot_general"(%v4, %arg2) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<16x32xf32>, tensor<32x10xf32>) -> (tensor<16x10xf32>)
    %v6 = "stablehlo.broadcast_in_dim"(%arg3) <{broadcast_dimensions = array<i64: 1>}> : (tensor<10xf32>) -> (tensor<16x10xf32>)
    %v7 = "stablehlo.add"(%v5, %v6) : (tensor<16x10xf32>, tensor<16x10xf32>) -> (tensor<16x10xf32>)
    %v8 = "stablehlo.constant"() <{value = dense<"0x000080FF"> : tensor<f32>}> : () -> (tensor<f32>)
    %v12 = "stablehlo.reduce"(%v7, %v8) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t9: tensor<f32>, %t10: tensor<f32>):
      %t11 = "func.call"(%t9, %t10) <{callee = @max_F32.18}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t11) : (tensor<f32>) -> ()
    }) : (tensor<16x10xf32>, tensor<f32>) -> (tensor<16xf32>)
    %v13 = "stablehlo.broadcast_in_dim"(%v12) <{broadcast_dimensions = array<i64: 0>}> : (tensor<16xf32>) -> (tensor<16x10xf32>)
    %v14 = "stablehlo.subtract"(%v7, %v13) : (tensor<16x10xf32>, tensor<16x10xf32>) -> (tensor<16x10xf32>)
    %v15 = "stablehlo.exponential"(%v14) : (tensor<16x10xf32>) -> (tensor<16x10xf32>)
    %v16 = "stablehlo.constant"() <{value = dense<"0x00000000"> : tensor<f32>}> : () -> (tensor<f32>)
    %v20 = "stablehlo.reduce"(%v15, %v16) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t17: tensor<f32>, %t18: tensor<f32>):
      %t19 = "func.call"(%t17, %t18) <{callee = @add_F32.27}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t19) : (tensor<f32>) -> ()
    }) : (tensor<16x10xf32>, tensor<f32>) -> (tensor<16xf32>)
    %v21 = "stablehlo.log"(%v20) : (tensor<16xf32>) -> (tensor<16xf32>)
    %v22 = "stablehlo.broadcast_in_dim"(%v21) <{broadcast_dimensions = array<i64: 0>}> : (tensor<16xf32>) -> (tensor<16x10xf32>)
    %v23 = "stablehlo.subtract"(%v14, %v22) : (tensor<16x10xf32>, tensor<16x10xf32>) -> (tensor<16x10xf32>)
    %v24 = "stablehlo.broadcast_in_dim"(%arg5) <{broadcast_dimensions = array<i64: 0>}> : (tensor<16xi32>) -> (tensor<16x10xi32>)
    %v25 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> (tensor<16x10xi32>)
    %v26 = "stablehlo.compare"(%v24, %v25) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<16x10xi32>, tensor<16x10xi32>) -> (tensor<16x10xi1>)
    %v27 = "stablehlo.convert"(%v26) : (tensor<16x10xi1>) -> (tensor<16x10xf32>)
    %v28 = "stablehlo.multiply"(%v27, %v23) : (tensor<16x10xf32>, tensor<16x10xf32>) -> (tensor<16x10xf32>)
    %v29 = "stablehlo.constant"() <{value = dense<"0x00000000"> : tensor<f32>}> : () -> (tensor<f32>)
    %v33 = "stablehlo.reduce"(%v28, %v29) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%t30: tensor<f32>, %t31: tensor<f32>):
      %t32 = "func.call"(%t30, %t31) <{callee = @add_F32.27}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t32) : (tensor<f32>) -> ()
    }) : (tensor<16x10xf32>, tensor<f32>) -> (tensor<f32>)
    %v34 = "stablehlo.constant"() <{value = dense<"0x000080BD"> : tensor<f32>}> : () -> (tensor<f32>)
    %v35 = "stablehlo.multiply"(%v33, %v34) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    "func.return"(%v35) : (tensor<f32>) -> ()
  }
}
