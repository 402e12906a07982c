//! Steps that hand buffers on instead of copying them: a `tuple` gathers its operands'
//! buffers, a `get-tuple-element` takes its element out of the tuple, and a
//! `dynamic-update-slice`, `reshape`, `bitcast`, `copy` or `while` whose operand dies with it
//! reuses that operand's buffer. Only on the fused path; the reference path copies.

use crate::error::{internal, operand_kind, Result};
use crate::exec::Ctx;
use crate::fusion::Step;
use crate::index::make;
use crate::kernels::{control, structural as st};
use crate::values::Values;
use std::borrow::Cow;
use xla_core::ir::{InstrId, Instruction, Op};
use xla_core::literal::LiteralValue;
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
            return Some(gather(values, ops, frees).map(Cow::Owned));
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
        if let Op::While { condition, body } = ins.op {
            let x = owned_first(values)?;
            return Some(control::while_loop(self, Cow::Owned(x), condition, body).map(Cow::Owned));
        }
        None
    }
}

/// A tuple of the operands' values, moving each whose last reader this is (and which it
/// reads once) instead of copying it.
fn gather(values: &mut Values<'_>, operands: &[InstrId], frees: &[usize]) -> Result<Literal> {
    let mut elems = Vec::with_capacity(operands.len());
    for (j, o) in operands.iter().enumerate() {
        let once = !operands[..j].contains(o) && !operands[j + 1..].contains(o);
        let v = if once && frees.contains(&o.0) {
            values.take(o.0).map(Cow::into_owned)
        } else {
            values.get(o.0).ok().cloned()
        };
        elems.push(v.ok_or_else(|| internal("the plan reads values only while they are held"))?);
    }
    Ok(Literal::tuple(elems))
}
