module @jit_int_types attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xi32>, %arg1: tensor<4xi32>) -> (tensor<4xi32> {jax.result_info = "result[0]"}, tensor<4xi32> {jax.result_info = "result[1]"}, tensor<4xui8> {jax.result_info = "result[2]"}, tensor<4xi1> {jax.result_info = "result[3]"}, tensor<4xbf16> {jax.result_info = "result[4]"}, tensor<4xf16> {jax.result_info = "result[5]"}, tensor<4xi32> {jax.result_info = "result[6]"}, tensor<4xf32> {jax.result_info = "result[7]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<4xi32>) -> tensor<4xui8>
    %1 = call @floor_divide(%arg0, %arg1) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %2 = call @remainder(%arg0, %arg1) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %c = stablehlo.constant dense<250> : tensor<ui8>
    %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui8>) -> tensor<4xui8>
    %4 = stablehlo.add %0, %3 : tensor<4xui8>
    %5 = stablehlo.compare GT, %arg0, %arg1, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %6 = stablehlo.convert %arg0 : (tensor<4xi32>) -> tensor<4xbf16>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<bf16>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<4xbf16>
    %8 = stablehlo.multiply %6, %7 : tensor<4xbf16>
    %9 = stablehlo.convert %arg0 : (tensor<4xi32>) -> tensor<4xf16>
    %cst_0 = stablehlo.constant dense<3.000000e+00> : tensor<f16>
    %10 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f16>) -> tensor<4xf16>
    %11 = stablehlo.divide %9, %10 : tensor<4xf16>
    %c_1 = stablehlo.constant dense<2> : tensor<i32>
    %12 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %13 = stablehlo.shift_left %arg0, %12 : tensor<4xi32>
    %14 = stablehlo.convert %arg0 : (tensor<4xi32>) -> tensor<4xcomplex<f32>>
    %cst_2 = stablehlo.constant dense<(0.000000e+00,1.000000e+00)> : tensor<complex<f32>>
    %15 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<complex<f32>>) -> tensor<4xcomplex<f32>>
    %16 = stablehlo.multiply %14, %15 : tensor<4xcomplex<f32>>
    %17 = stablehlo.real %16 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    return %1, %2, %4, %5, %8, %11, %13, %17 : tensor<4xi32>, tensor<4xi32>, tensor<4xui8>, tensor<4xi1>, tensor<4xbf16>, tensor<4xf16>, tensor<4xi32>, tensor<4xf32>
  }
  func.func private @floor_divide(%arg0: tensor<4xi32>, %arg1: tensor<4xi32>) -> tensor<4xi32> {
    %0 = stablehlo.divide %arg0, %arg1 : tensor<4xi32>
    %1 = stablehlo.sign %arg0 : tensor<4xi32>
    %2 = stablehlo.sign %arg1 : tensor<4xi32>
    %3 = stablehlo.compare NE, %1, %2, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %4 = stablehlo.remainder %arg0, %arg1 : tensor<4xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %7 = stablehlo.and %3, %6 : tensor<4xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %8 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %9 = stablehlo.subtract %0, %8 : tensor<4xi32>
    %10 = call @_where(%7, %9, %0) : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    return %10 : tensor<4xi32>
  }
  func.func private @_where(%arg0: tensor<4xi1>, %arg1: tensor<4xi32>, %arg2: tensor<4xi32>) -> tensor<4xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<4xi1>, tensor<4xi32>
    return %0 : tensor<4xi32>
  }
  func.func private @remainder(%arg0: tensor<4xi32>, %arg1: tensor<4xi32>) -> tensor<4xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %1 = stablehlo.compare EQ, %arg1, %0, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %3 = call @_where(%1, %2, %arg1) : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<4xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %10 = stablehlo.compare LT, %3, %9, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %12 = stablehlo.and %11, %6 : tensor<4xi1>
    %13 = stablehlo.add %4, %3 : tensor<4xi32>
    %14 = stablehlo.select %12, %13, %4 : tensor<4xi1>, tensor<4xi32>
    return %14 : tensor<4xi32>
  }
}
