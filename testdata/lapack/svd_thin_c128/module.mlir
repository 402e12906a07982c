module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x5x3xcomplex<f64>>) -> (tensor<2x3xf64> {jax.result_info = "result[0]"}, tensor<2x5x3xcomplex<f64>> {jax.result_info = "result[1]"}, tensor<2x3x5x5xcomplex<f64>> {jax.result_info = "result[2]"}, tensor<2x3x3x3xcomplex<f64>> {jax.result_info = "result[3]"}) {
    %0:3 = call @svd(%arg0) : (tensor<2x5x3xcomplex<f64>>) -> (tensor<2x5x3xcomplex<f64>>, tensor<2x3xf64>, tensor<2x3x3xcomplex<f64>>)
    %1 = stablehlo.broadcast_in_dim %0#1, dims = [0, 2] : (tensor<2x3xf64>) -> tensor<2x1x3xf64>
    %2 = stablehlo.convert %1 : (tensor<2x1x3xf64>) -> tensor<2x1x3xcomplex<f64>>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1, 2] : (tensor<2x1x3xcomplex<f64>>) -> tensor<2x5x3xcomplex<f64>>
    %4 = stablehlo.multiply %0#0, %3 : tensor<2x5x3xcomplex<f64>>
    %5 = stablehlo.dot_general %4, %0#2, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x5x3xcomplex<f64>>, tensor<2x3x3xcomplex<f64>>) -> tensor<2x5x3xcomplex<f64>>
    %6 = stablehlo.real %0#0 : (tensor<2x5x3xcomplex<f64>>) -> tensor<2x5x3xf64>
    %7 = stablehlo.imag %0#0 : (tensor<2x5x3xcomplex<f64>>) -> tensor<2x5x3xf64>
    %8 = stablehlo.negate %7 : tensor<2x5x3xf64>
    %9 = stablehlo.complex %6, %8 : tensor<2x5x3xcomplex<f64>>
    %10 = stablehlo.dot_general %0#0, %9, batching_dims = [0, 2] x [0, 2], contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<2x5x3xcomplex<f64>>, tensor<2x5x3xcomplex<f64>>) -> tensor<2x3x5x5xcomplex<f64>>
    %11 = stablehlo.transpose %0#2, dims = [0, 2, 1] : (tensor<2x3x3xcomplex<f64>>) -> tensor<2x3x3xcomplex<f64>>
    %12 = stablehlo.real %11 : (tensor<2x3x3xcomplex<f64>>) -> tensor<2x3x3xf64>
    %13 = stablehlo.imag %11 : (tensor<2x3x3xcomplex<f64>>) -> tensor<2x3x3xf64>
    %14 = stablehlo.negate %13 : tensor<2x3x3xf64>
    %15 = stablehlo.complex %12, %14 : tensor<2x3x3xcomplex<f64>>
    %16 = stablehlo.real %15 : (tensor<2x3x3xcomplex<f64>>) -> tensor<2x3x3xf64>
    %17 = stablehlo.imag %15 : (tensor<2x3x3xcomplex<f64>>) -> tensor<2x3x3xf64>
    %18 = stablehlo.negate %17 : tensor<2x3x3xf64>
    %19 = stablehlo.complex %16, %18 : tensor<2x3x3xcomplex<f64>>
    %20 = stablehlo.dot_general %15, %19, batching_dims = [0, 2] x [0, 2], contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<2x3x3xcomplex<f64>>, tensor<2x3x3xcomplex<f64>>) -> tensor<2x3x3x3xcomplex<f64>>
    return %0#1, %5, %10, %20 : tensor<2x3xf64>, tensor<2x5x3xcomplex<f64>>, tensor<2x3x5x5xcomplex<f64>>, tensor<2x3x3x3xcomplex<f64>>
  }
  func.func private @svd(%arg0: tensor<2x5x3xcomplex<f64>>) -> (tensor<2x5x3xcomplex<f64>>, tensor<2x3xf64>, tensor<2x3x3xcomplex<f64>>) {
    %0:5 = stablehlo.custom_call @lapack_zgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 83 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i, o, p], [i, q, r], [i]) {i=2, j=5, k=3, l=5, m=3, n=3, o=5, p=3, q=3, r=3}, custom>} : (tensor<2x5x3xcomplex<f64>>) -> (tensor<2x5x3xcomplex<f64>>, tensor<2x3xf64>, tensor<2x5x3xcomplex<f64>>, tensor<2x3x3xcomplex<f64>>, tensor<2xi32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x3xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<2x3xi1>, tensor<2x3xf64>
    %7 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %cst_0 = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f64>>) -> tensor<2x5x3xcomplex<f64>>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x5x3xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<2x5x3xi1>, tensor<2x5x3xcomplex<f64>>
    %11 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %cst_1 = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<complex<f64>>) -> tensor<2x3x3xcomplex<f64>>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x3x3xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<2x3x3xi1>, tensor<2x3x3xcomplex<f64>>
    return %10, %6, %14 : tensor<2x5x3xcomplex<f64>>, tensor<2x3xf64>, tensor<2x3x3xcomplex<f64>>
  }
}
