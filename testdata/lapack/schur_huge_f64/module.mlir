module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x6x6xf64>) -> (tensor<2x6x6xf64> {jax.result_info = "result[0]"}, tensor<2x6x6xf64> {jax.result_info = "result[1]"}, tensor<2x6x6xf64> {jax.result_info = "result[2]"}, tensor<6x2xf64> {jax.result_info = "result[3]"}, tensor<6x1xi1> {jax.result_info = "result[4]"}) {
    %0:2 = call @_schur(%arg0) : (tensor<2x6x6xf64>) -> (tensor<2x6x6xf64>, tensor<2x6x6xf64>)
    %1 = call @tril(%0#0) : (tensor<2x6x6xf64>) -> tensor<2x6x6xf64>
    %cst = stablehlo.constant dense<9.9999999999999996E+199> : tensor<f64>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x6x6xf64>
    %3 = stablehlo.divide %0#0, %2 : tensor<2x6x6xf64>
    %4 = stablehlo.dot_general %0#1, %3, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x6xf64>, tensor<2x6x6xf64>) -> tensor<2x6x6xf64>
    %5 = stablehlo.transpose %0#1, dims = [0, 2, 1] : (tensor<2x6x6xf64>) -> tensor<2x6x6xf64>
    %6 = stablehlo.dot_general %4, %5, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x6xf64>, tensor<2x6x6xf64>) -> tensor<2x6x6xf64>
    %7 = stablehlo.transpose %0#1, dims = [0, 2, 1] : (tensor<2x6x6xf64>) -> tensor<2x6x6xf64>
    %8 = stablehlo.dot_general %7, %0#1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x6xf64>, tensor<2x6x6xf64>) -> tensor<2x6x6xf64>
    %cst_0 = stablehlo.constant dense<9.9999999999999996E+199> : tensor<f64>
    %9 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<2x6x6xf64>
    %10 = stablehlo.divide %1, %9 : tensor<2x6x6xf64>
    %11 = call @diagonal(%0#0) : (tensor<2x6x6xf64>) -> tensor<6x2xf64>
    %cst_1 = stablehlo.constant dense<9.9999999999999996E+199> : tensor<f64>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<6x2xf64>
    %13 = stablehlo.divide %11, %12 : tensor<6x2xf64>
    %14 = call @sort(%13) : (tensor<6x2xf64>) -> tensor<6x2xf64>
    %15 = call @diagonal_0(%0#0) : (tensor<2x6x6xf64>) -> tensor<6x1xf64>
    %16 = stablehlo.abs %15 : tensor<6x1xf64>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %17 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<6x1xf64>
    %18 = stablehlo.compare GT, %16, %17, FLOAT : (tensor<6x1xf64>, tensor<6x1xf64>) -> tensor<6x1xi1>
    %19 = call @sort_1(%18) : (tensor<6x1xi1>) -> tensor<6x1xi1>
    return %6, %8, %10, %14, %19 : tensor<2x6x6xf64>, tensor<2x6x6xf64>, tensor<2x6x6xf64>, tensor<6x2xf64>, tensor<6x1xi1>
  }
  func.func private @_schur(%arg0: tensor<2x6x6xf64>) -> (tensor<2x6x6xf64>, tensor<2x6x6xf64>) {
    %0:6 = stablehlo.custom_call @lapack_dgees_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n, o], [i, p], [i, q], [i], [i]) {i=2, j=6, k=6, l=6, m=6, n=6, o=6, p=6, q=6}, custom>} : (tensor<2x6x6xf64>) -> (tensor<2x6x6xf64>, tensor<2x6x6xf64>, tensor<2x6xf64>, tensor<2x6xf64>, tensor<2xi32>, tensor<2xi32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %2 = stablehlo.compare EQ, %0#5, %1, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x6x6xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x6x6xi1>
    %6 = stablehlo.select %5, %0#0, %4 : tensor<2x6x6xi1>, tensor<2x6x6xf64>
    %7 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<2x6x6xf64>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x6x6xi1>
    %10 = stablehlo.select %9, %0#1, %8 : tensor<2x6x6xi1>, tensor<2x6x6xf64>
    return %6, %10 : tensor<2x6x6xf64>, tensor<2x6x6xf64>
  }
  func.func private @tril(%arg0: tensor<2x6x6xf64>) -> tensor<2x6x6xf64> {
    %0 = stablehlo.iota dim = 0 : tensor<6x6xi64>
    %c = stablehlo.constant dense<-2> : tensor<i64>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<6x6xi64>
    %2 = stablehlo.add %0, %1 : tensor<6x6xi64>
    %3 = stablehlo.iota dim = 1 : tensor<6x6xi64>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<6x6xi64>, tensor<6x6xi64>) -> tensor<6x6xi1>
    %5 = stablehlo.broadcast_in_dim %4, dims = [1, 2] : (tensor<6x6xi1>) -> tensor<2x6x6xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x6x6xf64>
    %7 = stablehlo.select %5, %arg0, %6 : tensor<2x6x6xi1>, tensor<2x6x6xf64>
    return %7 : tensor<2x6x6xf64>
  }
  func.func private @diagonal(%arg0: tensor<2x6x6xf64>) -> tensor<6x2xf64> {
    %0 = stablehlo.transpose %arg0, dims = [2, 0, 1] : (tensor<2x6x6xf64>) -> tensor<6x2x6xf64>
    %1 = stablehlo.iota dim = 0 : tensor<2xi64>
    %2 = stablehlo.iota dim = 0 : tensor<2xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<2xi64>
    %4 = stablehlo.compare LT, %1, %3, SIGNED : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi1>
    %c_0 = stablehlo.constant dense<2> : tensor<i64>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<2xi64>
    %6 = stablehlo.add %1, %5 : tensor<2xi64>
    %7 = stablehlo.select %4, %6, %1 : tensor<2xi1>, tensor<2xi64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<2xi64>
    %9 = stablehlo.compare LT, %2, %8, SIGNED : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi1>
    %c_2 = stablehlo.constant dense<6> : tensor<i64>
    %10 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<2xi64>
    %11 = stablehlo.add %2, %10 : tensor<2xi64>
    %12 = stablehlo.select %9, %11, %2 : tensor<2xi1>, tensor<2xi64>
    %13 = stablehlo.convert %7 : (tensor<2xi64>) -> tensor<2xi32>
    %14 = stablehlo.convert %12 : (tensor<2xi64>) -> tensor<2xi32>
    %15 = stablehlo.broadcast_in_dim %13, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32>
    %16 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32>
    %17 = stablehlo.concatenate %15, %16, dim = 1 : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x2xi32>
    %18 = "stablehlo.gather"(%0, %17) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1, 2], start_index_map = [1, 2], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 6, 1, 1>}> : (tensor<6x2x6xf64>, tensor<2x2xi32>) -> tensor<6x2xf64>
    return %18 : tensor<6x2xf64>
  }
  func.func private @sort(%arg0: tensor<6x2xf64>) -> tensor<6x2xf64> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f64>, %arg2: tensor<f64>):
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
      %1 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f64>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %cst_1 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
      %4 = stablehlo.select %3, %cst_1, %2 : tensor<i1>, tensor<f64>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
      %5 = stablehlo.compare EQ, %arg2, %cst_2, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
      %6 = stablehlo.select %5, %cst_3, %arg2 : tensor<i1>, tensor<f64>
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %cst_4 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
      %8 = stablehlo.select %7, %cst_4, %6 : tensor<i1>, tensor<f64>
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f64>, tensor<f64>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<6x2xf64>) -> tensor<6x2xf64>
    return %0 : tensor<6x2xf64>
  }
  func.func private @diagonal_0(%arg0: tensor<2x6x6xf64>) -> tensor<6x1xf64> {
    %0 = stablehlo.transpose %arg0, dims = [2, 0, 1] : (tensor<2x6x6xf64>) -> tensor<6x2x6xf64>
    %1 = stablehlo.iota dim = 0 : tensor<1xi64>
    %2 = stablehlo.iota dim = 0 : tensor<1xi64>
    %c = stablehlo.constant dense<1> : tensor<i64>
    %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<1xi64>
    %4 = stablehlo.add %3, %2 : tensor<1xi64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<1xi64>
    %6 = stablehlo.compare LT, %4, %5, SIGNED : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi1>
    %c_1 = stablehlo.constant dense<2> : tensor<i64>
    %7 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<1xi64>
    %8 = stablehlo.add %4, %7 : tensor<1xi64>
    %9 = stablehlo.select %6, %8, %4 : tensor<1xi1>, tensor<1xi64>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %10 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<1xi64>
    %11 = stablehlo.compare LT, %1, %10, SIGNED : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi1>
    %c_3 = stablehlo.constant dense<6> : tensor<i64>
    %12 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i64>) -> tensor<1xi64>
    %13 = stablehlo.add %1, %12 : tensor<1xi64>
    %14 = stablehlo.select %11, %13, %1 : tensor<1xi1>, tensor<1xi64>
    %15 = stablehlo.convert %9 : (tensor<1xi64>) -> tensor<1xi32>
    %16 = stablehlo.convert %14 : (tensor<1xi64>) -> tensor<1xi32>
    %17 = stablehlo.broadcast_in_dim %15, dims = [0] : (tensor<1xi32>) -> tensor<1x1xi32>
    %18 = stablehlo.broadcast_in_dim %16, dims = [0] : (tensor<1xi32>) -> tensor<1x1xi32>
    %19 = stablehlo.concatenate %17, %18, dim = 1 : (tensor<1x1xi32>, tensor<1x1xi32>) -> tensor<1x2xi32>
    %20 = "stablehlo.gather"(%0, %19) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1, 2], start_index_map = [1, 2], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 6, 1, 1>}> : (tensor<6x2x6xf64>, tensor<1x2xi32>) -> tensor<6x1xf64>
    return %20 : tensor<6x1xf64>
  }
  func.func private @sort_1(%arg0: tensor<6x1xi1>) -> tensor<6x1xi1> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<i1>, %arg2: tensor<i1>):
      %1 = stablehlo.compare LT, %arg1, %arg2, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    }) : (tensor<6x1xi1>) -> tensor<6x1xi1>
    return %0 : tensor<6x1xi1>
  }
}
