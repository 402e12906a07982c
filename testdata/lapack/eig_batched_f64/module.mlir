module @jit_eig_unique attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x6x6xf64>) -> (tensor<2x6xf64> {jax.result_info = "result[0]"}, tensor<2x6xf64> {jax.result_info = "result[1]"}, tensor<2x6xf64> {jax.result_info = "result[2]"}, tensor<f64> {jax.result_info = "result[3]"}, tensor<f64> {jax.result_info = "result[4]"}, tensor<2x6xf64> {jax.result_info = "result[5]"}, tensor<2x6xf64> {jax.result_info = "result[6]"}, tensor<2x1x6xf64> {jax.result_info = "result[7]"}, tensor<2x1x6xf64> {jax.result_info = "result[8]"}) {
    %0:5 = stablehlo.custom_call @lapack_dgeev_ffi(%arg0) {backend_config = "", mhlo.backend_config = {compute_left = 86 : ui8, compute_right = 86 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l], [i, m], [i, n, o], [i, p, q], [i]) {i=2, j=6, k=6, l=6, m=6, n=6, o=6, p=6, q=6}, custom>} : (tensor<2x6x6xf64>) -> (tensor<2x6xf64>, tensor<2x6xf64>, tensor<2x6x6xcomplex<f64>>, tensor<2x6x6xcomplex<f64>>, tensor<2xi32>)
    %1 = stablehlo.complex %0#0, %0#1 : tensor<2x6xcomplex<f64>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %3 = stablehlo.compare EQ, %0#4, %2, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<2x6xcomplex<f64>>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x6xi1>
    %7 = stablehlo.select %6, %1, %5 : tensor<2x6xi1>, tensor<2x6xcomplex<f64>>
    %8 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %cst_0 = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %9 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f64>>) -> tensor<2x6x6xcomplex<f64>>
    %10 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x6x6xi1>
    %11 = stablehlo.select %10, %0#2, %9 : tensor<2x6x6xi1>, tensor<2x6x6xcomplex<f64>>
    %12 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %cst_1 = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %13 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<complex<f64>>) -> tensor<2x6x6xcomplex<f64>>
    %14 = stablehlo.broadcast_in_dim %12, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x6x6xi1>
    %15 = stablehlo.select %14, %0#3, %13 : tensor<2x6x6xi1>, tensor<2x6x6xcomplex<f64>>
    %16 = stablehlo.convert %arg0 : (tensor<2x6x6xf64>) -> tensor<2x6x6xcomplex<f64>>
    %17 = stablehlo.dot_general %16, %15, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x6xcomplex<f64>>, tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xcomplex<f64>>
    %18 = stablehlo.broadcast_in_dim %7, dims = [0, 2] : (tensor<2x6xcomplex<f64>>) -> tensor<2x1x6xcomplex<f64>>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1, 2] : (tensor<2x1x6xcomplex<f64>>) -> tensor<2x6x6xcomplex<f64>>
    %20 = stablehlo.multiply %15, %19 : tensor<2x6x6xcomplex<f64>>
    %21 = stablehlo.subtract %17, %20 : tensor<2x6x6xcomplex<f64>>
    %22 = stablehlo.abs %21 : (tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xf64>
    %cst_2 = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %23 = stablehlo.reduce(%22 init: %cst_2) applies stablehlo.maximum across dimensions = [0, 1, 2] : (tensor<2x6x6xf64>, tensor<f64>) -> tensor<f64>
    %24 = stablehlo.transpose %11, dims = [0, 2, 1] : (tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xcomplex<f64>>
    %25 = stablehlo.real %24 : (tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xf64>
    %26 = stablehlo.imag %24 : (tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xf64>
    %27 = stablehlo.negate %26 : tensor<2x6x6xf64>
    %28 = stablehlo.complex %25, %27 : tensor<2x6x6xcomplex<f64>>
    %29 = stablehlo.dot_general %28, %16, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x6xcomplex<f64>>, tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xcomplex<f64>>
    %30 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<2x6xcomplex<f64>>) -> tensor<2x6x1xcomplex<f64>>
    %31 = stablehlo.transpose %11, dims = [0, 2, 1] : (tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xcomplex<f64>>
    %32 = stablehlo.real %31 : (tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xf64>
    %33 = stablehlo.imag %31 : (tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xf64>
    %34 = stablehlo.negate %33 : tensor<2x6x6xf64>
    %35 = stablehlo.complex %32, %34 : tensor<2x6x6xcomplex<f64>>
    %36 = stablehlo.broadcast_in_dim %30, dims = [0, 1, 2] : (tensor<2x6x1xcomplex<f64>>) -> tensor<2x6x6xcomplex<f64>>
    %37 = stablehlo.multiply %36, %35 : tensor<2x6x6xcomplex<f64>>
    %38 = stablehlo.subtract %29, %37 : tensor<2x6x6xcomplex<f64>>
    %39 = stablehlo.abs %38 : (tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xf64>
    %cst_3 = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %40 = stablehlo.reduce(%39 init: %cst_3) applies stablehlo.maximum across dimensions = [0, 1, 2] : (tensor<2x6x6xf64>, tensor<f64>) -> tensor<f64>
    %41 = stablehlo.real %7 : (tensor<2x6xcomplex<f64>>) -> tensor<2x6xf64>
    %42 = call @sort(%41) : (tensor<2x6xf64>) -> tensor<2x6xf64>
    %43 = stablehlo.imag %7 : (tensor<2x6xcomplex<f64>>) -> tensor<2x6xf64>
    %44 = call @sort(%43) : (tensor<2x6xf64>) -> tensor<2x6xf64>
    %45 = stablehlo.abs %7 : (tensor<2x6xcomplex<f64>>) -> tensor<2x6xf64>
    %46 = call @sort(%45) : (tensor<2x6xf64>) -> tensor<2x6xf64>
    %47 = call @norm(%15) : (tensor<2x6x6xcomplex<f64>>) -> tensor<2x6xf64>
    %48 = call @norm(%11) : (tensor<2x6x6xcomplex<f64>>) -> tensor<2x6xf64>
    %49 = stablehlo.abs %15 : (tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xf64>
    %50 = call @argmax(%49) : (tensor<2x6x6xf64>) -> tensor<2x6xi64>
    %51 = stablehlo.broadcast_in_dim %50, dims = [0, 2] : (tensor<2x6xi64>) -> tensor<2x1x6xi64>
    %52 = call @take_along_axis(%15, %51) : (tensor<2x6x6xcomplex<f64>>, tensor<2x1x6xi64>) -> tensor<2x1x6xcomplex<f64>>
    %53 = stablehlo.imag %52 : (tensor<2x1x6xcomplex<f64>>) -> tensor<2x1x6xf64>
    %54 = stablehlo.abs %11 : (tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xf64>
    %55 = call @argmax(%54) : (tensor<2x6x6xf64>) -> tensor<2x6xi64>
    %56 = stablehlo.broadcast_in_dim %55, dims = [0, 2] : (tensor<2x6xi64>) -> tensor<2x1x6xi64>
    %57 = call @take_along_axis(%11, %56) : (tensor<2x6x6xcomplex<f64>>, tensor<2x1x6xi64>) -> tensor<2x1x6xcomplex<f64>>
    %58 = stablehlo.imag %57 : (tensor<2x1x6xcomplex<f64>>) -> tensor<2x1x6xf64>
    return %42, %44, %46, %23, %40, %47, %48, %53, %58 : tensor<2x6xf64>, tensor<2x6xf64>, tensor<2x6xf64>, tensor<f64>, tensor<f64>, tensor<2x6xf64>, tensor<2x6xf64>, tensor<2x1x6xf64>, tensor<2x1x6xf64>
  }
  func.func private @sort(%arg0: tensor<2x6xf64>) -> tensor<2x6xf64> {
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
    }) : (tensor<2x6xf64>) -> tensor<2x6xf64>
    return %0 : tensor<2x6xf64>
  }
  func.func private @norm(%arg0: tensor<2x6x6xcomplex<f64>>) -> tensor<2x6xf64> {
    %0 = stablehlo.real %arg0 : (tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xf64>
    %1 = stablehlo.imag %arg0 : (tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xf64>
    %2 = stablehlo.negate %1 : tensor<2x6x6xf64>
    %3 = stablehlo.complex %0, %2 : tensor<2x6x6xcomplex<f64>>
    %4 = stablehlo.multiply %arg0, %3 : tensor<2x6x6xcomplex<f64>>
    %5 = stablehlo.real %4 : (tensor<2x6x6xcomplex<f64>>) -> tensor<2x6x6xf64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<2x6x6xf64>, tensor<f64>) -> tensor<2x6xf64>
    %7 = stablehlo.sqrt %6 : tensor<2x6xf64>
    return %7 : tensor<2x6xf64>
  }
  func.func private @argmax(%arg0: tensor<2x6x6xf64>) -> tensor<2x6xi64> {
    %0 = stablehlo.iota dim = 1 : tensor<2x6x6xi64>
    %cst = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<2x6x6xf64>, tensor<2x6x6xi64>, tensor<f64>, tensor<i64>) -> (tensor<2x6xf64>, tensor<2x6xi64>)
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
    return %1#1 : tensor<2x6xi64>
  }
  func.func private @take_along_axis(%arg0: tensor<2x6x6xcomplex<f64>>, %arg1: tensor<2x1x6xi64>) -> tensor<2x1x6xcomplex<f64>> {
    %0 = stablehlo.convert %arg1 : (tensor<2x1x6xi64>) -> tensor<2x1x6xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2x1x6xi32>
    %2 = stablehlo.compare LT, %0, %1, SIGNED : (tensor<2x1x6xi32>, tensor<2x1x6xi32>) -> tensor<2x1x6xi1>
    %c_0 = stablehlo.constant dense<6> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2x1x6xi32>
    %4 = stablehlo.add %0, %3 : tensor<2x1x6xi32>
    %5 = stablehlo.select %2, %4, %0 : tensor<2x1x6xi1>, tensor<2x1x6xi32>
    %6 = stablehlo.reshape %5 : (tensor<2x1x6xi32>) -> tensor<2x1x6x1xi32>
    %c_1 = stablehlo.constant dense<5> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<2x1x6x1xi32>
    %8 = stablehlo.compare GE, %6, %7, SIGNED : (tensor<2x1x6x1xi32>, tensor<2x1x6x1xi32>) -> tensor<2x1x6x1xi1>
    %9 = stablehlo.broadcast_in_dim %c_1, dims = [3] : (tensor<1xi32>) -> tensor<1x1x1x1xi32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2, 3] : (tensor<1x1x1x1xi32>) -> tensor<2x1x6x1xi32>
    %11 = stablehlo.compare LE, %6, %10, SIGNED : (tensor<2x1x6x1xi32>, tensor<2x1x6x1xi32>) -> tensor<2x1x6x1xi1>
    %12 = stablehlo.and %8, %11 : tensor<2x1x6x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %13 = stablehlo.reduce(%12 init: %c_3) applies stablehlo.and across dimensions = [3] : (tensor<2x1x6x1xi1>, tensor<i1>) -> tensor<2x1x6xi1>
    %14 = "stablehlo.gather"(%arg0, %6) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0, 2], start_indices_batching_dims = [0, 2], start_index_map = [1], index_vector_dim = 3>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<2x6x6xcomplex<f64>>, tensor<2x1x6x1xi32>) -> tensor<2x1x6xcomplex<f64>>
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0.000000e+00)> : tensor<complex<f64>>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<2x1x6xcomplex<f64>>
    %16 = stablehlo.select %13, %14, %15 : tensor<2x1x6xi1>, tensor<2x1x6xcomplex<f64>>
    return %16 : tensor<2x1x6xcomplex<f64>>
  }
}
