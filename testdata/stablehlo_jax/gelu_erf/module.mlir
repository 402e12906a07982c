module @jit_gelu_erf attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf32>) -> (tensor<3x5xf32> {jax.result_info = "result[0]"}, tensor<3x5xf32> {jax.result_info = "result[1]"}, tensor<3x5xf32> {jax.result_info = "result[2]"}) {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %1 = stablehlo.multiply %0, %arg0 : tensor<3x5xf32>
    %2 = stablehlo.negate %arg0 : tensor<3x5xf32>
    %cst_0 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %4 = stablehlo.multiply %2, %3 : tensor<3x5xf32>
    %5 = chlo.erfc %4 : tensor<3x5xf32> -> tensor<3x5xf32>
    %6 = stablehlo.multiply %1, %5 : tensor<3x5xf32>
    %7 = chlo.erf %arg0 : tensor<3x5xf32> -> tensor<3x5xf32>
    %8 = stablehlo.multiply %arg0, %arg0 : tensor<3x5xf32>
    %9 = stablehlo.multiply %8, %arg0 : tensor<3x5xf32>
    %cst_1 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %11 = stablehlo.multiply %10, %9 : tensor<3x5xf32>
    %12 = stablehlo.add %arg0, %11 : tensor<3x5xf32>
    %cst_2 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %14 = stablehlo.multiply %13, %12 : tensor<3x5xf32>
    %15 = stablehlo.tanh %14 : tensor<3x5xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %17 = stablehlo.add %16, %15 : tensor<3x5xf32>
    %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %19 = stablehlo.multiply %18, %17 : tensor<3x5xf32>
    %20 = stablehlo.multiply %arg0, %19 : tensor<3x5xf32>
    return %6, %7, %20 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>
  }
}
