module @gp {
  func.func private @add_F64.43(%arg0: tensor<f64>, %arg1: tensor<f64>) -> (tensor<f64>) {
    %v1 = "stablehlo.add"(%arg0, %arg1) : (tensor<f64>, tensor<f64>) -> (tensor<f64>)
    "func.return"(%v1) : (tensor<f64>) -> ()
  }
  func.func @main(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>, %arg3: tensor<12xf64>, %arg4: tensor<12xf64>) -> (tensor<f64>) {
    %v1 = "stablehlo.constant"() <{value = dense<"0x0000000000000040"> : tensor<f64>}> : () -> (tensor<f64>)
    %v2 = "stablehlo.multiply"(%arg0, %v1) : (tensor<f64>, tensor<f64>) -> (tensor<f64>)
    %v3 = "stablehlo.exponential"(%v2) : (tensor<f64>) -> (tensor<f64>)
    %v4 = "stablehlo.constant"() <{value = dense<"0x0000000000000040"> : tensor<f64>}> : () -> (tensor<f64>)
    %v5 = "stablehlo.multiply"(%arg1, %v4) : (tensor<f64>, tensor<f64>) -> (tensor<f64>)
    %v6 = "stablehlo.exponential"(%v5) : (tensor<f64>) -> (tensor<f64>)
    %v7 = "stablehlo.constant"() <{value = dense<"0x0000000000000040"> : tensor<f64>}> : () -> (tensor<f64>)
    %v8 = "stablehlo.multiply"(%arg2, %v7) : (tensor<f64>, tensor<f64>) -> (tensor<f64>)
    %v9 = "stablehlo.exponential"(%v8) : (tensor<f64>) -> (tensor<f64>)
    %v10 = "stablehlo.broadcast_in_dim"(%arg3) <{broadcast_dimensions = array<i64: 0>}> : (tensor<12xf64>) -> (tensor<12x12xf64>)
    %v11 = "stablehlo.broadcast_in_dim"(%arg3) <{broadcast_dimensions = array<i64: 1>}> : (tensor<12xf64>) -> (tensor<12x12xf64>)
    %v12 = "stablehlo.subtract"(%v10, %v11) : (tensor<12x12xf64>, tensor<12x12xf64>) -> (tensor<12x12xf64>)
    %v13 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> (tensor<12x12xi32>)
    %v14 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> (tensor<12x12xi32>)
    %v15 = "stablehlo.compare"(%v13, %v14) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<12x12xi32>, tensor<12x12xi32>) -> (tensor<12x12xi1>)
    %v16 = "stablehlo.convert"(%v15) : (tensor<12x12xi1>) -> (tensor<12x12xf64>)
    %v17 = "stablehlo.multiply"(%v12, %v12) : (tensor<12x12xf64>, tensor<12x12xf64>) -> (tensor<12x12xf64>)
    %v18 = "stablehlo.constant"() <{value = dense<"0x000000000000E0BF"> : tensor<f64>}> : () -> (tensor<f64>)
    %v19 = "stablehlo.divide"(%v18, %v3) : (tensor<f64>, tensor<f64>) -> (tensor<f64>)
    %v20 = "stablehlo.broadcast_in_dim"(%v19) <{broadcast_dimensions = array<i64>}> : (tensor<f64>) -> (tensor<12x12xf64>)
    %v21 = "stablehlo.multiply"(%v17, %v20) : (tensor<12x12xf64>, tensor<12x12xf64>) -> (tensor<12x12xf64>)
    %v22 = "stablehlo.exponential"(%v21) : (tensor<12x12xf64>) -> (tensor<12x12xf64>)
    %v23 = "stablehlo.broadcast_in_dim"(%v6) <{broadcast_dimensions = array<i64>}> : (tensor<f64>) -> (tensor<12x12xf64>)
    %v24 = "stablehlo.multiply"(%v22, %v23) : (tensor<12x12xf64>, tensor<12x12xf64>) -> (tensor<12x12xf64>)
    %v25 = "stablehlo.broadcast_in_dim"(%v9) <{broadcast_dimensions = array<i64>}> : (tensor<f64>) -> (tensor<12x12xf64>)
    %v26 = "stablehlo.multiply"(%v16, %v25) : (tensor<12x12xf64>, tensor<12x12xf64>) -> (tensor<12x12xf64>)
    %v27 = "stablehlo.add"(%v24, %v26) : (tensor<12x12xf64>, tensor<12x12xf64>) -> (tensor<12x12xf64>)
    %v28 = "stablehlo.cholesky"(%v27) <{lower = true}> : (tensor<12x12xf64>) -> (tensor<12x12xf64>)
    %v29 = "stablehlo.reshape"(%arg4) : (tensor<12xf64>) -> (tensor<12x1xf64>)
    %v30 = "stablehlo.triangular_solve"(%v28, %v29) <{left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>}> : (tensor<12x12xf64>, tensor<12x1xf64>) -> (tensor<12x1xf64>)
    %v31 = "stablehlo.transpose"(%v28) <{permutation = array<i64: 1, 0>}> : (tensor<12x12xf64>) -> (tensor<12x12xf64>)
    %v32 = "stablehlo.triangular_solve"(%v31, %v30) <{left_side = true, lower = false, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>}> : (tensor<12x12xf64>, tensor<12x1xf64>) -> (tensor<12x1xf64>)
    %v33 = "stablehlo.multiply"(%v28, %v16) : (tensor<12x12xf64>, tensor<12x12xf64>) -> (tensor<12x12xf64>)
    %v34 = "stablehlo.constant"() <{value = dense<"0x0000000000000000"> : tensor<f64>}> : () -> (tensor<f64>)
    %v38 = "stablehlo.reduce"(%v33, %v34) <{dimensions = array<i64: 1>}> ({
    ^bb0(%t35: tensor<f64>, %t36: tensor<f64>):
      %t37 = "func.call"(%t35, %t36) <{callee = @add_F64.43}> : (tensor<f64>, tensor<f64>) -> tensor<f64>
      "stablehlo.return"(%t37) : (tensor<f64>) -> ()
    }) : (tensor<12x12xf64>, tensor<f64>) -> (tensor<12xf64>)
    %v39 = "stablehlo.log"(%v38) : (tensor<12xf64>) -> (tensor<12xf64>)
    %v40 = "stablehlo.constant"() <{value = dense<"0x0000000000000000"> : tensor<f64>}> : () -> (tensor<f64>)
    %v44 = "stablehlo.reduce"(%v39, %v40) <{dimensions = array<i64: 0>}> ({
    ^bb0(%t41: tensor<f64>, %t42: tensor<f64>):
      %t43 = "func.call"(%t41, %t42) <{callee = @add_F64.43}> : (tensor<f64>, tensor<f64>) -> tensor<f64>
      "stablehlo.return"(%t43) : (tensor<f64>) -> ()
    }) : (tensor<12xf64>, tensor<f64>) -> (tensor<f64>)
    %v45 = "stablehlo.multiply"(%v29, %v32) : (tensor<12x1xf64>, tensor<12x1xf64>) -> (tensor<12x1xf64>)
    %v46 = "stablehlo.constant"() <{value = dense<"0x0000000000000000"> : tensor<f64>}> : () -> (tensor<f64>)
    %v50 = "stablehlo.reduce"(%v45, %v46) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%t47: tensor<f64>, %t48: tensor<f64>):
      %t49 = "func.call"(%t47, %t48) <{callee = @add_F64.43}> : (tensor<f64>, tensor<f64>) -> tensor<f64>
      "stablehlo.return"(%t49) : (tensor<f64>) -> ()
    }) : (tensor<12x1xf64>, tensor<f64>) -> (tensor<f64>)
    %v51 = "stablehlo.constant"() <{value = dense<"0x000000000000E03F"> : tensor<f64>}> : () -> (tensor<f64>)
    %v52 = "stablehlo.multiply"(%v50, %v51) : (tensor<f64>, tensor<f64>) -> (tensor<f64>)
    %v53 = "stablehlo.add"(%v52, %v44) : (tensor<f64>, tensor<f64>) -> (tensor<f64>)
    %v54 = "stablehlo.constant"() <{value = dense<"0x078F4B56F50D2640"> : tensor<f64>}> : () -> (tensor<f64>)
    %v55 = "stablehlo.add"(%v53, %v54) : (tensor<f64>, tensor<f64>) -> (tensor<f64>)
    "func.return"(%v55) : (tensor<f64>) -> ()
  }
}
