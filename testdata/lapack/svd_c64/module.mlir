module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xcomplex<f32>>) -> (tensor<3xf32> {jax.result_info = "result[0]"}, tensor<3x4xcomplex<f32>> {jax.result_info = "result[1]"}, tensor<3x3x3xcomplex<f32>> {jax.result_info = "result[2]"}, tensor<3x4x4xcomplex<f32>> {jax.result_info = "result[3]"}, tensor<3x3xcomplex<f32>> {jax.result_info = "result[4]"}, tensor<4x4xcomplex<f32>> {jax.result_info = "result[5]"}, tensor<3x3xcomplex<f32>> {jax.result_info = "result[6]"}, tensor<4x4xcomplex<f32>> {jax.result_info = "result[7]"}) {
    %0:3 = call @svd(%arg0) : (tensor<3x4xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3xf32>, tensor<4x4xcomplex<f32>>)
    %1 = stablehlo.broadcast_in_dim %0#1, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
    %2 = stablehlo.convert %1 : (tensor<1x3xf32>) -> tensor<1x3xcomplex<f32>>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
    %4 = stablehlo.multiply %0#0, %3 : tensor<3x3xcomplex<f32>>
    %5 = stablehlo.slice %0#2 [0:3, 0:4] : (tensor<4x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>>
    %6 = stablehlo.dot_general %4, %5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x3xcomplex<f32>>, tensor<3x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>>
    %7 = stablehlo.real %0#0 : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
    %8 = stablehlo.imag %0#0 : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
    %9 = stablehlo.negate %8 : tensor<3x3xf32>
    %10 = stablehlo.complex %7, %9 : tensor<3x3xcomplex<f32>>
    %11 = stablehlo.dot_general %0#0, %10, batching_dims = [1] x [1], contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>) -> tensor<3x3x3xcomplex<f32>>
    %12 = stablehlo.slice %0#2 [0:3, 0:4] : (tensor<4x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>>
    %13 = stablehlo.transpose %12, dims = [1, 0] : (tensor<3x4xcomplex<f32>>) -> tensor<4x3xcomplex<f32>>
    %14 = stablehlo.real %13 : (tensor<4x3xcomplex<f32>>) -> tensor<4x3xf32>
    %15 = stablehlo.imag %13 : (tensor<4x3xcomplex<f32>>) -> tensor<4x3xf32>
    %16 = stablehlo.negate %15 : tensor<4x3xf32>
    %17 = stablehlo.complex %14, %16 : tensor<4x3xcomplex<f32>>
    %18 = stablehlo.real %17 : (tensor<4x3xcomplex<f32>>) -> tensor<4x3xf32>
    %19 = stablehlo.imag %17 : (tensor<4x3xcomplex<f32>>) -> tensor<4x3xf32>
    %20 = stablehlo.negate %19 : tensor<4x3xf32>
    %21 = stablehlo.complex %18, %20 : tensor<4x3xcomplex<f32>>
    %22 = stablehlo.dot_general %17, %21, batching_dims = [1] x [1], contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<4x3xcomplex<f32>>, tensor<4x3xcomplex<f32>>) -> tensor<3x4x4xcomplex<f32>>
    %23 = stablehlo.slice %0#0 [0:3, 3:3] : (tensor<3x3xcomplex<f32>>) -> tensor<3x0xcomplex<f32>>
    %24 = stablehlo.slice %0#0 [0:3, 3:3] : (tensor<3x3xcomplex<f32>>) -> tensor<3x0xcomplex<f32>>
    %25 = stablehlo.transpose %24, dims = [1, 0] : (tensor<3x0xcomplex<f32>>) -> tensor<0x3xcomplex<f32>>
    %26 = stablehlo.real %25 : (tensor<0x3xcomplex<f32>>) -> tensor<0x3xf32>
    %27 = stablehlo.imag %25 : (tensor<0x3xcomplex<f32>>) -> tensor<0x3xf32>
    %28 = stablehlo.negate %27 : tensor<0x3xf32>
    %29 = stablehlo.complex %26, %28 : tensor<0x3xcomplex<f32>>
    %30 = stablehlo.dot_general %23, %29, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x0xcomplex<f32>>, tensor<0x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
    %31 = stablehlo.slice %0#2 [3:4, 0:4] : (tensor<4x4xcomplex<f32>>) -> tensor<1x4xcomplex<f32>>
    %32 = stablehlo.transpose %31, dims = [1, 0] : (tensor<1x4xcomplex<f32>>) -> tensor<4x1xcomplex<f32>>
    %33 = stablehlo.real %32 : (tensor<4x1xcomplex<f32>>) -> tensor<4x1xf32>
    %34 = stablehlo.imag %32 : (tensor<4x1xcomplex<f32>>) -> tensor<4x1xf32>
    %35 = stablehlo.negate %34 : tensor<4x1xf32>
    %36 = stablehlo.complex %33, %35 : tensor<4x1xcomplex<f32>>
    %37 = stablehlo.slice %0#2 [3:4, 0:4] : (tensor<4x4xcomplex<f32>>) -> tensor<1x4xcomplex<f32>>
    %38 = stablehlo.dot_general %36, %37, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x1xcomplex<f32>>, tensor<1x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %39 = stablehlo.transpose %0#0, dims = [1, 0] : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
    %40 = stablehlo.real %39 : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
    %41 = stablehlo.imag %39 : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
    %42 = stablehlo.negate %41 : tensor<3x3xf32>
    %43 = stablehlo.complex %40, %42 : tensor<3x3xcomplex<f32>>
    %44 = stablehlo.dot_general %43, %0#0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
    %45 = stablehlo.transpose %0#2, dims = [1, 0] : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %46 = stablehlo.real %45 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %47 = stablehlo.imag %45 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %48 = stablehlo.negate %47 : tensor<4x4xf32>
    %49 = stablehlo.complex %46, %48 : tensor<4x4xcomplex<f32>>
    %50 = stablehlo.dot_general %0#2, %49, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    return %0#1, %6, %11, %22, %30, %38, %44, %50 : tensor<3xf32>, tensor<3x4xcomplex<f32>>, tensor<3x3x3xcomplex<f32>>, tensor<3x4x4xcomplex<f32>>, tensor<3x3xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<3x3xcomplex<f32>>, tensor<4x4xcomplex<f32>>
  }
  func.func private @svd(%arg0: tensor<3x4xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3xf32>, tensor<4x4xcomplex<f32>>) {
    %0:5 = stablehlo.custom_call @lapack_cgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 65 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=3, j=4, k=3, l=4, m=3, n=3, o=3, p=4, q=4}, custom>} : (tensor<3x4xcomplex<f32>>) -> (tensor<3x4xcomplex<f32>>, tensor<3xf32>, tensor<3x3xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<3xi1>, tensor<3xf32>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f32>>) -> tensor<3x3xcomplex<f32>>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<3x3xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<3x3xi1>, tensor<3x3xcomplex<f32>>
    %11 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_1 = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<4x4xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<4x4xi1>, tensor<4x4xcomplex<f32>>
    return %10, %6, %14 : tensor<3x3xcomplex<f32>>, tensor<3xf32>, tensor<4x4xcomplex<f32>>
  }
}
