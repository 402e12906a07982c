module @jit_tridiagonal_solve attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf64>, %arg1: tensor<3x5xf64>, %arg2: tensor<3x5xf64>, %arg3: tensor<3x5x1xf64>) -> (tensor<3x5x1xf64> {jax.result_info = "result"}) {
    %0:5 = stablehlo.custom_call @lapack_dgtsv_ffi(%arg0, %arg1, %arg2, %arg3) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>, #stablehlo.output_operand_alias<output_tuple_indices = [1], operand_index = 1, operand_tuple_indices = []>, #stablehlo.output_operand_alias<output_tuple_indices = [2], operand_index = 2, operand_tuple_indices = []>, #stablehlo.output_operand_alias<output_tuple_indices = [3], operand_index = 3, operand_tuple_indices = []>], result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i, k], [i, l], [i, m, n])->([i, o], [i, p], [i, q], [i, r, s], [i]) {i=3, j=5, k=5, l=5, m=5, n=1, o=5, p=5, q=5, r=5, s=1}, custom>} : (tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5x1xf64>) -> (tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5x1xf64>, tensor<3xi32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<3xi1>) -> tensor<3x1x1xi1>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3x5x1xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<3x1x1xi1>) -> tensor<3x5x1xi1>
    %6 = stablehlo.select %5, %0#3, %4 : tensor<3x5x1xi1>, tensor<3x5x1xf64>
    return %6 : tensor<3x5x1xf64>
  }
}
