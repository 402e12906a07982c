//! Contractions: `dot` (vectors and matrices), `matmul` (batched) and `conv_general`
//! (every convolution option, with keyword arguments).

use super::args::{span, WindowPadding};
use super::graph::shape;
use super::{Checker, Val};
use crate::ast::Arg;
use crate::ctxt::Sp;
use xla_core::builder::{make_padding, ConvOptions, Padding};
use xla_core::ir::{ConvDimensionNumbers, DotDims};
use xla_core::Shape;

/// The parameters of `conv_general`, in positional order.
const CONV_PARAMS: [&str; 8] = [
    "kernel",
    "strides",
    "padding",
    "lhs_dilation",
    "rhs_dilation",
    "feature_group_count",
    "batch_group_count",
    "dimension_numbers",
];

impl Checker<'_> {
    /// XLA's `Dot`: vector·vector, matrix·vector, vector·matrix or matrix·matrix, contracting
    /// the last dim of `l` with the first dim of `r`.
    pub fn dot(&mut self, l: Val, r: Val, sp: Sp) -> Option<Val> {
        let (l, r) = self.unify(l, r, sp)?;
        let (ls, rs) = (shape(&l)?, shape(&r)?);
        if !(1..=2).contains(&ls.rank()) || !(1..=2).contains(&rs.rank()) {
            self.cx.error(sp, format!("dot: operands must be vectors or matrices, found lhs {ls} and rhs {rs}; use `matmul` for batched products"));
            return None;
        }
        self.val_op(sp, |b| b.dot(&l, &r))
    }

    /// Batched matrix product: `[..., m, k] × [..., k, n] → [..., m, n]`, the leading dims
    /// being batch dims (operands of rank 1 or 2 are a plain `dot`).
    pub fn matmul(&mut self, l: Val, r: Val, sp: Sp) -> Option<Val> {
        let (l, r) = self.unify(l, r, sp)?;
        let (ls, rs) = (shape(&l)?, shape(&r)?);
        let (lr, rr) = (ls.rank() as i64, rs.rank() as i64);
        if lr <= 2 && rr <= 2 {
            return self.dot(Val::Tensor(l), Val::Tensor(r), sp);
        }
        if lr != rr {
            self.cx.error(
                sp,
                format!(
                    "matmul: batched operands must have the same rank, found lhs {ls} and rhs {rs}"
                ),
            );
            return None;
        }
        let batch: Vec<i64> = (0..lr - 2).collect();
        let dims = DotDims {
            lhs_batch_dims: batch.clone(),
            rhs_batch_dims: batch,
            lhs_contracting_dims: vec![lr - 1],
            rhs_contracting_dims: vec![rr - 2],
        };
        self.val_op(sp, |b| b.dot_general(&l, &r, &dims))
    }
}

impl Checker<'_> {
    /// `x.conv_general(k, strides, padding, lhs_dilation, rhs_dilation, feature_group_count,
    /// batch_group_count, dimension_numbers)`, positionally or as `name = value`; all but the
    /// kernel are optional (stride and dilation 1, `VALID`, one group, `"bf01_oi01->bf01"`).
    pub fn conv_general(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let [k, strides, pads, lhs_dil, rhs_dil, groups, batch_groups, dnums] =
            self.bind("conv_general", args, CONV_PARAMS, 1, sp)?;
        let k = k.and_then(|k| self.val(k));
        let ints = |a: Option<&Arg>, what: &str| match a {
            Some(a) => self.ints(a, what),
            None => Some(Vec::new()),
        };
        let (strides, lhs_dil, rhs_dil) = (
            ints(strides, "the strides"),
            ints(lhs_dil, "the lhs (input) dilation"),
            ints(rhs_dil, "the rhs (kernel) dilation"),
        );
        let count = |a: Option<&Arg>, what: &str| match a {
            Some(a) => self.int_scalar(a, what),
            None => Some(1),
        };
        let (groups, batch_groups) = (
            count(groups, "the feature group count"),
            count(batch_groups, "the batch group count"),
        );
        let pads = match pads {
            Some(p) => self.window_padding(p),
            None => Some(WindowPadding::Named(Padding::Valid)),
        };
        let dnums = match dnums {
            Some(d) => self.dim_labels(d).map(Some),
            None => Some(None),
        };
        let (x, k) = self.unify(x, k?, sp)?;
        let (xs, ks) = (shape(&x)?, shape(&k)?);
        let dnums =
            dnums?.unwrap_or_else(|| ConvDimensionNumbers::nchw(xs.rank().saturating_sub(2)));
        let (strides, lhs_dil, rhs_dil) = (strides?, lhs_dil?, rhs_dil?);
        let padding = match pads? {
            WindowPadding::Explicit(p) => p,
            WindowPadding::Named(p) => {
                let input = dilated(&xs, &dnums.input_spatial_dimensions, &lhs_dil);
                let window = dilated(&ks, &dnums.kernel_spatial_dimensions, &rhs_dil);
                make_padding(&input, &window, &strides, p)
            }
        };
        let mut options = ConvOptions::new()
            .strides(&strides)
            .padding(&padding)
            .lhs_dilation(&lhs_dil)
            .rhs_dilation(&rhs_dil)
            .dimension_numbers(dnums);
        options.feature_group_count = groups?;
        options.batch_group_count = batch_groups?;
        self.val_op(sp, |b| b.conv_general_dilated(&x, &k, &options))
    }

    /// `"b01f_01io->b01f"`: dimension numbers in XLA's text form, read by xla-core's parser.
    fn dim_labels(&self, arg: &Arg) -> Option<ConvDimensionNumbers> {
        let labels = self.string(arg, "the dimension numbers (e.g. `\"b01f_01io->b01f\"`)")?;
        match xla_core::text::parse_dim_labels(&labels) {
            Ok(d) => Some(d),
            Err(m) => {
                self.cx.error(span(arg), format!("conv_general: dimension numbers \"{labels}\": {m} (the form is input_kernel->output, e.g. \"b01f_01io->b01f\": `b` batch, `f` feature, `i`/`o` kernel input/output feature, `0`, `1`, ... spatial)"));
                None
            }
        }
    }
}

/// The sizes of `s`'s dims `dims`, each dilated by its factor (`(n - 1) * d + 1`), for
/// `SAME` padding; dims out of range are left to shape inference to report.
fn dilated(s: &Shape, dims: &[i64], dilation: &[i64]) -> Vec<i64> {
    dims.iter()
        .enumerate()
        .filter_map(|(i, &d)| {
            let n = *s.dims().get(usize::try_from(d).ok()?)?;
            let f = dilation.get(i).copied().unwrap_or(1).max(1);
            Some(if n > 0 { (n - 1) * f + 1 } else { 0 })
        })
        .collect()
}
