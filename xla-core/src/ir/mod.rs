//! The HLO IR: a [`Module`] holds [`Computation`]s; a computation holds [`Instruction`]s in
//! topological order (operands before users) in an arena indexed by [`InstrId`].
//!
//! Instructions do not change once pushed; passes build new computations.

mod infer;
mod op;

pub use crate::attrs::*;
pub use infer::infer_shape;
pub use op::{Op, Opcode};

use crate::shape::Shape;
use std::fmt;

/// Index of an instruction within its computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstrId(pub usize);

/// Index of a computation within its module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CompId(pub usize);

impl fmt::Display for InstrId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

/// One HLO instruction: an operation, its operands, its result shape and its name.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    /// Name, unique within the module (without the `%` sigil).
    pub name: String,
    /// The operation and its attributes.
    pub op: Op,
    /// Operands, each an earlier instruction of the same computation.
    pub operands: Vec<InstrId>,
    /// The result shape.
    pub shape: Shape,
}

/// A computation: parameters, instructions in topological order, and a root.
#[derive(Clone, Debug, PartialEq)]
pub struct Computation {
    /// Name, unique within the module.
    pub name: String,
    /// Instructions; every operand precedes its user.
    pub instructions: Vec<Instruction>,
    /// The instruction whose value the computation returns.
    pub root: InstrId,
}

impl Computation {
    /// The instruction with id `id`, if it exists.
    pub fn get(&self, id: InstrId) -> Option<&Instruction> {
        self.instructions.get(id.0)
    }

    /// The instruction with id `id`.
    ///
    /// # Panics
    /// If `id` is not an instruction of this computation (ids come from this computation).
    pub fn instr(&self, id: InstrId) -> &Instruction {
        &self.instructions[id.0]
    }

    /// The root instruction, if the root id is valid.
    pub fn root_instruction(&self) -> Option<&Instruction> {
        self.get(self.root)
    }

    /// Parameter instructions ordered by parameter number (gaps and duplicates are left to
    /// the verifier to report).
    pub fn parameters(&self) -> Vec<InstrId> {
        let mut params: Vec<(i64, InstrId)> = self
            .instructions
            .iter()
            .enumerate()
            .filter_map(|(i, ins)| match ins.op {
                Op::Parameter { number } => Some((number, InstrId(i))),
                _ => None,
            })
            .collect();
        params.sort();
        params.into_iter().map(|(_, id)| id).collect()
    }

    /// Shapes of the parameters, ordered by parameter number.
    pub fn parameter_shapes(&self) -> Vec<Shape> {
        self.parameters()
            .into_iter()
            .map(|id| self.instructions[id.0].shape.clone())
            .collect()
    }

    /// The result shape (the root's shape), if the root id is valid.
    pub fn result_shape(&self) -> Option<&Shape> {
        self.root_instruction().map(|i| &i.shape)
    }

    /// Looks up an instruction by name.
    pub fn find(&self, name: &str) -> Option<InstrId> {
        self.instructions
            .iter()
            .position(|i| i.name == name)
            .map(InstrId)
    }
}

/// An HLO module: computations (callees before callers) and the entry computation.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// Module name.
    pub name: String,
    /// Every computation; a computation's callees come before it.
    pub computations: Vec<Computation>,
    /// The entry computation.
    pub entry: CompId,
    /// Devices the module runs on (`replica_count`, `num_partitions` of the header) and the
    /// `sharding` annotations of its instructions.
    pub config: ModuleConfig,
}

/// What a module says about the devices it runs on.
///
/// A module runs as `replica_count × num_partitions` devices; device `d` is replica
/// `d / num_partitions`, partition `d % num_partitions`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleConfig {
    /// `replica_count=` of the `HloModule` header (1 when absent).
    pub replica_count: i64,
    /// `num_partitions=` of the `HloModule` header (1 when absent).
    pub num_partitions: i64,
    /// The `sharding=` attribute of each instruction that has one, by instruction name, as
    /// written (kept and printed back; the executor runs the per-device program as it is).
    pub shardings: std::collections::BTreeMap<String, String>,
}

impl Default for ModuleConfig {
    fn default() -> Self {
        ModuleConfig {
            replica_count: 1,
            num_partitions: 1,
            shardings: std::collections::BTreeMap::new(),
        }
    }
}

impl ModuleConfig {
    /// The number of devices, `replica_count × num_partitions` (`None` on overflow or a
    /// count below 1).
    pub fn device_count(&self) -> Option<usize> {
        let d = self.replica_count.checked_mul(self.num_partitions)?;
        usize::try_from(d).ok().filter(|&d| d >= 1)
    }
}

impl Module {
    /// The computation with id `id`, if it exists.
    pub fn get(&self, id: CompId) -> Option<&Computation> {
        self.computations.get(id.0)
    }

    /// The computation with id `id`.
    ///
    /// # Panics
    /// If `id` is not a computation of this module (ids come from this module).
    pub fn computation(&self, id: CompId) -> &Computation {
        &self.computations[id.0]
    }

    /// The entry computation, if the entry id is valid.
    pub fn entry_computation(&self) -> Option<&Computation> {
        self.get(self.entry)
    }

    /// Looks up a computation by name.
    pub fn find(&self, name: &str) -> Option<CompId> {
        self.computations
            .iter()
            .position(|c| c.name == name)
            .map(CompId)
    }
}
