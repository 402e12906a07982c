module @jit_special_f64 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<20xf64>, %arg1: tensor<20xf64>) -> (tensor<20xf64> {jax.result_info = "result[0]"}, tensor<20xf64> {jax.result_info = "result[1]"}, tensor<20xf64> {jax.result_info = "result[2]"}) {
    %0 = chlo.erfc %arg0 : tensor<20xf64> -> tensor<20xf64>
    %1 = chlo.erf_inv %arg1 : tensor<20xf64> -> tensor<20xf64>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f64>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<20xf64>
    %3 = stablehlo.multiply %arg1, %2 : tensor<20xf64>
    %4 = chlo.erf_inv %3 : tensor<20xf64> -> tensor<20xf64>
    return %0, %1, %4 : tensor<20xf64>, tensor<20xf64>, tensor<20xf64>
  }
}
