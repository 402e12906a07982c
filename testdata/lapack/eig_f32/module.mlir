module @jit_eig_unique attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x5xf32>) -> (tensor<5xf32> {jax.result_info = "result[0]"}, tensor<5xf32> {jax.result_info = "result[1]"}, tensor<5xf32> {jax.result_info = "result[2]"}, tensor<f32> {jax.result_info = "result[3]"}, tensor<f32> {jax.result_info = "result[4]"}, tensor<5xf32> {jax.result_info = "result[5]"}, tensor<5xf32> {jax.result_info = "result[6]"}, tensor<1x5xf32> {jax.result_info = "result[7]"}, tensor<1x5xf32> {jax.result_info = "result[8]"}) {
    %0:5 = stablehlo.custom_call @lapack_sgeev_ffi(%arg0) {backend_config = "", mhlo.backend_config = {compute_left = 86 : ui8, compute_right = 86 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k], [l], [m, n], [o, p], []) {i=5, j=5, k=5, l=5, m=5, n=5, o=5, p=5}, custom>} : (tensor<5x5xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5x5xcomplex<f32>>, tensor<5x5xcomplex<f32>>, tensor<i32>)
    %1 = stablehlo.complex %0#0, %0#1 : tensor<5xcomplex<f32>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %3 = stablehlo.compare EQ, %0#4, %2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<5xcomplex<f32>>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<1xi1>) -> tensor<5xi1>
    %7 = stablehlo.select %6, %1, %5 : tensor<5xi1>, tensor<5xcomplex<f32>>
    %8 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %9 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f32>>) -> tensor<5x5xcomplex<f32>>
    %10 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x5xi1>
    %11 = stablehlo.select %10, %0#2, %9 : tensor<5x5xi1>, tensor<5x5xcomplex<f32>>
    %12 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_1 = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %13 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<complex<f32>>) -> tensor<5x5xcomplex<f32>>
    %14 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x5xi1>
    %15 = stablehlo.select %14, %0#3, %13 : tensor<5x5xi1>, tensor<5x5xcomplex<f32>>
    %16 = stablehlo.convert %arg0 : (tensor<5x5xf32>) -> tensor<5x5xcomplex<f32>>
    %17 = stablehlo.dot_general %16, %15, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x5xcomplex<f32>>, tensor<5x5xcomplex<f32>>) -> tensor<5x5xcomplex<f32>>
    %18 = stablehlo.broadcast_in_dim %7, dims = [1] : (tensor<5xcomplex<f32>>) -> tensor<1x5xcomplex<f32>>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1] : (tensor<1x5xcomplex<f32>>) -> tensor<5x5xcomplex<f32>>
    %20 = stablehlo.multiply %15, %19 : tensor<5x5xcomplex<f32>>
    %21 = stablehlo.subtract %17, %20 : tensor<5x5xcomplex<f32>>
    %22 = stablehlo.abs %21 : (tensor<5x5xcomplex<f32>>) -> tensor<5x5xf32>
    %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %23 = stablehlo.reduce(%22 init: %cst_2) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<5x5xf32>, tensor<f32>) -> tensor<f32>
    %24 = stablehlo.transpose %11, dims = [1, 0] : (tensor<5x5xcomplex<f32>>) -> tensor<5x5xcomplex<f32>>
    %25 = stablehlo.real %24 : (tensor<5x5xcomplex<f32>>) -> tensor<5x5xf32>
    %26 = stablehlo.imag %24 : (tensor<5x5xcomplex<f32>>) -> tensor<5x5xf32>
    %27 = stablehlo.negate %26 : tensor<5x5xf32>
    %28 = stablehlo.complex %25, %27 : tensor<5x5xcomplex<f32>>
    %29 = stablehlo.dot_general %28, %16, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x5xcomplex<f32>>, tensor<5x5xcomplex<f32>>) -> tensor<5x5xcomplex<f32>>
    %30 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<5xcomplex<f32>>) -> tensor<5x1xcomplex<f32>>
    %31 = stablehlo.transpose %11, dims = [1, 0] : (tensor<5x5xcomplex<f32>>) -> tensor<5x5xcomplex<f32>>
    %32 = stablehlo.real %31 : (tensor<5x5xcomplex<f32>>) -> tensor<5x5xf32>
    %33 = stablehlo.imag %31 : (tensor<5x5xcomplex<f32>>) -> tensor<5x5xf32>
    %34 = stablehlo.negate %33 : tensor<5x5xf32>
    %35 = stablehlo.complex %32, %34 : tensor<5x5xcomplex<f32>>
    %36 = stablehlo.broadcast_in_dim %30, dims = [0, 1] : (tensor<5x1xcomplex<f32>>) -> tensor<5x5xcomplex<f32>>
    %37 = stablehlo.multiply %36, %35 : tensor<5x5xcomplex<f32>>
    %38 = stablehlo.subtract %29, %37 : tensor<5x5xcomplex<f32>>
    %39 = stablehlo.abs %38 : (tensor<5x5xcomplex<f32>>) -> tensor<5x5xf32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %40 = stablehlo.reduce(%39 init: %cst_3) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<5x5xf32>, tensor<f32>) -> tensor<f32>
    %41 = stablehlo.real %7 : (tensor<5xcomplex<f32>>) -> tensor<5xf32>
    %42 = call @sort(%41) : (tensor<5xf32>) -> tensor<5xf32>
    %43 = stablehlo.imag %7 : (tensor<5xcomplex<f32>>) -> tensor<5xf32>
    %44 = call @sort(%43) : (tensor<5xf32>) -> tensor<5xf32>
    %45 = stablehlo.abs %7 : (tensor<5xcomplex<f32>>) -> tensor<5xf32>
    %46 = call @sort(%45) : (tensor<5xf32>) -> tensor<5xf32>
    %47 = call @norm(%15) : (tensor<5x5xcomplex<f32>>) -> tensor<5xf32>
    %48 = call @norm(%11) : (tensor<5x5xcomplex<f32>>) -> tensor<5xf32>
    %49 = stablehlo.abs %15 : (tensor<5x5xcomplex<f32>>) -> tensor<5x5xf32>
    %50 = call @argmax(%49) : (tensor<5x5xf32>) -> tensor<5xi64>
    %51 = stablehlo.broadcast_in_dim %50, dims = [1] : (tensor<5xi64>) -> tensor<1x5xi64>
    %52 = call @take_along_axis(%15, %51) : (tensor<5x5xcomplex<f32>>, tensor<1x5xi64>) -> tensor<1x5xcomplex<f32>>
    %53 = stablehlo.imag %52 : (tensor<1x5xcomplex<f32>>) -> tensor<1x5xf32>
    %54 = stablehlo.abs %11 : (tensor<5x5xcomplex<f32>>) -> tensor<5x5xf32>
    %55 = call @argmax(%54) : (tensor<5x5xf32>) -> tensor<5xi64>
    %56 = stablehlo.broadcast_in_dim %55, dims = [1] : (tensor<5xi64>) -> tensor<1x5xi64>
    %57 = call @take_along_axis(%11, %56) : (tensor<5x5xcomplex<f32>>, tensor<1x5xi64>) -> tensor<1x5xcomplex<f32>>
    %58 = stablehlo.imag %57 : (tensor<1x5xcomplex<f32>>) -> tensor<1x5xf32>
    return %42, %44, %46, %23, %40, %47, %48, %53, %58 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<f32>, tensor<f32>, tensor<5xf32>, tensor<5xf32>, tensor<1x5xf32>, tensor<1x5xf32>
  }
  func.func private @sort(%arg0: tensor<5xf32>) -> tensor<5xf32> {
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
    }) : (tensor<5xf32>) -> tensor<5xf32>
    return %0 : tensor<5xf32>
  }
  func.func private @norm(%arg0: tensor<5x5xcomplex<f32>>) -> tensor<5xf32> {
    %0 = stablehlo.real %arg0 : (tensor<5x5xcomplex<f32>>) -> tensor<5x5xf32>
    %1 = stablehlo.imag %arg0 : (tensor<5x5xcomplex<f32>>) -> tensor<5x5xf32>
    %2 = stablehlo.negate %1 : tensor<5x5xf32>
    %3 = stablehlo.complex %0, %2 : tensor<5x5xcomplex<f32>>
    %4 = stablehlo.multiply %arg0, %3 : tensor<5x5xcomplex<f32>>
    %5 = stablehlo.real %4 : (tensor<5x5xcomplex<f32>>) -> tensor<5x5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<5x5xf32>, tensor<f32>) -> tensor<5xf32>
    %7 = stablehlo.sqrt %6 : tensor<5xf32>
    return %7 : tensor<5xf32>
  }
  func.func private @argmax(%arg0: tensor<5x5xf32>) -> tensor<5xi64> {
    %0 = stablehlo.iota dim = 0 : tensor<5x5xi64>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [0] : (tensor<5x5xf32>, tensor<5x5xi64>, tensor<f32>, tensor<i64>) -> (tensor<5xf32>, tensor<5xi64>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i64>, %arg4: tensor<i64>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i64>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i64>
    }
    return %1#1 : tensor<5xi64>
  }
  func.func private @take_along_axis(%arg0: tensor<5x5xcomplex<f32>>, %arg1: tensor<1x5xi64>) -> tensor<1x5xcomplex<f32>> {
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
    %14 = "stablehlo.gather"(%arg0, %6) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], operand_batching_dims = [1], start_indices_batching_dims = [1], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<5x5xcomplex<f32>>, tensor<1x5x1xi32>) -> tensor<1x5xcomplex<f32>>
    %cst = stablehlo.constant dense<(0x7FC00000,0.000000e+00)> : tensor<complex<f32>>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<1x5xcomplex<f32>>
    %16 = stablehlo.select %13, %14, %15 : tensor<1x5xi1>, tensor<1x5xcomplex<f32>>
    return %16 : tensor<1x5xcomplex<f32>>
  }
}
