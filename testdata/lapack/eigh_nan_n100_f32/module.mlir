module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x100x100xf32>) -> (tensor<8x100xf32> {jax.result_info = "result[0]"}, tensor<8x100x100xf32> {jax.result_info = "result[1]"}) {
    %0:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i]) {i=8, j=100, k=100, l=100, m=100, n=100}, custom>} : (tensor<8x100x100xf32>) -> (tensor<8x100x100xf32>, tensor<8x100xf32>, tensor<8xi32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %2 = stablehlo.compare EQ, %0#2, %1, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<8xi1>) -> tensor<8x1x1xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x100x100xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<8x1x1xi1>) -> tensor<8x100x100xi1>
    %6 = stablehlo.select %5, %0#0, %4 : tensor<8x100x100xi1>, tensor<8x100x100xf32>
    %7 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<8xi1>) -> tensor<8x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x100xf32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<8x1xi1>) -> tensor<8x100xi1>
    %10 = stablehlo.select %9, %0#1, %8 : tensor<8x100xi1>, tensor<8x100xf32>
    %11 = stablehlo.abs %6 : tensor<8x100x100xf32>
    return %10, %11 : tensor<8x100xf32>, tensor<8x100x100xf32>
  }
}
