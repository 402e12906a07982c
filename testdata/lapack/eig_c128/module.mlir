module @jit_eig_unique attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x5xcomplex<f64>>) -> (tensor<5xf64> {jax.result_info = "result[0]"}, tensor<5xf64> {jax.result_info = "result[1]"}, tensor<5xf64> {jax.result_info = "result[2]"}, tensor<f64> {jax.result_info = "result[3]"}, tensor<f64> {jax.result_info = "result[4]"}, tensor<5xf64> {jax.result_info = "result[5]"}, tensor<5xf64> {jax.result_info = "result[6]"}, tensor<1x5xf64> {jax.result_info = "result[7]"}, tensor<1x5xf64> {jax.result_info = "result[8]"}) {
    %0:4 = stablehlo.custom_call @lapack_zgeev_ffi(%arg0) {backend_config = "", mhlo.backend_config = {compute_left = 86 : ui8, compute_right = 86 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k], [l, m], [n, o], []) {i=5, j=5, k=5, l=5, m=5, n=5, o=5}, custom>} : (tensor<5x5xcomplex<f64>>) -> (tensor<5xcomplex<f64>>, tensor<5x5xcomplex<f64>>, tensor<5x5xcomplex<f64>>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#3, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<5xcomplex<f64>>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<5xi1>
    %6 = stablehlo.select %5, %0#0, %4 : tensor<5xi1>, tensor<5xcomplex<f64>>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f64>>) -> tensor<5x5xcomplex<f64>>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x5xi1>
    %10 = stablehlo.select %9, %0#1, %8 : tensor<5x5xi1>, tensor<5x5xcomplex<f64>>
    %11 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_1 = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<complex<f64>>) -> tensor<5x5xcomplex<f64>>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x5xi1>
    %14 = stablehlo.select %13, %0#2, %12 : tensor<5x5xi1>, tensor<5x5xcomplex<f64>>
    %15 = stablehlo.dot_general %arg0, %14, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x5xcomplex<f64>>, tensor<5x5xcomplex<f64>>) -> tensor<5x5xcomplex<f64>>
    %16 = stablehlo.broadcast_in_dim %6, dims = [1] : (tensor<5xcomplex<f64>>) -> tensor<1x5xcomplex<f64>>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1] : (tensor<1x5xcomplex<f64>>) -> tensor<5x5xcomplex<f64>>
    %18 = stablehlo.multiply %14, %17 : tensor<5x5xcomplex<f64>>
    %19 = stablehlo.subtract %15, %18 : tensor<5x5xcomplex<f64>>
    %20 = stablehlo.abs %19 : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xf64>
    %cst_2 = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %21 = stablehlo.reduce(%20 init: %cst_2) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<5x5xf64>, tensor<f64>) -> tensor<f64>
    %22 = stablehlo.transpose %10, dims = [1, 0] : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xcomplex<f64>>
    %23 = stablehlo.real %22 : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xf64>
    %24 = stablehlo.imag %22 : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xf64>
    %25 = stablehlo.negate %24 : tensor<5x5xf64>
    %26 = stablehlo.complex %23, %25 : tensor<5x5xcomplex<f64>>
    %27 = stablehlo.dot_general %26, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x5xcomplex<f64>>, tensor<5x5xcomplex<f64>>) -> tensor<5x5xcomplex<f64>>
    %28 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<5xcomplex<f64>>) -> tensor<5x1xcomplex<f64>>
    %29 = stablehlo.transpose %10, dims = [1, 0] : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xcomplex<f64>>
    %30 = stablehlo.real %29 : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xf64>
    %31 = stablehlo.imag %29 : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xf64>
    %32 = stablehlo.negate %31 : tensor<5x5xf64>
    %33 = stablehlo.complex %30, %32 : tensor<5x5xcomplex<f64>>
    %34 = stablehlo.broadcast_in_dim %28, dims = [0, 1] : (tensor<5x1xcomplex<f64>>) -> tensor<5x5xcomplex<f64>>
    %35 = stablehlo.multiply %34, %33 : tensor<5x5xcomplex<f64>>
    %36 = stablehlo.subtract %27, %35 : tensor<5x5xcomplex<f64>>
    %37 = stablehlo.abs %36 : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xf64>
    %cst_3 = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %38 = stablehlo.reduce(%37 init: %cst_3) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<5x5xf64>, tensor<f64>) -> tensor<f64>
    %39 = stablehlo.real %6 : (tensor<5xcomplex<f64>>) -> tensor<5xf64>
    %40 = call @sort(%39) : (tensor<5xf64>) -> tensor<5xf64>
    %41 = stablehlo.imag %6 : (tensor<5xcomplex<f64>>) -> tensor<5xf64>
    %42 = call @sort(%41) : (tensor<5xf64>) -> tensor<5xf64>
    %43 = stablehlo.abs %6 : (tensor<5xcomplex<f64>>) -> tensor<5xf64>
    %44 = call @sort(%43) : (tensor<5xf64>) -> tensor<5xf64>
    %45 = call @norm(%14) : (tensor<5x5xcomplex<f64>>) -> tensor<5xf64>
    %46 = call @norm(%10) : (tensor<5x5xcomplex<f64>>) -> tensor<5xf64>
    %47 = stablehlo.abs %14 : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xf64>
    %48 = call @argmax(%47) : (tensor<5x5xf64>) -> tensor<5xi64>
    %49 = stablehlo.broadcast_in_dim %48, dims = [1] : (tensor<5xi64>) -> tensor<1x5xi64>
    %50 = call @take_along_axis(%14, %49) : (tensor<5x5xcomplex<f64>>, tensor<1x5xi64>) -> tensor<1x5xcomplex<f64>>
    %51 = stablehlo.imag %50 : (tensor<1x5xcomplex<f64>>) -> tensor<1x5xf64>
    %52 = stablehlo.abs %10 : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xf64>
    %53 = call @argmax(%52) : (tensor<5x5xf64>) -> tensor<5xi64>
    %54 = stablehlo.broadcast_in_dim %53, dims = [1] : (tensor<5xi64>) -> tensor<1x5xi64>
    %55 = call @take_along_axis(%10, %54) : (tensor<5x5xcomplex<f64>>, tensor<1x5xi64>) -> tensor<1x5xcomplex<f64>>
    %56 = stablehlo.imag %55 : (tensor<1x5xcomplex<f64>>) -> tensor<1x5xf64>
    return %40, %42, %44, %21, %38, %45, %46, %51, %56 : tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<f64>, tensor<f64>, tensor<5xf64>, tensor<5xf64>, tensor<1x5xf64>, tensor<1x5xf64>
  }
  func.func private @sort(%arg0: tensor<5xf64>) -> tensor<5xf64> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
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
    }) : (tensor<5xf64>) -> tensor<5xf64>
    return %0 : tensor<5xf64>
  }
  func.func private @norm(%arg0: tensor<5x5xcomplex<f64>>) -> tensor<5xf64> {
    %0 = stablehlo.real %arg0 : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xf64>
    %1 = stablehlo.imag %arg0 : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xf64>
    %2 = stablehlo.negate %1 : tensor<5x5xf64>
    %3 = stablehlo.complex %0, %2 : tensor<5x5xcomplex<f64>>
    %4 = stablehlo.multiply %arg0, %3 : tensor<5x5xcomplex<f64>>
    %5 = stablehlo.real %4 : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xf64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<5x5xf64>, tensor<f64>) -> tensor<5xf64>
    %7 = stablehlo.sqrt %6 : tensor<5xf64>
    return %7 : tensor<5xf64>
  }
  func.func private @argmax(%arg0: tensor<5x5xf64>) -> tensor<5xi64> {
    %0 = stablehlo.iota dim = 0 : tensor<5x5xi64>
    %cst = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [0] : (tensor<5x5xf64>, tensor<5x5xi64>, tensor<f64>, tensor<i64>) -> (tensor<5xf64>, tensor<5xi64>)
     reducer(%arg1: tensor<f64>, %arg3: tensor<f64>) (%arg2: tensor<i64>, %arg4: tensor<i64>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f64>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i64>
      stablehlo.return %9, %10 : tensor<f64>, tensor<i64>
    }
    return %1#1 : tensor<5xi64>
  }
  func.func private @take_along_axis(%arg0: tensor<5x5xcomplex<f64>>, %arg1: tensor<1x5xi64>) -> tensor<1x5xcomplex<f64>> {
    %0 = stablehlo.convert %arg1 : (tensor<1x5xi64>) -> tensor<1x5xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<1x5xi32>
    %2 = stablehlo.compare LT, %0, %1, SIGNED : (tensor<1x5xi32>, tensor<1x5xi32>) -> tensor<1x5xi1>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<1x5xi32>
    %4 = stablehlo.add %0, %3 : tensor<1x5xi32>
    %5 = stablehlo.select %2, %4, %0 : tensor<1x5xi1>, tensor<1x5xi32>
    %6 = stablehlo.reshape %5 : (tensor<1x5xi32>) -> tensor<1x5x1xi32>
    %c_1 = stablehlo.constant dense<4> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<1x5x1xi32>
    %8 = stablehlo.compare GE, %6, %7, SIGNED : (tensor<1x5x1xi32>, tensor<1x5x1xi32>) -> tensor<1x5x1xi1>
    %9 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<1x5x1xi32>
    %11 = stablehlo.compare LE, %6, %10, SIGNED : (tensor<1x5x1xi32>, tensor<1x5x1xi32>) -> tensor<1x5x1xi1>
    %12 = stablehlo.and %8, %11 : tensor<1x5x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %13 = stablehlo.reduce(%12 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<1x5x1xi1>, tensor<i1>) -> tensor<1x5xi1>
    %14 = "stablehlo.gather"(%arg0, %6) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], operand_batching_dims = [1], start_indices_batching_dims = [1], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<5x5xcomplex<f64>>, tensor<1x5x1xi32>) -> tensor<1x5xcomplex<f64>>
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0.000000e+00)> : tensor<complex<f64>>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<1x5xcomplex<f64>>
    %16 = stablehlo.select %13, %14, %15 : tensor<1x5xi1>, tensor<1x5xcomplex<f64>>
    return %16 : tensor<1x5xcomplex<f64>>
  }
}
