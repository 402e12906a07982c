module @cnn_bn_op_grad {
  func.func private @max_F32.18(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>) {
    %v1 = "stablehlo.maximum"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    "func.return"(%v1) : (tensor<f32>) -> ()
  }
  func.func private @add_F32.33(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>) {
    %v1 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    "func.return"(%v1) : (tensor<f32>) -> ()
  }
  func.func private @add_F32.58(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>) {
    %v1 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    "func.return"(%v1) : (tensor<f32>) -> ()
  }
  func.func private @select.92(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<i1>) {
    %v1 = "stablehlo.compare"(%arg0, %arg1) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<f32>, tensor<f32>) -> (tensor<i1>)
    "func.return"(%v1) : (tensor<i1>) -> ()
  }
  func.func @main(%arg0: tensor<4x1x3x3xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>, %arg3: tensor<64x10xf32>, %arg4: tensor<10xf32>, %arg5: tensor<8x1x8x8xf32>, %arg6: tensor<8xi32>) -> (tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<64x10xf32>, tensor<10xf32>) {
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
    %v18 = "stablehlo.reduce"(%v14, %v6) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t15: tensor<f32>, %t16: tensor<f32>):
      %t17 = "func.call"(%t15, %t16) <{callee = @max_F32.18}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t17) : (tensor<f32>) -> ()
    }) : (tensor<8x10xf32>, tensor<f32>) -> (tensor<8xf32>)
    %v19 = "stablehlo.broadcast_in_dim"(%v18) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> (tensor<8x10xf32>)
    %v20 = "stablehlo.subtract"(%v14, %v19) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v21 = "stablehlo.exponential"(%v20) : (tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v25 = "stablehlo.reduce"(%v21, %v3) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t22: tensor<f32>, %t23: tensor<f32>):
      %t24 = "func.call"(%t22, %t23) <{callee = @add_F32.33}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t24) : (tensor<f32>) -> ()
    }) : (tensor<8x10xf32>, tensor<f32>) -> (tensor<8xf32>)
    %v26 = "stablehlo.broadcast_in_dim"(%arg6) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xi32>) -> (tensor<8x10xi32>)
    %v27 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> (tensor<8x10xi32>)
    %v28 = "stablehlo.compare"(%v26, %v27) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<8x10xi32>, tensor<8x10xi32>) -> (tensor<8x10xi1>)
    %v29 = "stablehlo.convert"(%v28) : (tensor<8x10xi1>) -> (tensor<8x10xf32>)
    %v30 = "stablehlo.constant"() <{value = dense<"0x000000BE"> : tensor<f32>}> : () -> (tensor<f32>)
    %v31 = "stablehlo.constant"() <{value = dense<"0x0000803F"> : tensor<f32>}> : () -> (tensor<f32>)
    %v32 = "stablehlo.multiply"(%v31, %v30) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    %v33 = "stablehlo.broadcast_in_dim"(%v32) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<8x10xf32>)
    %v34 = "stablehlo.multiply"(%v33, %v29) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v35 = "stablehlo.negate"(%v34) : (tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v39 = "stablehlo.reduce"(%v35, %v3) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t36: tensor<f32>, %t37: tensor<f32>):
      %t38 = "func.call"(%t36, %t37) <{callee = @add_F32.58}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t38) : (tensor<f32>) -> ()
    }) : (tensor<8x10xf32>, tensor<f32>) -> (tensor<8xf32>)
    %v40 = "stablehlo.divide"(%v39, %v25) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>)
    %v41 = "stablehlo.broadcast_in_dim"(%v40) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> (tensor<8x10xf32>)
    %v42 = "stablehlo.multiply"(%v41, %v21) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v43 = "stablehlo.add"(%v34, %v42) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v44 = "stablehlo.negate"(%v43) : (tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v48 = "stablehlo.reduce"(%v44, %v3) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t45: tensor<f32>, %t46: tensor<f32>):
      %t47 = "func.call"(%t45, %t46) <{callee = @add_F32.58}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t47) : (tensor<f32>) -> ()
    }) : (tensor<8x10xf32>, tensor<f32>) -> (tensor<8xf32>)
    %v49 = "stablehlo.compare"(%v14, %v19) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xi1>)
    %v50 = "stablehlo.broadcast_in_dim"(%v6) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<8xf32>)
    %v51 = "stablehlo.compare"(%v18, %v50) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xi1>)
    %v52 = "stablehlo.convert"(%v49) : (tensor<8x10xi1>) -> (tensor<8x10xf32>)
    %v56 = "stablehlo.reduce"(%v52, %v3) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t53: tensor<f32>, %t54: tensor<f32>):
      %t55 = "func.call"(%t53, %t54) <{callee = @add_F32.58}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t55) : (tensor<f32>) -> ()
    }) : (tensor<8x10xf32>, tensor<f32>) -> (tensor<8xf32>)
    %v57 = "stablehlo.convert"(%v51) : (tensor<8xi1>) -> (tensor<8xf32>)
    %v58 = "stablehlo.add"(%v56, %v57) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>)
    %v59 = "stablehlo.divide"(%v48, %v58) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>)
    %v60 = "stablehlo.broadcast_in_dim"(%v59) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> (tensor<8x10xf32>)
    %v61 = "stablehlo.broadcast_in_dim"(%v3) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<8x10xf32>)
    %v62 = "stablehlo.select"(%v49, %v60, %v61) : (tensor<8x10xi1>, tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v63 = "stablehlo.add"(%v43, %v62) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v67 = "stablehlo.reduce"(%v63, %v3) <{dimensions = array<i64: 0>}> ({
    ^bb0(%t64: tensor<f32>, %t65: tensor<f32>):
      %t66 = "func.call"(%t64, %t65) <{callee = @add_F32.58}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t66) : (tensor<f32>) -> ()
    }) : (tensor<8x10xf32>, tensor<f32>) -> (tensor<10xf32>)
    %v68 = "stablehlo.dot_general"(%v63, %arg3) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>}> : (tensor<8x10xf32>, tensor<64x10xf32>) -> (tensor<8x64xf32>)
    %v69 = "stablehlo.dot_general"(%v63, %v11) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<8x10xf32>, tensor<8x64xf32>) -> (tensor<10x64xf32>)
    %v70 = "stablehlo.transpose"(%v69) <{permutation = array<i64: 1, 0>}> : (tensor<10x64xf32>) -> (tensor<64x10xf32>)
    %v71 = "stablehlo.reshape"(%v68) : (tensor<8x64xf32>) -> (tensor<8x4x4x4xf32>)
    %v78 = "stablehlo.select_and_scatter"(%v5, %v71, %v3) <{window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>, padding = dense<[[0, 0], [0, 0], [0, 0], [0, 0]]> : tensor<4x2xi64>}> ({
    ^bb0(%t72: tensor<f32>, %t73: tensor<f32>):
      %t74 = "func.call"(%t72, %t73) <{callee = @select.92}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%t74) : (tensor<i1>) -> ()
    }, {
    ^bb0(%t75: tensor<f32>, %t76: tensor<f32>):
      %t77 = "func.call"(%t75, %t76) <{callee = @add_F32.58}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t77) : (tensor<f32>) -> ()
    }) : (tensor<8x4x8x8xf32>, tensor<8x4x4x4xf32>, tensor<f32>) -> (tensor<8x4x8x8xf32>)
    %v79 = "stablehlo.broadcast_in_dim"(%v31) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<8x4x8x8xf32>)
    %v80 = "stablehlo.constant"() <{value = dense<"0x0000003F"> : tensor<f32>}> : () -> (tensor<f32>)
    %v81 = "stablehlo.broadcast_in_dim"(%v80) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<8x4x8x8xf32>)
    %v82 = "stablehlo.compare"(%v4, %v5) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xi1>)
    %v83 = "stablehlo.select"(%v82, %v81, %v79) : (tensor<8x4x8x8xi1>, tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v84 = "stablehlo.compare"(%v2#0, %v5) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xi1>)
    %v85 = "stablehlo.select"(%v84, %v83, %v4) : (tensor<8x4x8x8xi1>, tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v86 = "stablehlo.multiply"(%v78, %v85) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v87:3 = "stablehlo.batch_norm_grad"(%v1, %arg1, %v2#1, %v2#2, %v86) <{epsilon = 9.99999975e-6 : f32, feature_index = 1 : i64}> : (tensor<8x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
    %v88 = "stablehlo.convolution"(%arg5, %v87#0) <{batch_group_count = 1 : i64, feature_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[f, b, 0, 1]x[i, o, 0, 1]->[f, b, 0, 1]>, window_strides = array<i64: 1, 1>, padding = dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>}> : (tensor<8x1x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<4x1x3x3xf32>)
    %v89 = "stablehlo.tuple"(%v88, %v87#1, %v87#2, %v70, %v67) : (tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<64x10xf32>, tensor<10xf32>) -> (tuple<tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<64x10xf32>, tensor<10xf32>>)
    %t90 = "stablehlo.get_tuple_element"(%v89) <{index = 0 : i32}> : (tuple<tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<64x10xf32>, tensor<10xf32>>) -> tensor<4x1x3x3xf32>
    %t91 = "stablehlo.get_tuple_element"(%v89) <{index = 1 : i32}> : (tuple<tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<64x10xf32>, tensor<10xf32>>) -> tensor<4xf32>
    %t92 = "stablehlo.get_tuple_element"(%v89) <{index = 2 : i32}> : (tuple<tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<64x10xf32>, tensor<10xf32>>) -> tensor<4xf32>
    %t93 = "stablehlo.get_tuple_element"(%v89) <{index = 3 : i32}> : (tuple<tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<64x10xf32>, tensor<10xf32>>) -> tensor<64x10xf32>
    %t94 = "stablehlo.get_tuple_element"(%v89) <{index = 4 : i32}> : (tuple<tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<64x10xf32>, tensor<10xf32>>) -> tensor<10xf32>
    "func.return"(%t90, %t91, %t92, %t93, %t94) : (tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<64x10xf32>, tensor<10xf32>) -> ()
  }
}
