module @jit_switch attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32>, %arg1: tensor<5xf32>) -> (tensor<5xf32> {jax.result_info = "result[0]"}, tensor<5xf32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<2> : tensor<i32>
    %0 = stablehlo.clamp %c, %arg0, %c_0 : tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %6 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %7 = stablehlo.multiply %arg1, %6 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }, {
      %6 = stablehlo.sine %arg1 : tensor<5xf32>
      stablehlo.return %6 : tensor<5xf32>
    }, {
      %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %6 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %7 = stablehlo.subtract %arg1, %6 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }) : (tensor<i32>) -> tensor<5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%arg1 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.compare GT, %2, %cst_1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %4 = stablehlo.convert %3 : (tensor<i1>) -> tensor<i32>
    %5 = "stablehlo.case"(%4) ({
      %6 = stablehlo.multiply %arg1, %arg1 : tensor<5xf32>
      stablehlo.return %6 : tensor<5xf32>
    }, {
      %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %6 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %7 = stablehlo.add %arg1, %6 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }) : (tensor<i32>) -> tensor<5xf32>
    return %1, %5 : tensor<5xf32>, tensor<5xf32>
  }
}
