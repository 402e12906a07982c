module @jit_eig attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x8x8xf64>) -> (tensor<8x8xcomplex<f64>> {jax.result_info = "result.eigenvalues"}, tensor<8x8x8xcomplex<f64>> {jax.result_info = "result.eigenvectors"}) {
    %0:5 = stablehlo.custom_call @lapack_dgeev_ffi(%arg0) {backend_config = "", mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l], [i, m], [i, n, o], [i, p, q], [i]) {i=8, j=8, k=8, l=8, m=8, n=8, o=8, p=8, q=8}, custom>} : (tensor<8x8x8xf64>) -> (tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8x8xcomplex<f64>>, tensor<8x8x8xcomplex<f64>>, tensor<8xi32>)
    %1 = stablehlo.complex %0#0, %0#1 : tensor<8x8xcomplex<f64>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %3 = stablehlo.compare EQ, %0#4, %2, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<8xi1>) -> tensor<8x1xi1>
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<8x8xcomplex<f64>>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<8x1xi1>) -> tensor<8x8xi1>
    %7 = stablehlo.select %6, %1, %5 : tensor<8x8xi1>, tensor<8x8xcomplex<f64>>
    %8 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<8xi1>) -> tensor<8x1x1xi1>
    %cst_0 = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %9 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f64>>) -> tensor<8x8x8xcomplex<f64>>
    %10 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<8x1x1xi1>) -> tensor<8x8x8xi1>
    %11 = stablehlo.select %10, %0#3, %9 : tensor<8x8x8xi1>, tensor<8x8x8xcomplex<f64>>
    return %7, %11 : tensor<8x8xcomplex<f64>>, tensor<8x8x8xcomplex<f64>>
  }
}
