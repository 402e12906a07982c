module @jit_qr attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x33x33xf64>) -> (tensor<8x33x33xf64> {jax.result_info = "result.Q"}, tensor<8x33x33xf64> {jax.result_info = "result.R"}) {
    %0:2 = call @qr(%arg0) : (tensor<8x33x33xf64>) -> (tensor<8x33x33xf64>, tensor<8x33x33xf64>)
    return %0#0, %0#1 : tensor<8x33x33xf64>, tensor<8x33x33xf64>
  }
  func.func private @qr(%arg0: tensor<8x33x33xf64>) -> (tensor<8x33x33xf64>, tensor<8x33x33xf64>) {
    %0:2 = stablehlo.custom_call @lapack_dgeqrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n]) {i=8, j=33, k=33, l=33, m=33, n=33}, custom>} : (tensor<8x33x33xf64>) -> (tensor<8x33x33xf64>, tensor<8x33xf64>)
    %1 = stablehlo.custom_call @lapack_dorgqr_ffi(%0#0, %0#1) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k], [i, l])->([i, m, n]) {i=8, j=33, k=33, l=33, m=33, n=33}, custom>} : (tensor<8x33x33xf64>, tensor<8x33xf64>) -> tensor<8x33x33xf64>
    %2 = stablehlo.iota dim = 0 : tensor<33x33xi64>
    %c = stablehlo.constant dense<-1> : tensor<i64>
    %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<33x33xi64>
    %4 = stablehlo.add %2, %3 : tensor<33x33xi64>
    %5 = stablehlo.iota dim = 1 : tensor<33x33xi64>
    %6 = stablehlo.compare GE, %4, %5, SIGNED : (tensor<33x33xi64>, tensor<33x33xi64>) -> tensor<33x33xi1>
    %7 = stablehlo.broadcast_in_dim %6, dims = [1, 2] : (tensor<33x33xi1>) -> tensor<8x33x33xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<8x33x33xf64>
    %9 = stablehlo.select %7, %8, %0#0 : tensor<8x33x33xi1>, tensor<8x33x33xf64>
    return %1, %9 : tensor<8x33x33xf64>, tensor<8x33x33xf64>
  }
}
