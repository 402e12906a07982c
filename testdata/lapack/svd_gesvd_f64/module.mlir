module @jit_svd_gesvd attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x3xf64>) -> (tensor<3xf64> {jax.result_info = "result[0]"}, tensor<5x3xf64> {jax.result_info = "result[1]"}, tensor<3x5x5xf64> {jax.result_info = "result[2]"}, tensor<3x3x3xf64> {jax.result_info = "result[3]"}) {
    %0:5 = stablehlo.custom_call @lapack_dgesvd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 83 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=5, j=3, k=5, l=3, m=3, n=5, o=3, p=3, q=3}, custom>} : (tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<3xf64>, tensor<5x3xf64>, tensor<3x3xf64>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<3xi1>, tensor<3xf64>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<5x3xf64>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x3xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<5x3xi1>, tensor<5x3xf64>
    %11 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_1 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<3x3xf64>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<3x3xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<3x3xi1>, tensor<3x3xf64>
    %15 = stablehlo.broadcast_in_dim %6, dims = [1] : (tensor<3xf64>) -> tensor<1x3xf64>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<1x3xf64>) -> tensor<5x3xf64>
    %17 = stablehlo.multiply %10, %16 : tensor<5x3xf64>
    %18 = stablehlo.dot_general %17, %14, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x3xf64>, tensor<3x3xf64>) -> tensor<5x3xf64>
    %19 = stablehlo.dot_general %10, %10, batching_dims = [1] x [1], contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<5x3xf64>, tensor<5x3xf64>) -> tensor<3x5x5xf64>
    %20 = stablehlo.transpose %14, dims = [1, 0] : (tensor<3x3xf64>) -> tensor<3x3xf64>
    %21 = stablehlo.dot_general %20, %20, batching_dims = [1] x [1], contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3x3xf64>
    return %6, %18, %19, %21 : tensor<3xf64>, tensor<5x3xf64>, tensor<3x5x5xf64>, tensor<3x3x3xf64>
  }
}
