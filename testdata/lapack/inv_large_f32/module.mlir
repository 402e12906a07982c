module @jit_inv attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<96x96xf32>) -> (tensor<96x96xf32> {jax.result_info = "result"}) {
    %0 = call @inv(%arg0) : (tensor<96x96xf32>) -> tensor<96x96xf32>
    return %0 : tensor<96x96xf32>
  }
  func.func private @inv(%arg0: tensor<96x96xf32>) -> tensor<96x96xf32> {
    %0 = stablehlo.iota dim = 0 : tensor<96x96xi64>
    %1 = stablehlo.iota dim = 1 : tensor<96x96xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<96x96xi64>
    %3 = stablehlo.add %0, %2 : tensor<96x96xi64>
    %4 = stablehlo.compare EQ, %3, %1, SIGNED : (tensor<96x96xi64>, tensor<96x96xi64>) -> tensor<96x96xi1>
    %5 = stablehlo.convert %4 : (tensor<96x96xi1>) -> tensor<96x96xf32>
    %6 = call @solve(%arg0, %5) : (tensor<96x96xf32>, tensor<96x96xf32>) -> tensor<96x96xf32>
    return %6 : tensor<96x96xf32>
  }
  func.func private @solve(%arg0: tensor<96x96xf32>, %arg1: tensor<96x96xf32>) -> tensor<96x96xf32> {
    %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], []) {i=96, j=96, k=96, l=96, m=96}, custom>} : (tensor<96x96xf32>) -> (tensor<96x96xf32>, tensor<96xi32>, tensor<i32>)
    %c = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<96xi32>
    %2 = stablehlo.subtract %0#1, %1 : tensor<96xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<i32>
    %4 = stablehlo.compare GE, %0#2, %3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<96x96xf32>
    %7 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<96x96xi1>
    %8 = stablehlo.select %7, %0#0, %6 : tensor<96x96xi1>, tensor<96x96xf32>
    %9 = stablehlo.iota dim = 0 : tensor<96xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %10:4 = stablehlo.while(%iterArg = %2, %iterArg_3 = %c_2, %iterArg_4 = %c_1, %iterArg_5 = %9) : tensor<96xi32>, tensor<i64>, tensor<i64>, tensor<96xi32>
    cond {
      %c_6 = stablehlo.constant dense<96> : tensor<i64>
      %14 = stablehlo.compare LT, %iterArg_3, %c_6, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %14 : tensor<i1>
    } do {
      %14:2 = func.call @closed_call(%iterArg, %iterArg_4, %iterArg_5) : (tensor<96xi32>, tensor<i64>, tensor<96xi32>) -> (tensor<i64>, tensor<96xi32>)
      %c_6 = stablehlo.constant dense<1> : tensor<i64>
      %15 = stablehlo.add %iterArg_3, %c_6 : tensor<i64>
      stablehlo.return %iterArg, %15, %14#0, %14#1 : tensor<96xi32>, tensor<i64>, tensor<i64>, tensor<96xi32>
    }
    %11 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<96x96xf32>) -> tensor<96x96xf32>
    %12 = call @_lu_solve(%8, %10#3, %11) : (tensor<96x96xf32>, tensor<96xi32>, tensor<96x96xf32>) -> tensor<96x96xf32>
    %13 = stablehlo.transpose %12, dims = [1, 0] : (tensor<96x96xf32>) -> tensor<96x96xf32>
    return %13 : tensor<96x96xf32>
  }
  func.func private @closed_call(%arg0: tensor<96xi32>, %arg1: tensor<i64>, %arg2: tensor<96xi32>) -> (tensor<i64>, tensor<96xi32>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg1, %c : tensor<i64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %1 = stablehlo.compare LT, %arg1, %c_0, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %2 = stablehlo.convert %arg1 : tensor<i64>
    %c_1 = stablehlo.constant dense<96> : tensor<i64>
    %3 = stablehlo.add %2, %c_1 : tensor<i64>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<i1>, tensor<i64>
    %5 = stablehlo.dynamic_slice %arg0, %4, sizes = [1] : (tensor<96xi32>, tensor<i64>) -> tensor<1xi32>
    %6 = stablehlo.reshape %5 : (tensor<1xi32>) -> tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %7 = stablehlo.compare LT, %arg1, %c_2, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %8 = stablehlo.convert %arg1 : tensor<i64>
    %c_3 = stablehlo.constant dense<96> : tensor<i64>
    %9 = stablehlo.add %8, %c_3 : tensor<i64>
    %10 = stablehlo.select %7, %9, %arg1 : tensor<i1>, tensor<i64>
    %11 = stablehlo.dynamic_slice %arg2, %10, sizes = [1] : (tensor<96xi32>, tensor<i64>) -> tensor<1xi32>
    %12 = stablehlo.reshape %11 : (tensor<1xi32>) -> tensor<i32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %13 = stablehlo.compare LT, %6, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_5 = stablehlo.constant dense<96> : tensor<i32>
    %14 = stablehlo.add %6, %c_5 : tensor<i32>
    %15 = stablehlo.select %13, %14, %6 : tensor<i1>, tensor<i32>
    %16 = stablehlo.dynamic_slice %arg2, %15, sizes = [1] : (tensor<96xi32>, tensor<i32>) -> tensor<1xi32>
    %17 = stablehlo.reshape %16 : (tensor<1xi32>) -> tensor<i32>
    %c_6 = stablehlo.constant dense<0> : tensor<i64>
    %18 = stablehlo.compare LT, %arg1, %c_6, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %c_7 = stablehlo.constant dense<96> : tensor<i64>
    %19 = stablehlo.add %arg1, %c_7 : tensor<i64>
    %20 = stablehlo.select %18, %19, %arg1 : tensor<i1>, tensor<i64>
    %21 = stablehlo.convert %20 : (tensor<i64>) -> tensor<i32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %23 = "stablehlo.scatter"(%arg2, %22, %17) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      stablehlo.return %arg4 : tensor<i32>
    }) : (tensor<96xi32>, tensor<1xi32>, tensor<i32>) -> tensor<96xi32>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %24 = stablehlo.compare LT, %6, %c_8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_9 = stablehlo.constant dense<96> : tensor<i32>
    %25 = stablehlo.add %6, %c_9 : tensor<i32>
    %26 = stablehlo.select %24, %25, %6 : tensor<i1>, tensor<i32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %28 = "stablehlo.scatter"(%23, %27, %12) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      stablehlo.return %arg4 : tensor<i32>
    }) : (tensor<96xi32>, tensor<1xi32>, tensor<i32>) -> tensor<96xi32>
    return %0, %28 : tensor<i64>, tensor<96xi32>
  }
  func.func private @_lu_solve(%arg0: tensor<96x96xf32>, %arg1: tensor<96xi32>, %arg2: tensor<96x96xf32>) -> tensor<96x96xf32> {
    %0 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1] : (tensor<96x96xf32>) -> tensor<96x96x1xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<96xi32>
    %2 = stablehlo.compare LT, %arg1, %1, SIGNED : (tensor<96xi32>, tensor<96xi32>) -> tensor<96xi1>
    %c_0 = stablehlo.constant dense<96> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<96xi32>
    %4 = stablehlo.add %arg1, %3 : tensor<96xi32>
    %5 = stablehlo.select %2, %4, %arg1 : tensor<96xi1>, tensor<96xi32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<96xi32>) -> tensor<96x1xi32>
    %7 = "stablehlo.gather"(%0, %6) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 2], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 96, 1, 1>}> : (tensor<96x96x1xf32>, tensor<96x1xi32>) -> tensor<96x96x1xf32>
    %8 = stablehlo.transpose %7, dims = [1, 2, 0] : (tensor<96x96x1xf32>) -> tensor<96x1x96xf32>
    %9 = stablehlo.reshape %8 : (tensor<96x1x96xf32>) -> tensor<96x96xf32>
    %10 = stablehlo.custom_call @lapack_strsm_ffi(%arg0, %9) {backend_config = "", mhlo.backend_config = {diag = 85 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=96, j=96, k=96, l=96, m=96, n=96}, custom>} : (tensor<96x96xf32>, tensor<96x96xf32>) -> tensor<96x96xf32>
    %11 = stablehlo.reshape %10 : (tensor<96x96xf32>) -> tensor<96x1x96xf32>
    %12 = stablehlo.reshape %11 : (tensor<96x1x96xf32>) -> tensor<96x96xf32>
    %13 = stablehlo.custom_call @lapack_strsm_ffi(%arg0, %12) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 85 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=96, j=96, k=96, l=96, m=96, n=96}, custom>} : (tensor<96x96xf32>, tensor<96x96xf32>) -> tensor<96x96xf32>
    %14 = stablehlo.reshape %13 : (tensor<96x96xf32>) -> tensor<96x1x96xf32>
    %15 = stablehlo.transpose %14, dims = [2, 0, 1] : (tensor<96x1x96xf32>) -> tensor<96x96x1xf32>
    %16 = stablehlo.reshape %15 : (tensor<96x96x1xf32>) -> tensor<96x96xf32>
    return %16 : tensor<96x96xf32>
  }
}
