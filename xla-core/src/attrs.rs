//! Typed attributes carried by [`Op`](crate::ir::Op) variants, and the elementwise opcode
//! enums. Plain data, shared by the IR and by shape inference (which does not depend on the IR).

use std::fmt;

/// One dimension of a window (ReduceWindow, SelectAndScatter, Convolution).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WindowDim {
    /// Window size along this dimension.
    pub size: i64,
    /// Stride of the window.
    pub stride: i64,
    /// Padding before the first element (may be negative for convolutions).
    pub padding_low: i64,
    /// Padding after the last element (may be negative for convolutions).
    pub padding_high: i64,
    /// Dilation of the window (rhs_dilation); 1 means none.
    pub window_dilation: i64,
    /// Dilation of the base (lhs_dilation); 1 means none.
    pub base_dilation: i64,
    /// Whether the window is reversed (`rhs_reversal` in HLO text).
    pub window_reversal: bool,
}

impl WindowDim {
    /// A window dimension of `size` with stride 1, no padding and no dilation.
    pub fn new(size: i64) -> WindowDim {
        WindowDim {
            size,
            stride: 1,
            padding_low: 0,
            padding_high: 0,
            window_dilation: 1,
            base_dilation: 1,
            window_reversal: false,
        }
    }
}

/// A window: one [`WindowDim`] per spatial (or every) dimension.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Window {
    /// The window's dimensions.
    pub dims: Vec<WindowDim>,
}

/// Padding of one dimension for `Pad`: low and high edges (negative removes elements) and
/// interior padding between elements (never negative).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PadDim {
    /// Elements added before the first element (negative: removed).
    pub low: i64,
    /// Elements added after the last element (negative: removed).
    pub high: i64,
    /// Elements added between each pair of elements.
    pub interior: i64,
}

/// Dimension numbers of a convolution: which operand dims are batch, feature and spatial.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConvDimensionNumbers {
    /// Input (lhs) batch dimension.
    pub input_batch_dimension: i64,
    /// Input (lhs) feature dimension.
    pub input_feature_dimension: i64,
    /// Input (lhs) spatial dimensions, in window order.
    pub input_spatial_dimensions: Vec<i64>,
    /// Kernel (rhs) input-feature dimension.
    pub kernel_input_feature_dimension: i64,
    /// Kernel (rhs) output-feature dimension.
    pub kernel_output_feature_dimension: i64,
    /// Kernel (rhs) spatial dimensions, in window order.
    pub kernel_spatial_dimensions: Vec<i64>,
    /// Output batch dimension.
    pub output_batch_dimension: i64,
    /// Output feature dimension.
    pub output_feature_dimension: i64,
    /// Output spatial dimensions, in window order.
    pub output_spatial_dimensions: Vec<i64>,
}

impl ConvDimensionNumbers {
    /// The default `bf01_oi01->bf01` numbering for `spatial` spatial dimensions (NCHW / OIHW).
    pub fn nchw(spatial: usize) -> ConvDimensionNumbers {
        let sp: Vec<i64> = (2..2 + spatial as i64).collect();
        ConvDimensionNumbers {
            input_batch_dimension: 0,
            input_feature_dimension: 1,
            input_spatial_dimensions: sp.clone(),
            kernel_output_feature_dimension: 0,
            kernel_input_feature_dimension: 1,
            kernel_spatial_dimensions: sp.clone(),
            output_batch_dimension: 0,
            output_feature_dimension: 1,
            output_spatial_dimensions: sp,
        }
    }
}

/// Everything a convolution needs besides its operands.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConvConfig {
    /// Window: kernel sizes, strides, padding, lhs (base) and rhs (window) dilation.
    pub window: Window,
    /// Dimension numbers.
    pub dnums: ConvDimensionNumbers,
    /// Feature groups (1 = ordinary convolution; the input feature count = depthwise).
    pub feature_group_count: i64,
    /// Batch groups (used by kernel gradients).
    pub batch_group_count: i64,
    /// Per-operand precision.
    pub precision: PrecisionConfig,
}

/// Numerical precision requested for an operand of Dot or Convolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    /// Fastest.
    Default,
    /// More accurate than default.
    High,
    /// The most accurate.
    Highest,
}

impl Precision {
    /// Name in HLO text (`default`, `high`, `highest`).
    pub fn name(self) -> &'static str {
        match self {
            Precision::Default => "default",
            Precision::High => "high",
            Precision::Highest => "highest",
        }
    }
}

/// Per-operand precision of Dot and Convolution; empty when none was given.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct PrecisionConfig {
    /// One entry per operand, or empty.
    pub operand_precision: Vec<Precision>,
}

/// Dimension numbers of DotGeneral.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct DotDims {
    /// Batch dimensions of the lhs.
    pub lhs_batch_dims: Vec<i64>,
    /// Contracting dimensions of the lhs.
    pub lhs_contracting_dims: Vec<i64>,
    /// Batch dimensions of the rhs.
    pub rhs_batch_dims: Vec<i64>,
    /// Contracting dimensions of the rhs.
    pub rhs_contracting_dims: Vec<i64>,
}

/// Dimension numbers and slice sizes of Gather.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct GatherDims {
    /// Output dims that hold the slice's offset dims.
    pub offset_dims: Vec<i64>,
    /// Operand dims of size 1 dropped from each slice.
    pub collapsed_slice_dims: Vec<i64>,
    /// Operand dim that each index-vector component addresses.
    pub start_index_map: Vec<i64>,
    /// Dimension of `start_indices` holding the index vectors.
    pub index_vector_dim: i64,
    /// Operand batching dims (paired with `start_indices_batching_dims`).
    pub operand_batching_dims: Vec<i64>,
    /// Start-indices batching dims.
    pub start_indices_batching_dims: Vec<i64>,
    /// Slice size along every operand dimension.
    pub slice_sizes: Vec<i64>,
    /// The caller promises the indices are sorted.
    pub indices_are_sorted: bool,
}

/// Dimension numbers of Scatter.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ScatterDims {
    /// Update dims that are window dims.
    pub update_window_dims: Vec<i64>,
    /// Operand dims of size 1 inserted into each window.
    pub inserted_window_dims: Vec<i64>,
    /// Operand dim that each index-vector component addresses.
    pub scatter_dims_to_operand_dims: Vec<i64>,
    /// Dimension of `scatter_indices` holding the index vectors.
    pub index_vector_dim: i64,
    /// Operand batching dims.
    pub input_batching_dims: Vec<i64>,
    /// Scatter-indices batching dims.
    pub scatter_indices_batching_dims: Vec<i64>,
    /// The caller promises the indices are sorted.
    pub indices_are_sorted: bool,
    /// The caller promises the indices are unique.
    pub unique_indices: bool,
}

macro_rules! text_enum {
    ($(#[$doc:meta])* $name:ident { $( $(#[$vdoc:meta])* $variant:ident => $text:literal ),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $( $(#[$vdoc])* $variant, )* }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The spelling in HLO text.
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }

            /// Parses the spelling used in HLO text.
            pub fn from_name(s: &str) -> Option<$name> {
                match s { $($text => Some($name::$variant),)* _ => None }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}
#[allow(unused_imports)]
pub(crate) use text_enum;

text_enum! {
    /// Direction of a Compare.
    ComparisonDirection {
        /// Equal.
        Eq => "EQ",
        /// Not equal.
        Ne => "NE",
        /// Greater or equal.
        Ge => "GE",
        /// Greater.
        Gt => "GT",
        /// Less or equal.
        Le => "LE",
        /// Less.
        Lt => "LT",
    }
}

text_enum! {
    /// How a Compare orders values (`type=` in HLO text).
    ComparisonType {
        /// IEEE float comparison.
        Float => "FLOAT",
        /// Total order on floats: -NaN < -inf < ... < -0 < +0 < ... < inf < NaN.
        TotalOrder => "TOTALORDER",
        /// Signed integers.
        Signed => "SIGNED",
        /// Unsigned integers.
        Unsigned => "UNSIGNED",
    }
}

text_enum! {
    /// Which transform an Fft computes.
    FftType {
        /// Complex to complex, forward.
        Fft => "FFT",
        /// Complex to complex, inverse.
        Ifft => "IFFT",
        /// Real to complex, forward.
        Rfft => "RFFT",
        /// Complex to real, inverse.
        Irfft => "IRFFT",
    }
}

text_enum! {
    /// Whether TriangularSolve uses `a`, its transpose or its adjoint.
    Transpose {
        /// Use `a` as is.
        NoTranspose => "NO_TRANSPOSE",
        /// Use `a`ᵀ.
        Transpose => "TRANSPOSE",
        /// Use the conjugate transpose of `a`.
        Adjoint => "ADJOINT",
    }
}

text_enum! {
    /// Distribution of the `rng` op.
    RngDistribution {
        /// Uniform on `[a, b)`.
        Uniform => "rng_uniform",
        /// Normal with mean `a` and standard deviation `b`.
        Normal => "rng_normal",
    }
}

text_enum! {
    /// Algorithm of RngBitGenerator.
    RngAlgorithm {
        /// The backend's default (Philox, as on XLA:CPU).
        Default => "rng_default",
        /// ThreeFry-2x32.
        ThreeFry => "rng_three_fry",
        /// Philox-4x32.
        Philox => "rng_philox",
    }
}

/// Options of TriangularSolve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TriangularSolveOptions {
    /// Solve `op(a) x = b` (true) or `x op(a) = b` (false).
    pub left_side: bool,
    /// Use the lower (true) or upper (false) triangle of `a`.
    pub lower: bool,
    /// Assume the diagonal of `a` is all ones (and do not read it).
    pub unit_diagonal: bool,
    /// Use `a`, its transpose or its adjoint.
    pub transpose_a: Transpose,
}

/// Replica groups of a collective: each inner list is a group of replica ids.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ReplicaGroups {
    /// The groups; empty means one group of all replicas.
    pub groups: Vec<Vec<i64>>,
}

/// Attributes shared by the collectives.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct CollectiveConfig {
    /// Replica groups.
    pub replica_groups: ReplicaGroups,
    /// Channel id, for cross-module collectives.
    pub channel_id: Option<i64>,
    /// Interpret replica groups as global device ids.
    pub use_global_device_ids: bool,
    /// Ask for the layout to be kept.
    pub constrain_layout: bool,
}

/// The composite-call annotations of a `call` (`is_composite=true`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Composite {
    /// The composite's name (`composite.name`).
    pub name: String,
    /// Its attributes, as written in MLIR attribute syntax (`composite.attributes`).
    pub attributes: String,
    /// Its version (`composite.version`).
    pub version: i64,
}

/// Attributes of a CustomCall.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct CustomCallConfig {
    /// The registered function name (`custom_call_target`).
    pub target: String,
    /// Opaque configuration passed to the function (`backend_config`).
    pub backend_config: String,
    /// The call has side effects and must not be removed.
    pub has_side_effect: bool,
    /// API version as written (`API_VERSION_STATUS_RETURNING`, ...), empty if not given.
    pub api_version: String,
}

macro_rules! elementwise_table {
    ($(#[$doc:meta])* $name:ident { $( $(#[$vdoc:meta])* $variant:ident => $text:literal ),* $(,)? }) => {
        text_enum! { $(#[$doc])* $name { $( $(#[$vdoc])* $variant => $text ),* } }
    };
}

elementwise_table! {
    /// Elementwise operations of one operand (the result has the operand's shape, except
    /// `is-finite` → PRED and `real`/`imag`/`abs` of complex → the component type).
    UnaryOp {
        /// |x| (for complex: the modulus).
        Abs => "abs",
        /// Cube root.
        Cbrt => "cbrt",
        /// Round up.
        Ceil => "ceil",
        /// Count leading zero bits.
        Clz => "count-leading-zeros",
        /// Cosine.
        Cos => "cosine",
        /// Error function.
        Erf => "erf",
        /// e^x.
        Exp => "exponential",
        /// e^x - 1, accurate near 0.
        Expm1 => "exponential-minus-one",
        /// Round down.
        Floor => "floor",
        /// Imaginary part of a complex number.
        Imag => "imag",
        /// True when finite (not ±inf, not NaN).
        IsFinite => "is-finite",
        /// Natural logarithm.
        Log => "log",
        /// ln(1 + x), accurate near 0.
        Log1p => "log-plus-one",
        /// 1 / (1 + e^-x).
        Logistic => "logistic",
        /// -x.
        Neg => "negate",
        /// Logical (PRED) or bitwise (integers) not.
        Not => "not",
        /// Count set bits.
        Popcnt => "popcnt",
        /// Real part of a complex number.
        Real => "real",
        /// Round to nearest, ties away from zero.
        RoundNearestAfz => "round-nearest-afz",
        /// Round to nearest, ties to even.
        RoundNearestEven => "round-nearest-even",
        /// 1 / sqrt(x).
        Rsqrt => "rsqrt",
        /// -1, 0 or 1 (NaN for NaN; x/|x| for complex).
        Sign => "sign",
        /// Sine.
        Sin => "sine",
        /// Square root.
        Sqrt => "sqrt",
        /// Tangent.
        Tan => "tan",
        /// Hyperbolic tangent.
        Tanh => "tanh",
    }
}

elementwise_table! {
    /// Elementwise operations of two operands of the same shape.
    BinaryOp {
        /// x + y.
        Add => "add",
        /// x - y.
        Sub => "subtract",
        /// x * y.
        Mul => "multiply",
        /// x / y (integers: truncating).
        Div => "divide",
        /// x ^ y.
        Pow => "power",
        /// Remainder with the sign of the dividend.
        Rem => "remainder",
        /// Maximum (NaN propagates).
        Max => "maximum",
        /// Minimum (NaN propagates).
        Min => "minimum",
        /// Logical / bitwise and.
        And => "and",
        /// Logical / bitwise or.
        Or => "or",
        /// Logical / bitwise xor.
        Xor => "xor",
        /// Shift left (0 when the amount is out of range).
        ShiftLeft => "shift-left",
        /// Arithmetic shift right (sign fill when out of range).
        ShiftRightArithmetic => "shift-right-arithmetic",
        /// Logical shift right (0 when out of range).
        ShiftRightLogical => "shift-right-logical",
        /// atan2(y, x).
        Atan2 => "atan2",
        /// Builds a complex number from real and imaginary parts.
        Complex => "complex",
    }
}
