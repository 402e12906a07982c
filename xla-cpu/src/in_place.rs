//! Steps that hand buffers on instead of copying them: a `tuple` gathers its operands'
//! buffers, a `get-tuple-element` takes its element out of the tuple, and a
//! `dynamic-update-slice`, `reshape`, `bitcast`, `copy` or `while` whose operand dies with it
//! reuses that operand's buffer, and so does a product accumulated into a running sum
//! (`kernels/dot_add.rs`) whose sum dies with it. Only on the fused path; the reference path
//! copies.

use crate::buffer::written_in_chunks;
use crate::error::{internal, operand_kind, Result};
use crate::exec::Ctx;
use crate::fusion::Step;
use crate::index::make;
use crate::kernels::structural as st;
use crate::parallel::Parallel;
use crate::values::Values;
use std::borrow::Cow;
use xla_core::ir::{InstrId, Instruction, Op};
use xla_core::literal::{LiteralValue, NativeData};
use xla_core::with_array_data;
use xla_core::Literal;

impl Ctx<'_> {
    /// Runs `step` reusing buffers when it can (`None`: it cannot, run it as usual). `frees`
    /// are the values whose last reader the step is; `take` says a `get-tuple-element` may
    /// move its element out (see `compile.rs`).
    pub(crate) fn in_place<'v>(
        &self,
        step: &Step,
        ins: &Instruction,
        values: &mut Values<'v>,
        frees: &[usize],
        take: bool,
    ) -> Option<Result<Cow<'v, Literal>>> {
        let Step::Eval(_) = step else { return None };
        let ops = ins.operands.as_slice();
        // The value of operand 0 if this step is its only and last reader and it is owned.
        let owned_first = |values: &mut Values<'v>| {
            let o = ops.first()?.0;
            let once = ops.iter().filter(|x| x.0 == o).count() == 1;
            (once && frees.contains(&o))
                .then(|| values.take_owned(o))
                .flatten()
        };
        // `if let` chains rather than a `match` over `Op`: every other op runs as usual, and
        // a new opcode must not need an arm here.
        if let Op::Tuple = ins.op {
            return Some(gather(values, ops, frees, self.exe.parallel()).map(Cow::Owned));
        }
        if let (Op::GetTupleElement { index }, [t]) = (&ins.op, ops) {
            return Some(values.element(t.0, *index, take));
        }
        if frees.is_empty() {
            return None;
        }
        if let (Op::DynamicUpdateSlice, [_, upd, starts @ ..]) = (&ins.op, ops) {
            let mut x = owned_first(values)?;
            let r = (|| {
                let starts = starts
                    .iter()
                    .map(|s| values.get(s.0))
                    .collect::<Result<Vec<_>>>()?;
                st::dynamic_update_slice_in_place(&mut x, values.get(upd.0)?, &starts)
            })();
            return Some(r.map(|()| Cow::Owned(x)));
        }
        if let Op::Reshape | Op::Bitcast | Op::Copy = ins.op {
            let x = owned_first(values)?;
            let (shape, value) = x.into_parts();
            return Some(match value {
                LiteralValue::Array(d) => make(&ins.shape, d).map(Cow::Owned),
                _ => Err(operand_kind(ins.op.name(), "an array", &shape)),
            });
        }
        if let Op::CustomCall { config, .. } = &ins.op {
            if config.target == crate::kernels::dot_add::TARGET {
                return self.dot_add_in_place(ins, values, frees);
            }
        }
        if let Op::While { condition, body } = ins.op {
            let x = owned_first(values)?;
            return Some(
                crate::while_loop::while_loop(self, Cow::Owned(x), condition, body).map(Cow::Owned),
            );
        }
        None
    }
}

impl Ctx<'_> {
    /// The custom-call `kernels::dot_add::TARGET` accumulating into its third operand's
    /// buffer when this step is that value's only and last reader and owns it (`None`:
    /// it is not, run it as usual).
    fn dot_add_in_place<'v>(
        &self,
        ins: &Instruction,
        values: &mut Values<'v>,
        frees: &[usize],
    ) -> Option<Result<Cow<'v, Literal>>> {
        let Op::CustomCall { config, .. } = &ins.op else {
            return None;
        };
        let [a, b, c] = ins.operands.as_slice() else {
            return None;
        };
        let once = c != a && c != b;
        if !once || !frees.contains(&c.0) {
            return None;
        }
        let acc = values.take_owned(c.0)?;
        let r = (|| {
            let (x, y) = (values.get(a.0)?, values.get(b.0)?);
            crate::kernels::dot_add::run(
                [x, y],
                acc,
                &config.backend_config,
                &ins.shape,
                self.exe.parallel(),
            )
        })();
        Some(r.map(Cow::Owned))
    }
}

/// A tuple of the operands' values, moving each whose last reader this is (and which it
/// reads once) instead of copying it.
fn gather(
    values: &mut Values<'_>,
    operands: &[InstrId],
    frees: &[usize],
    par: Parallel<'_>,
) -> Result<Literal> {
    let mut elems = Vec::with_capacity(operands.len());
    for (j, o) in operands.iter().enumerate() {
        let once = !operands[..j].contains(o) && !operands[j + 1..].contains(o);
        let v = if once && frees.contains(&o.0) {
            values.take(o.0).map(Cow::into_owned)
        } else {
            values.get(o.0).ok().map(|l| copy_of(l, par))
        };
        elems.push(v.ok_or_else(|| internal("the plan reads values only while they are held"))?);
    }
    Ok(Literal::tuple(elems))
}

/// Arrays from this many bytes are copied by the pool.
const PAR_COPY_BYTES: usize = 1 << 20;

/// A copy of `l`; a large array is copied by the pool, a chunk per task (measured: the
/// loop state a scan starts from, a dozen copies of one zero-filled f32[64,32,256], took
/// 4.0 ms of B11's run copied on one thread).
fn copy_of(l: &Literal, par: Parallel<'_>) -> Literal {
    let Some(d) = l.array_data() else {
        return l.clone();
    };
    let big = with_array_data!(d, v => std::mem::size_of_val(&v[..]) >= PAR_COPY_BYTES);
    if !big || par.threads() <= 1 {
        return l.clone();
    }
    let data = par.run_when(
        true,
        |min| with_array_data!(d, v => NativeData::wrap(copy_par(v, min))),
    );
    Literal::from_array_data(l.shape().clone(), data).unwrap_or_else(|_| l.clone())
}

/// `v` copied in chunks of 256 KiB, `min` chunks per task at least.
fn copy_par<T: Copy + Default + Send + Sync>(v: &[T], min: usize) -> Vec<T> {
    let chunk = ((1 << 18) / std::mem::size_of::<T>().max(1)).max(1);
    written_in_chunks(
        v.len(),
        chunk,
        min,
        || (),
        |_, c, mut sink| {
            let from = c.saturating_mul(chunk);
            sink.push(v.get(from..).unwrap_or_default());
        },
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::parallel::Threads;
    use xla_core::literal::ArrayData;
    use xla_core::{PrimitiveType, Shape};

    /// Bit patterns of an f32 literal.
    fn bits(l: &Literal) -> Vec<u32> {
        l.data::<f32>()
            .unwrap()
            .iter()
            .map(|x| x.to_bits())
            .collect()
    }

    /// A large array copied by the pool is the same bits (NaN, ±inf, ±0, a subnormal and a
    /// length that is not a whole number of chunks included); small ones, tuples and other
    /// element types are copied too.
    #[test]
    fn copies_are_exact_at_any_size() {
        let odd = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, 1e-40];
        let n = (1 << 19) + 77;
        let v: Vec<f32> = (0..n)
            .map(|i| match i % 97 {
                k @ 0..=5 => odd[k],
                _ => i as f32 * 0.37 - 1e5,
            })
            .collect();
        let big = Literal::from_array_data(
            Shape::array(PrimitiveType::F32, vec![n as i64]),
            ArrayData::F32(v),
        )
        .unwrap();
        let two = Threads::new(2);
        for par in [two.parallel(), Parallel::SEQ] {
            assert_eq!(bits(&copy_of(&big, par)), bits(&big));
        }
        let small = Literal::from_array_data(
            Shape::array(PrimitiveType::S32, vec![3]),
            ArrayData::S32(vec![1, -2, 3]),
        )
        .unwrap();
        assert_eq!(copy_of(&small, two.parallel()), small);
        let preds = Literal::from_array_data(
            Shape::array(PrimitiveType::Pred, vec![3 << 20]),
            ArrayData::Pred((0..3 << 20).map(|i| i % 3 == 0).collect()),
        )
        .unwrap();
        assert_eq!(copy_of(&preds, two.parallel()), preds);
        let t = Literal::tuple(vec![small.clone(), preds.clone()]);
        assert_eq!(copy_of(&t, two.parallel()), t);
    }
}
