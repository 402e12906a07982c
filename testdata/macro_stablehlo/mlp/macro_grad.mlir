module @mlp_grad {
  func.func private @max_F32.18(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>) {
    %v1 = "stablehlo.maximum"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    "func.return"(%v1) : (tensor<f32>) -> ()
  }
  func.func private @add_F32.27(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>) {
    %v1 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    "func.return"(%v1) : (tensor<f32>) -> ()
  }
  func.func private @add_F32.52(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>) {
    %v1 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    "func.return"(%v1) : (tensor<f32>) -> ()
  }
  func.func @main(%arg0: tensor<64x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32x10xf32>, %arg3: tensor<10xf32>, %arg4: tensor<16x64xf32>, %arg5: tensor<16xi32>) -> (tensor<64x32xf32>, tensor<32xf32>, tensor<32x10xf32>, tensor<10xf32>) {
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
    %v21 = "stablehlo.broadcast_in_dim"(%arg5) <{broadcast_dimensions = array<i64: 0>}> : (tensor<16xi32>) -> (tensor<16x10xi32>)
    %v22 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> (tensor<16x10xi32>)
    %v23 = "stablehlo.compare"(%v21, %v22) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<16x10xi32>, tensor<16x10xi32>) -> (tensor<16x10xi1>)
    %v24 = "stablehlo.convert"(%v23) : (tensor<16x10xi1>) -> (tensor<16x10xf32>)
    %v25 = "stablehlo.constant"() <{value = dense<"0x000080BD"> : tensor<f32>}> : () -> (tensor<f32>)
    %v26 = "stablehlo.constant"() <{value = dense<"0x0000803F"> : tensor<f32>}> : () -> (tensor<f32>)
    %v27 = "stablehlo.multiply"(%v26, %v25) : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
    %v28 = "stablehlo.broadcast_in_dim"(%v27) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<16x10xf32>)
    %v29 = "stablehlo.multiply"(%v28, %v24) : (tensor<16x10xf32>, tensor<16x10xf32>) -> (tensor<16x10xf32>)
    %v30 = "stablehlo.negate"(%v29) : (tensor<16x10xf32>) -> (tensor<16x10xf32>)
    %v34 = "stablehlo.reduce"(%v30, %v16) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t31: tensor<f32>, %t32: tensor<f32>):
      %t33 = "func.call"(%t31, %t32) <{callee = @add_F32.52}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t33) : (tensor<f32>) -> ()
    }) : (tensor<16x10xf32>, tensor<f32>) -> (tensor<16xf32>)
    %v35 = "stablehlo.divide"(%v34, %v20) : (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>)
    %v36 = "stablehlo.broadcast_in_dim"(%v35) <{broadcast_dimensions = array<i64: 0>}> : (tensor<16xf32>) -> (tensor<16x10xf32>)
    %v37 = "stablehlo.multiply"(%v36, %v15) : (tensor<16x10xf32>, tensor<16x10xf32>) -> (tensor<16x10xf32>)
    %v38 = "stablehlo.add"(%v29, %v37) : (tensor<16x10xf32>, tensor<16x10xf32>) -> (tensor<16x10xf32>)
    %v39 = "stablehlo.negate"(%v38) : (tensor<16x10xf32>) -> (tensor<16x10xf32>)
    %v43 = "stablehlo.reduce"(%v39, %v16) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t40: tensor<f32>, %t41: tensor<f32>):
      %t42 = "func.call"(%t40, %t41) <{callee = @add_F32.52}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t42) : (tensor<f32>) -> ()
    }) : (tensor<16x10xf32>, tensor<f32>) -> (tensor<16xf32>)
    %v44 = "stablehlo.compare"(%v7, %v13) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<16x10xf32>, tensor<16x10xf32>) -> (tensor<16x10xi1>)
    %v45 = "stablehlo.broadcast_in_dim"(%v8) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<16xf32>)
    %v46 = "stablehlo.compare"(%v12, %v45) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xi1>)
    %v47 = "stablehlo.convert"(%v44) : (tensor<16x10xi1>) -> (tensor<16x10xf32>)
    %v51 = "stablehlo.reduce"(%v47, %v16) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t48: tensor<f32>, %t49: tensor<f32>):
      %t50 = "func.call"(%t48, %t49) <{callee = @add_F32.52}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t50) : (tensor<f32>) -> ()
    }) : (tensor<16x10xf32>, tensor<f32>) -> (tensor<16xf32>)
    %v52 = "stablehlo.convert"(%v46) : (tensor<16xi1>) -> (tensor<16xf32>)
    %v53 = "stablehlo.add"(%v51, %v52) : (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>)
    %v54 = "stablehlo.divide"(%v43, %v53) : (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>)
    %v55 = "stablehlo.broadcast_in_dim"(%v54) <{broadcast_dimensions = array<i64: 0>}> : (tensor<16xf32>) -> (tensor<16x10xf32>)
    %v56 = "stablehlo.broadcast_in_dim"(%v16) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<16x10xf32>)
    %v57 = "stablehlo.select"(%v44, %v55, %v56) : (tensor<16x10xi1>, tensor<16x10xf32>, tensor<16x10xf32>) -> (tensor<16x10xf32>)
    %v58 = "stablehlo.add"(%v38, %v57) : (tensor<16x10xf32>, tensor<16x10xf32>) -> (tensor<16x10xf32>)
    %v62 = "stablehlo.reduce"(%v58, %v16) <{dimensions = array<i64: 0>}> ({
    ^bb0(%t59: tensor<f32>, %t60: tensor<f32>):
      %t61 = "func.call"(%t59, %t60) <{callee = @add_F32.52}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t61) : (tensor<f32>) -> ()
    }) : (tensor<16x10xf32>, tensor<f32>) -> (tensor<10xf32>)
    %v63 = "stablehlo.dot_general"(%v58, %arg2) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>}> : (tensor<16x10xf32>, tensor<32x10xf32>) -> (tensor<16x32xf32>)
    %v64 = "stablehlo.dot_general"(%v58, %v4) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<16x10xf32>, tensor<16x32xf32>) -> (tensor<10x32xf32>)
    %v65 = "stablehlo.transpose"(%v64) <{permutation = array<i64: 1, 0>}> : (tensor<10x32xf32>) -> (tensor<32x10xf32>)
    %v66 = "stablehlo.broadcast_in_dim"(%v26) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> (tensor<16x32xf32>)
    %v67 = "stablehlo.multiply"(%v4, %v4) : (tensor<16x32xf32>, tensor<16x32xf32>) -> (tensor<16x32xf32>)
    %v68 = "stablehlo.subtract"(%v66, %v67) : (tensor<16x32xf32>, tensor<16x32xf32>) -> (tensor<16x32xf32>)
    %v69 = "stablehlo.multiply"(%v63, %v68) : (tensor<16x32xf32>, tensor<16x32xf32>) -> (tensor<16x32xf32>)
    %v73 = "stablehlo.reduce"(%v69, %v16) <{dimensions = array<i64: 0>}> ({
    ^bb0(%t70: tensor<f32>, %t71: tensor<f32>):
      %t72 = "func.call"(%t70, %t71) <{callee = @add_F32.52}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t72) : (tensor<f32>) -> ()
    }) : (tensor<16x32xf32>, tensor<f32>) -> (tensor<32xf32>)
    %v74 = "stablehlo.dot_general"(%v69, %arg4) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<16x32xf32>, tensor<16x64xf32>) -> (tensor<32x64xf32>)
    %v75 = "stablehlo.transpose"(%v74) <{permutation = array<i64: 1, 0>}> : (tensor<32x64xf32>) -> (tensor<64x32xf32>)
    %v76 = "stablehlo.tuple"(%v75, %v73, %v65, %v62) : (tensor<64x32xf32>, tensor<32xf32>, tensor<32x10xf32>, tensor<10xf32>) -> (tuple<tensor<64x32xf32>, tensor<32xf32>, tensor<32x10xf32>, tensor<10xf32>>)
    %t77 = "stablehlo.get_tuple_element"(%v76) <{index = 0 : i32}> : (tuple<tensor<64x32xf32>, tensor<32xf32>, tensor<32x10xf32>, tensor<10xf32>>) -> tensor<64x32xf32>
    %t78 = "stablehlo.get_tuple_element"(%v76) <{index = 1 : i32}> : (tuple<tensor<64x32xf32>, tensor<32xf32>, tensor<32x10xf32>, tensor<10xf32>>) -> tensor<32xf32>
    %t79 = "stablehlo.get_tuple_element"(%v76) <{index = 2 : i32}> : (tuple<tensor<64x32xf32>, tensor<32xf32>, tensor<32x10xf32>, tensor<10xf32>>) -> tensor<32x10xf32>
    %t80 = "stablehlo.get_tuple_element"(%v76) <{index = 3 : i32}> : (tuple<tensor<64x32xf32>, tensor<32xf32>, tensor<32x10xf32>, tensor<10xf32>>) -> tensor<10xf32>
    "func.return"(%t77, %t78, %t79, %t80) : (tensor<64x32xf32>, tensor<32xf32>, tensor<32x10xf32>, tensor<10xf32>) -> ()
  }
}
