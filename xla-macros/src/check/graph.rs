//! The HLO graph the checker builds: instructions pushed one by one, each shape-checked by
//! xla-core's shape inference ([`xla_core::ir::infer_shape`]), and the small scalar
//! computations that reductions call.

use std::collections::HashMap;
use xla_core::ir::{infer_shape, BinaryOp, Computation, InstrId, Instruction, Module, Op};
use xla_core::shape_inference::{ProgramShape, ShapeError};
use xla_core::{CompId, Literal, PrimitiveType, Shape};

/// A module under construction: finished callee computations and the entry's instructions.
pub struct Graph {
    callees: Vec<Computation>,
    instrs: Vec<Instruction>,
    counter: usize,
    reducers: HashMap<(BinaryOp, PrimitiveType), CompId>,
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Graph {
        Graph {
            callees: Vec::new(),
            instrs: Vec::new(),
            counter: 0,
            reducers: HashMap::new(),
        }
    }

    /// The shape of instruction `id` of the entry computation.
    pub fn shape(&self, id: InstrId) -> &Shape {
        // Ids come only from `push`, so they are always in range.
        &self.instrs[id.0].shape
    }

    /// Adds parameter `number` named `name` of shape `shape`.
    pub fn parameter(&mut self, number: i64, name: &str, shape: Shape) -> InstrId {
        self.instrs.push(Instruction {
            name: name.to_string(),
            op: Op::Parameter { number },
            operands: Vec::new(),
            shape,
        });
        InstrId(self.instrs.len() - 1)
    }

    /// Adds a constant.
    pub fn constant(&mut self, literal: Literal) -> InstrId {
        let shape = literal.shape().clone();
        let name = self.fresh("constant");
        self.instrs.push(Instruction {
            name,
            op: Op::Constant { literal },
            operands: Vec::new(),
            shape,
        });
        InstrId(self.instrs.len() - 1)
    }

    /// Adds `op` applied to `operands`, its shape inferred (and `declared` checked, for the ops
    /// whose result shape is not a function of their operands).
    ///
    /// # Errors
    /// The shape rule's error when the operands do not fit the op.
    pub fn push(
        &mut self,
        op: Op,
        operands: &[InstrId],
        declared: Option<Shape>,
    ) -> Result<InstrId, ShapeError> {
        let shapes: Vec<&Shape> = operands.iter().map(|&id| self.shape(id)).collect();
        let called: Vec<ProgramShape> = op
            .called_computations()
            .iter()
            .filter_map(|&c| self.program_shape(c))
            .collect();
        let shape = infer_shape(&op, &shapes, &called, declared.as_ref())?;
        let name = self.fresh(op.name());
        self.instrs.push(Instruction {
            name,
            op,
            operands: operands.to_vec(),
            shape,
        });
        Ok(InstrId(self.instrs.len() - 1))
    }

    /// The scalar computation `(a, b) -> a op b` on `ty`, built once per (op, type).
    pub fn reducer(&mut self, op: BinaryOp, ty: PrimitiveType) -> CompId {
        if let Some(&id) = self.reducers.get(&(op, ty)) {
            return id;
        }
        let scalar = Shape::scalar(ty);
        let param = |number: i64, name: String| Instruction {
            name,
            op: Op::Parameter { number },
            operands: Vec::new(),
            shape: scalar.clone(),
        };
        let (lhs, rhs, root) = (self.fresh("lhs"), self.fresh("rhs"), self.fresh(op.name()));
        let instructions = vec![
            param(0, lhs),
            param(1, rhs),
            Instruction {
                name: root,
                op: Op::Binary(op),
                operands: vec![InstrId(0), InstrId(1)],
                shape: scalar.clone(),
            },
        ];
        let name = format!("{}_{}", op.name().replace('-', "_"), ty.name());
        self.callees.push(Computation {
            name,
            instructions,
            root: InstrId(2),
        });
        let id = CompId(self.callees.len() - 1);
        self.reducers.insert((op, ty), id);
        id
    }

    /// The finished module named `name`, its entry returning `root`.
    pub fn finish(mut self, name: &str, root: InstrId) -> Module {
        let entry = Computation {
            name: name.to_string(),
            instructions: self.instrs,
            root,
        };
        self.callees.push(entry);
        Module {
            name: name.to_string(),
            entry: CompId(self.callees.len() - 1),
            computations: self.callees,
        }
    }

    fn program_shape(&self, id: CompId) -> Option<ProgramShape> {
        let comp = self.callees.get(id.0)?;
        Some(ProgramShape {
            parameters: comp.parameter_shapes(),
            result: comp.result_shape()?.clone(),
        })
    }

    fn fresh(&mut self, base: &str) -> String {
        self.counter += 1;
        format!("{base}.{}", self.counter)
    }
}
