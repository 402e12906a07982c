module @jit_schur attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x8x8xf64>) -> (tensor<3x8x8xf64> {jax.result_info = "result[0]"}, tensor<3x8x8xf64> {jax.result_info = "result[1]"}) {
    %0:2 = call @_schur(%arg0) : (tensor<3x8x8xf64>) -> (tensor<3x8x8xf64>, tensor<3x8x8xf64>)
    return %0#0, %0#1 : tensor<3x8x8xf64>, tensor<3x8x8xf64>
  }
  func.func private @_schur(%arg0: tensor<3x8x8xf64>) -> (tensor<3x8x8xf64>, tensor<3x8x8xf64>) {
    %0:6 = stablehlo.custom_call @lapack_dgees_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n, o], [i, p], [i, q], [i], [i]) {i=3, j=8, k=8, l=8, m=8, n=8, o=8, p=8, q=8}, custom>} : (tensor<3x8x8xf64>) -> (tensor<3x8x8xf64>, tensor<3x8x8xf64>, tensor<3x8xf64>, tensor<3x8xf64>, tensor<3xi32>, tensor<3xi32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %2 = stablehlo.compare EQ, %0#5, %1, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<3xi1>) -> tensor<3x1x1xi1>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3x8x8xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<3x1x1xi1>) -> tensor<3x8x8xi1>
    %6 = stablehlo.select %5, %0#0, %4 : tensor<3x8x8xi1>, tensor<3x8x8xf64>
    %7 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<3xi1>) -> tensor<3x1x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<3x8x8xf64>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<3x1x1xi1>) -> tensor<3x8x8xi1>
    %10 = stablehlo.select %9, %0#1, %8 : tensor<3x8x8xi1>, tensor<3x8x8xf64>
    return %6, %10 : tensor<3x8x8xf64>, tensor<3x8x8xf64>
  }
}
