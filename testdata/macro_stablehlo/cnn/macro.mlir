module @cnn {
  func.func private @add_F32.13(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>) {
    %v1 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    "func.return"(%v1) : (tensor<f32>) -> ()
  }
  func.func private @max_F32.43(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>) {
    %v1 = "stablehlo.maximum"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    "func.return"(%v1) : (tensor<f32>) -> ()
  }
  func.func @main(%arg0: tensor<4x1x3x3xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>, %arg3: tensor<64x10xf32>, %arg4: tensor<10xf32>, %arg5: tensor<8x1x8x8xf32>, %arg6: tensor<8xi32>) -> (tensor<f32>) {
    %v1 = "stablehlo.convolution"(%arg5, %arg0) <{batch_group_count = 1 : i64, feature_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, window_strides = array<i64: 1, 1>, padding = dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>}> : (tensor<8x1x8x8xf32>, tensor<4x1x3x3xf32>) -> (tensor<8x4x8x8xf32>)
    %v2 = "stablehlo.constant"() <{value = dense<"0x00000000"> : tensor<f32>}> : () -> (tensor<f32>)
    %v6 = "stablehlo.reduce"(%v1, %v2) <{dimensions = array<i64: 0, 2, 3>}> ({
    ^bb0(%t3: tensor<f32>, %t4: tensor<f32>):
      %t5 = "func.call"(%t3, %t4) <{callee = @add_F32.13}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t5) : (tensor<f32>) -> ()
    }) : (tensor<8x4x8x8xf32>, tensor<f32>) -> (tensor<4xf32>)
    %v7 = "stablehlo.constant"() <{value = dense<"0x00000044"> : tensor<f32>}> : () -> (tensor<f32>)
    %v8 = "stablehlo.broadcast_in_dim"(%v7) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<4xf32>)
    %v9 = "stablehlo.divide"(%v6, %v8) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>)
    %v10 = "stablehlo.broadcast_in_dim"(%v9) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xf32>) -> (tensor<8x4x8x8xf32>)
    %v11 = "stablehlo.subtract"(%v1, %v10) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v12 = "stablehlo.multiply"(%v11, %v11) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v13 = "stablehlo.constant"() <{value = dense<"0x00000000"> : tensor<f32>}> : () -> (tensor<f32>)
    %v17 = "stablehlo.reduce"(%v12, %v13) <{dimensions = array<i64: 0, 2, 3>}> ({
    ^bb0(%t14: tensor<f32>, %t15: tensor<f32>):
      %t16 = "func.call"(%t14, %t15) <{callee = @add_F32.13}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t16) : (tensor<f32>) -> ()
    }) : (tensor<8x4x8x8xf32>, tensor<f32>) -> (tensor<4xf32>)
    %v18 = "stablehlo.constant"() <{value = dense<"0x00000044"> : tensor<f32>}> : () -> (tensor<f32>)
    %v19 = "stablehlo.broadcast_in_dim"(%v18) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<4xf32>)
    %v20 = "stablehlo.divide"(%v17, %v19) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>)
    %v21 = "stablehlo.constant"() <{value = dense<"0xACC52737"> : tensor<f32>}> : () -> (tensor<f32>)
    %v22 = "stablehlo.broadcast_in_dim"(%v21) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<4xf32>)
    %v23 = "stablehlo.add"(%v20, %v22) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>)
    %v24 = "stablehlo.rsqrt"(%v23) : (tensor<4xf32>) -> (tensor<4xf32>)
    %v25 = "stablehlo.broadcast_in_dim"(%v24) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xf32>) -> (tensor<8x4x8x8xf32>)
    %v26 = "stablehlo.multiply"(%v11, %v25) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v27 = "stablehlo.broadcast_in_dim"(%arg1) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xf32>) -> (tensor<8x4x8x8xf32>)
    %v28 = "stablehlo.multiply"(%v26, %v27) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v29 = "stablehlo.broadcast_in_dim"(%arg2) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xf32>) -> (tensor<8x4x8x8xf32>)
    %v30 = "stablehlo.add"(%v28, %v29) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v31 = "stablehlo.constant"() <{value = dense<"0x00000000"> : tensor<f32>}> : () -> (tensor<f32>)
    %v32 = "stablehlo.broadcast_in_dim"(%v31) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<8x4x8x8xf32>)
    %v33 = "stablehlo.maximum"(%v30, %v32) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v34 = "stablehlo.constant"() <{value = dense<"0x000080FF"> : tensor<f32>}> : () -> (tensor<f32>)
    %v38 = "stablehlo.reduce_window"(%v33, %v34) <{window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>, padding = dense<[[0, 0], [0, 0], [0, 0], [0, 0]]> : tensor<4x2xi64>, base_dilations = array<i64: 1, 1, 1, 1>, window_dilations = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%t35: tensor<f32>, %t36: tensor<f32>):
      %t37 = "func.call"(%t35, %t36) <{callee = @max_F32.43}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t37) : (tensor<f32>) -> ()
    }) : (tensor<8x4x8x8xf32>, tensor<f32>) -> (tensor<8x4x4x4xf32>)
    %v39 = "stablehlo.reshape"(%v38) : (tensor<8x4x4x4xf32>) -> (tensor<8x64xf32>)
    %v40 = "stablehlo.dot_general"(%v39, %arg3) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<8x64xf32>, tensor<64x10xf32>) -> (tensor<8x10xf32>)
    %v41 = "stablehlo.broadcast_in_dim"(%arg4) <{broadcast_dimensions = array<i64: 1>}> : (tensor<10xf32>) -> (tensor<8x10xf32>)
    %v42 = "stablehlo.add"(%v40, %v41) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v43 = "stablehlo.constant"() <{value = dense<"0x000080FF"> : tensor<f32>}> : () -> (tensor<f32>)
    %v47 = "stablehlo.reduce"(%v42, %v43) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t44: tensor<f32>, %t45: tensor<f32>):
      %t46 = "func.call"(%t44, %t45) <{callee = @max_F32.43}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t46) : (tensor<f32>) -> ()
    }) : (tensor<8x10xf32>, tensor<f32>) -> (tensor<8xf32>)
    %v48 = "stablehlo.broadcast_in_dim"(%v47) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> (tensor<8x10xf32>)
    %v49 = "stablehlo.subtract"(%v42, %v48) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v50 = "stablehlo.exponential"(%v49) : (tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v51 = "stablehlo.constant"() <{value = dense<"0x00000000"> : tensor<f32>}> : () -> (tensor<f32>)
    %v55 = "stablehlo.reduce"(%v50, %v51) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t52: tensor<f32>, %t53: tensor<f32>):
      %t54 = "func.call"(%t52, %t53) <{callee = @add_F32.13}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t54) : (tensor<f32>) -> ()
    }) : (tensor<8x10xf32>, tensor<f32>) -> (tensor<8xf32>)
    %v56 = "stablehlo.log"(%v55) : (tensor<8xf32>) -> (tensor<8xf32>)
    %v57 = "stablehlo.broadcast_in_dim"(%v56) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> (tensor<8x10xf32>)
    %v58 = "stablehlo.subtract"(%v49, %v57) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v59 = "stablehlo.broadcast_in_dim"(%arg6) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xi32>) -> (tensor<8x10xi32>)
    %v60 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> (tensor<8x10xi32>)
    %v61 = "stablehlo.compare"(%v59, %v60) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<8x10xi32>, tensor<8x10xi32>) -> (tensor<8x10xi1>)
    %v62 = "stablehlo.convert"(%v61) : (tensor<8x10xi1>) -> (tensor<8x10xf32>)
    %v63 = "stablehlo.multiply"(%v62, %v58) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v64 = "stablehlo.constant"() <{value = dense<"0x00000000"> : tensor<f32>}> : () -> (tensor<f32>)
    %v68 = "stablehlo.reduce"(%v63, %v64) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%t65: tensor<f32>, %t66: tensor<f32>):
      %t67 = "func.call"(%t65, %t66) <{callee = @add_F32.13}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t67) : (tensor<f32>) -> ()
    }) : (tensor<8x10xf32>, tensor<f32>) -> (tensor<f32>)
    %v69 = "stablehlo.constant"() <{value = dense<"0x000000BE"> : tensor<f32>}> : () -> (tensor<f32>)
    %v70 = "stablehlo.multiply"(%v68, %v69) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    "func.return"(%v70) : (tensor<f32>) -> ()
  }
}
