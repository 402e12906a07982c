module @jit_while_loop attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<i32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}, tensor<4xf32> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_2 = %arg0) : tensor<i32>, tensor<4xf32>
    cond {
      %c_3 = stablehlo.constant dense<20> : tensor<i32>
      %3 = stablehlo.compare LT, %iterArg, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %4 = stablehlo.reduce(%iterArg_2 init: %cst_4) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
      %cst_5 = stablehlo.constant dense<1.000000e+02> : tensor<f32>
      %5 = stablehlo.compare LT, %4, %cst_5, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %c_6 = stablehlo.constant dense<false> : tensor<i1>
      %6 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i1>) -> tensor<i1>
      %7 = stablehlo.compare NE, %3, %6, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %8 = stablehlo.convert %7 : tensor<i1>
      %9 = stablehlo.and %8, %5 : tensor<i1>
      stablehlo.return %9 : tensor<i1>
    } do {
      %c_3 = stablehlo.constant dense<1> : tensor<i32>
      %3 = stablehlo.add %iterArg, %c_3 : tensor<i32>
      %cst_4 = stablehlo.constant dense<1.500000e+00> : tensor<f32>
      %4 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %5 = stablehlo.multiply %iterArg_2, %4 : tensor<4xf32>
      %cst_5 = stablehlo.constant dense<2.500000e-01> : tensor<f32>
      %6 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %7 = stablehlo.add %5, %6 : tensor<4xf32>
      stablehlo.return %3, %7 : tensor<i32>, tensor<4xf32>
    }
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %2:4 = stablehlo.while(%iterArg = %0#1, %iterArg_2 = %c_1, %iterArg_3 = %c_0, %iterArg_4 = %1) : tensor<4xf32>, tensor<i32>, tensor<i32>, tensor<4xf32>
    cond {
      %c_5 = stablehlo.constant dense<5> : tensor<i32>
      %3 = stablehlo.compare LT, %iterArg_2, %c_5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    } do {
      %3:2 = func.call @closed_call(%iterArg, %iterArg_3, %iterArg_4) : (tensor<4xf32>, tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
      %c_5 = stablehlo.constant dense<1> : tensor<i32>
      %4 = stablehlo.add %iterArg_2, %c_5 : tensor<i32>
      stablehlo.return %iterArg, %4, %3#0, %3#1 : tensor<4xf32>, tensor<i32>, tensor<i32>, tensor<4xf32>
    }
    return %0#0, %0#1, %2#3 : tensor<i32>, tensor<4xf32>, tensor<4xf32>
  }
  func.func private @closed_call(%arg0: tensor<4xf32>, %arg1: tensor<i32>, %arg2: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg1, %c : tensor<i32>
    %1 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %3 = stablehlo.multiply %2, %arg0 : tensor<4xf32>
    %4 = stablehlo.add %arg2, %3 : tensor<4xf32>
    return %0, %4 : tensor<i32>, tensor<4xf32>
  }
}
