module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x6xf32>) -> (tensor<6x6xf32> {jax.result_info = "result[0]"}, tensor<6x6xf32> {jax.result_info = "result[1]"}) {
    %0:2 = call @hessenberg(%arg0) : (tensor<6x6xf32>) -> (tensor<6x6xf32>, tensor<6x6xf32>)
    return %0#0, %0#1 : tensor<6x6xf32>, tensor<6x6xf32>
  }
  func.func private @hessenberg(%arg0: tensor<6x6xf32>) -> (tensor<6x6xf32>, tensor<6x6xf32>) {
    %0:3 = stablehlo.custom_call @lapack_sgehrd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {high = 6 : i32, low = 1 : i32}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], []) {i=6, j=6, k=6, l=6, m=5}, custom>} : (tensor<6x6xf32>) -> (tensor<6x6xf32>, tensor<5xf32>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#2, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x6xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<6x6xi1>
    %6 = stablehlo.select %5, %0#0, %4 : tensor<6x6xi1>, tensor<6x6xf32>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<1xi1>) -> tensor<5xi1>
    %10 = stablehlo.select %9, %0#1, %8 : tensor<5xi1>, tensor<5xf32>
    %11 = call @triu(%6) : (tensor<6x6xf32>) -> tensor<6x6xf32>
    %12 = stablehlo.slice %6 [1:6, 0:5] : (tensor<6x6xf32>) -> tensor<5x5xf32>
    %13 = stablehlo.custom_call @lapack_sorgqr_ffi(%12, %10) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k])->([l, m]) {i=5, j=5, k=5, l=5, m=5}, custom>} : (tensor<5x5xf32>, tensor<5xf32>) -> tensor<5x5xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<1x5xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<5x1xf32>
    %17 = call @block(%14, %15, %16, %13) : (tensor<1x1xf32>, tensor<1x5xf32>, tensor<5x1xf32>, tensor<5x5xf32>) -> tensor<6x6xf32>
    return %11, %17 : tensor<6x6xf32>, tensor<6x6xf32>
  }
  func.func private @triu(%arg0: tensor<6x6xf32>) -> tensor<6x6xf32> {
    %0 = stablehlo.iota dim = 0 : tensor<6x6xi64>
    %c = stablehlo.constant dense<-2> : tensor<i64>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<6x6xi64>
    %2 = stablehlo.add %0, %1 : tensor<6x6xi64>
    %3 = stablehlo.iota dim = 1 : tensor<6x6xi64>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<6x6xi64>, tensor<6x6xi64>) -> tensor<6x6xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x6xf32>
    %6 = stablehlo.select %4, %5, %arg0 : tensor<6x6xi1>, tensor<6x6xf32>
    return %6 : tensor<6x6xf32>
  }
  func.func private @block(%arg0: tensor<1x1xf32>, %arg1: tensor<1x5xf32>, %arg2: tensor<5x1xf32>, %arg3: tensor<5x5xf32>) -> tensor<6x6xf32> {
    %0 = stablehlo.concatenate %arg0, %arg1, dim = 1 : (tensor<1x1xf32>, tensor<1x5xf32>) -> tensor<1x6xf32>
    %1 = stablehlo.concatenate %arg2, %arg3, dim = 1 : (tensor<5x1xf32>, tensor<5x5xf32>) -> tensor<5x6xf32>
    %2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<1x6xf32>, tensor<5x6xf32>) -> tensor<6x6xf32>
    return %2 : tensor<6x6xf32>
  }
}
