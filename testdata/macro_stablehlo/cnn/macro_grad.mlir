module @cnn_grad {
  func.func private @add_F32.13(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>) {
    %v1 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    "func.return"(%v1) : (tensor<f32>) -> ()
  }
  func.func private @max_F32.43(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>) {
    %v1 = "stablehlo.maximum"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    "func.return"(%v1) : (tensor<f32>) -> ()
  }
  func.func private @add_F32.79(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>) {
    %v1 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    "func.return"(%v1) : (tensor<f32>) -> ()
  }
  func.func private @select.113(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<i1>) {
    %v1 = "stablehlo.compare"(%arg0, %arg1) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<f32>, tensor<f32>) -> (tensor<i1>)
    "func.return"(%v1) : (tensor<i1>) -> ()
  }
  func.func @main(%arg0: tensor<4x1x3x3xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>, %arg3: tensor<64x10xf32>, %arg4: tensor<10xf32>, %arg5: tensor<8x1x8x8xf32>, %arg6: tensor<8xi32>) -> (tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<64x10xf32>, tensor<10xf32>) {
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
    %v16 = "stablehlo.reduce"(%v12, %v2) <{dimensions = array<i64: 0, 2, 3>}> ({
    ^bb0(%t13: tensor<f32>, %t14: tensor<f32>):
      %t15 = "func.call"(%t13, %t14) <{callee = @add_F32.13}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t15) : (tensor<f32>) -> ()
    }) : (tensor<8x4x8x8xf32>, tensor<f32>) -> (tensor<4xf32>)
    %v17 = "stablehlo.divide"(%v16, %v8) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>)
    %v18 = "stablehlo.constant"() <{value = dense<"0xACC52737"> : tensor<f32>}> : () -> (tensor<f32>)
    %v19 = "stablehlo.broadcast_in_dim"(%v18) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<4xf32>)
    %v20 = "stablehlo.add"(%v17, %v19) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>)
    %v21 = "stablehlo.rsqrt"(%v20) : (tensor<4xf32>) -> (tensor<4xf32>)
    %v22 = "stablehlo.broadcast_in_dim"(%v21) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xf32>) -> (tensor<8x4x8x8xf32>)
    %v23 = "stablehlo.multiply"(%v11, %v22) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v24 = "stablehlo.broadcast_in_dim"(%arg1) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xf32>) -> (tensor<8x4x8x8xf32>)
    %v25 = "stablehlo.multiply"(%v23, %v24) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v26 = "stablehlo.broadcast_in_dim"(%arg2) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xf32>) -> (tensor<8x4x8x8xf32>)
    %v27 = "stablehlo.add"(%v25, %v26) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v28 = "stablehlo.broadcast_in_dim"(%v2) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<8x4x8x8xf32>)
    %v29 = "stablehlo.maximum"(%v27, %v28) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v30 = "stablehlo.constant"() <{value = dense<"0x000080FF"> : tensor<f32>}> : () -> (tensor<f32>)
    %v34 = "stablehlo.reduce_window"(%v29, %v30) <{window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>, padding = dense<[[0, 0], [0, 0], [0, 0], [0, 0]]> : tensor<4x2xi64>, base_dilations = array<i64: 1, 1, 1, 1>, window_dilations = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%t31: tensor<f32>, %t32: tensor<f32>):
      %t33 = "func.call"(%t31, %t32) <{callee = @max_F32.43}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t33) : (tensor<f32>) -> ()
    }) : (tensor<8x4x8x8xf32>, tensor<f32>) -> (tensor<8x4x4x4xf32>)
    %v35 = "stablehlo.reshape"(%v34) : (tensor<8x4x4x4xf32>) -> (tensor<8x64xf32>)
    %v36 = "stablehlo.dot_general"(%v35, %arg3) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<8x64xf32>, tensor<64x10xf32>) -> (tensor<8x10xf32>)
    %v37 = "stablehlo.broadcast_in_dim"(%arg4) <{broadcast_dimensions = array<i64: 1>}> : (tensor<10xf32>) -> (tensor<8x10xf32>)
    %v38 = "stablehlo.add"(%v36, %v37) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v42 = "stablehlo.reduce"(%v38, %v30) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t39: tensor<f32>, %t40: tensor<f32>):
      %t41 = "func.call"(%t39, %t40) <{callee = @max_F32.43}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t41) : (tensor<f32>) -> ()
    }) : (tensor<8x10xf32>, tensor<f32>) -> (tensor<8xf32>)
    %v43 = "stablehlo.broadcast_in_dim"(%v42) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> (tensor<8x10xf32>)
    %v44 = "stablehlo.subtract"(%v38, %v43) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v45 = "stablehlo.exponential"(%v44) : (tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v49 = "stablehlo.reduce"(%v45, %v2) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t46: tensor<f32>, %t47: tensor<f32>):
      %t48 = "func.call"(%t46, %t47) <{callee = @add_F32.13}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t48) : (tensor<f32>) -> ()
    }) : (tensor<8x10xf32>, tensor<f32>) -> (tensor<8xf32>)
    %v50 = "stablehlo.broadcast_in_dim"(%arg6) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xi32>) -> (tensor<8x10xi32>)
    %v51 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> (tensor<8x10xi32>)
    %v52 = "stablehlo.compare"(%v50, %v51) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<8x10xi32>, tensor<8x10xi32>) -> (tensor<8x10xi1>)
    %v53 = "stablehlo.convert"(%v52) : (tensor<8x10xi1>) -> (tensor<8x10xf32>)
    %v54 = "stablehlo.constant"() <{value = dense<"0x000000BE"> : tensor<f32>}> : () -> (tensor<f32>)
    %v55 = "stablehlo.constant"() <{value = dense<"0x0000803F"> : tensor<f32>}> : () -> (tensor<f32>)
    %v56 = "stablehlo.multiply"(%v55, %v54) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    %v57 = "stablehlo.broadcast_in_dim"(%v56) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<8x10xf32>)
    %v58 = "stablehlo.multiply"(%v57, %v53) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v59 = "stablehlo.negate"(%v58) : (tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v63 = "stablehlo.reduce"(%v59, %v2) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t60: tensor<f32>, %t61: tensor<f32>):
      %t62 = "func.call"(%t60, %t61) <{callee = @add_F32.79}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t62) : (tensor<f32>) -> ()
    }) : (tensor<8x10xf32>, tensor<f32>) -> (tensor<8xf32>)
    %v64 = "stablehlo.divide"(%v63, %v49) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>)
    %v65 = "stablehlo.broadcast_in_dim"(%v64) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> (tensor<8x10xf32>)
    %v66 = "stablehlo.multiply"(%v65, %v45) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v67 = "stablehlo.add"(%v58, %v66) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v68 = "stablehlo.negate"(%v67) : (tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v72 = "stablehlo.reduce"(%v68, %v2) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t69: tensor<f32>, %t70: tensor<f32>):
      %t71 = "func.call"(%t69, %t70) <{callee = @add_F32.79}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t71) : (tensor<f32>) -> ()
    }) : (tensor<8x10xf32>, tensor<f32>) -> (tensor<8xf32>)
    %v73 = "stablehlo.compare"(%v38, %v43) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xi1>)
    %v74 = "stablehlo.broadcast_in_dim"(%v30) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<8xf32>)
    %v75 = "stablehlo.compare"(%v42, %v74) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xi1>)
    %v76 = "stablehlo.convert"(%v73) : (tensor<8x10xi1>) -> (tensor<8x10xf32>)
    %v80 = "stablehlo.reduce"(%v76, %v2) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t77: tensor<f32>, %t78: tensor<f32>):
      %t79 = "func.call"(%t77, %t78) <{callee = @add_F32.79}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t79) : (tensor<f32>) -> ()
    }) : (tensor<8x10xf32>, tensor<f32>) -> (tensor<8xf32>)
    %v81 = "stablehlo.convert"(%v75) : (tensor<8xi1>) -> (tensor<8xf32>)
    %v82 = "stablehlo.add"(%v80, %v81) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>)
    %v83 = "stablehlo.divide"(%v72, %v82) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>)
    %v84 = "stablehlo.broadcast_in_dim"(%v83) <{broadcast_dimensions = array<i64: 0>}> : (tensor<8xf32>) -> (tensor<8x10xf32>)
    %v85 = "stablehlo.broadcast_in_dim"(%v2) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<8x10xf32>)
    %v86 = "stablehlo.select"(%v73, %v84, %v85) : (tensor<8x10xi1>, tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v87 = "stablehlo.add"(%v67, %v86) : (tensor<8x10xf32>, tensor<8x10xf32>) -> (tensor<8x10xf32>)
    %v91 = "stablehlo.reduce"(%v87, %v2) <{dimensions = array<i64: 0>}> ({
    ^bb0(%t88: tensor<f32>, %t89: tensor<f32>):
      %t90 = "func.call"(%t88, %t89) <{callee = @add_F32.79}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t90) : (tensor<f32>) -> ()
    }) : (tensor<8x10xf32>, tensor<f32>) -> (tensor<10xf32>)
    %v92 = "stablehlo.dot_general"(%v87, %arg3) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>}> : (tensor<8x10xf32>, tensor<64x10xf32>) -> (tensor<8x64xf32>)
    %v93 = "stablehlo.dot_general"(%v87, %v35) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<8x10xf32>, tensor<8x64xf32>) -> (tensor<10x64xf32>)
    %v94 = "stablehlo.transpose"(%v93) <{permutation = array<i64: 1, 0>}> : (tensor<10x64xf32>) -> (tensor<64x10xf32>)
    %v95 = "stablehlo.reshape"(%v92) : (tensor<8x64xf32>) -> (tensor<8x4x4x4xf32>)
    %v102 = "stablehlo.select_and_scatter"(%v29, %v95, %v2) <{window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>, padding = dense<[[0, 0], [0, 0], [0, 0], [0, 0]]> : tensor<4x2xi64>}> ({
    ^bb0(%t96: tensor<f32>, %t97: tensor<f32>):
      %t98 = "func.call"(%t96, %t97) <{callee = @select.113}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%t98) : (tensor<i1>) -> ()
    }, {
    ^bb0(%t99: tensor<f32>, %t100: tensor<f32>):
      %t101 = "func.call"(%t99, %t100) <{callee = @add_F32.79}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t101) : (tensor<f32>) -> ()
    }) : (tensor<8x4x8x8xf32>, tensor<8x4x4x4xf32>, tensor<f32>) -> (tensor<8x4x8x8xf32>)
    %v103 = "stablehlo.broadcast_in_dim"(%v55) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<8x4x8x8xf32>)
    %v104 = "stablehlo.constant"() <{value = dense<"0x0000003F"> : tensor<f32>}> : () -> (tensor<f32>)
    %v105 = "stablehlo.broadcast_in_dim"(%v104) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<8x4x8x8xf32>)
    %v106 = "stablehlo.compare"(%v28, %v29) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xi1>)
    %v107 = "stablehlo.select"(%v106, %v105, %v103) : (tensor<8x4x8x8xi1>, tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v108 = "stablehlo.compare"(%v27, %v29) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xi1>)
    %v109 = "stablehlo.select"(%v108, %v107, %v28) : (tensor<8x4x8x8xi1>, tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v110 = "stablehlo.multiply"(%v102, %v109) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v114 = "stablehlo.reduce"(%v110, %v2) <{dimensions = array<i64: 0, 2, 3>}> ({
    ^bb0(%t111: tensor<f32>, %t112: tensor<f32>):
      %t113 = "func.call"(%t111, %t112) <{callee = @add_F32.79}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t113) : (tensor<f32>) -> ()
    }) : (tensor<8x4x8x8xf32>, tensor<f32>) -> (tensor<4xf32>)
    %v115 = "stablehlo.multiply"(%v110, %v24) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v116 = "stablehlo.multiply"(%v110, %v23) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v120 = "stablehlo.reduce"(%v116, %v2) <{dimensions = array<i64: 0, 2, 3>}> ({
    ^bb0(%t117: tensor<f32>, %t118: tensor<f32>):
      %t119 = "func.call"(%t117, %t118) <{callee = @add_F32.79}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t119) : (tensor<f32>) -> ()
    }) : (tensor<8x4x8x8xf32>, tensor<f32>) -> (tensor<4xf32>)
    %v121 = "stablehlo.multiply"(%v115, %v22) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v122 = "stablehlo.multiply"(%v115, %v11) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v126 = "stablehlo.reduce"(%v122, %v2) <{dimensions = array<i64: 0, 2, 3>}> ({
    ^bb0(%t123: tensor<f32>, %t124: tensor<f32>):
      %t125 = "func.call"(%t123, %t124) <{callee = @add_F32.79}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t125) : (tensor<f32>) -> ()
    }) : (tensor<8x4x8x8xf32>, tensor<f32>) -> (tensor<4xf32>)
    %v127 = "stablehlo.divide"(%v21, %v20) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>)
    %v128 = "stablehlo.constant"() <{value = dense<"0x000000BF"> : tensor<f32>}> : () -> (tensor<f32>)
    %v129 = "stablehlo.broadcast_in_dim"(%v128) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<4xf32>)
    %v130 = "stablehlo.multiply"(%v127, %v129) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>)
    %v131 = "stablehlo.multiply"(%v126, %v130) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>)
    %v132 = "stablehlo.divide"(%v131, %v8) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>)
    %v133 = "stablehlo.broadcast_in_dim"(%v132) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xf32>) -> (tensor<8x4x8x8xf32>)
    %v134 = "stablehlo.multiply"(%v133, %v11) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v135 = "stablehlo.add"(%v121, %v134) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v136 = "stablehlo.add"(%v135, %v134) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v137 = "stablehlo.negate"(%v136) : (tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v141 = "stablehlo.reduce"(%v137, %v2) <{dimensions = array<i64: 0, 2, 3>}> ({
    ^bb0(%t138: tensor<f32>, %t139: tensor<f32>):
      %t140 = "func.call"(%t138, %t139) <{callee = @add_F32.79}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t140) : (tensor<f32>) -> ()
    }) : (tensor<8x4x8x8xf32>, tensor<f32>) -> (tensor<4xf32>)
    %v142 = "stablehlo.divide"(%v141, %v8) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>)
    %v143 = "stablehlo.broadcast_in_dim"(%v142) <{broadcast_dimensions = array<i64: 1>}> : (tensor<4xf32>) -> (tensor<8x4x8x8xf32>)
    %v144 = "stablehlo.add"(%v136, %v143) : (tensor<8x4x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<8x4x8x8xf32>)
    %v145 = "stablehlo.convolution"(%arg5, %v144) <{batch_group_count = 1 : i64, feature_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[f, b, 0, 1]x[i, o, 0, 1]->[f, b, 0, 1]>, window_strides = array<i64: 1, 1>, padding = dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>}> : (tensor<8x1x8x8xf32>, tensor<8x4x8x8xf32>) -> (tensor<4x1x3x3xf32>)
    %v146 = "stablehlo.tuple"(%v145, %v120, %v114, %v94, %v91) : (tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<64x10xf32>, tensor<10xf32>) -> (tuple<tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<64x10xf32>, tensor<10xf32>>)
    %t147 = "stablehlo.get_tuple_element"(%v146) <{index = 0 : i32}> : (tuple<tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<64x10xf32>, tensor<10xf32>>) -> tensor<4x1x3x3xf32>
    %t148 = "stablehlo.get_tuple_element"(%v146) <{index = 1 : i32}> : (tuple<tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<64x10xf32>, tensor<10xf32>>) -> tensor<4xf32>
    %t149 = "stablehlo.get_tuple_element"(%v146) <{index = 2 : i32}> : (tuple<tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<64x10xf32>, tensor<10xf32>>) -> tensor<4xf32>
    %t150 = "stablehlo.get_tuple_element"(%v146) <{index = 3 : i32}> : (tuple<tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<64x10xf32>, tensor<10xf32>>) -> tensor<64x10xf32>
    %t151 = "stablehlo.get_tuple_element"(%v146) <{index = 4 : i32}> : (tuple<tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<64x10xf32>, tensor<10xf32>>) -> tensor<10xf32>
    "func.return"(%t147, %t148, %t149, %t150, %t151) : (tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<64x10xf32>, tensor<10xf32>) -> ()
  }
}
