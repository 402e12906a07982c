module @jit_special attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x6xf32>) -> (tensor<2x6xf32> {jax.result_info = "result[0]"}, tensor<2x6xf32> {jax.result_info = "result[1]"}, tensor<2x6xf32> {jax.result_info = "result[2]"}, tensor<2x6xf32> {jax.result_info = "result[3]"}, tensor<2x6xf32> {jax.result_info = "result[4]"}, tensor<2x6xf32> {jax.result_info = "result[5]"}, tensor<2x6xf32> {jax.result_info = "result[6]"}, tensor<2x6xf32> {jax.result_info = "result[7]"}, tensor<2x6xf32> {jax.result_info = "result[8]"}, tensor<2x6xf32> {jax.result_info = "result[9]"}, tensor<2x6xf32> {jax.result_info = "result[10]"}, tensor<2x6xf32> {jax.result_info = "result[11]"}, tensor<2x6xf32> {jax.result_info = "result[12]"}, tensor<2x6xf32> {jax.result_info = "result[13]"}) {
    %0 = stablehlo.abs %arg0 : tensor<2x6xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x6xf32>
    %2 = stablehlo.add %0, %1 : tensor<2x6xf32>
    %3 = stablehlo.tanh %arg0 : tensor<2x6xf32>
    %cst_0 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x6xf32>
    %5 = stablehlo.multiply %3, %4 : tensor<2x6xf32>
    %cst_1 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x6xf32>
    %7 = stablehlo.multiply %arg0, %6 : tensor<2x6xf32>
    %8 = stablehlo.tan %7 : tensor<2x6xf32>
    %9 = chlo.erf_inv %5 : tensor<2x6xf32> -> tensor<2x6xf32>
    %10 = chlo.lgamma %2 : tensor<2x6xf32> -> tensor<2x6xf32>
    %11 = chlo.digamma %2 : tensor<2x6xf32> -> tensor<2x6xf32>
    %12 = chlo.sinh %arg0 : tensor<2x6xf32> -> tensor<2x6xf32>
    %13 = chlo.cosh %arg0 : tensor<2x6xf32> -> tensor<2x6xf32>
    %14 = chlo.asinh %arg0 : tensor<2x6xf32> -> tensor<2x6xf32>
    %15 = chlo.acos %5 : tensor<2x6xf32> -> tensor<2x6xf32>
    %16 = chlo.asin %5 : tensor<2x6xf32> -> tensor<2x6xf32>
    %17 = chlo.atan %arg0 : tensor<2x6xf32> -> tensor<2x6xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x6xf32>
    %19 = stablehlo.add %2, %18 : tensor<2x6xf32>
    %20 = call @arccosh(%19) : (tensor<2x6xf32>) -> tensor<2x6xf32>
    %21 = chlo.atanh %5 : tensor<2x6xf32> -> tensor<2x6xf32>
    %22 = stablehlo.abs %arg0 : tensor<2x6xf32>
    %23 = stablehlo.log_plus_one %22 : tensor<2x6xf32>
    %24 = chlo.erfc %arg0 : tensor<2x6xf32> -> tensor<2x6xf32>
    return %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %20, %21, %23, %24 : tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>
  }
  func.func private @arccosh(%arg0: tensor<2x6xf32>) -> tensor<2x6xf32> {
    %0 = chlo.acosh %arg0 : tensor<2x6xf32> -> tensor<2x6xf32>
    return %0 : tensor<2x6xf32>
  }
}
