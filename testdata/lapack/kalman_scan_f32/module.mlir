module @jit_kalman attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4xf32>, %arg1: tensor<4x4xf32>, %arg2: tensor<50x2xf32>) -> (tensor<50x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.iota dim = 0 : tensor<4x4xi64>
    %1 = stablehlo.iota dim = 1 : tensor<4x4xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
    %3 = stablehlo.add %0, %2 : tensor<4x4xi64>
    %4 = stablehlo.compare EQ, %3, %1, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %5 = stablehlo.convert %4 : (tensor<4x4xi1>) -> tensor<4x4xf32>
    %cst = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %7 = stablehlo.multiply %6, %arg0 : tensor<4x4xf32>
    %8 = stablehlo.add %5, %7 : tensor<4x4xf32>
    %9 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %10 = stablehlo.dot_general %arg1, %9, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %cst_0 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %12 = stablehlo.divide %10, %11 : tensor<4x4xf32>
    %13 = stablehlo.iota dim = 0 : tensor<4x4xi64>
    %14 = stablehlo.iota dim = 1 : tensor<4x4xi64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %15 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
    %16 = stablehlo.add %13, %15 : tensor<4x4xi64>
    %17 = stablehlo.compare EQ, %16, %14, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %18 = stablehlo.convert %17 : (tensor<4x4xi1>) -> tensor<4x4xf32>
    %19 = stablehlo.add %12, %18 : tensor<4x4xf32>
    %cst_2 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %21 = stablehlo.multiply %20, %19 : tensor<4x4xf32>
    %22 = stablehlo.iota dim = 0 : tensor<2x4xi64>
    %23 = stablehlo.iota dim = 1 : tensor<2x4xi64>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %24 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i64>) -> tensor<2x4xi64>
    %25 = stablehlo.add %22, %24 : tensor<2x4xi64>
    %26 = stablehlo.compare EQ, %25, %23, SIGNED : (tensor<2x4xi64>, tensor<2x4xi64>) -> tensor<2x4xi1>
    %27 = stablehlo.convert %26 : (tensor<2x4xi1>) -> tensor<2x4xf32>
    %28 = stablehlo.iota dim = 0 : tensor<2x2xi64>
    %29 = stablehlo.iota dim = 1 : tensor<2x2xi64>
    %c_4 = stablehlo.constant dense<0> : tensor<i64>
    %30 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i64>) -> tensor<2x2xi64>
    %31 = stablehlo.add %28, %30 : tensor<2x2xi64>
    %32 = stablehlo.compare EQ, %31, %29, SIGNED : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi1>
    %33 = stablehlo.convert %32 : (tensor<2x2xi1>) -> tensor<2x2xf32>
    %cst_5 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %34 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
    %35 = stablehlo.multiply %34, %33 : tensor<2x2xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %37 = stablehlo.iota dim = 0 : tensor<4x4xi64>
    %38 = stablehlo.iota dim = 1 : tensor<4x4xi64>
    %c_7 = stablehlo.constant dense<0> : tensor<i64>
    %39 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
    %40 = stablehlo.add %37, %39 : tensor<4x4xi64>
    %41 = stablehlo.compare EQ, %40, %38, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %42 = stablehlo.convert %41 : (tensor<4x4xi1>) -> tensor<4x4xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<50x4xf32>
    %c_9 = stablehlo.constant dense<0> : tensor<i64>
    %44:9 = stablehlo.while(%iterArg = %arg2, %iterArg_10 = %8, %iterArg_11 = %21, %iterArg_12 = %27, %iterArg_13 = %35, %iterArg_14 = %c_9, %iterArg_15 = %36, %iterArg_16 = %42, %iterArg_17 = %43) : tensor<50x2xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<2x4xf32>, tensor<2x2xf32>, tensor<i64>, tensor<4xf32>, tensor<4x4xf32>, tensor<50x4xf32>
    cond {
      %c_18 = stablehlo.constant dense<50> : tensor<i64>
      %45 = stablehlo.compare LT, %iterArg_14, %c_18, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %45 : tensor<i1>
    } do {
      %45 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_14) : (tensor<50x2xf32>, tensor<i64>) -> tensor<2xf32>
      %46:3 = func.call @closed_call(%iterArg_10, %iterArg_11, %iterArg_12, %iterArg_13, %iterArg_15, %iterArg_16, %45) : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<2x4xf32>, tensor<2x2xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<2xf32>) -> (tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>)
      %47 = func.call @dynamic_update_index_in_dim(%iterArg_17, %46#2, %iterArg_14) : (tensor<50x4xf32>, tensor<4xf32>, tensor<i64>) -> tensor<50x4xf32>
      %c_18 = stablehlo.constant dense<1> : tensor<i64>
      %48 = stablehlo.add %iterArg_14, %c_18 : tensor<i64>
      stablehlo.return %iterArg, %iterArg_10, %iterArg_11, %iterArg_12, %iterArg_13, %48, %46#0, %46#1, %47 : tensor<50x2xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<2x4xf32>, tensor<2x2xf32>, tensor<i64>, tensor<4xf32>, tensor<4x4xf32>, tensor<50x4xf32>
    }
    return %44#8 : tensor<50x4xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<50x2xf32>, %arg1: tensor<i64>) -> tensor<2xf32> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 2] : (tensor<50x2xf32>, tensor<i64>, tensor<i64>) -> tensor<1x2xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x2xf32>) -> tensor<2xf32>
    return %1 : tensor<2xf32>
  }
  func.func private @closed_call(%arg0: tensor<4x4xf32>, %arg1: tensor<4x4xf32>, %arg2: tensor<2x4xf32>, %arg3: tensor<2x2xf32>, %arg4: tensor<4xf32>, %arg5: tensor<4x4xf32>, %arg6: tensor<2xf32>) -> (tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>) {
    %0 = stablehlo.dot_general %arg0, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %1 = stablehlo.dot_general %arg0, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %2 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %3 = stablehlo.dot_general %1, %2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %4 = stablehlo.add %3, %arg1 : tensor<4x4xf32>
    %5 = stablehlo.dot_general %arg2, %4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %6 = stablehlo.transpose %arg2, dims = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
    %7 = stablehlo.dot_general %5, %6, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
    %8 = stablehlo.add %7, %arg3 : tensor<2x2xf32>
    %9 = stablehlo.transpose %arg2, dims = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
    %10 = stablehlo.dot_general %4, %9, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
    %11 = call @inv(%8) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %12 = stablehlo.dot_general %10, %11, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
    %13 = stablehlo.dot_general %arg2, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2xf32>
    %14 = stablehlo.subtract %arg6, %13 : tensor<2xf32>
    %15 = stablehlo.dot_general %12, %14, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4xf32>
    %16 = stablehlo.add %0, %15 : tensor<4xf32>
    %17 = stablehlo.iota dim = 0 : tensor<4x4xi64>
    %18 = stablehlo.iota dim = 1 : tensor<4x4xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %19 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
    %20 = stablehlo.add %17, %19 : tensor<4x4xi64>
    %21 = stablehlo.compare EQ, %20, %18, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %22 = stablehlo.convert %21 : (tensor<4x4xi1>) -> tensor<4x4xf32>
    %23 = stablehlo.dot_general %12, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
    %24 = stablehlo.subtract %22, %23 : tensor<4x4xf32>
    %25 = stablehlo.dot_general %24, %4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    return %16, %25, %16 : tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>
  }
  func.func private @inv(%arg0: tensor<2x2xf32>) -> tensor<2x2xf32> {
    %0 = stablehlo.iota dim = 0 : tensor<2x2xi64>
    %1 = stablehlo.iota dim = 1 : tensor<2x2xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<2x2xi64>
    %3 = stablehlo.add %0, %2 : tensor<2x2xi64>
    %4 = stablehlo.compare EQ, %3, %1, SIGNED : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi1>
    %5 = stablehlo.convert %4 : (tensor<2x2xi1>) -> tensor<2x2xf32>
    %6 = call @solve(%arg0, %5) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    return %6 : tensor<2x2xf32>
  }
  func.func private @solve(%arg0: tensor<2x2xf32>, %arg1: tensor<2x2xf32>) -> tensor<2x2xf32> {
    %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], []) {i=2, j=2, k=2, l=2, m=2}, custom>} : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xi32>, tensor<i32>)
    %c = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %2 = stablehlo.subtract %0#1, %1 : tensor<2xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<i32>
    %4 = stablehlo.compare GE, %0#2, %3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
    %7 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<2x2xi1>
    %8 = stablehlo.select %7, %0#0, %6 : tensor<2x2xi1>, tensor<2x2xf32>
    %9 = stablehlo.iota dim = 0 : tensor<2xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %10:4 = stablehlo.while(%iterArg = %2, %iterArg_3 = %c_2, %iterArg_4 = %c_1, %iterArg_5 = %9) : tensor<2xi32>, tensor<i64>, tensor<i64>, tensor<2xi32>
    cond {
      %c_6 = stablehlo.constant dense<2> : tensor<i64>
      %14 = stablehlo.compare LT, %iterArg_3, %c_6, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %14 : tensor<i1>
    } do {
      %14:2 = func.call @closed_call_0(%iterArg, %iterArg_4, %iterArg_5) : (tensor<2xi32>, tensor<i64>, tensor<2xi32>) -> (tensor<i64>, tensor<2xi32>)
      %c_6 = stablehlo.constant dense<1> : tensor<i64>
      %15 = stablehlo.add %iterArg_3, %c_6 : tensor<i64>
      stablehlo.return %iterArg, %15, %14#0, %14#1 : tensor<2xi32>, tensor<i64>, tensor<i64>, tensor<2xi32>
    }
    %11 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %12 = call @_lu_solve(%8, %10#3, %11) : (tensor<2x2xf32>, tensor<2xi32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %13 = stablehlo.transpose %12, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
    return %13 : tensor<2x2xf32>
  }
  func.func private @closed_call_0(%arg0: tensor<2xi32>, %arg1: tensor<i64>, %arg2: tensor<2xi32>) -> (tensor<i64>, tensor<2xi32>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg1, %c : tensor<i64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %1 = stablehlo.compare LT, %arg1, %c_0, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %2 = stablehlo.convert %arg1 : tensor<i64>
    %c_1 = stablehlo.constant dense<2> : tensor<i64>
    %3 = stablehlo.add %2, %c_1 : tensor<i64>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<i1>, tensor<i64>
    %5 = stablehlo.dynamic_slice %arg0, %4, sizes = [1] : (tensor<2xi32>, tensor<i64>) -> tensor<1xi32>
    %6 = stablehlo.reshape %5 : (tensor<1xi32>) -> tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %7 = stablehlo.compare LT, %arg1, %c_2, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %8 = stablehlo.convert %arg1 : tensor<i64>
    %c_3 = stablehlo.constant dense<2> : tensor<i64>
    %9 = stablehlo.add %8, %c_3 : tensor<i64>
    %10 = stablehlo.select %7, %9, %arg1 : tensor<i1>, tensor<i64>
    %11 = stablehlo.dynamic_slice %arg2, %10, sizes = [1] : (tensor<2xi32>, tensor<i64>) -> tensor<1xi32>
    %12 = stablehlo.reshape %11 : (tensor<1xi32>) -> tensor<i32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %13 = stablehlo.compare LT, %6, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_5 = stablehlo.constant dense<2> : tensor<i32>
    %14 = stablehlo.add %6, %c_5 : tensor<i32>
    %15 = stablehlo.select %13, %14, %6 : tensor<i1>, tensor<i32>
    %16 = stablehlo.dynamic_slice %arg2, %15, sizes = [1] : (tensor<2xi32>, tensor<i32>) -> tensor<1xi32>
    %17 = stablehlo.reshape %16 : (tensor<1xi32>) -> tensor<i32>
    %c_6 = stablehlo.constant dense<0> : tensor<i64>
    %18 = stablehlo.compare LT, %arg1, %c_6, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %c_7 = stablehlo.constant dense<2> : tensor<i64>
    %19 = stablehlo.add %arg1, %c_7 : tensor<i64>
    %20 = stablehlo.select %18, %19, %arg1 : tensor<i1>, tensor<i64>
    %21 = stablehlo.convert %20 : (tensor<i64>) -> tensor<i32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %23 = "stablehlo.scatter"(%arg2, %22, %17) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      stablehlo.return %arg4 : tensor<i32>
    }) : (tensor<2xi32>, tensor<1xi32>, tensor<i32>) -> tensor<2xi32>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %24 = stablehlo.compare LT, %6, %c_8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_9 = stablehlo.constant dense<2> : tensor<i32>
    %25 = stablehlo.add %6, %c_9 : tensor<i32>
    %26 = stablehlo.select %24, %25, %6 : tensor<i1>, tensor<i32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %28 = "stablehlo.scatter"(%23, %27, %12) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      stablehlo.return %arg4 : tensor<i32>
    }) : (tensor<2xi32>, tensor<1xi32>, tensor<i32>) -> tensor<2xi32>
    return %0, %28 : tensor<i64>, tensor<2xi32>
  }
  func.func private @_lu_solve(%arg0: tensor<2x2xf32>, %arg1: tensor<2xi32>, %arg2: tensor<2x2xf32>) -> tensor<2x2xf32> {
    %0 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1] : (tensor<2x2xf32>) -> tensor<2x2x1xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %2 = stablehlo.compare LT, %arg1, %1, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %c_0 = stablehlo.constant dense<2> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %4 = stablehlo.add %arg1, %3 : tensor<2xi32>
    %5 = stablehlo.select %2, %4, %arg1 : tensor<2xi1>, tensor<2xi32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32>
    %7 = "stablehlo.gather"(%0, %6) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 2], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 2, 1, 1>}> : (tensor<2x2x1xf32>, tensor<2x1xi32>) -> tensor<2x2x1xf32>
    %8 = stablehlo.transpose %7, dims = [1, 2, 0] : (tensor<2x2x1xf32>) -> tensor<2x1x2xf32>
    %9 = stablehlo.reshape %8 : (tensor<2x1x2xf32>) -> tensor<2x2xf32>
    %10 = stablehlo.custom_call @lapack_strsm_ffi(%arg0, %9) {backend_config = "", mhlo.backend_config = {diag = 85 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=2, j=2, k=2, l=2, m=2, n=2}, custom>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %11 = stablehlo.reshape %10 : (tensor<2x2xf32>) -> tensor<2x1x2xf32>
    %12 = stablehlo.reshape %11 : (tensor<2x1x2xf32>) -> tensor<2x2xf32>
    %13 = stablehlo.custom_call @lapack_strsm_ffi(%arg0, %12) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 85 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=2, j=2, k=2, l=2, m=2, n=2}, custom>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %14 = stablehlo.reshape %13 : (tensor<2x2xf32>) -> tensor<2x1x2xf32>
    %15 = stablehlo.transpose %14, dims = [2, 0, 1] : (tensor<2x1x2xf32>) -> tensor<2x2x1xf32>
    %16 = stablehlo.reshape %15 : (tensor<2x2x1xf32>) -> tensor<2x2xf32>
    return %16 : tensor<2x2xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<50x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<i64>) -> tensor<50x4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<50x4xf32>, tensor<1x4xf32>, tensor<i64>, tensor<i64>) -> tensor<50x4xf32>
    return %1 : tensor<50x4xf32>
  }
}
