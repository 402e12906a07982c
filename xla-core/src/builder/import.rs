//! Bringing existing IR into a builder: any [`Op`] as an instruction
//! ([`XlaBuilder::add_op`]), computations of another [`Module`]
//! ([`XlaBuilder::import_computation`]) and a computation's body inlined on given arguments
//! ([`XlaBuilder::inline`]) — what graph-to-graph passes such as autodiff need.

use super::{BuildError, BuildErrors, XlaBuilder, XlaComputation, XlaOp};
use crate::ir::{CompId, Computation, Module, Op};
use crate::shape::Shape;
use std::collections::HashMap;

impl XlaBuilder {
    /// Adds `op` on `operands` as an instruction. Its called computations must be
    /// computations of this builder's module ([`XlaComputation::id`]); `declared` is the
    /// result shape for ops whose shape does not follow from the operands (see
    /// [`infer_shape`](crate::ir::infer_shape)).
    pub fn add_op(&self, op: Op, operands: &[XlaOp], declared: Option<Shape>) -> XlaOp {
        let ops: Vec<&XlaOp> = operands.iter().collect();
        self.emit(op, &ops, declared)
    }

    /// Copies computation `id` of `module` (and the computations it calls) into this
    /// builder's module, renaming instructions so names stay unique.
    ///
    /// # Errors
    /// [`Error::Build`](crate::Error::Build) if `id` or a called computation is not in
    /// `module`, or the calls form a cycle.
    pub fn import_computation(
        &self,
        module: &Module,
        id: CompId,
    ) -> Result<XlaComputation, crate::Error> {
        let mut memo = HashMap::new();
        let new_id = self
            .import_rec(module, id, &mut memo, &mut Vec::new())
            .map_err(|message| {
                let error = BuildError::Misuse {
                    computation: self.inner.name.clone(),
                    op: "import".into(),
                    message,
                };
                BuildErrors {
                    builder: self.inner.name.clone(),
                    errors: vec![error],
                }
            })?;
        let comps = self.inner.ctx.computations.borrow();
        let name = comps
            .get(new_id.0)
            .map(|c| c.name.clone())
            .unwrap_or_default();
        drop(comps);
        let program_shape = self.program_shape(new_id).ok_or_else(|| {
            crate::Error::Builder(crate::error::BuilderMisuse::NoRoot {
                computation: name.clone(),
            })
        })?;
        Ok(XlaComputation {
            module: self.inner.ctx.id,
            id: new_id,
            name,
            program_shape,
        })
    }

    fn import_rec(
        &self,
        module: &Module,
        id: CompId,
        memo: &mut HashMap<CompId, CompId>,
        visiting: &mut Vec<CompId>,
    ) -> Result<CompId, String> {
        if let Some(&done) = memo.get(&id) {
            return Ok(done);
        }
        if visiting.contains(&id) {
            return Err(format!("computation {} calls itself", id.0));
        }
        let comp = module
            .get(id)
            .ok_or_else(|| format!("module `{}` has no computation {}", module.name, id.0))?;
        visiting.push(id);
        let mut copy: Computation = comp.clone();
        for ins in &mut copy.instructions {
            let mut result = Ok(());
            ins.op
                .map_called(|c| match self.import_rec(module, c, memo, visiting) {
                    Ok(n) => n,
                    Err(e) => {
                        result = Err(e);
                        c
                    }
                });
            result?;
            ins.name = format!("{}.{}", base_name(&ins.name), self.next_id());
        }
        visiting.pop();
        copy.name = format!("{}.{}", base_name(&comp.name), self.next_id());
        let mut comps = self.inner.ctx.computations.borrow_mut();
        comps.push(copy);
        let new_id = CompId(comps.len() - 1);
        memo.insert(id, new_id);
        Ok(new_id)
    }

    /// Adds the instructions of computation `id` of `module` to this builder with its
    /// parameters replaced by `args` (in parameter-number order) and returns the value of
    /// its root. Called computations are imported (see
    /// [`XlaBuilder::import_computation`]). Problems are recorded like any op's.
    pub fn inline(&self, module: &Module, id: CompId, args: &[XlaOp]) -> XlaOp {
        let Some(comp) = module.get(id) else {
            return self.misuse(
                "inline",
                format!("module `{}` has no computation {}", module.name, id.0),
            );
        };
        let mut imported: HashMap<CompId, CompId> = HashMap::new();
        let mut values: Vec<XlaOp> = Vec::with_capacity(comp.instructions.len());
        for ins in &comp.instructions {
            let value = if let Op::Parameter { number } = &ins.op {
                let arg = usize::try_from(*number).ok().and_then(|n| args.get(n));
                let Some(arg) = arg else {
                    let given = args.len();
                    let msg = format!(
                        "`{}` needs argument {number} but {given} were given",
                        comp.name
                    );
                    return self.misuse("inline", msg);
                };
                arg.clone()
            } else {
                let Some(op) = self.import_called(module, &ins.op, &mut imported) else {
                    return self.poisoned();
                };
                let operands: Option<Vec<XlaOp>> = ins
                    .operands
                    .iter()
                    .map(|o| values.get(o.0).cloned())
                    .collect();
                let Some(operands) = operands else {
                    let msg = format!("`{}` uses an operand before defining it", ins.name);
                    return self.misuse("inline", msg);
                };
                self.add_op(op, &operands, Some(ins.shape.clone()))
            };
            values.push(value);
        }
        values
            .get(comp.root.0)
            .cloned()
            .unwrap_or_else(|| self.misuse("inline", format!("`{}` has no root", comp.name)))
    }

    /// `op` with its called computations imported from `module` (memoised in `imported`).
    fn import_called(
        &self,
        module: &Module,
        op: &Op,
        imported: &mut HashMap<CompId, CompId>,
    ) -> Option<Op> {
        let mut op = op.clone();
        let mut failed = None;
        op.map_called(
            |c| match self.import_rec(module, c, imported, &mut Vec::new()) {
                Ok(n) => n,
                Err(e) => {
                    failed = Some(e);
                    c
                }
            },
        );
        match failed {
            None => Some(op),
            Some(e) => {
                self.misuse("inline", e);
                None
            }
        }
    }
}

/// `add.12` → `add`; names without a numeric suffix are kept.
fn base_name(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((base, n))
            if !base.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) =>
        {
            base
        }
        _ => name,
    }
}
