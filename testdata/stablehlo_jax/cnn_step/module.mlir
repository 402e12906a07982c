module @jit_cnn_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3x2x4xf32>, %arg1: tensor<64x3xf32>, %arg2: tensor<2x8x8x2xf32>, %arg3: tensor<2x3xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<3x3x2x4xf32> {jax.result_info = "result[1][0]"}, tensor<64x3xf32> {jax.result_info = "result[1][1]"}) {
    %0 = stablehlo.convolution(%arg2, %arg0) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<2x8x8x4xf32>
    %1 = call @relu(%0) : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %3 = stablehlo.compare GT, %0, %2, FLOAT : (tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xi1>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<f32>
    %5 = "stablehlo.reduce_window"(%1, %4) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %33 = stablehlo.maximum %arg4, %arg5 : tensor<f32>
      stablehlo.return %33 : tensor<f32>
    }) : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<2x4x4x4xf32>
    %6 = stablehlo.reshape %5 : (tensor<2x4x4x4xf32>) -> tensor<2x64xf32>
    %7 = stablehlo.dot_general %6, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x64xf32>, tensor<64x3xf32>) -> tensor<2x3xf32>
    %8 = stablehlo.subtract %7, %arg3 : tensor<2x3xf32>
    %9 = stablehlo.multiply %8, %8 : tensor<2x3xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %11 = stablehlo.multiply %10, %8 : tensor<2x3xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.reduce(%9 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
    %cst_3 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %13 = stablehlo.divide %12, %cst_3 : tensor<f32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_5 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %14 = stablehlo.divide %cst_4, %cst_5 : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %16 = stablehlo.multiply %15, %11 : tensor<2x3xf32>
    %17 = stablehlo.dot_general %16, %6, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<2x64xf32>) -> tensor<3x64xf32>
    %18 = stablehlo.transpose %17, dims = [1, 0] : (tensor<3x64xf32>) -> tensor<64x3xf32>
    %19 = stablehlo.dot_general %16, %arg1, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<64x3xf32>) -> tensor<2x64xf32>
    %20 = stablehlo.reshape %19 : (tensor<2x64xf32>) -> tensor<2x4x4x4xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %21 = stablehlo.pad %1, %cst_6, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<2x8x8x4xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %22 = "stablehlo.select_and_scatter"(%21, %20, %cst_7) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %33 = stablehlo.compare GE, %arg4, %arg5, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %33 : tensor<i1>
    }, {
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %33 = stablehlo.add %arg4, %arg5 : tensor<f32>
      stablehlo.return %33 : tensor<f32>
    }) : (tensor<2x8x8x4xf32>, tensor<2x4x4x4xf32>, tensor<f32>) -> tensor<2x8x8x4xf32>
    %23 = stablehlo.slice %22 [0:2, 0:8, 0:8, 0:4] : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %25 = stablehlo.select %3, %23, %24 : tensor<2x8x8x4xi1>, tensor<2x8x8x4xf32>
    %26 = stablehlo.convolution(%arg2, %25) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x2xf32>, tensor<2x8x8x4xf32>) -> tensor<3x3x2x4xf32>
    %cst_9 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<3x3x2x4xf32>
    %28 = stablehlo.multiply %27, %26 : tensor<3x3x2x4xf32>
    %29 = stablehlo.subtract %arg0, %28 : tensor<3x3x2x4xf32>
    %cst_10 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<64x3xf32>
    %31 = stablehlo.multiply %30, %18 : tensor<64x3xf32>
    %32 = stablehlo.subtract %arg1, %31 : tensor<64x3xf32>
    return %13, %29, %32 : tensor<f32>, tensor<3x3x2x4xf32>, tensor<64x3xf32>
  }
  func.func private @relu(%arg0: tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x8x8x4xf32>
    return %1 : tensor<2x8x8x4xf32>
  }
}
