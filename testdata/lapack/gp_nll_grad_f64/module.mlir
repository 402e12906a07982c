module @jit_gp_nll attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<20xf64>, %arg1: tensor<20xf64>) -> (tensor<f64> {jax.result_info = "result[0]"}, tensor<20xf64> {jax.result_info = "result[1][0]"}, tensor<20xf64> {jax.result_info = "result[1][1]"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0] : (tensor<20xf64>) -> tensor<20x1xf64>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<20xf64>) -> tensor<1x20xf64>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<20x1xf64>) -> tensor<20x20xf64>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x20xf64>) -> tensor<20x20xf64>
    %4 = stablehlo.subtract %2, %3 : tensor<20x20xf64>
    %5 = stablehlo.multiply %4, %4 : tensor<20x20xf64>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<20x20xf64>
    %7 = stablehlo.multiply %6, %4 : tensor<20x20xf64>
    %cst_0 = stablehlo.constant dense<-5.000000e-01> : tensor<f64>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<20x20xf64>
    %9 = stablehlo.multiply %8, %5 : tensor<20x20xf64>
    %10 = stablehlo.exponential %9 : tensor<20x20xf64>
    %11 = stablehlo.iota dim = 0 : tensor<20x20xi64>
    %12 = stablehlo.iota dim = 1 : tensor<20x20xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %13 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<20x20xi64>
    %14 = stablehlo.add %11, %13 : tensor<20x20xi64>
    %15 = stablehlo.compare EQ, %14, %12, SIGNED : (tensor<20x20xi64>, tensor<20x20xi64>) -> tensor<20x20xi1>
    %16 = stablehlo.convert %15 : (tensor<20x20xi1>) -> tensor<20x20xf64>
    %cst_1 = stablehlo.constant dense<1.000000e-01> : tensor<f64>
    %17 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<20x20xf64>
    %18 = stablehlo.multiply %17, %16 : tensor<20x20xf64>
    %19 = stablehlo.add %10, %18 : tensor<20x20xf64>
    %20:5 = call @cholesky(%19) : (tensor<20x20xf64>) -> (tensor<20x20xf64>, tensor<20x20xf64>, tensor<20x20xi1>, tensor<20x20xf64>, tensor<20x20xi1>)
    %21:5 = call @_cho_solve(%20#0, %arg1) : (tensor<20x20xf64>, tensor<20xf64>) -> (tensor<20xf64>, tensor<20x20xi1>, tensor<20x1xf64>, tensor<20x20xi1>, tensor<20x1xf64>)
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<f64>
    %22 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<20xf64>
    %23 = stablehlo.multiply %22, %arg1 : tensor<20xf64>
    %24 = stablehlo.dot_general %23, %21#0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<20xf64>, tensor<20xf64>) -> tensor<f64>
    %25:4 = call @_diag(%20#0) : (tensor<20x20xf64>) -> (tensor<20xf64>, tensor<i32>, tensor<20x20xf64>, tensor<20x2xi32>)
    %26 = stablehlo.log %25#0 : tensor<20xf64>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %27 = stablehlo.reduce(%26 init: %cst_3) applies stablehlo.add across dimensions = [0] : (tensor<20xf64>, tensor<f64>) -> tensor<f64>
    %28 = stablehlo.add %24, %27 : tensor<f64>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %29 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f64>) -> tensor<20xf64>
    %30 = stablehlo.divide %29, %25#0 : tensor<20xf64>
    %31 = call @_diag_0(%25#1, %25#2, %25#3, %30) : (tensor<i32>, tensor<20x20xf64>, tensor<20x2xi32>, tensor<20xf64>) -> tensor<20x20xf64>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %32 = stablehlo.dot_general %cst_5, %23, contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<f64>, tensor<20xf64>) -> tensor<20xf64>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %33 = stablehlo.dot_general %cst_6, %21#0, contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<f64>, tensor<20xf64>) -> tensor<20xf64>
    %cst_7 = stablehlo.constant dense<5.000000e-01> : tensor<f64>
    %34 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f64>) -> tensor<20xf64>
    %35 = stablehlo.multiply %34, %33 : tensor<20xf64>
    %36:2 = call @_cho_solve_2(%21#1, %21#2, %20#0, %21#3, %21#4, %32) : (tensor<20x20xi1>, tensor<20x1xf64>, tensor<20x20xf64>, tensor<20x20xi1>, tensor<20x1xf64>, tensor<20xf64>) -> (tensor<20x20xf64>, tensor<20xf64>)
    %37 = stablehlo.add %31, %36#0 : tensor<20x20xf64>
    %38 = stablehlo.add %35, %36#1 : tensor<20xf64>
    %39 = call @cholesky_3(%20#1, %20#2, %20#3, %20#4, %37) : (tensor<20x20xf64>, tensor<20x20xi1>, tensor<20x20xf64>, tensor<20x20xi1>, tensor<20x20xf64>) -> tensor<20x20xf64>
    %40 = stablehlo.multiply %39, %10 : tensor<20x20xf64>
    %cst_8 = stablehlo.constant dense<-5.000000e-01> : tensor<f64>
    %41 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f64>) -> tensor<20x20xf64>
    %42 = stablehlo.multiply %41, %40 : tensor<20x20xf64>
    %43 = stablehlo.multiply %42, %7 : tensor<20x20xf64>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %44 = stablehlo.reduce(%43 init: %cst_9) applies stablehlo.add across dimensions = [1] : (tensor<20x20xf64>, tensor<f64>) -> tensor<20xf64>
    %45 = stablehlo.reshape %44 : (tensor<20xf64>) -> tensor<20x1xf64>
    %46 = stablehlo.negate %43 : tensor<20x20xf64>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %47 = stablehlo.reduce(%46 init: %cst_10) applies stablehlo.add across dimensions = [0] : (tensor<20x20xf64>, tensor<f64>) -> tensor<20xf64>
    %48 = stablehlo.reshape %47 : (tensor<20xf64>) -> tensor<1x20xf64>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %49 = stablehlo.reduce(%48 init: %cst_11) applies stablehlo.add across dimensions = [0] : (tensor<1x20xf64>, tensor<f64>) -> tensor<20xf64>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %50 = stablehlo.reduce(%45 init: %cst_12) applies stablehlo.add across dimensions = [1] : (tensor<20x1xf64>, tensor<f64>) -> tensor<20xf64>
    %51 = stablehlo.add %49, %50 : tensor<20xf64>
    return %28, %51, %38 : tensor<f64>, tensor<20xf64>, tensor<20xf64>
  }
  func.func private @cholesky(%arg0: tensor<20x20xf64>) -> (tensor<20x20xf64>, tensor<20x20xf64>, tensor<20x20xi1>, tensor<20x20xf64>, tensor<20x20xi1>) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<20x20xf64>) -> tensor<20x20xf64>
    %1 = stablehlo.add %arg0, %0 : tensor<20x20xf64>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<20x20xf64>
    %3 = stablehlo.divide %1, %2 : tensor<20x20xf64>
    %4:2 = stablehlo.custom_call @lapack_dpotrf_ffi(%3) {backend_config = "", mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], []) {i=20, j=20, k=20, l=20}, custom>} : (tensor<20x20xf64>) -> (tensor<20x20xf64>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %6 = stablehlo.compare EQ, %4#1, %5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<20x20xf64>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<20x20xi1>
    %10 = stablehlo.select %9, %4#0, %8 : tensor<20x20xi1>, tensor<20x20xf64>
    %11 = stablehlo.iota dim = 0 : tensor<20x20xi64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %12 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<20x20xi64>
    %13 = stablehlo.add %11, %12 : tensor<20x20xi64>
    %14 = stablehlo.iota dim = 1 : tensor<20x20xi64>
    %15 = stablehlo.compare GE, %13, %14, SIGNED : (tensor<20x20xi64>, tensor<20x20xi64>) -> tensor<20x20xi1>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %16 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<20x20xf64>
    %17 = stablehlo.select %15, %10, %16 : tensor<20x20xi1>, tensor<20x20xf64>
    %18 = stablehlo.iota dim = 0 : tensor<20x20xi64>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %19 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i64>) -> tensor<20x20xi64>
    %20 = stablehlo.add %18, %19 : tensor<20x20xi64>
    %21 = stablehlo.iota dim = 1 : tensor<20x20xi64>
    %22 = stablehlo.compare GE, %20, %21, SIGNED : (tensor<20x20xi64>, tensor<20x20xi64>) -> tensor<20x20xi1>
    %23 = stablehlo.iota dim = 0 : tensor<20x20xi32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %24 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<20x20xi32>
    %25 = stablehlo.add %23, %24 : tensor<20x20xi32>
    %26 = stablehlo.iota dim = 1 : tensor<20x20xi32>
    %27 = stablehlo.compare EQ, %25, %26, SIGNED : (tensor<20x20xi32>, tensor<20x20xi32>) -> tensor<20x20xi1>
    %28 = stablehlo.convert %27 : (tensor<20x20xi1>) -> tensor<20x20xf64>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %29 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f64>) -> tensor<20x20xf64>
    %30 = stablehlo.add %29, %28 : tensor<20x20xf64>
    %31 = stablehlo.iota dim = 0 : tensor<20x20xi64>
    %c_6 = stablehlo.constant dense<0> : tensor<i64>
    %32 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i64>) -> tensor<20x20xi64>
    %33 = stablehlo.add %31, %32 : tensor<20x20xi64>
    %34 = stablehlo.iota dim = 1 : tensor<20x20xi64>
    %35 = stablehlo.compare GE, %33, %34, SIGNED : (tensor<20x20xi64>, tensor<20x20xi64>) -> tensor<20x20xi1>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %36 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f64>) -> tensor<20x20xf64>
    %37 = stablehlo.select %35, %17, %36 : tensor<20x20xi1>, tensor<20x20xf64>
    return %37, %17, %22, %30, %35 : tensor<20x20xf64>, tensor<20x20xf64>, tensor<20x20xi1>, tensor<20x20xf64>, tensor<20x20xi1>
  }
  func.func private @_cho_solve(%arg0: tensor<20x20xf64>, %arg1: tensor<20xf64>) -> (tensor<20xf64>, tensor<20x20xi1>, tensor<20x1xf64>, tensor<20x20xi1>, tensor<20x1xf64>) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<20xf64>) -> tensor<20x1xf64>
    %1 = stablehlo.custom_call @lapack_dtrsm_ffi(%arg0, %0) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=20, j=20, k=20, l=1, m=20, n=1}, custom>} : (tensor<20x20xf64>, tensor<20x1xf64>) -> tensor<20x1xf64>
    %2 = stablehlo.iota dim = 0 : tensor<20x20xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<20x20xi64>
    %4 = stablehlo.add %2, %3 : tensor<20x20xi64>
    %5 = stablehlo.iota dim = 1 : tensor<20x20xi64>
    %6 = stablehlo.compare GE, %4, %5, SIGNED : (tensor<20x20xi64>, tensor<20x20xi64>) -> tensor<20x20xi1>
    %7 = stablehlo.reshape %1 : (tensor<20x1xf64>) -> tensor<20xf64>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<20xf64>) -> tensor<20x1xf64>
    %9 = stablehlo.custom_call @lapack_dtrsm_ffi(%arg0, %8) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=20, j=20, k=20, l=1, m=20, n=1}, custom>} : (tensor<20x20xf64>, tensor<20x1xf64>) -> tensor<20x1xf64>
    %10 = stablehlo.iota dim = 0 : tensor<20x20xi64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %11 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<20x20xi64>
    %12 = stablehlo.add %10, %11 : tensor<20x20xi64>
    %13 = stablehlo.iota dim = 1 : tensor<20x20xi64>
    %14 = stablehlo.compare GE, %12, %13, SIGNED : (tensor<20x20xi64>, tensor<20x20xi64>) -> tensor<20x20xi1>
    %15 = stablehlo.reshape %9 : (tensor<20x1xf64>) -> tensor<20xf64>
    return %15, %6, %1, %14, %9 : tensor<20xf64>, tensor<20x20xi1>, tensor<20x1xf64>, tensor<20x20xi1>, tensor<20x1xf64>
  }
  func.func private @_diag(%arg0: tensor<20x20xf64>) -> (tensor<20xf64>, tensor<i32>, tensor<20x20xf64>, tensor<20x2xi32>) {
    %0:4 = call @diagonal(%arg0) : (tensor<20x20xf64>) -> (tensor<20xf64>, tensor<i32>, tensor<20x20xf64>, tensor<20x2xi32>)
    return %0#0, %0#1, %0#2, %0#3 : tensor<20xf64>, tensor<i32>, tensor<20x20xf64>, tensor<20x2xi32>
  }
  func.func private @diagonal(%arg0: tensor<20x20xf64>) -> (tensor<20xf64>, tensor<i32>, tensor<20x20xf64>, tensor<20x2xi32>) {
    %0 = stablehlo.iota dim = 0 : tensor<20x20xi64>
    %1 = stablehlo.iota dim = 1 : tensor<20x20xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<20x20xi64>
    %3 = stablehlo.add %0, %2 : tensor<20x20xi64>
    %4 = stablehlo.compare EQ, %3, %1, SIGNED : (tensor<20x20xi64>, tensor<20x20xi64>) -> tensor<20x20xi1>
    %5 = stablehlo.convert %4 : (tensor<20x20xi1>) -> tensor<20x20xf64>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %6 = "stablehlo.case"(%c_0) ({
      %c_1 = stablehlo.constant dense<0> : tensor<i32>
      stablehlo.return %c_1 : tensor<i32>
    }, {
      %c_1 = stablehlo.constant dense<0> : tensor<i32>
      stablehlo.return %c_1 : tensor<i32>
    }) : (tensor<i32>) -> tensor<i32>
    %7:3 = "stablehlo.case"(%6) ({
      %8 = stablehlo.iota dim = 0 : tensor<20xi64>
      %9 = stablehlo.iota dim = 0 : tensor<20xi64>
      %c_1 = stablehlo.constant dense<0> : tensor<i64>
      %10 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<20xi64>
      %11 = stablehlo.compare LT, %8, %10, SIGNED : (tensor<20xi64>, tensor<20xi64>) -> tensor<20xi1>
      %c_2 = stablehlo.constant dense<20> : tensor<i64>
      %12 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<20xi64>
      %13 = stablehlo.add %8, %12 : tensor<20xi64>
      %14 = stablehlo.select %11, %13, %8 : tensor<20xi1>, tensor<20xi64>
      %c_3 = stablehlo.constant dense<0> : tensor<i64>
      %15 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i64>) -> tensor<20xi64>
      %16 = stablehlo.compare LT, %9, %15, SIGNED : (tensor<20xi64>, tensor<20xi64>) -> tensor<20xi1>
      %c_4 = stablehlo.constant dense<20> : tensor<i64>
      %17 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i64>) -> tensor<20xi64>
      %18 = stablehlo.add %9, %17 : tensor<20xi64>
      %19 = stablehlo.select %16, %18, %9 : tensor<20xi1>, tensor<20xi64>
      %20 = stablehlo.convert %14 : (tensor<20xi64>) -> tensor<20xi32>
      %21 = stablehlo.convert %19 : (tensor<20xi64>) -> tensor<20xi32>
      %22 = stablehlo.broadcast_in_dim %20, dims = [0] : (tensor<20xi32>) -> tensor<20x1xi32>
      %23 = stablehlo.broadcast_in_dim %21, dims = [0] : (tensor<20xi32>) -> tensor<20x1xi32>
      %24 = stablehlo.concatenate %22, %23, dim = 1 : (tensor<20x1xi32>, tensor<20x1xi32>) -> tensor<20x2xi32>
      %25 = "stablehlo.gather"(%arg0, %24) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<20x20xf64>, tensor<20x2xi32>) -> tensor<20xf64>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
      %26 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<20x20xf64>
      stablehlo.return %25, %26, %24 : tensor<20xf64>, tensor<20x20xf64>, tensor<20x2xi32>
    }) : (tensor<i32>) -> (tensor<20xf64>, tensor<20x20xf64>, tensor<20x2xi32>)
    return %7#0, %c_0, %7#1, %7#2 : tensor<20xf64>, tensor<i32>, tensor<20x20xf64>, tensor<20x2xi32>
  }
  func.func private @_diag_0(%arg0: tensor<i32>, %arg1: tensor<20x20xf64>, %arg2: tensor<20x2xi32>, %arg3: tensor<20xf64>) -> tensor<20x20xf64> {
    %0 = call @diagonal_1(%arg0, %arg1, %arg2, %arg3) : (tensor<i32>, tensor<20x20xf64>, tensor<20x2xi32>, tensor<20xf64>) -> tensor<20x20xf64>
    return %0 : tensor<20x20xf64>
  }
  func.func private @diagonal_1(%arg0: tensor<i32>, %arg1: tensor<20x20xf64>, %arg2: tensor<20x2xi32>, %arg3: tensor<20xf64>) -> tensor<20x20xf64> {
    %0 = "stablehlo.case"(%arg0) ({
      %c = stablehlo.constant dense<0> : tensor<i32>
      stablehlo.return %c : tensor<i32>
    }, {
      %c = stablehlo.constant dense<0> : tensor<i32>
      stablehlo.return %c : tensor<i32>
    }) : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
      %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<20x20xf64>
      %3 = "stablehlo.scatter"(%2, %arg2, %arg3) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg4: tensor<f64>, %arg5: tensor<f64>):
        %4 = stablehlo.add %arg4, %arg5 : tensor<f64>
        stablehlo.return %4 : tensor<f64>
      }) : (tensor<20x20xf64>, tensor<20x2xi32>, tensor<20xf64>) -> tensor<20x20xf64>
      stablehlo.return %3 : tensor<20x20xf64>
    }) : (tensor<i32>) -> tensor<20x20xf64>
    return %1 : tensor<20x20xf64>
  }
  func.func private @_cho_solve_2(%arg0: tensor<20x20xi1>, %arg1: tensor<20x1xf64>, %arg2: tensor<20x20xf64>, %arg3: tensor<20x20xi1>, %arg4: tensor<20x1xf64>, %arg5: tensor<20xf64>) -> (tensor<20x20xf64>, tensor<20xf64>) {
    %0 = stablehlo.broadcast_in_dim %arg5, dims = [0] : (tensor<20xf64>) -> tensor<20x1xf64>
    %1 = stablehlo.custom_call @lapack_dtrsm_ffi(%arg2, %0) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=20, j=20, k=20, l=1, m=20, n=1}, custom>} : (tensor<20x20xf64>, tensor<20x1xf64>) -> tensor<20x1xf64>
    %2 = stablehlo.custom_call @lapack_dtrsm_ffi(%arg2, %0) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=20, j=20, k=20, l=1, m=20, n=1}, custom>} : (tensor<20x20xf64>, tensor<20x1xf64>) -> tensor<20x1xf64>
    %3 = stablehlo.dot_general %2, %arg4, contracting_dims = [1] x [1], precision = [HIGHEST, HIGHEST] : (tensor<20x1xf64>, tensor<20x1xf64>) -> tensor<20x20xf64>
    %4 = stablehlo.transpose %3, dims = [1, 0] : (tensor<20x20xf64>) -> tensor<20x20xf64>
    %5 = stablehlo.negate %4 : tensor<20x20xf64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<20x20xf64>
    %7 = stablehlo.select %arg3, %5, %6 : tensor<20x20xi1>, tensor<20x20xf64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %8 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<20x1xf64>, tensor<f64>) -> tensor<20xf64>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<20xf64>) -> tensor<20x1xf64>
    %10 = stablehlo.custom_call @lapack_dtrsm_ffi(%arg2, %9) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=20, j=20, k=20, l=1, m=20, n=1}, custom>} : (tensor<20x20xf64>, tensor<20x1xf64>) -> tensor<20x1xf64>
    %11 = stablehlo.custom_call @lapack_dtrsm_ffi(%arg2, %9) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=20, j=20, k=20, l=1, m=20, n=1}, custom>} : (tensor<20x20xf64>, tensor<20x1xf64>) -> tensor<20x1xf64>
    %12 = stablehlo.dot_general %11, %arg1, contracting_dims = [1] x [1], precision = [HIGHEST, HIGHEST] : (tensor<20x1xf64>, tensor<20x1xf64>) -> tensor<20x20xf64>
    %13 = stablehlo.negate %12 : tensor<20x20xf64>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %14 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<20x20xf64>
    %15 = stablehlo.select %arg0, %13, %14 : tensor<20x20xi1>, tensor<20x20xf64>
    %16 = stablehlo.add %7, %15 : tensor<20x20xf64>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %17 = stablehlo.reduce(%10 init: %cst_2) applies stablehlo.add across dimensions = [1] : (tensor<20x1xf64>, tensor<f64>) -> tensor<20xf64>
    return %16, %17 : tensor<20x20xf64>, tensor<20xf64>
  }
  func.func private @cholesky_3(%arg0: tensor<20x20xf64>, %arg1: tensor<20x20xi1>, %arg2: tensor<20x20xf64>, %arg3: tensor<20x20xi1>, %arg4: tensor<20x20xf64>) -> tensor<20x20xf64> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<20x20xf64>
    %1 = stablehlo.select %arg3, %arg4, %0 : tensor<20x20xi1>, tensor<20x20xf64>
    %2 = stablehlo.dot_general %1, %arg0, contracting_dims = [0] x [0], precision = [HIGHEST, HIGHEST] : (tensor<20x20xf64>, tensor<20x20xf64>) -> tensor<20x20xf64>
    %3 = stablehlo.transpose %2, dims = [1, 0] : (tensor<20x20xf64>) -> tensor<20x20xf64>
    %4 = stablehlo.divide %3, %arg2 : tensor<20x20xf64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<20x20xf64>
    %6 = stablehlo.select %arg1, %4, %5 : tensor<20x20xi1>, tensor<20x20xf64>
    %7 = stablehlo.custom_call @lapack_dtrsm_ffi(%arg0, %6) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=20, j=20, k=20, l=20, m=20, n=20}, custom>} : (tensor<20x20xf64>, tensor<20x20xf64>) -> tensor<20x20xf64>
    %8 = stablehlo.custom_call @lapack_dtrsm_ffi(%arg0, %7) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 82 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=20, j=20, k=20, l=20, m=20, n=20}, custom>} : (tensor<20x20xf64>, tensor<20x20xf64>) -> tensor<20x20xf64>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<20x20xf64>
    %10 = stablehlo.divide %8, %9 : tensor<20x20xf64>
    %11 = stablehlo.transpose %10, dims = [1, 0] : (tensor<20x20xf64>) -> tensor<20x20xf64>
    %12 = stablehlo.add %10, %11 : tensor<20x20xf64>
    return %12 : tensor<20x20xf64>
  }
}
