module @jit_argmax_softmax attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x7xf32>) -> (tensor<5xi32> {jax.result_info = "result[0]"}, tensor<5x7xf32> {jax.result_info = "result[1]"}, tensor<7xf32> {jax.result_info = "result[2]"}, tensor<7xi32> {jax.result_info = "result[3]"}) {
    %0 = call @argmax(%arg0) : (tensor<5x7xf32>) -> tensor<5xi32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<5x7xf32>, tensor<f32>) -> tensor<5xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %3 = stablehlo.maximum %2, %1 : tensor<5xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x7xf32>
    %6 = stablehlo.subtract %arg0, %5 : tensor<5x7xf32>
    %7 = stablehlo.exponential %6 : tensor<5x7xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%7 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<5x7xf32>, tensor<f32>) -> tensor<5xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x7xf32>
    %11 = stablehlo.divide %7, %10 : tensor<5x7xf32>
    %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %12 = stablehlo.reduce(%arg0 init: %cst_2) applies stablehlo.maximum across dimensions = [0] : (tensor<5x7xf32>, tensor<f32>) -> tensor<7xf32>
    %13 = call @argmin(%arg0) : (tensor<5x7xf32>) -> tensor<7xi32>
    return %0, %11, %12, %13 : tensor<5xi32>, tensor<5x7xf32>, tensor<7xf32>, tensor<7xi32>
  }
  func.func private @argmax(%arg0: tensor<5x7xf32>) -> tensor<5xi32> {
    %0 = stablehlo.iota dim = 1 : tensor<5x7xi32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<5x7xf32>, tensor<5x7xi32>, tensor<f32>, tensor<i32>) -> (tensor<5xf32>, tensor<5xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    return %1#1 : tensor<5xi32>
  }
  func.func private @argmin(%arg0: tensor<5x7xf32>) -> tensor<7xi32> {
    %0 = stablehlo.iota dim = 0 : tensor<5x7xi32>
    %cst = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [0] : (tensor<5x7xf32>, tensor<5x7xi32>, tensor<f32>, tensor<i32>) -> (tensor<7xf32>, tensor<7xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare LT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    return %1#1 : tensor<7xi32>
  }
}
