//! Batched values: a value of the new graph and which of its array leaves carry the batch
//! dimension. Inside the transform the batch dimension is always dimension 0.

use xla_core::builder::{XlaBuilder, XlaOp};
use xla_core::Shape;

/// Which leaves of a value are batched (mirrors the value's shape: a `Tuple` for a tuple).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Bt {
    /// An array (or token): batched at dimension 0 or not.
    Leaf(bool),
    /// A tuple: one entry per element.
    Tuple(Vec<Bt>),
}

impl Bt {
    /// True when some leaf is batched.
    pub fn any(&self) -> bool {
        match self {
            Bt::Leaf(b) => *b,
            Bt::Tuple(es) => es.iter().any(Bt::any),
        }
    }

    /// Every array leaf of `shape` batched (`true`) or none (`false`); tokens never are.
    pub fn uniform(shape: &Shape, batched: bool) -> Bt {
        match shape.tuple_elements() {
            Some(es) => Bt::Tuple(es.iter().map(|e| Bt::uniform(e, batched)).collect()),
            None => Bt::Leaf(batched && shape.is_array()),
        }
    }

    /// Leafwise or.
    pub fn or(&self, other: &Bt) -> Bt {
        match (self, other) {
            (Bt::Tuple(a), Bt::Tuple(b)) => {
                Bt::Tuple(a.iter().zip(b).map(|(x, y)| x.or(y)).collect())
            }
            (Bt::Leaf(a), Bt::Leaf(b)) => Bt::Leaf(*a || *b),
            (Bt::Leaf(a), t @ Bt::Tuple(_)) | (t @ Bt::Tuple(_), Bt::Leaf(a)) => {
                if *a {
                    t.with_all(true)
                } else {
                    t.clone()
                }
            }
        }
    }

    fn with_all(&self, v: bool) -> Bt {
        match self {
            Bt::Leaf(_) => Bt::Leaf(v),
            Bt::Tuple(es) => Bt::Tuple(es.iter().map(|e| e.with_all(v)).collect()),
        }
    }

    /// The entry of tuple element `i` (a leaf stands for all its elements).
    pub fn elem(&self, i: usize) -> Bt {
        match self {
            Bt::Leaf(b) => Bt::Leaf(*b),
            Bt::Tuple(es) => es.get(i).cloned().unwrap_or(Bt::Leaf(false)),
        }
    }

    /// The batching of a value whose unbatched shape is `orig` and batched shape is `new`:
    /// a leaf is batched when it gained a dimension.
    pub fn from_shapes(orig: &Shape, new: &Shape) -> Bt {
        match (orig.tuple_elements(), new.tuple_elements()) {
            (Some(o), Some(n)) => Bt::Tuple(
                o.iter()
                    .zip(n)
                    .map(|(a, b)| Bt::from_shapes(a, b))
                    .collect(),
            ),
            _ => Bt::Leaf(new.is_array() && new.rank() == orig.rank() + 1),
        }
    }
}

/// A value of the batched graph.
#[derive(Clone, Debug)]
pub(crate) struct Val {
    /// The value in the new builder.
    pub v: XlaOp,
    /// Which leaves are batched.
    pub bt: Bt,
}

/// `orig` with the batch dimension `n` in front of each batched leaf.
pub(crate) fn batched_shape(orig: &Shape, bt: &Bt, n: i64) -> Shape {
    match orig.tuple_elements() {
        Some(es) => Shape::tuple(
            es.iter()
                .enumerate()
                .map(|(i, e)| batched_shape(e, &bt.elem(i), n))
                .collect::<Vec<_>>(),
        ),
        None if matches!(bt, Bt::Leaf(true)) => with_batch(orig, n),
        None => orig.clone(),
    }
}

/// The array shape `orig` with a leading dimension `n`.
pub(crate) fn with_batch(orig: &Shape, n: i64) -> Shape {
    let mut dims = vec![n];
    dims.extend_from_slice(orig.dims());
    Shape::array(orig.element_type(), dims)
}

/// `x` (an unbatched array of shape `orig`) broadcast along a new leading dimension `n`.
pub(crate) fn bcast(b: &XlaBuilder, x: &XlaOp, orig: &Shape, n: i64) -> XlaOp {
    let dims: Vec<i64> = (1..=orig.rank() as i64).collect();
    b.broadcast_in_dim(x, with_batch(orig, n).dims(), &dims)
}

/// `val` (of unbatched shape `orig`) with at least the leaves of `target` batched.
pub(crate) fn force(b: &XlaBuilder, val: &Val, orig: &Shape, target: &Bt, n: i64) -> XlaOp {
    if val.bt == *target || !target.any() {
        return val.v.clone();
    }
    match orig.tuple_elements() {
        Some(es) => {
            let parts: Vec<XlaOp> = es
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let elem = Val {
                        v: b.get_tuple_element(&val.v, i as i64),
                        bt: val.bt.elem(i),
                    };
                    force(b, &elem, e, &target.elem(i), n)
                })
                .collect();
            b.tuple(parts)
        }
        None if matches!(val.bt, Bt::Leaf(false)) && orig.is_array() => bcast(b, &val.v, orig, n),
        None => val.v.clone(),
    }
}

/// The array value `x` batched (as `bt` says) brought to a batched array of shape
/// `[n] ++ orig`.
pub(crate) fn full(b: &XlaBuilder, val: &Val, orig: &Shape, n: i64) -> XlaOp {
    force(b, val, orig, &Bt::Leaf(true), n)
}

/// Moves dimension `from` of `x` (of rank `rank`) to position `to`.
pub(crate) fn move_axis(b: &XlaBuilder, x: &XlaOp, rank: usize, from: usize, to: usize) -> XlaOp {
    if from == to {
        return x.clone();
    }
    let mut perm: Vec<i64> = (0..rank as i64).filter(|&d| d != from as i64).collect();
    perm.insert(to.min(perm.len()), from as i64);
    b.transpose(x, &perm)
}

/// `dims` shifted past the batch dimension (each plus one).
pub(crate) fn shift(dims: &[i64]) -> Vec<i64> {
    dims.iter().map(|d| d + 1).collect()
}

/// `[0] ++ shift(dims)`.
pub(crate) fn with_zero(dims: &[i64]) -> Vec<i64> {
    std::iter::once(0)
        .chain(dims.iter().map(|d| d + 1))
        .collect()
}

/// `x` (batched at 0, unbatched shape `orig`) with the batch dimension merged into
/// dimension `t` (batch-major: the new `t` index is `lane * orig[t] + i`), as JAX's
/// `_reshape_axis_into`.
pub(crate) fn fold(b: &XlaBuilder, n: i64, x: &XlaOp, orig: &Shape, t: usize) -> XlaOp {
    let moved = move_axis(b, x, orig.rank() + 1, 0, t);
    let mut dims = orig.dims().to_vec();
    if let Some(d) = dims.get_mut(t) {
        *d *= n;
    }
    b.reshape(moved, &dims)
}

/// The inverse of [`fold`]: `x` of shape `orig` with dimension `t` multiplied by `n`,
/// split batch-major, with the batch dimension moved to 0.
pub(crate) fn unfold(b: &XlaBuilder, n: i64, x: &XlaOp, orig: &Shape, t: usize) -> XlaOp {
    let mut split = orig.dims().to_vec();
    split.insert(t.min(split.len()), n);
    let r = b.reshape(x, &split);
    move_axis(b, &r, split.len(), t, 0)
}
