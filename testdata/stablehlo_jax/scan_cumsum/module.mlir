module @jit_scan_cumsum attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x3xf32>, %arg1: tensor<4xi32>) -> (tensor<6x3xf32> {jax.result_info = "result[0]"}, tensor<3xf32> {jax.result_info = "result[1]"}, tensor<6xf32> {jax.result_info = "result[2]"}, tensor<4x3xf32> {jax.result_info = "result[3]"}, tensor<6xf32> {jax.result_info = "result[4]"}, tensor<6x3xf32> {jax.result_info = "result[5]"}) {
    %0 = call @cumsum(%arg0) : (tensor<6x3xf32>) -> tensor<6x3xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %3:4 = stablehlo.while(%iterArg = %arg0, %iterArg_7 = %c, %iterArg_8 = %1, %iterArg_9 = %2) : tensor<6x3xf32>, tensor<i32>, tensor<3xf32>, tensor<6xf32>
    cond {
      %c_10 = stablehlo.constant dense<6> : tensor<i32>
      %21 = stablehlo.compare LT, %iterArg_7, %c_10, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %21 : tensor<i1>
    } do {
      %21 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_7) : (tensor<6x3xf32>, tensor<i32>) -> tensor<3xf32>
      %22:2 = func.call @closed_call(%iterArg_8, %21) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>)
      %23 = func.call @dynamic_update_index_in_dim(%iterArg_9, %22#1, %iterArg_7) : (tensor<6xf32>, tensor<f32>, tensor<i32>) -> tensor<6xf32>
      %c_10 = stablehlo.constant dense<1> : tensor<i32>
      %24 = stablehlo.add %iterArg_7, %c_10 : tensor<i32>
      stablehlo.return %iterArg, %24, %22#0, %23 : tensor<6x3xf32>, tensor<i32>, tensor<3xf32>, tensor<6xf32>
    }
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %5 = stablehlo.compare LT, %arg1, %4, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_2 = stablehlo.constant dense<6> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %7 = stablehlo.add %arg1, %6 : tensor<4xi32>
    %8 = stablehlo.select %5, %7, %arg1 : tensor<4xi1>, tensor<4xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %10 = "stablehlo.gather"(%arg0, %9) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : (tensor<6x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %12 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %13 = stablehlo.compare LT, %arg1, %12, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_5 = stablehlo.constant dense<6> : tensor<i32>
    %14 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %15 = stablehlo.add %arg1, %14 : tensor<4xi32>
    %16 = stablehlo.select %13, %15, %arg1 : tensor<4xi1>, tensor<4xi32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %19 = "stablehlo.scatter"(%11, %17, %18) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %21 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %21 : tensor<f32>
    }) : (tensor<6xf32>, tensor<4x1xi32>, tensor<4xf32>) -> tensor<6xf32>
    %20 = call @sort(%arg0) : (tensor<6x3xf32>) -> tensor<6x3xf32>
    return %0, %3#2, %3#3, %10, %19, %20 : tensor<6x3xf32>, tensor<3xf32>, tensor<6xf32>, tensor<4x3xf32>, tensor<6xf32>, tensor<6x3xf32>
  }
  func.func private @cumsum(%arg0: tensor<6x3xf32>) -> tensor<6x3xf32> {
    %0 = call @cumsum_0(%arg0) : (tensor<6x3xf32>) -> tensor<6x3xf32>
    return %0 : tensor<6x3xf32>
  }
  func.func private @cumsum_0(%arg0: tensor<6x3xf32>) -> tensor<6x3xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[5, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 6, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<6x3xf32>, tensor<f32>) -> tensor<6x3xf32>
    return %1 : tensor<6x3xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<6x3xf32>, %arg1: tensor<i32>) -> tensor<3xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 3] : (tensor<6x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x3xf32>) -> tensor<3xf32>
    return %1 : tensor<3xf32>
  }
  func.func private @closed_call(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>) {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<3xf32>
    %2 = stablehlo.add %1, %arg1 : tensor<3xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    return %2, %3 : tensor<3xf32>, tensor<f32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<6xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>) -> tensor<6xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2 : (tensor<6xf32>, tensor<1xf32>, tensor<i32>) -> tensor<6xf32>
    return %1 : tensor<6xf32>
  }
  func.func private @sort(%arg0: tensor<6x3xf32>) -> tensor<6x3xf32> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %1 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %4 = stablehlo.select %3, %cst_1, %2 : tensor<i1>, tensor<f32>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %5 = stablehlo.compare EQ, %arg2, %cst_2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %6 = stablehlo.select %5, %cst_3, %arg2 : tensor<i1>, tensor<f32>
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %8 = stablehlo.select %7, %cst_4, %6 : tensor<i1>, tensor<f32>
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<6x3xf32>) -> tensor<6x3xf32>
    return %0 : tensor<6x3xf32>
  }
}
