module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<4x4xcomplex<f32>> {jax.result_info = "result[0]"}, tensor<4x4xcomplex<f32>> {jax.result_info = "result[1]"}, tensor<4x4xcomplex<f32>> {jax.result_info = "result[2]"}, tensor<complex<f32>> {jax.result_info = "result[3]"}) {
    %0:2 = call @_schur(%arg0) : (tensor<4x4xf32>) -> (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>)
    %1 = call @tril(%0#0) : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %2 = stablehlo.dot_general %0#1, %0#0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %3 = stablehlo.transpose %0#1, dims = [1, 0] : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %4 = stablehlo.real %3 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %5 = stablehlo.imag %3 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %6 = stablehlo.negate %5 : tensor<4x4xf32>
    %7 = stablehlo.complex %4, %6 : tensor<4x4xcomplex<f32>>
    %8 = stablehlo.dot_general %2, %7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %9 = stablehlo.transpose %0#1, dims = [1, 0] : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %10 = stablehlo.real %9 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %11 = stablehlo.imag %9 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %12 = stablehlo.negate %11 : tensor<4x4xf32>
    %13 = stablehlo.complex %10, %12 : tensor<4x4xcomplex<f32>>
    %14 = stablehlo.dot_general %13, %0#1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %15 = call @trace(%0#0) : (tensor<4x4xcomplex<f32>>) -> tensor<complex<f32>>
    return %8, %14, %1, %15 : tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<complex<f32>>
  }
  func.func private @_schur(%arg0: tensor<4x4xf32>) -> (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) {
    %0 = stablehlo.convert %arg0 : (tensor<4x4xf32>) -> tensor<4x4xcomplex<f32>>
    %1:5 = stablehlo.custom_call @lapack_cgees_ffi(%0) {backend_config = "", mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m, n], [o], [], []) {i=4, j=4, k=4, l=4, m=4, n=4, o=4}, custom>} : (tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<i32>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %3 = stablehlo.compare EQ, %1#4, %2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<4x4xi1>
    %7 = stablehlo.select %6, %1#0, %5 : tensor<4x4xi1>, tensor<4x4xcomplex<f32>>
    %8 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %9 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
    %10 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<4x4xi1>
    %11 = stablehlo.select %10, %1#1, %9 : tensor<4x4xi1>, tensor<4x4xcomplex<f32>>
    return %7, %11 : tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>
  }
  func.func private @tril(%arg0: tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>> {
    %0 = stablehlo.iota dim = 0 : tensor<4x4xi64>
    %c = stablehlo.constant dense<-1> : tensor<i64>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
    %2 = stablehlo.add %0, %1 : tensor<4x4xi64>
    %3 = stablehlo.iota dim = 1 : tensor<4x4xi64>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %cst = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<4x4xi1>, tensor<4x4xcomplex<f32>>
    return %6 : tensor<4x4xcomplex<f32>>
  }
  func.func private @trace(%arg0: tensor<4x4xcomplex<f32>>) -> tensor<complex<f32>> {
    %0 = stablehlo.iota dim = 0 : tensor<4x4xi64>
    %1 = stablehlo.iota dim = 1 : tensor<4x4xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
    %3 = stablehlo.add %0, %2 : tensor<4x4xi64>
    %4 = stablehlo.compare EQ, %3, %1, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %cst = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
    %6 = call @_where(%4, %arg0, %5) : (tensor<4x4xi1>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %cst_0 = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %7 = stablehlo.reduce(%6 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<complex<f32>>
    return %7 : tensor<complex<f32>>
  }
  func.func private @_where(%arg0: tensor<4x4xi1>, %arg1: tensor<4x4xcomplex<f32>>, %arg2: tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<4x4xi1>, tensor<4x4xcomplex<f32>>
    return %0 : tensor<4x4xcomplex<f32>>
  }
}
