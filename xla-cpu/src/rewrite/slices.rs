//! Slice and pad simplifications XLA's `AlgebraicSimplifier` makes; each selects the same
//! elements another way and computes nothing, so results are bit-identical. JAX's
//! associative scans write `x[1::2][1:]` and `pad(x, 0), padding=0_-1` (a cut written as a
//! pad); after these rules each is one strided slice of the stored value, which the
//! fusion planner reads in place (`fusion/remap.rs`) instead of storing every step.
//!
//! - `pad(x, v)` with no interior padding and no positive edge padding is a `slice(x)`.
//! - `slice(slice(x))` is one `slice(x)` (starts add, strides multiply).
//! - `slice(pad(x, v))` reading only elements of `x` is a `slice(x)`.
//! - `slice(broadcast(x))` cutting only the dims the broadcast adds is a `broadcast(x)`.

use xla_core::attrs::PadDim;
use xla_core::ir::{Computation, InstrId, Op};

/// One dimension of a slice: `start`, `stride` and the element count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cut {
    start: i64,
    stride: i64,
    count: i64,
}

impl Cut {
    fn of(start: i64, limit: i64, stride: i64) -> Option<Cut> {
        (stride >= 1 && limit >= start).then(|| Cut {
            start,
            stride,
            count: (limit - start + stride - 1) / stride,
        })
    }

    /// The limit XLA would print: one past the last element taken.
    fn limit(&self) -> i64 {
        if self.count == 0 {
            self.start
        } else {
            self.start + (self.count - 1) * self.stride + 1
        }
    }

    /// This cut taken of a value that is itself `outer` of its operand.
    fn within(&self, outer: &Cut) -> Cut {
        Cut {
            start: outer.start + self.start * outer.stride,
            stride: self.stride * outer.stride,
            count: self.count,
        }
    }

    /// This cut of `pad(x)` along a dim of `n` elements of `x` padded by `p`, as a cut of
    /// `x`: `None` when it reads padding.
    fn through_pad(&self, p: &PadDim, n: i64) -> Option<Cut> {
        let every = p.interior.checked_add(1)?;
        if self.count == 0 || every < 1 {
            return None;
        }
        let q = self.start.checked_sub(p.low)?;
        let last = q.checked_add((self.count - 1).checked_mul(self.stride)?)?;
        let on_x = |at: i64| at >= 0 && at % every == 0 && at / every < n;
        let strided = self.count == 1 || self.stride % every == 0;
        (on_x(q) && on_x(last) && strided).then(|| Cut {
            start: q / every,
            stride: if self.count == 1 {
                1
            } else {
                self.stride / every
            },
            count: self.count,
        })
    }
}

/// The cuts of a slice op.
fn cuts(start: &[i64], limit: &[i64], stride: &[i64]) -> Option<Vec<Cut>> {
    if start.len() != limit.len() || start.len() != stride.len() {
        return None;
    }
    (0..start.len())
        .map(|d| Cut::of(start[d], limit[d], stride[d]))
        .collect()
}

fn slice_op(cuts: &[Cut]) -> Op {
    Op::Slice {
        start: cuts.iter().map(|c| c.start).collect(),
        limit: cuts.iter().map(Cut::limit).collect(),
        stride: cuts.iter().map(|c| c.stride).collect(),
    }
}

/// The simplified `(op, operand)` of instruction `i`, or `None` to keep it.
fn simplified(c: &Computation, i: usize) -> Option<(Op, InstrId)> {
    let ins = c.instructions.get(i)?;
    let x = *ins.operands.first()?;
    let dims = &c.get(x)?.shape.as_array()?.dims;
    match &ins.op {
        Op::Pad { padding } => {
            let cut = padding
                .iter()
                .zip(dims)
                .map(|(p, &n)| {
                    let trims = p.interior == 0 && p.low <= 0 && p.high <= 0;
                    trims.then(|| Cut::of(-p.low, n + p.high, 1)).flatten()
                })
                .collect::<Option<Vec<Cut>>>()?;
            (cut.len() == dims.len()).then(|| (slice_op(&cut), x))
        }
        Op::Slice {
            start,
            limit,
            stride,
        } => {
            let mine = cuts(start, limit, stride)?;
            let producer = c.get(x)?;
            let y = *producer.operands.first()?;
            let ydims = &c.get(y)?.shape.as_array()?.dims;
            let inner = match &producer.op {
                Op::Slice {
                    start,
                    limit,
                    stride,
                } => {
                    let outer = cuts(start, limit, stride)?;
                    (outer.len() == mine.len()).then_some(())?;
                    mine.iter().zip(&outer).map(|(m, o)| m.within(o)).collect()
                }
                Op::Pad { padding } if padding.len() == mine.len() => mine
                    .iter()
                    .zip(padding)
                    .zip(ydims)
                    .map(|((m, p), &n)| m.through_pad(p, n))
                    .collect::<Option<Vec<Cut>>>()?,
                Op::Broadcast { dimensions } => {
                    // Every dim of `x` must be taken whole.
                    for (k, &d) in dimensions.iter().enumerate() {
                        let m = mine.get(usize::try_from(d).ok()?)?;
                        let n = *ydims.get(k)?;
                        (m.start == 0 && m.count == n && (m.stride == 1 || n == 1)).then_some(())?;
                    }
                    let dimensions = dimensions.clone();
                    return Some((Op::Broadcast { dimensions }, y));
                }
                _ => return None,
            };
            Some((slice_op(&inner), y))
        }
        _ => None,
    }
}

/// Applies the rules to `c` in place, to a fixed point; true if anything changed.
pub(super) fn simplify_slices(c: &mut Computation) -> bool {
    let mut changed = false;
    for i in 0..c.instructions.len() {
        // Each rewrite moves the operand one producer up (bounded by the index).
        for _ in 0..=i {
            let Some((op, x)) = simplified(c, i) else {
                break;
            };
            if let Some(ins) = c.instructions.get_mut(i) {
                ins.op = op;
                ins.operands = vec![x];
                changed = true;
            }
        }
    }
    changed
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::{Cut, PadDim};

    #[test]
    fn a_slice_of_a_slice_adds_starts_and_multiplies_strides() {
        // x[1:1024:2][1:512] = x[3:1024:2] (count 511)
        let outer = Cut::of(1, 1024, 2).unwrap();
        let inner = Cut::of(1, 512, 1).unwrap().within(&outer);
        assert_eq!((inner.start, inner.stride, inner.count), (3, 2, 511));
        assert_eq!(inner.limit(), 1024);
    }

    #[test]
    fn a_slice_through_a_pad_reads_only_the_operand_or_is_kept() {
        let p = PadDim {
            low: 2,
            high: 1,
            interior: 1,
        };
        // pad of 5 elements: [_, _, x0, _, x1, _, x2, _, x3, _, x4, _]
        let c = Cut::of(2, 11, 2).unwrap().through_pad(&p, 5).unwrap();
        assert_eq!((c.start, c.stride, c.count), (0, 1, 5));
        assert_eq!(
            Cut::of(4, 9, 4)
                .unwrap()
                .through_pad(&p, 5)
                .map(|c| c.stride),
            Some(2)
        );
        assert_eq!(Cut::of(1, 11, 2).unwrap().through_pad(&p, 5), None);
        assert_eq!(
            Cut::of(2, 12, 2).unwrap().through_pad(&p, 5),
            Some(Cut {
                start: 0,
                stride: 1,
                count: 5
            })
        );
        assert_eq!(Cut::of(2, 13, 2).unwrap().through_pad(&p, 5), None);
        assert_eq!(Cut::of(3, 4, 1).unwrap().through_pad(&p, 5), None);
    }
}
