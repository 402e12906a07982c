//! Operations reachable from the body that have no operator syntax: bit casts, precision
//! reduction, collapse, dimension sizes, optimization barriers, total-order comparisons,
//! triangular solves with every option, upper Cholesky and the bit generator.

use super::graph::shape;
use super::{Checker, Val};
use crate::ast::{Arg, ExprKind};
use crate::ctxt::Sp;
use xla_core::ir::{ComparisonDirection, RngAlgorithm, Transpose, TriangularSolveOptions};
use xla_core::{PrimitiveType, Shape};

/// The words `triangular_solve` accepts after `b`, and what each sets.
const SOLVE_FLAGS: &str =
    "`LEFT`/`RIGHT`, `LOWER`/`UPPER`, `UNIT`/`NON_UNIT`, `NO_TRANSPOSE`/`TRANSPOSE`/`ADJOINT`";

impl Checker<'_> {
    /// `x.bitcast::<T>()`: `bitcast-convert` (a wider `T` consumes the minor dim, a narrower
    /// one adds it).
    pub fn bitcast(&mut self, n: &str, x: Val, ty: Option<PrimitiveType>, sp: Sp) -> Option<Val> {
        let Some(ty) = ty else {
            self.cx.error(
                sp,
                format!("`{n}` needs the target element type: `{n}::<u32>()`"),
            );
            return None;
        };
        let x = self.tensor(x, None, sp)?;
        self.val_op(sp, |b| b.bitcast_convert_type(&x, ty))
    }

    /// `x.reduce_precision(exponent_bits, mantissa_bits)`.
    pub fn reduce_precision(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let [e, m] = self.arity(
            "reduce_precision",
            args,
            ["exponent_bits", "mantissa_bits"],
            sp,
        )?;
        let (e, m) = (
            self.int_scalar(e, "the exponent bits"),
            self.int_scalar(m, "the mantissa bits"),
        );
        let (e, m) = (e?, m?);
        let x = self.tensor(x, None, sp)?;
        self.val_op(sp, |b| b.reduce_precision(&x, e, m))
    }

    /// `x.collapse([1, 2])`: merges consecutive dims into one.
    pub fn collapse(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let [dims] = self.arity("collapse", args, ["[consecutive dims]"], sp)?;
        let dims = self.ints(dims, "the collapsed dims")?;
        let x = self.tensor(x, None, sp)?;
        self.val_op(sp, |b| b.collapse(&x, &dims))
    }

    /// `x.get_dimension_size(d)`: the size of dim `d` as an `s32` scalar.
    pub fn dimension_size(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let [d] = self.arity("get_dimension_size", args, ["dimension"], sp)?;
        let d = self.int_scalar(d, "the dimension")?;
        let x = self.tensor(x, None, sp)?;
        self.val_op(sp, |b| b.get_dimension_size(&x, d))
    }

    /// `x.optimization_barrier()`.
    pub fn optimization_barrier(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        self.arity("optimization_barrier", args, [], sp)?;
        let x = self.tensor(x, None, sp)?;
        self.val_op(sp, |b| b.optimization_barrier(&x))
    }

    /// `x.total_lt(y)` and friends: `compare` with `type=TOTALORDER` (`-0 < +0`, NaNs
    /// ordered by sign and payload).
    pub fn total_compare(
        &mut self,
        direction: ComparisonDirection,
        x: Val,
        args: &[Arg],
        sp: Sp,
    ) -> Option<Val> {
        let [y] = self.arity("total-order comparison", args, ["rhs"], sp)?;
        let y = self.val(y)?;
        let (x, y) = self.unify(x, y, sp)?;
        self.val_op(sp, |b| b.compare_op(direction, true, &x, &y, &[]))
    }

    /// `a.cholesky_upper()`: the upper factor `u` with `uᴴ u = a`.
    pub fn cholesky_upper(&mut self, a: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        self.arity("cholesky_upper", args, [], sp)?;
        let a = self.tensor(a, None, sp)?;
        self.val_op(sp, |b| b.cholesky(&a, false))
    }

    /// `a.triangular_solve(b, RIGHT, UPPER, UNIT, TRANSPOSE)`: any of the option words, in
    /// any order; the defaults are `LEFT, LOWER, NON_UNIT, NO_TRANSPOSE` (`a x = b`).
    pub fn triangular_solve(&mut self, a: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let Some((rhs, flags)) = args.split_first() else {
            self.cx.error(
                sp,
                format!("`triangular_solve` takes `b`, then option words: {SOLVE_FLAGS}"),
            );
            return None;
        };
        let mut options = TriangularSolveOptions {
            left_side: true,
            lower: true,
            unit_diagonal: false,
            transpose_a: Transpose::NoTranspose,
        };
        for flag in flags {
            self.solve_flag(flag, &mut options)?;
        }
        let rhs = self.val(rhs)?;
        let (a, rhs) = self.unify(a, rhs, sp)?;
        self.val_op(sp, |b| b.triangular_solve(&a, &rhs, options))
    }

    fn solve_flag(&self, flag: &Arg, o: &mut TriangularSolveOptions) -> Option<()> {
        let word = match flag {
            Arg::Expr(e) => match &e.kind {
                ExprKind::Var(v) => v.to_string(),
                _ => String::new(),
            },
            _ => String::new(),
        };
        match word.as_str() {
            "LEFT" => o.left_side = true,
            "RIGHT" => o.left_side = false,
            "LOWER" => o.lower = true,
            "UPPER" => o.lower = false,
            "UNIT" => o.unit_diagonal = true,
            "NON_UNIT" => o.unit_diagonal = false,
            "NO_TRANSPOSE" => o.transpose_a = Transpose::NoTranspose,
            "TRANSPOSE" => o.transpose_a = Transpose::Transpose,
            "ADJOINT" => o.transpose_a = Transpose::Adjoint,
            _ => {
                self.cx.error(
                    super::args::span(flag),
                    format!("`triangular_solve`: expected an option word, one of {SOLVE_FLAGS}"),
                );
                return None;
            }
        }
        Some(())
    }

    /// `rng_bit_generator::<u32>(state, [dims])`: `(new_state, bits)`, ThreeFry (the
    /// default algorithm); `state` is a `u64[2]` (more words are allowed, as XLA).
    pub fn rng_bit_generator_call(
        &mut self,
        ty: Option<PrimitiveType>,
        args: &[Arg],
        sp: Sp,
    ) -> Option<Val> {
        let [state, dims] = self.arity("rng_bit_generator", args, ["state", "[dims]"], sp)?;
        let (state, dims) = (self.val(state), self.ints(dims, "the dims"));
        let state = self.tensor(state?, Some(PrimitiveType::U64), sp)?;
        shape(&state)?;
        let s = Shape::array(ty.unwrap_or(PrimitiveType::U32), dims?);
        self.val_op(sp, |b| {
            b.rng_bit_generator(RngAlgorithm::Default, &state, s)
        })
    }

    /// `rng_bernoulli::<T>(p, [dims])`: 1 with probability `p` (a scalar), else 0, of
    /// element type `T` (default: `p`'s type; a literal `p` is `f32`). The builder's
    /// expansion: `convert(rng_uniform(0, 1) < p)`.
    pub fn rng_bernoulli_call(
        &mut self,
        ty: Option<PrimitiveType>,
        args: &[Arg],
        sp: Sp,
    ) -> Option<Val> {
        let [p, dims] = self.arity("rng_bernoulli", args, ["probability", "[dims]"], sp)?;
        let (p, dims) = (self.val(p), self.ints(dims, "the dims"));
        let p = self.tensor(p?, None, sp)?;
        let ps = shape(&p)?;
        if !ps.is_scalar() {
            self.cx.error(
                sp,
                format!("rng_bernoulli: the probability must be a scalar, found {ps}"),
            );
            return None;
        }
        let s = Shape::array(ty.unwrap_or(ps.element_type()), dims?);
        self.val_op(sp, |b| b.rng_bernoulli(&p, s))
    }

    /// `x.batch_norm_grad(scale, mean, variance, grad_output, epsilon, feature_index)` →
    /// `(grad_operand, grad_scale, grad_offset)`.
    pub fn batch_norm_grad(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let names = [
            "scale",
            "mean",
            "variance",
            "grad_output",
            "epsilon",
            "feature_index",
        ];
        let [scale, mean, var, dy, eps, feature] =
            self.arity("batch_norm_grad", args, names, sp)?;
        let x = self.tensor(x, None, sp)?;
        let ty = shape(&x)?.element_type();
        let mut ops = Vec::new();
        for a in [scale, mean, var, dy] {
            ops.push(self.val(a).and_then(|v| self.tensor(v, Some(ty), sp)));
        }
        let (eps, feature) = (
            self.float_scalar(eps, "epsilon"),
            self.int_scalar(feature, "the feature index"),
        );
        let ops = ops.into_iter().collect::<Option<Vec<_>>>()?;
        let [scale, mean, var, dy] = <[_; 4]>::try_from(ops).ok()?;
        let (eps, feature) = (eps? as f32, feature?);
        self.val_op(sp, |b| {
            b.batch_norm_grad(&x, &scale, &mean, &var, &dy, eps, feature)
        })
    }

    /// `sort_together([keys, values], dim, |k1, k2, v1, v2| k1.lt(k2))`: a stable `sort` of
    /// several operands of the same dims; the comparator takes each operand's pair in turn
    /// (XLA's order: lhs then rhs of operand 0, then of operand 1, ...). A tuple.
    pub fn sort_together_call(&mut self, args: &[Arg], sp: Sp) -> Option<Val> {
        let [list, dim, f] = self.arity(
            "sort_together",
            args,
            ["[operands]", "dimension", "comparator"],
            sp,
        )?;
        let Arg::List(exprs, _) = list else {
            self.cx.error(
                super::args::span(list),
                "sort_together: expected the operands as a list `[keys, values]`",
            );
            return None;
        };
        let mut ops = Vec::new();
        for e in exprs {
            let v = self.expr(e);
            ops.push(v.and_then(|v| self.tensor(v, None, sp)));
        }
        let dim = self.int_scalar(dim, "the sorted dimension");
        let ops = ops.into_iter().collect::<Option<Vec<_>>>()?;
        let mut scalars = Vec::new();
        for op in &ops {
            let ty = shape(op)?.element_type();
            scalars.extend([Shape::scalar(ty), Shape::scalar(ty)]);
        }
        let f = self.closure(f)?;
        let comp = self.sub_computation("sort", f, &scalars)?;
        let dim = dim?;
        self.val_op(sp, |b| b.sort(&ops, dim, true, &comp))
    }
}
