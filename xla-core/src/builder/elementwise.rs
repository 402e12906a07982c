//! Elementwise ops: unary, binary (with XLA's broadcasting), comparisons, select, clamp,
//! type conversions and map.

use super::callee::Callee;
use super::{collect_ops, refs, XlaBuilder, XlaOp};
use crate::ir::{BinaryOp, ComparisonDirection, ComparisonType, Op, UnaryOp};
use crate::shape::Shape;
use crate::shape_inference::elementwise::broadcast_plan;
use crate::shape_inference::{ConvertRule, ShapeError, ShapeRule};
use crate::types::PrimitiveType;
use std::borrow::Borrow;

macro_rules! unary_methods {
    ($($(#[$doc:meta])* $name:ident => $variant:ident),* $(,)?) => {
        impl XlaBuilder {
            $(
                $(#[$doc])*
                pub fn $name(&self, operand: impl Borrow<XlaOp>) -> XlaOp {
                    self.unary_op(UnaryOp::$variant, operand.borrow())
                }
            )*
        }
    };
}

unary_methods! {
    /// `|x|` (the modulus for complex).
    abs => Abs,
    /// Cube root.
    cbrt => Cbrt,
    /// Round up.
    ceil => Ceil,
    /// Count leading zero bits.
    clz => Clz,
    /// Cosine.
    cos => Cos,
    /// Error function.
    erf => Erf,
    /// `e^x`.
    exp => Exp,
    /// `e^x - 1`.
    expm1 => Expm1,
    /// Round down.
    floor => Floor,
    /// Imaginary part.
    imag => Imag,
    /// True where finite.
    is_finite => IsFinite,
    /// Natural logarithm.
    log => Log,
    /// `ln(1 + x)`.
    log1p => Log1p,
    /// `1 / (1 + e^-x)`.
    logistic => Logistic,
    /// `-x`.
    neg => Neg,
    /// Logical or bitwise not.
    not => Not,
    /// Count set bits (PopulationCount).
    population_count => Popcnt,
    /// Real part.
    real => Real,
    /// Round to nearest, ties away from zero (XLA's `Round`).
    round => RoundNearestAfz,
    /// Round to nearest, ties to even.
    round_nearest_even => RoundNearestEven,
    /// `1 / sqrt(x)`.
    rsqrt => Rsqrt,
    /// Sign: -1, 0 or 1.
    sign => Sign,
    /// Sine.
    sin => Sin,
    /// Square root.
    sqrt => Sqrt,
    /// Tangent.
    tan => Tan,
    /// Hyperbolic tangent.
    tanh => Tanh,
}

macro_rules! binary_methods {
    ($($(#[$doc:meta])* $name:ident, $with:ident => $variant:ident),* $(,)?) => {
        impl XlaBuilder {
            $(
                $(#[$doc])*
                pub fn $name(&self, lhs: impl Borrow<XlaOp>, rhs: impl Borrow<XlaOp>) -> XlaOp {
                    self.binary_op(BinaryOp::$variant, lhs.borrow(), rhs.borrow(), &[])
                }

                #[doc = concat!("`", stringify!($name), "` with `broadcast_dimensions` mapping the ",
                    "lower-rank operand's dims into the higher-rank one's.")]
                pub fn $with(&self, lhs: impl Borrow<XlaOp>, rhs: impl Borrow<XlaOp>, broadcast_dimensions: &[i64]) -> XlaOp {
                    self.binary_op(BinaryOp::$variant, lhs.borrow(), rhs.borrow(), broadcast_dimensions)
                }
            )*
        }
    };
}

binary_methods! {
    /// `lhs + rhs`.
    add, add_with_broadcast => Add,
    /// `lhs - rhs`.
    sub, sub_with_broadcast => Sub,
    /// `lhs * rhs`.
    mul, mul_with_broadcast => Mul,
    /// `lhs / rhs`.
    div, div_with_broadcast => Div,
    /// `lhs ^ rhs`.
    pow, pow_with_broadcast => Pow,
    /// Remainder with the sign of the dividend.
    rem, rem_with_broadcast => Rem,
    /// Maximum.
    max, max_with_broadcast => Max,
    /// Minimum.
    min, min_with_broadcast => Min,
    /// Logical or bitwise and.
    and, and_with_broadcast => And,
    /// Logical or bitwise or.
    or, or_with_broadcast => Or,
    /// Logical or bitwise xor.
    xor, xor_with_broadcast => Xor,
    /// Shift left.
    shift_left, shift_left_with_broadcast => ShiftLeft,
    /// Arithmetic shift right.
    shift_right_arithmetic, shift_right_arithmetic_with_broadcast => ShiftRightArithmetic,
    /// Logical shift right.
    shift_right_logical, shift_right_logical_with_broadcast => ShiftRightLogical,
    /// `atan2(lhs, rhs)`.
    atan2, atan2_with_broadcast => Atan2,
    /// A complex number from real and imaginary parts.
    complex, complex_with_broadcast => Complex,
}

macro_rules! compare_methods {
    ($($(#[$doc:meta])* $name:ident, $with:ident, $total:ident => $dir:ident),* $(,)?) => {
        impl XlaBuilder {
            $(
                $(#[$doc])*
                pub fn $name(&self, lhs: impl Borrow<XlaOp>, rhs: impl Borrow<XlaOp>) -> XlaOp {
                    self.compare_op(ComparisonDirection::$dir, false, lhs.borrow(), rhs.borrow(), &[])
                }

                #[doc = concat!("`", stringify!($name), "` with `broadcast_dimensions`.")]
                pub fn $with(&self, lhs: impl Borrow<XlaOp>, rhs: impl Borrow<XlaOp>, broadcast_dimensions: &[i64]) -> XlaOp {
                    self.compare_op(ComparisonDirection::$dir, false, lhs.borrow(), rhs.borrow(), broadcast_dimensions)
                }

                #[doc = concat!("`", stringify!($name), "` under the total order of floats ",
                    "(-NaN < -inf < ... < -0 < +0 < ... < inf < NaN); the default order for other types.")]
                pub fn $total(&self, lhs: impl Borrow<XlaOp>, rhs: impl Borrow<XlaOp>) -> XlaOp {
                    self.compare_op(ComparisonDirection::$dir, true, lhs.borrow(), rhs.borrow(), &[])
                }
            )*
        }
    };
}

compare_methods! {
    /// `lhs == rhs`.
    eq, eq_with_broadcast, eq_total_order => Eq,
    /// `lhs != rhs`.
    ne, ne_with_broadcast, ne_total_order => Ne,
    /// `lhs >= rhs`.
    ge, ge_with_broadcast, ge_total_order => Ge,
    /// `lhs > rhs`.
    gt, gt_with_broadcast, gt_total_order => Gt,
    /// `lhs <= rhs`.
    le, le_with_broadcast, le_total_order => Le,
    /// `lhs < rhs`.
    lt, lt_with_broadcast, lt_total_order => Lt,
}

impl XlaBuilder {
    /// Any unary elementwise op.
    pub fn unary_op(&self, op: UnaryOp, operand: &XlaOp) -> XlaOp {
        self.emit(Op::Unary(op), &[operand], None)
    }

    /// Any binary elementwise op, broadcasting as XLA does: scalars implicitly, size-1
    /// dims of same-rank operands, and the lower-rank operand through
    /// `broadcast_dimensions`. Broadcasts are explicit `broadcast` instructions.
    pub fn binary_op(
        &self,
        op: BinaryOp,
        lhs: &XlaOp,
        rhs: &XlaOp,
        broadcast_dimensions: &[i64],
    ) -> XlaOp {
        match self.broadcast_operands(op.name(), lhs, rhs, broadcast_dimensions) {
            Some((l, r)) => self.emit(Op::Binary(op), &[&l, &r], None),
            None => self.poisoned(),
        }
    }

    /// Compares elementwise in `direction`; `total_order` asks for the total order of
    /// floats (`type=TOTALORDER`).
    pub fn compare_op(
        &self,
        direction: ComparisonDirection,
        total_order: bool,
        lhs: &XlaOp,
        rhs: &XlaOp,
        broadcast_dimensions: &[i64],
    ) -> XlaOp {
        let Some((l, r)) = self.broadcast_operands("compare", lhs, rhs, broadcast_dimensions)
        else {
            return self.poisoned();
        };
        let float = self
            .shape_of("compare", &l)
            .is_some_and(|s| s.element_type().is_float());
        let comparison_type = (total_order && float).then_some(ComparisonType::TotalOrder);
        self.emit(
            Op::Compare {
                direction,
                comparison_type,
            },
            &[&l, &r],
            None,
        )
    }

    /// Compares elementwise in `direction` (XLA's `Compare`).
    pub fn compare(
        &self,
        lhs: impl Borrow<XlaOp>,
        rhs: impl Borrow<XlaOp>,
        direction: ComparisonDirection,
    ) -> XlaOp {
        self.compare_op(direction, false, lhs.borrow(), rhs.borrow(), &[])
    }

    /// Broadcasts the operands of a binary op to a common shape as `broadcast_plan` says.
    fn broadcast_operands(
        &self,
        name: &str,
        lhs: &XlaOp,
        rhs: &XlaOp,
        bdims: &[i64],
    ) -> Option<(XlaOp, XlaOp)> {
        let shapes = self.shapes_of(name, &[lhs, rhs])?;
        let (ls, rs) = (&shapes[0], &shapes[1]);
        if !(ls.is_array() && rs.is_array()) || (bdims.is_empty() && ls.dims() == rs.dims()) {
            return Some((lhs.clone(), rhs.clone()));
        }
        let plan = match broadcast_plan(name, ls, rs, bdims) {
            Ok(p) => p,
            Err(e) => {
                self.fail(e);
                return None;
            }
        };
        let expand = |x: &XlaOp, d: &Option<Vec<i64>>| match d {
            Some(d) => self.broadcast_in_dim(x, &plan.dims, d),
            None => x.clone(),
        };
        let (l, r) = (expand(lhs, &plan.lhs), expand(rhs, &plan.rhs));
        (!l.is_poisoned() && !r.is_poisoned()).then_some((l, r))
    }

    /// `select(pred, on_true, on_false)`; a scalar operand is broadcast to the others' shape
    /// (as XLA's builder does).
    pub fn select(
        &self,
        pred: impl Borrow<XlaOp>,
        on_true: impl Borrow<XlaOp>,
        on_false: impl Borrow<XlaOp>,
    ) -> XlaOp {
        self.ternary(
            Op::Select,
            [pred.borrow(), on_true.borrow(), on_false.borrow()],
        )
    }

    /// `clamp(min, operand, max)`; scalar bounds are broadcast to the operand's shape.
    pub fn clamp(
        &self,
        min: impl Borrow<XlaOp>,
        operand: impl Borrow<XlaOp>,
        max: impl Borrow<XlaOp>,
    ) -> XlaOp {
        self.ternary(Op::Clamp, [min.borrow(), operand.borrow(), max.borrow()])
    }

    fn ternary(&self, op: Op, operands: [&XlaOp; 3]) -> XlaOp {
        let Some(shapes) = self.shapes_of(op.name(), &operands) else {
            return self.poisoned();
        };
        let target = shapes
            .iter()
            .find(|s| s.is_array() && !s.is_scalar())
            .map(|s| s.dims().to_vec());
        let ops: Vec<XlaOp> = operands
            .iter()
            .zip(&shapes)
            .map(|(o, s)| match &target {
                Some(dims) if s.is_scalar() => self.broadcast_in_dim(*o, dims, &[]),
                _ => (*o).clone(),
            })
            .collect();
        self.emit(op, &refs(&ops), None)
    }

    /// Converts the element type (XLA's `ConvertElementType`).
    pub fn convert_element_type(&self, operand: impl Borrow<XlaOp>, ty: PrimitiveType) -> XlaOp {
        let operand = operand.borrow();
        match self.shape_of("convert", operand) {
            Some(s) => self.emit(Op::Convert, &[operand], Some(s.with_element_type(ty))),
            None => self.poisoned(),
        }
    }

    /// Reinterprets the bits as `ty` (XLA's `BitcastConvertType`). A narrower target adds a
    /// minor dimension of the width ratio; a wider target removes it.
    pub fn bitcast_convert_type(&self, operand: impl Borrow<XlaOp>, ty: PrimitiveType) -> XlaOp {
        let operand = operand.borrow();
        let Some(s) = self.shape_of("bitcast-convert", operand) else {
            return self.poisoned();
        };
        let (from, to) = (s.element_type().bit_width(), ty.bit_width());
        let mut dims = s.dims().to_vec();
        if to != 0 && from > to {
            dims.push((from / to) as i64);
        } else if from != 0 && from < to {
            if dims.last() != Some(&((to / from) as i64)) {
                let ratio = (to / from.max(1)) as i64;
                let rule = match s.as_array() {
                    Some(a) => ShapeRule::Convert {
                        from: a.clone(),
                        to: ty,
                        rule: ConvertRule::LastDimension { ratio },
                    },
                    None => ShapeRule::NotArray {
                        what: "operand".into(),
                        found: s.clone(),
                    },
                };
                return self.fail(ShapeError::rule_at("bitcast-convert", 0, rule));
            }
            dims.pop();
        }
        self.emit(Op::BitcastConvert, &[operand], Some(Shape::array(ty, dims)))
    }

    /// Rounds to a float format with `exponent_bits` and `mantissa_bits`.
    pub fn reduce_precision(
        &self,
        operand: impl Borrow<XlaOp>,
        exponent_bits: i64,
        mantissa_bits: i64,
    ) -> XlaOp {
        self.emit(
            Op::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            },
            &[operand.borrow()],
            None,
        )
    }

    /// Applies the scalar computation `computation` elementwise over `dimensions` of the
    /// same-shape `operands`.
    pub fn map<I>(&self, operands: I, dimensions: &[i64], computation: impl Callee) -> XlaOp
    where
        I: IntoIterator,
        I::Item: Borrow<XlaOp>,
    {
        let ops = collect_ops(operands);
        let Some(shapes) = self.shapes_of("map", &refs(&ops)) else {
            return self.poisoned();
        };
        let params: Vec<Shape> = shapes
            .iter()
            .map(|s| Shape::scalar(s.element_type()))
            .collect();
        let Some(to_apply) = self.callee(computation, "mapper", &params) else {
            return self.poisoned();
        };
        self.emit(
            Op::Map {
                dimensions: dimensions.to_vec(),
                to_apply,
            },
            &refs(&ops),
            None,
        )
    }
}
