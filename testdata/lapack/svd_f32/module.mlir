module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x5x3xf32>) -> (tensor<2x3xf32> {jax.result_info = "result[0]"}, tensor<2x5x3xf32> {jax.result_info = "result[1]"}, tensor<2x3x5x5xf32> {jax.result_info = "result[2]"}, tensor<2x3x3x3xf32> {jax.result_info = "result[3]"}, tensor<2x5x5xf32> {jax.result_info = "result[4]"}, tensor<2x3x3xf32> {jax.result_info = "result[5]"}, tensor<2x5x5xf32> {jax.result_info = "result[6]"}, tensor<2x3x3xf32> {jax.result_info = "result[7]"}) {
    %0:3 = call @svd(%arg0) : (tensor<2x5x3xf32>) -> (tensor<2x5x5xf32>, tensor<2x3xf32>, tensor<2x3x3xf32>)
    %1 = stablehlo.slice %0#0 [0:2, 0:5, 0:3] : (tensor<2x5x5xf32>) -> tensor<2x5x3xf32>
    %2 = stablehlo.broadcast_in_dim %0#1, dims = [0, 2] : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1, 2] : (tensor<2x1x3xf32>) -> tensor<2x5x3xf32>
    %4 = stablehlo.multiply %1, %3 : tensor<2x5x3xf32>
    %5 = stablehlo.dot_general %4, %0#2, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x5x3xf32>, tensor<2x3x3xf32>) -> tensor<2x5x3xf32>
    %6 = stablehlo.slice %0#0 [0:2, 0:5, 0:3] : (tensor<2x5x5xf32>) -> tensor<2x5x3xf32>
    %7 = stablehlo.dot_general %6, %6, batching_dims = [0, 2] x [0, 2], contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<2x5x3xf32>, tensor<2x5x3xf32>) -> tensor<2x3x5x5xf32>
    %8 = stablehlo.transpose %0#2, dims = [0, 2, 1] : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
    %9 = stablehlo.dot_general %8, %8, batching_dims = [0, 2] x [0, 2], contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3x3xf32>
    %10 = stablehlo.slice %0#0 [0:2, 0:5, 3:5] : (tensor<2x5x5xf32>) -> tensor<2x5x2xf32>
    %11 = stablehlo.slice %0#0 [0:2, 0:5, 3:5] : (tensor<2x5x5xf32>) -> tensor<2x5x2xf32>
    %12 = stablehlo.transpose %11, dims = [0, 2, 1] : (tensor<2x5x2xf32>) -> tensor<2x2x5xf32>
    %13 = stablehlo.dot_general %10, %12, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x5x2xf32>, tensor<2x2x5xf32>) -> tensor<2x5x5xf32>
    %14 = stablehlo.slice %0#2 [0:2, 3:3, 0:3] : (tensor<2x3x3xf32>) -> tensor<2x0x3xf32>
    %15 = stablehlo.transpose %14, dims = [0, 2, 1] : (tensor<2x0x3xf32>) -> tensor<2x3x0xf32>
    %16 = stablehlo.slice %0#2 [0:2, 3:3, 0:3] : (tensor<2x3x3xf32>) -> tensor<2x0x3xf32>
    %17 = stablehlo.dot_general %15, %16, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x0xf32>, tensor<2x0x3xf32>) -> tensor<2x3x3xf32>
    %18 = stablehlo.transpose %0#0, dims = [0, 2, 1] : (tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
    %19 = stablehlo.dot_general %18, %0#0, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x5x5xf32>, tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
    %20 = stablehlo.transpose %0#2, dims = [0, 2, 1] : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
    %21 = stablehlo.dot_general %0#2, %20, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
    return %0#1, %5, %7, %9, %13, %17, %19, %21 : tensor<2x3xf32>, tensor<2x5x3xf32>, tensor<2x3x5x5xf32>, tensor<2x3x3x3xf32>, tensor<2x5x5xf32>, tensor<2x3x3xf32>, tensor<2x5x5xf32>, tensor<2x3x3xf32>
  }
  func.func private @svd(%arg0: tensor<2x5x3xf32>) -> (tensor<2x5x5xf32>, tensor<2x3xf32>, tensor<2x3x3xf32>) {
    %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 65 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i, o, p], [i, q, r], [i]) {i=2, j=5, k=3, l=5, m=3, n=3, o=5, p=5, q=3, r=3}, custom>} : (tensor<2x5x3xf32>) -> (tensor<2x5x3xf32>, tensor<2x3xf32>, tensor<2x5x5xf32>, tensor<2x3x3xf32>, tensor<2xi32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<2x3xi1>, tensor<2x3xf32>
    %7 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x5x5xf32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x5x5xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<2x5x5xi1>, tensor<2x5x5xf32>
    %11 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x3x3xf32>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x3x3xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
    return %10, %6, %14 : tensor<2x5x5xf32>, tensor<2x3xf32>, tensor<2x3x3xf32>
  }
}
