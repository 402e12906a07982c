//! Windows that pick one element each: max/min reduce-window and the selecting variadic
//! reduce-window (`(x, v)` reduced by selecting on `x`, the transpose of
//! select-and-scatter). Both transpose to "add each window's cotangent to the element it
//! picked": select-and-scatter, or with dilation (which select-and-scatter lacks) an
//! argmax reduce-window and a scatter-add. Where the init value is the result (it won or
//! tied), no element is picked: the init value gets the cotangent.

use super::{sum_all, Cts, Cx};
use crate::backward::Ct;
use crate::error::AutodiffError;
use xla_core::builder::{binary, nary, Combiner, XlaBuilder, XlaOp};
use xla_core::ir::{ComparisonDirection, ScatterDims, Window, WindowDim};
use xla_core::{CompId, Module, Op, PrimitiveType, Shape};

/// A picking window op: the operand picked from, its init value, the picked values.
struct Pick<'a> {
    x: XlaOp,
    xs: Shape,
    init: XlaOp,
    y: XlaOp,
    ys: Shape,
    window: &'a Window,
    /// The select-and-scatter comparison: GE/GT pick the maximum, LE/LT the minimum.
    dir: ComparisonDirection,
}

impl Pick<'_> {
    fn max(&self) -> bool {
        matches!(self.dir, ComparisonDirection::Ge | ComparisonDirection::Gt)
    }

    fn field(&self, f: fn(&WindowDim) -> i64) -> Vec<i64> {
        self.window.dims.iter().map(f).collect()
    }

    fn pads(&self) -> Vec<(i64, i64)> {
        let w = &self.window.dims;
        w.iter().map(|d| (d.padding_low, d.padding_high)).collect()
    }

    /// Where the init value is the picked value.
    fn at_init(&self, b: &XlaBuilder) -> XlaOp {
        b.eq(&self.y, b.broadcast(&self.init, self.ys.dims()))
    }

    /// The transpose: `g` (one value per window) added to the element each window picked.
    fn transpose(&self, b: &XlaBuilder, g: &XlaOp) -> XlaOp {
        let dilated = self
            .window
            .dims
            .iter()
            .any(|d| d.base_dilation != 1 || d.window_dilation != 1);
        if dilated {
            return self.dilated(b, g);
        }
        let g = if is_identity(&self.init, self.max()) {
            g.clone()
        } else {
            b.select(self.at_init(b), b.zeros_like(g), g)
        };
        let dir = self.dir;
        let select = binary(move |sb: &XlaBuilder, p: XlaOp, q: XlaOp| sb.compare(p, q, dir));
        let zero = b.constant_scalar(self.ys.element_type(), 0);
        b.select_and_scatter_with_general_padding(
            &self.x,
            &self.field(|d| d.size),
            &self.field(|d| d.stride),
            &self.pads(),
            g,
            zero,
            select,
            Combiner::Add,
        )
    }

    /// With dilation: a variadic reduce-window over `(x, flat index)`, with the init value
    /// and index -1 for padding and holes, finds each window's pick (the extremum, the
    /// first in index order on ties as select-and-scatter picks; -1, which wins ties, when
    /// the init value is the result), and `g` is scatter-added there (index -1 is out of
    /// bounds: dropped).
    fn dilated(&self, b: &XlaBuilder, g: &XlaOp) -> XlaOp {
        let n: i64 = self.xs.dims().iter().product();
        let s32 = PrimitiveType::S32;
        let flat = b.reshape(b.iota(Shape::array(s32, [n]), 0), self.xs.dims());
        let dir = if self.max() {
            ComparisonDirection::Gt
        } else {
            ComparisonDirection::Lt
        };
        let pick = nary(move |sb: &XlaBuilder, p: &[XlaOp]| {
            let (a, ia, c, ic) = (&p[0], &p[1], &p[2], &p[3]);
            let keep = sb.or(sb.compare(a, c, dir), sb.and(sb.eq(a, c), sb.lt(ia, ic)));
            sb.tuple([sb.select(&keep, a, c), sb.select(&keep, ia, ic)])
        });
        let r = b.reduce_window_variadic_with_general_padding(
            &[self.x.clone(), flat],
            &[self.init.clone(), b.constant_r0(-1i32)],
            &self.field(|d| d.size),
            &self.field(|d| d.stride),
            &self.field(|d| d.base_dilation),
            &self.field(|d| d.window_dilation),
            &self.pads(),
            pick,
        );
        let mut idx_dims = self.ys.dims().to_vec();
        idx_dims.push(1);
        let idx = b.reshape(b.get_tuple_element(r, 1), &idx_dims);
        let dims = ScatterDims {
            update_window_dims: vec![],
            inserted_window_dims: vec![0],
            scatter_dims_to_operand_dims: vec![0],
            index_vector_dim: self.ys.rank() as i64,
            input_batching_dims: vec![],
            scatter_indices_batching_dims: vec![],
            indices_are_sorted: false,
            unique_indices: false,
        };
        let ty = g
            .shape()
            .map_or(self.ys.element_type(), |s| s.element_type());
        let zeros = b.zeros(&Shape::array(ty, [n]));
        b.reshape(
            b.scatter(zeros, idx, g, &dims, Combiner::Add),
            self.xs.dims(),
        )
    }

    /// The init value's cotangent: `g` summed where the init value is the result.
    fn init_ct(&self, b: &XlaBuilder, g: &XlaOp) -> XlaOp {
        sum_all(b, &b.select(self.at_init(b), g, b.zeros_like(g)), &self.ys)
    }
}

/// The value of a scalar f64 or f32 constant.
pub(super) fn scalar_constant(op: &XlaOp) -> Option<f64> {
    match op.instruction().map(|i| i.op) {
        Some(Op::Constant { literal }) => match (literal.data::<f64>(), literal.data::<f32>()) {
            (Some([v]), _) => Some(*v),
            (_, Some([v])) => Some(f64::from(*v)),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `init` is the constant -inf (`max`) or +inf (min): then it is never the
/// result of a window holding an element, and the cotangent needs no mask.
fn is_identity(init: &XlaOp, max: bool) -> bool {
    let want = if max {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    scalar_constant(init) == Some(want)
}

/// Max/min `reduce-window`: the operand gets the cotangent at each window's pick, the
/// init value where it is the result.
pub(super) fn extremum_reduce_window(
    cx: &Cx<'_>,
    window: &Window,
    max: bool,
    g: &XlaOp,
) -> Result<Cts, AutodiffError> {
    let dir = if max {
        ComparisonDirection::Ge
    } else {
        ComparisonDirection::Le
    };
    let p = Pick {
        x: cx.x(0),
        xs: cx.s(0),
        init: cx.x(1),
        y: cx.out.clone(),
        ys: cx.shape.clone(),
        window,
        dir,
    };
    let b = cx.b;
    let dx = cx.wants(0).then(|| Ct::Array(p.transpose(b, g)));
    let dinit = cx.wants(1).then(|| Ct::Array(p.init_ct(b, g)));
    Ok(vec![dx, dinit])
}

/// The direction `D` when a two-operand reducer keeps `(a0, a1)` where `compare(a0, b0)`
/// in direction `D` holds: `tuple(select(p, a0, b0), select(p, a1, b1))`.
fn selecting_direction(module: &Module, comp: CompId) -> Option<ComparisonDirection> {
    let c = module.get(comp)?;
    let root = c.root_instruction()?;
    if !matches!(root.op, Op::Tuple) || root.operands.len() != 2 {
        return None;
    }
    let sel = c.get(*root.operands.first()?)?;
    let other = c.get(*root.operands.get(1)?)?;
    if !matches!(sel.op, Op::Select)
        || !matches!(other.op, Op::Select)
        || sel.operands.first() != other.operands.first()
    {
        return None;
    }
    let pred = c.get(*sel.operands.first()?)?;
    let Op::Compare { direction, .. } = pred.op else {
        return None;
    };
    let num = |id: Option<&xla_core::InstrId>| match id.and_then(|&i| c.get(i)).map(|i| &i.op) {
        Some(Op::Parameter { number }) => Some(*number),
        _ => None,
    };
    let ordered = matches!(
        direction,
        ComparisonDirection::Ge
            | ComparisonDirection::Gt
            | ComparisonDirection::Le
            | ComparisonDirection::Lt
    );
    (ordered && num(pred.operands.first()) == Some(0) && num(pred.operands.get(1)) == Some(2))
        .then_some(direction)
}

/// A two-operand reduce-window `(x, v)` that selects by `x`: output 0 is a max/min
/// reduce-window of `x`, output 1 the `v` at the same picks (linear in `v`). Each
/// output's cotangent goes to the picked elements of its operand, or to its init value
/// where that is the result.
pub(super) fn selecting_reduce_window(
    cx: &Cx<'_>,
    window: &Window,
    to_apply: CompId,
    ct: &Ct,
) -> Result<Cts, AutodiffError> {
    let dir = selecting_direction(cx.module, to_apply);
    let (Some(dir), 4) = (dir, cx.args.len()) else {
        return Err(cx.nd(
            "variadic reduce-window is differentiated only when it selects by its first operand (a GE/GT/LE/LT comparison)",
        ));
    };
    let Ct::Tuple(cts) = ct else {
        return Err(cx.nd("internal: an array cotangent reached a variadic reduce-window"));
    };
    let b = cx.b;
    let p = Pick {
        x: cx.x(0),
        xs: cx.s(0),
        init: cx.x(2),
        y: b.get_tuple_element(cx.out, 0),
        ys: cx
            .shape
            .tuple_elements()
            .and_then(|e| e.first())
            .cloned()
            .unwrap_or_else(|| cx.s(0)),
        window,
        dir,
    };
    let mut out: Cts = vec![None; 4];
    for k in 0..2 {
        let Some(Some(Ct::Array(g))) = cts.get(k) else {
            continue;
        };
        if cx.wants(k) {
            out[k] = Ct::some(p.transpose(b, g));
        }
        if cx.wants(k + 2) {
            out[k + 2] = Ct::some(p.init_ct(b, g));
        }
    }
    Ok(out)
}
