//! The walk: a computation replayed into a builder with batched values, one rule per op
//! (in the family files) for instructions that meet a batched operand.

use super::error::VmapError;
use super::rules::{self, Cx};
use super::value::{batched_shape, force, Bt, Val};
use std::cell::RefCell;
use std::collections::HashMap;
use xla_core::builder::{XlaBuilder, XlaComputation, XlaOp};
use xla_core::{CompId, Computation, InstrId, Instruction, Module, Op, Shape};

/// The state of one batching transform: the original module, the batch size and the
/// computations already copied into the new module.
pub(crate) struct Batcher<'m> {
    /// The original module.
    pub module: &'m Module,
    /// The batch size.
    pub n: i64,
    imported: RefCell<HashMap<CompId, CompId>>,
}

impl<'m> Batcher<'m> {
    /// A batcher over `module` with batch size `n`.
    pub fn new(module: &'m Module, n: i64) -> Batcher<'m> {
        Batcher {
            module,
            n,
            imported: RefCell::new(HashMap::new()),
        }
    }

    /// A malformed-module error.
    pub fn malformed(&self, reason: String) -> VmapError {
        VmapError::Malformed {
            module: self.module.name.clone(),
            reason,
        }
    }

    /// `op` with its called computations copied (once) into the new module.
    pub fn import(&self, b: &XlaBuilder, op: &Op) -> Result<Op, VmapError> {
        let mut op = op.clone();
        let mut failed = None;
        let mut memo = self.imported.borrow_mut();
        op.map_called(|c| {
            if let Some(&done) = memo.get(&c) {
                return done;
            }
            match b.import_computation(self.module, c) {
                Ok(x) => {
                    memo.insert(c, x.id());
                    x.id()
                }
                Err(e) => {
                    failed = Some(VmapError::from(e));
                    c
                }
            }
        });
        match failed {
            Some(e) => Err(e),
            None => Ok(op),
        }
    }

    /// Replays computation `comp` into `b` on `args`; returns the root's value.
    pub fn run(&self, b: &XlaBuilder, comp: CompId, args: &[Val]) -> Result<Val, VmapError> {
        let c = self
            .module
            .get(comp)
            .ok_or_else(|| self.malformed(format!("no computation {}", comp.0)))?;
        let mut vals: Vec<Val> = Vec::with_capacity(c.instructions.len());
        for ins in &c.instructions {
            let ops: Vec<Val> = ins
                .operands
                .iter()
                .map(|o| vals.get(o.0).cloned())
                .collect::<Option<_>>()
                .ok_or_else(|| {
                    self.malformed(format!("`{}` uses an operand before it", ins.name))
                })?;
            let val = match &ins.op {
                Op::Parameter { number } => usize::try_from(*number)
                    .ok()
                    .and_then(|n| args.get(n).cloned())
                    .ok_or_else(|| {
                        self.malformed(format!("`{}` has no argument {number}", c.name))
                    })?,
                _ if !ops.iter().any(|v| v.bt.any()) => self.plain(b, ins, &ops)?,
                _ => {
                    let shapes: Vec<Shape> = ins
                        .operands
                        .iter()
                        .filter_map(|o| c.get(*o).map(|i| i.shape.clone()))
                        .collect();
                    let sources = ins
                        .operands
                        .iter()
                        .map(|o| {
                            let (y, dims) = broadcast_source(c, *o)?;
                            Some((vals.get(y.0)?.clone(), dims))
                        })
                        .collect();
                    let cx = Cx {
                        b,
                        bat: self,
                        ins,
                        args: &ops,
                        shapes,
                        sources,
                    };
                    rules::batch(&cx)?
                }
            };
            vals.push(val);
        }
        vals.get(c.root.0)
            .cloned()
            .ok_or_else(|| self.malformed(format!("`{}` has no root", c.name)))
    }

    /// An instruction none of whose operands is batched: copied as it is.
    fn plain(&self, b: &XlaBuilder, ins: &Instruction, ops: &[Val]) -> Result<Val, VmapError> {
        let op = self.import(b, &ins.op)?;
        let operands: Vec<XlaOp> = ops.iter().map(|v| v.v.clone()).collect();
        let v = b.add_op(op, &operands, Some(ins.shape.clone()));
        Ok(Val {
            v,
            bt: Bt::uniform(&ins.shape, false),
        })
    }

    /// The batching of `comp`'s result when its parameter is batched as `bts` say
    /// (replayed into a scratch builder that is then dropped).
    pub fn probe(
        &self,
        b: &XlaBuilder,
        comp: CompId,
        shapes: &[Shape],
        bts: &[Bt],
    ) -> Result<Bt, VmapError> {
        let sb = b.sub_builder("vmap_probe");
        let args = self.params(&sb, shapes, bts);
        Ok(self.run(&sb, comp, &args)?.bt)
    }

    /// Parameters of a new sub-computation: one per unbatched shape, batched as `bts` say.
    pub fn params(&self, sb: &XlaBuilder, shapes: &[Shape], bts: &[Bt]) -> Vec<Val> {
        shapes
            .iter()
            .zip(bts)
            .enumerate()
            .map(|(i, (s, bt))| Val {
                v: sb.parameter(i as i64, batched_shape(s, bt, self.n), "p"),
                bt: bt.clone(),
            })
            .collect()
    }

    /// `comp` batched as a new computation: parameters batched as `bts` say, the result
    /// brought to batching `out` (of unbatched shape `out_shape`).
    pub fn sub(
        &self,
        b: &XlaBuilder,
        comp: CompId,
        shapes: &[Shape],
        bts: &[Bt],
        out: (&Shape, &Bt),
    ) -> Result<XlaComputation, VmapError> {
        let sb = b.sub_builder("vmap");
        let args = self.params(&sb, shapes, bts);
        let r = self.run(&sb, comp, &args)?;
        let root = force(&sb, &r, out.0, out.1, self.n);
        Ok(sb.build_sub(&root)?)
    }
}

/// When `o` is a broadcast: the value it broadcasts, looking through broadcasts of
/// broadcasts, and where that value's dimensions land in `o` (the composed dimensions).
fn broadcast_source(c: &Computation, o: InstrId) -> Option<(InstrId, Vec<i64>)> {
    let outer = c.get(o)?;
    let Op::Broadcast { dimensions } = &outer.op else {
        return None;
    };
    let mut dims = dimensions.clone();
    let mut src = *outer.operands.first()?;
    while let Some(Op::Broadcast { dimensions: inner }) = c.get(src).map(|i| &i.op) {
        // Dimension k of the inner operand lands on `inner[k]` of the inner broadcast,
        // which lands on `dims[inner[k]]` of `o`.
        dims = inner
            .iter()
            .map(|&d| usize::try_from(d).ok().and_then(|d| dims.get(d).copied()))
            .collect::<Option<Vec<i64>>>()?;
        src = *c.get(src)?.operands.first()?;
    }
    Some((src, dims))
}
