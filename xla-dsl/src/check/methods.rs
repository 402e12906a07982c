//! The method table: which method names are operations, and how their arguments are read.
//! `x.f(a, ...)` and `f(x, a, ...)` mean the same.

use super::collective::Collective;
use super::reduce::Reduction;
use super::{Checker, Elementwise, Val};
use crate::ast::Arg;
use crate::ctxt::Sp;
use proc_macro2::Ident;
use xla_core::ir::{BinaryOp, ComparisonDirection, FftType, UnaryOp};
use xla_core::PrimitiveType;

/// What a method name stands for.
#[derive(Clone, Copy)]
enum Method {
    Unary(UnaryOp),
    Binary(BinaryOp),
    Compare(ComparisonDirection),
    Relu,
    Select,
    Clamp,
    Convert,
    Dot,
    Matmul,
    Reshape,
    Transpose,
    T,
    BroadcastInDim,
    Broadcast,
    Rev,
    Slice,
    Pad,
    ReduceWith,
    Map,
    Sort,
    ReduceWindow,
    ReduceWindowDilated,
    SelectAndScatter,
    MaxPool,
    AvgPool,
    Conv,
    DotGeneral,
    Cholesky,
    Solve(bool),
    Fft(FftType),
    BatchNormInference,
    BatchNormTraining,
    TopK,
    Get,
    Take,
    Scatter(bool),
    DynamicSlice,
    DynamicUpdateSlice,
    Argsort,
    /// sum, prod, mean; `max` / `min` with a dim list or no argument.
    Reduce(Reduction),
    /// `max` / `min`: elementwise with a tensor argument, a reduction otherwise.
    MaxMin(BinaryOp, Reduction),
    /// The operations without operator syntax (`misc.rs`).
    Misc(Misc),
    /// A collective on one replica (`collective.rs`).
    Collective(Collective),
}

/// Operations implemented in `misc.rs`.
#[derive(Clone, Copy)]
enum Misc {
    Bitcast,
    ReducePrecision,
    Collapse,
    DimensionSize,
    OptimizationBarrier,
    TotalCompare(ComparisonDirection),
    CholeskyUpper,
    TriangularSolve,
    BatchNormGrad,
    ConvGeneral,
    GatherGeneral,
    ScatterGeneral,
    Copy,
}

impl Method {
    /// Whether the operation takes keyword arguments (`name = value`).
    fn takes_keywords(self) -> bool {
        matches!(
            self,
            Method::Misc(Misc::ConvGeneral | Misc::GatherGeneral | Misc::ScatterGeneral)
                | Method::Collective(_)
        )
    }
}

fn lookup(name: &str) -> Option<Method> {
    use BinaryOp as B;
    use Method as M;
    use UnaryOp as U;
    let m = match name {
        "abs" => M::Unary(U::Abs),
        "cbrt" => M::Unary(U::Cbrt),
        "ceil" => M::Unary(U::Ceil),
        "clz" | "leading_zeros" => M::Unary(U::Clz),
        "cos" => M::Unary(U::Cos),
        "erf" => M::Unary(U::Erf),
        "exp" => M::Unary(U::Exp),
        "exp_m1" | "expm1" => M::Unary(U::Expm1),
        "floor" => M::Unary(U::Floor),
        "imag" => M::Unary(U::Imag),
        "is_finite" => M::Unary(U::IsFinite),
        "log" | "ln" => M::Unary(U::Log),
        "ln_1p" | "log1p" => M::Unary(U::Log1p),
        "logistic" | "sigmoid" => M::Unary(U::Logistic),
        "neg" => M::Unary(U::Neg),
        "not" => M::Unary(U::Not),
        "popcnt" | "count_ones" => M::Unary(U::Popcnt),
        "real" => M::Unary(U::Real),
        "round" => M::Unary(U::RoundNearestAfz),
        "round_ties_even" | "round_nearest_even" => M::Unary(U::RoundNearestEven),
        "round_nearest_afz" => M::Unary(U::RoundNearestAfz),
        "rsqrt" => M::Unary(U::Rsqrt),
        "sign" | "signum" => M::Unary(U::Sign),
        "sin" => M::Unary(U::Sin),
        "sqrt" => M::Unary(U::Sqrt),
        "tan" => M::Unary(U::Tan),
        "tanh" => M::Unary(U::Tanh),
        "add" => M::Binary(B::Add),
        "sub" => M::Binary(B::Sub),
        "mul" => M::Binary(B::Mul),
        "div" => M::Binary(B::Div),
        "rem" => M::Binary(B::Rem),
        "pow" | "powf" => M::Binary(B::Pow),
        "atan2" => M::Binary(B::Atan2),
        "and" | "bitand" => M::Binary(B::And),
        "or" | "bitor" => M::Binary(B::Or),
        "xor" | "bitxor" => M::Binary(B::Xor),
        "complex" => M::Binary(B::Complex),
        "shift_left" | "shl" => M::Binary(B::ShiftLeft),
        "shift_right_logical" => M::Binary(B::ShiftRightLogical),
        "shift_right_arithmetic" => M::Binary(B::ShiftRightArithmetic),
        "total_eq" => M::Misc(Misc::TotalCompare(ComparisonDirection::Eq)),
        "total_ne" => M::Misc(Misc::TotalCompare(ComparisonDirection::Ne)),
        "total_lt" => M::Misc(Misc::TotalCompare(ComparisonDirection::Lt)),
        "total_le" => M::Misc(Misc::TotalCompare(ComparisonDirection::Le)),
        "total_gt" => M::Misc(Misc::TotalCompare(ComparisonDirection::Gt)),
        "total_ge" => M::Misc(Misc::TotalCompare(ComparisonDirection::Ge)),
        "bitcast" | "bitcast_convert" => M::Misc(Misc::Bitcast),
        "reduce_precision" => M::Misc(Misc::ReducePrecision),
        "collapse" => M::Misc(Misc::Collapse),
        "get_dimension_size" | "dimension_size" => M::Misc(Misc::DimensionSize),
        "optimization_barrier" => M::Misc(Misc::OptimizationBarrier),
        "cholesky_upper" => M::Misc(Misc::CholeskyUpper),
        "triangular_solve" => M::Misc(Misc::TriangularSolve),
        "batch_norm_grad" => M::Misc(Misc::BatchNormGrad),
        "conv_general" => M::Misc(Misc::ConvGeneral),
        "gather_general" => M::Misc(Misc::GatherGeneral),
        "scatter_general" => M::Misc(Misc::ScatterGeneral),
        "copy" => M::Misc(Misc::Copy),
        "all_reduce" => M::Collective(Collective::AllReduce),
        "all_gather" => M::Collective(Collective::AllGather),
        "reduce_scatter" => M::Collective(Collective::ReduceScatter),
        "all_to_all" => M::Collective(Collective::AllToAll),
        "collective_permute" => M::Collective(Collective::Permute),
        "eq" => M::Compare(ComparisonDirection::Eq),
        "ne" => M::Compare(ComparisonDirection::Ne),
        "lt" => M::Compare(ComparisonDirection::Lt),
        "le" => M::Compare(ComparisonDirection::Le),
        "gt" => M::Compare(ComparisonDirection::Gt),
        "ge" => M::Compare(ComparisonDirection::Ge),
        "relu" => M::Relu,
        "select" => M::Select,
        "clamp" => M::Clamp,
        "convert" | "cast" => M::Convert,
        "dot" => M::Dot,
        "matmul" => M::Matmul,
        "reshape" => M::Reshape,
        "transpose" => M::Transpose,
        "t" => M::T,
        "broadcast_in_dim" => M::BroadcastInDim,
        "broadcast" => M::Broadcast,
        "rev" | "reverse" => M::Rev,
        "slice" => M::Slice,
        "pad" => M::Pad,
        "reduce" => M::ReduceWith,
        "map" => M::Map,
        "sort" => M::Sort,
        "reduce_window" => M::ReduceWindow,
        "reduce_window_dilated" => M::ReduceWindowDilated,
        "select_and_scatter" => M::SelectAndScatter,
        "max_pool" => M::MaxPool,
        "avg_pool" => M::AvgPool,
        "conv" => M::Conv,
        "dot_general" => M::DotGeneral,
        "cholesky" => M::Cholesky,
        "solve_lower" => M::Solve(true),
        "solve_upper" => M::Solve(false),
        "fft" => M::Fft(FftType::Fft),
        "ifft" => M::Fft(FftType::Ifft),
        "rfft" => M::Fft(FftType::Rfft),
        "irfft" => M::Fft(FftType::Irfft),
        "batch_norm_inference" => M::BatchNormInference,
        "batch_norm_training" => M::BatchNormTraining,
        "top_k" => M::TopK,
        "get" => M::Get,
        "take" => M::Take,
        "dynamic_slice" => M::DynamicSlice,
        "dynamic_update_slice" => M::DynamicUpdateSlice,
        "argsort" => M::Argsort,
        "scatter" => M::Scatter(false),
        "scatter_add" => M::Scatter(true),
        "sum" => M::Reduce(Reduction::Sum),
        "prod" => M::Reduce(Reduction::Prod),
        "mean" => M::Reduce(Reduction::Mean),
        "max" => M::MaxMin(B::Max, Reduction::Max),
        "min" => M::MaxMin(B::Min, Reduction::Min),
        _ => return None,
    };
    Some(m)
}

/// Every method name [`lookup`] knows, for "did you mean" hints (a unit test keeps the two in
/// step).
pub const METHOD_NAMES: &[&str] = &[
    "abs",
    "cbrt",
    "ceil",
    "clz",
    "leading_zeros",
    "cos",
    "erf",
    "exp",
    "exp_m1",
    "expm1",
    "floor",
    "imag",
    "is_finite",
    "log",
    "ln",
    "ln_1p",
    "log1p",
    "logistic",
    "sigmoid",
    "neg",
    "not",
    "popcnt",
    "count_ones",
    "real",
    "round",
    "round_ties_even",
    "round_nearest_even",
    "round_nearest_afz",
    "rsqrt",
    "sign",
    "signum",
    "sin",
    "sqrt",
    "tan",
    "tanh",
    "add",
    "sub",
    "mul",
    "div",
    "rem",
    "pow",
    "powf",
    "atan2",
    "and",
    "bitand",
    "or",
    "bitor",
    "xor",
    "bitxor",
    "complex",
    "shift_left",
    "shl",
    "shift_right_logical",
    "shift_right_arithmetic",
    "total_eq",
    "total_ne",
    "total_lt",
    "total_le",
    "total_gt",
    "total_ge",
    "bitcast",
    "bitcast_convert",
    "reduce_precision",
    "collapse",
    "get_dimension_size",
    "dimension_size",
    "optimization_barrier",
    "cholesky_upper",
    "triangular_solve",
    "batch_norm_grad",
    "conv_general",
    "gather_general",
    "scatter_general",
    "copy",
    "all_reduce",
    "all_gather",
    "reduce_scatter",
    "all_to_all",
    "collective_permute",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "relu",
    "select",
    "clamp",
    "convert",
    "cast",
    "dot",
    "matmul",
    "reshape",
    "transpose",
    "t",
    "broadcast_in_dim",
    "broadcast",
    "rev",
    "reverse",
    "slice",
    "pad",
    "reduce",
    "map",
    "sort",
    "reduce_window",
    "reduce_window_dilated",
    "select_and_scatter",
    "max_pool",
    "avg_pool",
    "conv",
    "dot_general",
    "cholesky",
    "solve_lower",
    "solve_upper",
    "fft",
    "ifft",
    "rfft",
    "irfft",
    "batch_norm_inference",
    "batch_norm_training",
    "top_k",
    "get",
    "take",
    "dynamic_slice",
    "dynamic_update_slice",
    "argsort",
    "scatter",
    "scatter_add",
    "sum",
    "prod",
    "mean",
    "max",
    "min",
];

/// True when `name` is a built-in operation.
pub fn is_method(name: &str) -> bool {
    lookup(name).is_some()
}

/// The built-in functions without a receiver.
const FREE_FUNCTIONS: &[&str] = &[
    "concat",
    "iota",
    "rng_uniform",
    "rng_normal",
    "rng_bit_generator",
    "sort_together",
    "reduce_together",
    "map_together",
    "reduce_window_together",
    "rng_bernoulli",
    "replica_id",
    "partition_id",
    "grad",
    "value_and_grad",
];

/// True when `f(..)` is built in (a free function, or a method called as a function); any
/// other call is to another `#[computation]`.
pub fn is_builtin_function(name: &str) -> bool {
    is_method(name) || FREE_FUNCTIONS.contains(&name)
}

impl Checker<'_> {
    /// `recv.name::<turbofish>(args)`.
    pub fn method(
        &mut self,
        recv: Val,
        name: &Ident,
        turbofish: Option<PrimitiveType>,
        args: &[Arg],
        sp: Sp,
    ) -> Option<Val> {
        let n = name.to_string();
        let Some(m) = lookup(&n) else {
            let hint = super::suggest::nearest(&n, METHOD_NAMES)
                .map(|m| format!("did you mean `{m}`? "))
                .unwrap_or_default();
            self.cx.error(sp, format!("unknown operation `{n}`; {hint}the supported operations are listed in the documentation of `#[computation]`"));
            return None;
        };
        if !m.takes_keywords() {
            self.no_keywords(&n, args)?;
        }
        if turbofish.is_some() && !matches!(m, Method::Convert | Method::Misc(Misc::Bitcast)) {
            self.cx.error(sp, format!("`{n}` takes no type argument"));
            return None;
        }
        match m {
            Method::Unary(op) => {
                self.arity(&n, args, [], sp)?;
                self.elementwise_unary(op, recv, sp)
            }
            Method::Binary(op) => self.binary_method(Elementwise::Binary(op), &n, recv, args, sp),
            Method::Compare(direction) => {
                self.binary_method(Elementwise::Compare(direction), &n, recv, args, sp)
            }
            Method::Relu => {
                self.arity(&n, args, [], sp)?;
                self.relu(recv, sp)
            }
            Method::Select => {
                let [t, f] = self.arity(&n, args, ["on_true", "on_false"], sp)?;
                let (t, f) = (self.val(t), self.val(f));
                self.select(recv, t?, f?, sp)
            }
            Method::Clamp => {
                let [lo, hi] = self.arity(&n, args, ["min", "max"], sp)?;
                let (lo, hi) = (self.val(lo), self.val(hi));
                self.clamp(recv, lo?, hi?, sp)
            }
            Method::Convert => {
                self.arity(&n, args, [], sp)?;
                self.convert_to(&n, recv, turbofish, sp)
            }
            Method::Dot | Method::Matmul => {
                let [rhs] = self.arity(&n, args, ["rhs"], sp)?;
                let rhs = self.val(rhs)?;
                if matches!(m, Method::Dot) {
                    self.dot(recv, rhs, sp)
                } else {
                    self.matmul(recv, rhs, sp)
                }
            }
            Method::Misc(misc) => self.misc_method(misc, &n, recv, turbofish, args, sp),
            Method::Collective(c) => self.collective(c, recv, args, sp),
            _ => self.structural_method(m, &n, recv, args, sp),
        }
    }

    fn misc_method(
        &mut self,
        m: Misc,
        n: &str,
        recv: Val,
        turbofish: Option<PrimitiveType>,
        args: &[Arg],
        sp: Sp,
    ) -> Option<Val> {
        match m {
            Misc::Bitcast => {
                self.arity(n, args, [], sp)?;
                self.bitcast(n, recv, turbofish, sp)
            }
            Misc::ReducePrecision => self.reduce_precision(recv, args, sp),
            Misc::Collapse => self.collapse(recv, args, sp),
            Misc::DimensionSize => self.dimension_size(recv, args, sp),
            Misc::OptimizationBarrier => self.optimization_barrier(recv, args, sp),
            Misc::TotalCompare(direction) => self.total_compare(direction, recv, args, sp),
            Misc::CholeskyUpper => self.cholesky_upper(recv, args, sp),
            Misc::TriangularSolve => self.triangular_solve(recv, args, sp),
            Misc::BatchNormGrad => self.batch_norm_grad(recv, args, sp),
            Misc::ConvGeneral => self.conv_general(recv, args, sp),
            Misc::GatherGeneral => self.gather_general(recv, args, sp),
            Misc::ScatterGeneral => self.scatter_general(recv, args, sp),
            Misc::Copy => {
                self.arity(n, args, [], sp)?;
                let x = self.tensor(recv, None, sp)?;
                self.val_op(sp, |b| b.copy(&x))
            }
        }
    }

    fn structural_method(
        &mut self,
        m: Method,
        n: &str,
        recv: Val,
        args: &[Arg],
        sp: Sp,
    ) -> Option<Val> {
        match m {
            Method::Reshape => {
                let [dims] = self.arity(n, args, ["[new dims]"], sp)?;
                self.reshape(recv, self.ints(dims, "the new dims")?, sp)
            }
            Method::Transpose => {
                let [perm] = self.arity(n, args, ["[permutation]"], sp)?;
                self.transpose(recv, self.ints(perm, "the permutation")?, sp)
            }
            Method::T => {
                self.arity(n, args, [], sp)?;
                self.matrix_transpose(recv, sp)
            }
            Method::BroadcastInDim => {
                let [dims, map] =
                    self.arity(n, args, ["[result dims]", "[broadcast dimensions]"], sp)?;
                let (dims, map) = (
                    self.ints(dims, "the result dims"),
                    self.ints(map, "the broadcast dimensions"),
                );
                self.broadcast_in_dim(recv, dims?, map?, sp)
            }
            Method::Broadcast => {
                let [sizes] = self.arity(n, args, ["[leading sizes]"], sp)?;
                self.broadcast_leading(
                    recv,
                    self.ints(sizes, "the sizes of the new leading dims")?,
                    sp,
                )
            }
            Method::Rev => {
                let [dims] = self.arity(n, args, ["[dims]"], sp)?;
                self.rev(recv, self.ints(dims, "the reversed dims")?, sp)
            }
            Method::Slice => {
                let [specs] = self.arity(n, args, ["[ranges]"], sp)?;
                self.slice(recv, self.slices(specs)?, sp)
            }
            Method::Pad => {
                let [value, pads] =
                    self.arity(n, args, ["padding value", "[(low, high, interior)]"], sp)?;
                let (value, pads) = (self.val(value), self.pads(pads));
                self.pad(recv, value?, pads?, sp)
            }
            Method::ReduceWith => self.reduce_with(recv, args, sp),
            Method::Map => self.map_with(recv, args, sp),
            Method::Sort => self.sort_with(recv, args, sp),
            _ => self.more_method(m, n, recv, args, sp),
        }
    }

    /// Windows, linear algebra and reductions (the rest of [`Checker::method`]).
    fn more_method(&mut self, m: Method, n: &str, recv: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        match m {
            Method::ReduceWindow => self.reduce_window_with(recv, args, sp),
            Method::ReduceWindowDilated => self.reduce_window_dilated(recv, args, sp),
            Method::SelectAndScatter => self.select_and_scatter(recv, args, sp),
            Method::MaxPool => self.max_pool(recv, args, sp),
            Method::AvgPool => self.avg_pool(recv, args, sp),
            Method::Conv => self.conv(recv, args, sp),
            Method::DotGeneral => self.dot_general(recv, args, sp),
            Method::Cholesky => {
                self.arity(n, args, [], sp)?;
                self.cholesky(recv, sp)
            }
            Method::Solve(lower) => {
                let [rhs] = self.arity(n, args, ["rhs"], sp)?;
                let rhs = self.val(rhs)?;
                self.solve_triangular(recv, rhs, lower, sp)
            }
            Method::Fft(t) => {
                let [lengths] = self.arity(n, args, ["[lengths]"], sp)?;
                self.fft(recv, t, self.ints(lengths, "the transform lengths")?, sp)
            }
            Method::BatchNormInference => self.batch_norm_inference(recv, args, sp),
            Method::BatchNormTraining => self.batch_norm_training(recv, args, sp),
            Method::TopK => {
                let [k] = self.arity(n, args, ["k"], sp)?;
                self.top_k(recv, self.int_scalar(k, "k")?, sp)
            }
            Method::Take => self.take(recv, args, sp),
            Method::DynamicSlice => self.dynamic_slice(recv, args, sp),
            Method::DynamicUpdateSlice => self.dynamic_update_slice(recv, args, sp),
            Method::Argsort => self.argsort(recv, args, sp),
            Method::Scatter(add) => self.scatter(recv, args, add, sp),
            Method::Get => self.tuple_get(recv, args, sp),
            Method::Reduce(kind) => self.reduce_method(kind, n, recv, args, sp),
            Method::MaxMin(op, kind) => match args {
                [Arg::Expr(_)] => self.binary_method(Elementwise::Binary(op), n, recv, args, sp),
                _ => self.reduce_method(kind, n, recv, args, sp),
            },
            Method::Unary(_)
            | Method::Binary(_)
            | Method::Compare(_)
            | Method::Relu
            | Method::Select
            | Method::Clamp
            | Method::Convert
            | Method::Dot
            | Method::Matmul
            | Method::Reshape
            | Method::Transpose
            | Method::T
            | Method::BroadcastInDim
            | Method::Broadcast
            | Method::Rev
            | Method::Slice
            | Method::Pad
            | Method::ReduceWith
            | Method::Map
            | Method::Sort
            | Method::Misc(_)
            | Method::Collective(_) => None,
        }
    }

    fn binary_method(
        &mut self,
        op: Elementwise,
        n: &str,
        recv: Val,
        args: &[Arg],
        sp: Sp,
    ) -> Option<Val> {
        let [rhs] = self.arity(n, args, ["rhs"], sp)?;
        let rhs = self.val(rhs)?;
        self.elementwise_binary(op, recv, rhs, sp)
    }

    fn reduce_method(
        &mut self,
        kind: Reduction,
        n: &str,
        recv: Val,
        args: &[Arg],
        sp: Sp,
    ) -> Option<Val> {
        let dims = match args {
            [] => None,
            [dims] => Some(self.ints(dims, "the reduced dims")?),
            _ => {
                self.cx.error(sp, format!("`{n}` takes the reduced dims, e.g. `{n}([1])`, or nothing to reduce every dim"));
                return None;
            }
        };
        self.reduce(kind, recv, dims, sp)
    }

    /// The arguments as an array of `N`, or an error naming the expected ones.
    pub(super) fn arity<'b, const N: usize>(
        &self,
        n: &str,
        args: &'b [Arg],
        params: [&str; N],
        sp: Sp,
    ) -> Option<&'b [Arg; N]> {
        let fixed: Option<&[Arg; N]> = args.try_into().ok();
        if fixed.is_none() {
            let expected = if N == 0 {
                "no arguments".to_string()
            } else {
                format!("{N} ({})", params.join(", "))
            };
            self.cx
                .error(sp, format!("`{n}` takes {expected}, found {}", args.len()));
        }
        fixed
    }
}
