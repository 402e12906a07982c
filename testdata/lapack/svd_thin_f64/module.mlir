module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6xf64>) -> (tensor<4xf64> {jax.result_info = "result[0]"}, tensor<4x6xf64> {jax.result_info = "result[1]"}, tensor<4x4x4xf64> {jax.result_info = "result[2]"}, tensor<4x6x6xf64> {jax.result_info = "result[3]"}) {
    %0:3 = call @svd(%arg0) : (tensor<4x6xf64>) -> (tensor<4x4xf64>, tensor<4xf64>, tensor<4x6xf64>)
    %1 = stablehlo.broadcast_in_dim %0#1, dims = [1] : (tensor<4xf64>) -> tensor<1x4xf64>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x4xf64>) -> tensor<4x4xf64>
    %3 = stablehlo.multiply %0#0, %2 : tensor<4x4xf64>
    %4 = stablehlo.dot_general %3, %0#2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xf64>, tensor<4x6xf64>) -> tensor<4x6xf64>
    %5 = stablehlo.dot_general %0#0, %0#0, batching_dims = [1] x [1], contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<4x4xf64>, tensor<4x4xf64>) -> tensor<4x4x4xf64>
    %6 = stablehlo.transpose %0#2, dims = [1, 0] : (tensor<4x6xf64>) -> tensor<6x4xf64>
    %7 = stablehlo.dot_general %6, %6, batching_dims = [1] x [1], contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<6x4xf64>, tensor<6x4xf64>) -> tensor<4x6x6xf64>
    return %0#1, %4, %5, %7 : tensor<4xf64>, tensor<4x6xf64>, tensor<4x4x4xf64>, tensor<4x6x6xf64>
  }
  func.func private @svd(%arg0: tensor<4x6xf64>) -> (tensor<4x4xf64>, tensor<4xf64>, tensor<4x6xf64>) {
    %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 83 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=4, j=6, k=4, l=6, m=4, n=4, o=4, p=4, q=6}, custom>} : (tensor<4x6xf64>) -> (tensor<4x6xf64>, tensor<4xf64>, tensor<4x4xf64>, tensor<4x6xf64>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<4xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<4xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<4xi1>, tensor<4xf64>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<4x4xf64>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<4x4xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<4x4xi1>, tensor<4x4xf64>
    %11 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_1 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<4x6xf64>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<4x6xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<4x6xi1>, tensor<4x6xf64>
    return %10, %6, %14 : tensor<4x4xf64>, tensor<4xf64>, tensor<4x6xf64>
  }
}
