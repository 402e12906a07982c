module @cnn_bn_op {
  func.func private @max_F32.18(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>) {
    %v1 = "stablehlo.maximum"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    "func.return"(%v1) : (tensor<f32>) -> ()
  }
  func.func private @add_F32.33(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>) {
    %v1 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    "func.return"(%v1) : (tensor<f32>) -> ()
  }
  func.func @main(%arg0: tensor<4x1x3x3xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>, %arg3: tensor<64x10xf32>, %arg4: tensor<10xf32>, %arg5: tensor<8x1x8x8xf32>, %arg6: tensor<8xi32>) -> (tensor<f32>) {
    %v1 = "stablehlo.convolution"(%arg5, %arg0) <{batch_group_count = 1 : i64, feature_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, window_strides = array<i64: 1, 1>, padding = dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>}> : (tensor<8x1x8x8xf32>, tensor<4x1x3x3xf32>) -> (tensor<8x4x8x8xf32>)
    %v2:3 = "stablehlo.batch_norm_training"(%v1, %arg1, %arg2) <{epsilon = 9.99999975e-6 : f32, feature_index = 1 : i64}> : (tensor<8x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<8x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
    %v3 = "stablehlo.constant"() <{value = dense<"0x00000000"> : tensor<f32>}> : () -> (tensor<f32>)
    %v4 = "stablehlo.broadcast_in_dim"(%v3) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<8x4x8x8xf32>)
    %v5 = "stablehlo.maximum"(%v2#0, %v4) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v6 = "stablehlo.constant"() <{value = dense<"0x000080FF"> : tensor<f32>}> : () -> (tensor<f32>)
    %v10 = "stablehlo.reduce_window"(%v5, %v6) <{window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>, padding = dense<[[0, 0], [0, 0], [0, 0], [0, 0]]> : tensor<4x2xi64>, base_dilations = array<i64: 1, 1, 1, 1>, window_dilations = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%t7: tensor<f32>, %t8: tensor<f32>):
      %t9 = "func.call"(%t7, %t8) <{callee = @max_F32.18}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t9) : (tensor<f32>) -> ()
    }) : (tensor<8x4x8x8xf32>, tensor<f32>) -> (tensor<8x4x4x4xf32>)
    %v11 = "stablehlo.reshape"(%v10) : (tensor<8x4x4x4xf32>) -> (tensor<8x64xf32>)
    %v12 = "stablehlo.dot_general"(%v11, %arg3) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<8x64xf32>, tensor<64x10xf32>) -> (tensor<8x10xf32>)
    %v13 = "stablehlo.broadcast_in_dim"(%arg4) <{broadcast_dimensions = array<i64: 1>}> : (tensor<10xf32>) -> (tensor<8x10xf32>)
    %v14 = "stablehlo.add"(%v12, %v13) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v15 = "stablehlo.constant"() <{value = dense<"0x000080FF"> : tensor<f32>}> : () -> (tensor<f32>)
    %v19 = "stablehlo.reduce"(%v14, %v15) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t16: tensor<f32>, %t17: tensor<f32>):
      %t18 = "func.call"(%t16, %t17) <{callee = @max_F32.18}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t18) : (tensor<f32>) -> ()
    }) : (tensor<8x10xf32>, tensor<f32>) -> (tensor<8xf32>)
    %v20 = "stablehlo.broadcast_in_dim"(%v19) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> (tensor<8x10xf32>)
    %v21 = "stablehlo.subtract"(%v14, %v20) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v22 = "stablehlo.exponential"(%v21) : (tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v23 = "stablehlo.constant"() <{value = dense<"0x00000000"> : tensor<f32>}> : () -> (tensor<f32>)
    %v27 = "stablehlo.reduce"(%v22, %v23) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t24: tensor<f32>, %t25: tensor<f32>):
      %t26 = "func.call"(%t24, %t25) <{callee = @add_F32.33}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t26) : (tensor<f32>) -> ()
    }) : (tensor<8x10xf32>, tensor<f32>) -> (tensor<8xf32>)
    %v28 = "stablehlo.log"(%v27) : (tensor<8xf32>) -> (tensor<8xf32>)
    %v29 = "stablehlo.broadcast_in_dim"(%v28) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> (tensor<8x10xf32>)
    %v30 = "stablehlo.subtract"(%v21, %v29) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v31 = "stablehlo.broadcast_in_dim"(%arg6) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xi32>) -> (tensor<8x10xi32>)
    %v32 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> (tensor<8x10xi32>)
    %v33 = "stablehlo.compare"(%v31, %v32) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<8x10xi32>, tensor<8x10xi32>) -> (tensor<8x10xi1>)
    %v34 = "stablehlo.convert"(%v33) : (tensor<8x10xi1>) -> (tensor<8x10xf32>)
    %v35 = "stablehlo.multiply"(%v34, %v30) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v36 = "stablehlo.constant"() <{value = dense<"0x00000000"> : tensor<f32>}> : () -> (tensor<f32>)
    %v40 = "stablehlo.reduce"(%v35, %v36) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%t37: tensor<f32>, %t38: tensor<f32>):
      %t39 = "func.call"(%t37, %t38) <{callee = @add_F32.33}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t39) : (tensor<f32>) -> ()
    }) : (tensor<8x10xf32>, tensor<f32>) -> (tensor<f32>)
    %v41 = "stablehlo.constant"() <{value = dense<"0x000000BE"> : tensor<f32>}> : () -> (tensor<f32>)
    %v42 = "stablehlo.multiply"(%v40, %v41) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    "func.return"(%v42) : (tensor<f32>) -> ()
  }
}
