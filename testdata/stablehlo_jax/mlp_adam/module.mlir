module @jit_adam_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16x4xf32>, %arg3: tensor<4xf32>, %arg4: tensor<8x16xf32>, %arg5: tensor<16xf32>, %arg6: tensor<16x4xf32>, %arg7: tensor<4xf32>, %arg8: tensor<8x16xf32>, %arg9: tensor<16xf32>, %arg10: tensor<16x4xf32>, %arg11: tensor<4xf32>, %arg12: tensor<f32>, %arg13: tensor<32x8xf32>, %arg14: tensor<32x4xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<8x16xf32> {jax.result_info = "result[1][0]"}, tensor<16xf32> {jax.result_info = "result[1][1]"}, tensor<16x4xf32> {jax.result_info = "result[1][2]"}, tensor<4xf32> {jax.result_info = "result[1][3]"}, tensor<8x16xf32> {jax.result_info = "result[2][0]"}, tensor<16xf32> {jax.result_info = "result[2][1]"}, tensor<16x4xf32> {jax.result_info = "result[2][2]"}, tensor<4xf32> {jax.result_info = "result[2][3]"}, tensor<8x16xf32> {jax.result_info = "result[3][0]"}, tensor<16xf32> {jax.result_info = "result[3][1]"}, tensor<16x4xf32> {jax.result_info = "result[3][2]"}, tensor<4xf32> {jax.result_info = "result[3][3]"}, tensor<f32> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.dot_general %arg13, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x8xf32>, tensor<8x16xf32>) -> tensor<32x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<32x16xf32>
    %3 = stablehlo.add %0, %2 : tensor<32x16xf32>
    %4 = call @relu(%3) : (tensor<32x16xf32>) -> tensor<32x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %6 = stablehlo.compare GT, %3, %5, FLOAT : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x16xi1>
    %7 = stablehlo.dot_general %4, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x16xf32>, tensor<16x4xf32>) -> tensor<32x4xf32>
    %8 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<32x4xf32>
    %10 = stablehlo.add %7, %9 : tensor<32x4xf32>
    %11:3 = call @log_softmax(%10) : (tensor<32x4xf32>) -> (tensor<32x4xf32>, tensor<32x4xf32>, tensor<32x1xf32>)
    %12 = stablehlo.multiply %11#0, %arg14 : tensor<32x4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.reduce(%12 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<32x4xf32>, tensor<f32>) -> tensor<32xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.reduce(%13 init: %cst_1) applies stablehlo.add across dimensions = [0] : (tensor<32xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %15 = stablehlo.divide %14, %cst_2 : tensor<f32>
    %16 = stablehlo.negate %15 : tensor<f32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.negate %cst_3 : tensor<f32>
    %cst_4 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %18 = stablehlo.divide %17, %cst_4 : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0] : (tensor<32xf32>) -> tensor<32x4xf32>
    %21 = stablehlo.multiply %20, %arg14 : tensor<32x4xf32>
    %22 = call @log_softmax_0(%11#1, %11#2, %21) : (tensor<32x4xf32>, tensor<32x1xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %23 = stablehlo.reduce(%22 init: %cst_5) applies stablehlo.add across dimensions = [0] : (tensor<32x4xf32>, tensor<f32>) -> tensor<4xf32>
    %24 = stablehlo.reshape %23 : (tensor<4xf32>) -> tensor<1x4xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.reduce(%24 init: %cst_6) applies stablehlo.add across dimensions = [0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %26 = stablehlo.dot_general %22, %4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x4xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
    %27 = stablehlo.transpose %26, dims = [1, 0] : (tensor<4x16xf32>) -> tensor<16x4xf32>
    %28 = stablehlo.dot_general %22, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<32x4xf32>, tensor<16x4xf32>) -> tensor<32x16xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %30 = stablehlo.select %6, %28, %29 : tensor<32x16xi1>, tensor<32x16xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %31 = stablehlo.reduce(%30 init: %cst_8) applies stablehlo.add across dimensions = [0] : (tensor<32x16xf32>, tensor<f32>) -> tensor<16xf32>
    %32 = stablehlo.reshape %31 : (tensor<16xf32>) -> tensor<1x16xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.reduce(%32 init: %cst_9) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %34 = stablehlo.dot_general %30, %arg13, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x16xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
    %35 = stablehlo.transpose %34, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %36 = stablehlo.add %arg12, %cst_10 : tensor<f32>
    %cst_11 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %38 = stablehlo.multiply %37, %arg4 : tensor<8x16xf32>
    %cst_12 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %40 = stablehlo.multiply %39, %35 : tensor<8x16xf32>
    %41 = stablehlo.add %38, %40 : tensor<8x16xf32>
    %cst_13 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %43 = stablehlo.multiply %42, %arg5 : tensor<16xf32>
    %cst_14 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %45 = stablehlo.multiply %44, %33 : tensor<16xf32>
    %46 = stablehlo.add %43, %45 : tensor<16xf32>
    %cst_15 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %47 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %48 = stablehlo.multiply %47, %arg6 : tensor<16x4xf32>
    %cst_16 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %49 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %50 = stablehlo.multiply %49, %27 : tensor<16x4xf32>
    %51 = stablehlo.add %48, %50 : tensor<16x4xf32>
    %cst_17 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %52 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %53 = stablehlo.multiply %52, %arg7 : tensor<4xf32>
    %cst_18 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %54 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %55 = stablehlo.multiply %54, %25 : tensor<4xf32>
    %56 = stablehlo.add %53, %55 : tensor<4xf32>
    %cst_19 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %58 = stablehlo.multiply %57, %arg8 : tensor<8x16xf32>
    %cst_20 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %60 = stablehlo.multiply %59, %35 : tensor<8x16xf32>
    %61 = stablehlo.multiply %60, %35 : tensor<8x16xf32>
    %62 = stablehlo.add %58, %61 : tensor<8x16xf32>
    %cst_21 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %64 = stablehlo.multiply %63, %arg9 : tensor<16xf32>
    %cst_22 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %65 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %66 = stablehlo.multiply %65, %33 : tensor<16xf32>
    %67 = stablehlo.multiply %66, %33 : tensor<16xf32>
    %68 = stablehlo.add %64, %67 : tensor<16xf32>
    %cst_23 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %69 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %70 = stablehlo.multiply %69, %arg10 : tensor<16x4xf32>
    %cst_24 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %71 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %72 = stablehlo.multiply %71, %27 : tensor<16x4xf32>
    %73 = stablehlo.multiply %72, %27 : tensor<16x4xf32>
    %74 = stablehlo.add %70, %73 : tensor<16x4xf32>
    %cst_25 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %76 = stablehlo.multiply %75, %arg11 : tensor<4xf32>
    %cst_26 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %77 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %78 = stablehlo.multiply %77, %25 : tensor<4xf32>
    %79 = stablehlo.multiply %78, %25 : tensor<4xf32>
    %80 = stablehlo.add %76, %79 : tensor<4xf32>
    %cst_27 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %81 = stablehlo.power %cst_27, %36 : tensor<f32>
    %cst_28 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %82 = stablehlo.subtract %cst_28, %81 : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %82, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %84 = stablehlo.divide %41, %83 : tensor<8x16xf32>
    %cst_29 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %85 = stablehlo.power %cst_29, %36 : tensor<f32>
    %cst_30 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %86 = stablehlo.subtract %cst_30, %85 : tensor<f32>
    %87 = stablehlo.broadcast_in_dim %86, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %88 = stablehlo.divide %46, %87 : tensor<16xf32>
    %cst_31 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %89 = stablehlo.power %cst_31, %36 : tensor<f32>
    %cst_32 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %90 = stablehlo.subtract %cst_32, %89 : tensor<f32>
    %91 = stablehlo.broadcast_in_dim %90, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %92 = stablehlo.divide %51, %91 : tensor<16x4xf32>
    %cst_33 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %93 = stablehlo.power %cst_33, %36 : tensor<f32>
    %cst_34 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %94 = stablehlo.subtract %cst_34, %93 : tensor<f32>
    %95 = stablehlo.broadcast_in_dim %94, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %96 = stablehlo.divide %56, %95 : tensor<4xf32>
    %cst_35 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %97 = stablehlo.power %cst_35, %36 : tensor<f32>
    %cst_36 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %98 = stablehlo.subtract %cst_36, %97 : tensor<f32>
    %99 = stablehlo.broadcast_in_dim %98, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %100 = stablehlo.divide %62, %99 : tensor<8x16xf32>
    %cst_37 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %101 = stablehlo.power %cst_37, %36 : tensor<f32>
    %cst_38 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %102 = stablehlo.subtract %cst_38, %101 : tensor<f32>
    %103 = stablehlo.broadcast_in_dim %102, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %104 = stablehlo.divide %68, %103 : tensor<16xf32>
    %cst_39 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %105 = stablehlo.power %cst_39, %36 : tensor<f32>
    %cst_40 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %106 = stablehlo.subtract %cst_40, %105 : tensor<f32>
    %107 = stablehlo.broadcast_in_dim %106, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %108 = stablehlo.divide %74, %107 : tensor<16x4xf32>
    %cst_41 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %109 = stablehlo.power %cst_41, %36 : tensor<f32>
    %cst_42 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %110 = stablehlo.subtract %cst_42, %109 : tensor<f32>
    %111 = stablehlo.broadcast_in_dim %110, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %112 = stablehlo.divide %80, %111 : tensor<4xf32>
    %cst_43 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %113 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %114 = stablehlo.multiply %113, %84 : tensor<8x16xf32>
    %115 = stablehlo.sqrt %100 : tensor<8x16xf32>
    %cst_44 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %116 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %117 = stablehlo.add %115, %116 : tensor<8x16xf32>
    %118 = stablehlo.divide %114, %117 : tensor<8x16xf32>
    %119 = stablehlo.subtract %arg0, %118 : tensor<8x16xf32>
    %cst_45 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %120 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %121 = stablehlo.multiply %120, %88 : tensor<16xf32>
    %122 = stablehlo.sqrt %104 : tensor<16xf32>
    %cst_46 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %123 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %124 = stablehlo.add %122, %123 : tensor<16xf32>
    %125 = stablehlo.divide %121, %124 : tensor<16xf32>
    %126 = stablehlo.subtract %arg1, %125 : tensor<16xf32>
    %cst_47 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %127 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %128 = stablehlo.multiply %127, %92 : tensor<16x4xf32>
    %129 = stablehlo.sqrt %108 : tensor<16x4xf32>
    %cst_48 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %130 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %131 = stablehlo.add %129, %130 : tensor<16x4xf32>
    %132 = stablehlo.divide %128, %131 : tensor<16x4xf32>
    %133 = stablehlo.subtract %arg2, %132 : tensor<16x4xf32>
    %cst_49 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %134 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %135 = stablehlo.multiply %134, %96 : tensor<4xf32>
    %136 = stablehlo.sqrt %112 : tensor<4xf32>
    %cst_50 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %137 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %138 = stablehlo.add %136, %137 : tensor<4xf32>
    %139 = stablehlo.divide %135, %138 : tensor<4xf32>
    %140 = stablehlo.subtract %arg3, %139 : tensor<4xf32>
    return %16, %119, %126, %133, %140, %41, %46, %51, %56, %62, %68, %74, %80, %36 : tensor<f32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>, tensor<f32>
  }
  func.func private @relu(%arg0: tensor<32x16xf32>) -> tensor<32x16xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<32x16xf32>
    return %1 : tensor<32x16xf32>
  }
  func.func private @log_softmax(%arg0: tensor<32x4xf32>) -> (tensor<32x4xf32>, tensor<32x4xf32>, tensor<32x1xf32>) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<32x4xf32>, tensor<f32>) -> tensor<32xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<32xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<32xf32>) -> tensor<32x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x4xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<32x4xf32>
    %6 = stablehlo.exponential %5 : tensor<32x4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<32x4xf32>, tensor<f32>) -> tensor<32xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<32xf32>) -> tensor<32x1xf32>
    %9 = stablehlo.log %8 : tensor<32x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x4xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<32x4xf32>
    return %11, %6, %8 : tensor<32x4xf32>, tensor<32x4xf32>, tensor<32x1xf32>
  }
  func.func private @log_softmax_0(%arg0: tensor<32x4xf32>, %arg1: tensor<32x1xf32>, %arg2: tensor<32x4xf32>) -> tensor<32x4xf32> {
    %0 = stablehlo.negate %arg2 : tensor<32x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<32x4xf32>, tensor<f32>) -> tensor<32xf32>
    %2 = stablehlo.reshape %1 : (tensor<32xf32>) -> tensor<32x1xf32>
    %3 = stablehlo.divide %2, %arg1 : tensor<32x1xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<32x1xf32>, tensor<f32>) -> tensor<32xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<32xf32>) -> tensor<32x4xf32>
    %6 = stablehlo.multiply %5, %arg0 : tensor<32x4xf32>
    %7 = stablehlo.add %arg2, %6 : tensor<32x4xf32>
    return %7 : tensor<32x4xf32>
  }
}
