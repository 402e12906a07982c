//! Linear algebra and transforms: Cholesky, triangular solves, FFTs, batch norm, top-k,
//! convolution and general dot products; and random numbers.

use super::args::WindowPadding;
use super::graph::shape;
use super::{Checker, Val};
use crate::ast::Arg;
use crate::ctxt::Sp;
use xla_core::ir::{DotDims, FftType, Transpose, TriangularSolveOptions};
use xla_core::{PrimitiveType, Shape};

impl Checker<'_> {
    /// The lower Cholesky factor of a (batched) symmetric positive-definite matrix.
    pub fn cholesky(&mut self, a: Val, sp: Sp) -> Option<Val> {
        let a = self.tensor(a, None, sp)?;
        self.val_op(sp, |b| b.cholesky(&a, true))
    }

    /// Solves `a x = rhs` for a lower (`lower`) or upper triangular `a`.
    pub fn solve_triangular(&mut self, a: Val, rhs: Val, lower: bool, sp: Sp) -> Option<Val> {
        let (a, rhs) = self.unify(a, rhs, sp)?;
        let options = TriangularSolveOptions {
            left_side: true,
            lower,
            unit_diagonal: false,
            transpose_a: Transpose::NoTranspose,
        };
        self.val_op(sp, |b| b.triangular_solve(&a, &rhs, options))
    }

    /// A transform over the trailing `lengths.len()` dims.
    pub fn fft(&mut self, x: Val, fft_type: FftType, lengths: Vec<i64>, sp: Sp) -> Option<Val> {
        let x = self.tensor(x, None, sp)?;
        self.val_op(sp, |b| b.fft(&x, fft_type, &lengths))
    }

    /// `x.batch_norm_inference(scale, offset, mean, variance, epsilon, feature_index)`.
    pub fn batch_norm_inference(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let [scale, offset, mean, var, eps, feature] = self.arity(
            "batch_norm_inference",
            args,
            [
                "scale",
                "offset",
                "mean",
                "variance",
                "epsilon",
                "feature_index",
            ],
            sp,
        )?;
        let x = self.tensor(x, None, sp)?;
        let ty = shape(&x)?.element_type();
        let vals: Vec<Option<_>> = [scale, offset, mean, var]
            .iter()
            .map(|a| self.val(a).and_then(|v| self.tensor(v, Some(ty), sp)))
            .collect();
        let (eps, feature) = (
            self.float_scalar(eps, "epsilon"),
            self.int_scalar(feature, "the feature index"),
        );
        let [scale, offset, mean, var] = <[Option<_>; 4]>::try_from(vals).ok()?;
        let (scale, offset, mean, var, eps, feature) =
            (scale?, offset?, mean?, var?, eps? as f32, feature?);
        self.val_op(sp, |b| {
            b.batch_norm_inference(&x, &scale, &offset, &mean, &var, eps, feature)
        })
    }

    /// `x.batch_norm_training(scale, offset, epsilon, feature_index)` → `(output, mean, variance)`.
    pub fn batch_norm_training(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let [scale, offset, eps, feature] = self.arity(
            "batch_norm_training",
            args,
            ["scale", "offset", "epsilon", "feature_index"],
            sp,
        )?;
        let x = self.tensor(x, None, sp)?;
        let ty = shape(&x)?.element_type();
        let scale = self.val(scale).and_then(|v| self.tensor(v, Some(ty), sp));
        let offset = self.val(offset).and_then(|v| self.tensor(v, Some(ty), sp));
        let (eps, feature) = (
            self.float_scalar(eps, "epsilon"),
            self.int_scalar(feature, "the feature index"),
        );
        let (scale, offset, eps, feature) = (scale?, offset?, eps? as f32, feature?);
        self.val_op(sp, |b| {
            b.batch_norm_training(&x, &scale, &offset, eps, feature)
        })
    }

    /// `x.top_k(k)` → `(values, s32 indices)` along the last dim.
    pub fn top_k(&mut self, x: Val, k: i64, sp: Sp) -> Option<Val> {
        let x = self.tensor(x, None, sp)?;
        self.val_op(sp, |b| b.top_k(&x, k, true))
    }

    /// `x.conv(kernel, [strides][, padding])`: NCHW input, OIHW kernel.
    pub fn conv(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let (k, strides, padding) = self.with_padding(args, "conv", "the kernel", sp)?;
        let (k, strides) = (self.val(k), self.ints(strides, "the strides"));
        let (x, k) = self.unify(x, k?, sp)?;
        let strides = strides?;
        self.val_op(sp, |b| match &padding {
            WindowPadding::Named(p) => b.conv(&x, &k, &strides, *p),
            WindowPadding::Explicit(pads) => b.conv_with_general_padding(&x, &k, &strides, pads),
        })
    }

    /// `x.dot_general(y, [lhs contracting], [rhs contracting][, [lhs batch], [rhs batch]])`.
    pub fn dot_general(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let (y, lists) = match args.split_first() {
            Some((y, lists)) if lists.len() == 2 || lists.len() == 4 => (y, lists),
            _ => {
                self.cx.error(sp, "`dot_general` takes the rhs, the lhs and rhs contracting dims, and optionally the lhs and rhs batch dims");
                return None;
            }
        };
        let y = self.val(y);
        let lists: Vec<Option<Vec<i64>>> = lists
            .iter()
            .map(|l| self.ints(l, "dimension numbers"))
            .collect();
        let lists = lists.into_iter().collect::<Option<Vec<_>>>()?;
        let (x, y) = self.unify(x, y?, sp)?;
        let get = |i: usize| lists.get(i).cloned().unwrap_or_default();
        let dims = DotDims {
            lhs_contracting_dims: get(0),
            rhs_contracting_dims: get(1),
            lhs_batch_dims: get(2),
            rhs_batch_dims: get(3),
        };
        self.val_op(sp, |b| b.dot_general(&x, &y, &dims))
    }

    /// `rng_uniform::<f32>(low, high, [dims])` and `rng_normal::<f32>(mean, stddev, [dims])`.
    pub fn rng_call(
        &mut self,
        normal: bool,
        ty: Option<PrimitiveType>,
        args: &[Arg],
        sp: Sp,
    ) -> Option<Val> {
        let name = if normal { "rng_normal" } else { "rng_uniform" };
        let [a, b2, dims] = self.arity(name, args, ["a", "b", "[dims]"], sp)?;
        let (a, b2, dims) = (self.val(a), self.val(b2), self.ints(dims, "the dims"));
        let ty = ty.unwrap_or(PrimitiveType::F32);
        let (a, b2) = (
            self.tensor(a?, Some(ty), sp),
            self.tensor(b2?, Some(ty), sp),
        );
        let (a, b2) = (a?, b2?);
        let s = Shape::array(ty, dims?);
        self.val_op(sp, |b| {
            if normal {
                b.rng_normal(&a, &b2, s)
            } else {
                b.rng_uniform(&a, &b2, s)
            }
        })
    }
}
