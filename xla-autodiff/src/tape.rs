//! The forward pass: a computation replayed into a builder as a flat list of [`Node`]s.
//!
//! Calls are inlined, `get-tuple-element` of a `tuple` is forwarded to the element, and a
//! `while` whose trip count is known at build time (JAX's `fori_loop`: a counter compared
//! `LT` against a constant, incremented by one) is unrolled, so the backward pass sees one
//! straight-line graph. Every node remembers the original op (with the original module's
//! computation ids, which rules such as `conditional` and `map` differentiate) and the
//! value it has in the new builder.

use crate::error::AutodiffError;
use std::collections::HashMap;
use xla_core::builder::{XlaBuilder, XlaOp};
use xla_core::ir::{BinaryOp, ComparisonDirection};
use xla_core::{CompId, Computation, InstrId, Module, Op, Shape};

/// `while` loops with a known trip count up to this are unrolled; longer ones stay loops
/// (their rule stacks the states in a forward loop and runs the body's vjp in a reverse
/// loop).
pub(crate) const MAX_UNROLL: i64 = 16;

/// The longest loop differentiated (its states are stacked in memory).
pub(crate) const MAX_TRIP_COUNT: i64 = 1 << 24;

/// One value of the forward pass.
pub(crate) struct Node {
    /// Name of the original instruction (for messages).
    pub name: String,
    /// The original op (called computations are ids of the original module).
    pub op: Op,
    /// Operand nodes.
    pub operands: Vec<usize>,
    /// Result shape.
    pub shape: Shape,
    /// The value in the new builder.
    pub value: XlaOp,
    /// Depends on a differentiated input and carries floating-point data.
    pub active: bool,
    /// For a `while` kept as a loop: its trip count, when known at build time.
    pub trip_count: Option<i64>,
}

/// The forward pass of one computation (and everything it calls inline).
pub(crate) struct Tape<'m> {
    /// The original module.
    pub module: &'m Module,
    /// Nodes in topological order.
    pub nodes: Vec<Node>,
    imported: HashMap<CompId, CompId>,
}

/// True when a shape has a floating-point (or complex) leaf.
pub(crate) fn has_float(shape: &Shape) -> bool {
    match shape.tuple_elements() {
        Some(elems) => elems.iter().any(has_float),
        None => shape.is_array() && shape.element_type().is_float_or_complex(),
    }
}

impl<'m> Tape<'m> {
    /// An empty tape over `module`.
    pub fn new(module: &'m Module) -> Tape<'m> {
        Tape {
            module,
            nodes: Vec::new(),
            imported: HashMap::new(),
        }
    }

    /// Adds an input (a parameter of the differentiated function) with its value.
    pub fn input(&mut self, number: i64, value: XlaOp, shape: Shape, active: bool) -> usize {
        let active = active && has_float(&shape);
        self.nodes.push(Node {
            name: format!("parameter {number}"),
            op: Op::Parameter { number },
            operands: Vec::new(),
            shape,
            value,
            active,
            trip_count: None,
        });
        self.nodes.len() - 1
    }

    fn computation(&self, id: CompId) -> Result<&'m Computation, AutodiffError> {
        self.module.get(id).ok_or_else(|| AutodiffError::Malformed {
            module: self.module.name.clone(),
            reason: format!("no computation {}", id.0),
        })
    }

    /// Replays computation `comp` on argument nodes `args`; returns the root's node.
    pub fn replay(
        &mut self,
        b: &XlaBuilder,
        comp: CompId,
        args: &[usize],
    ) -> Result<usize, AutodiffError> {
        let c = self.computation(comp)?;
        let mut map: Vec<usize> = Vec::with_capacity(c.instructions.len());
        for ins in &c.instructions {
            let operands: Vec<usize> = ins
                .operands
                .iter()
                .map(|o| map.get(o.0).copied())
                .collect::<Option<_>>()
                .ok_or_else(|| AutodiffError::Malformed {
                    module: self.module.name.clone(),
                    reason: format!("`{}` uses an operand before its definition", ins.name),
                })?;
            let node = match &ins.op {
                Op::Parameter { number } => usize::try_from(*number)
                    .ok()
                    .and_then(|n| args.get(n).copied())
                    .ok_or_else(|| AutodiffError::Malformed {
                        module: self.module.name.clone(),
                        reason: format!("`{}` has no argument {number}", c.name),
                    })?,
                Op::Call { to_apply, .. } => self.replay(b, *to_apply, &operands)?,
                Op::GetTupleElement { index } => match self.forward_gte(&operands, *index) {
                    Some(n) => n,
                    None => self.emit(b, &ins.name, &ins.op, operands, &ins.shape)?,
                },
                Op::While { condition, body } if self.any_active(&operands) => {
                    let n = self.trip_count(*condition, *body, &operands)?;
                    match n {
                        Some(n) if n <= MAX_UNROLL => {
                            let mut state = operands.first().copied().unwrap_or_default();
                            for _ in 0..n {
                                state = self.replay(b, *body, &[state])?;
                            }
                            state
                        }
                        _ => {
                            let node = self.emit(b, &ins.name, &ins.op, operands, &ins.shape)?;
                            if let Some(last) = self.nodes.last_mut() {
                                last.trip_count = n;
                            }
                            node
                        }
                    }
                }
                _ => self.emit(b, &ins.name, &ins.op, operands, &ins.shape)?,
            };
            map.push(node);
        }
        map.get(c.root.0)
            .copied()
            .ok_or_else(|| AutodiffError::Malformed {
                module: self.module.name.clone(),
                reason: format!("computation `{}` has no root", c.name),
            })
    }

    /// True when one of `nodes` carries a gradient.
    fn any_active(&self, nodes: &[usize]) -> bool {
        nodes
            .iter()
            .any(|&n| self.nodes.get(n).is_some_and(|x| x.active))
    }

    /// `get-tuple-element(tuple(a, b, ...), i)` is the element node itself.
    fn forward_gte(&self, operands: &[usize], index: i64) -> Option<usize> {
        let t = self.nodes.get(*operands.first()?)?;
        match t.op {
            Op::Tuple => t.operands.get(usize::try_from(index).ok()?).copied(),
            _ => None,
        }
    }

    /// Adds `op` as an instruction of `b` (its called computations imported).
    fn emit(
        &mut self,
        b: &XlaBuilder,
        name: &str,
        op: &Op,
        operands: Vec<usize>,
        shape: &Shape,
    ) -> Result<usize, AutodiffError> {
        let mut new_op = op.clone();
        let mut failed = None;
        let module = self.module;
        let imported = &mut self.imported;
        new_op.map_called(|c| {
            if let Some(&n) = imported.get(&c) {
                return n;
            }
            match b.import_computation(module, c) {
                Ok(x) => {
                    imported.insert(c, x.id());
                    x.id()
                }
                Err(e) => {
                    failed = Some(e);
                    c
                }
            }
        });
        if let Some(e) = failed {
            return Err(e.into());
        }
        let values: Vec<XlaOp> = operands
            .iter()
            .map(|&o| self.nodes[o].value.clone())
            .collect();
        let value = b.add_op(new_op, &values, Some(shape.clone()));
        if value.is_poisoned() {
            let errors = xla_core::builder::BuildErrors {
                builder: format!("{} (replaying `{name}`)", b.name()),
                errors: b.errors(),
            };
            return Err(xla_core::Error::Build(errors).into());
        }
        let active = has_float(shape) && operands.iter().any(|&o| self.nodes[o].active);
        self.nodes.push(Node {
            name: name.to_string(),
            op: op.clone(),
            operands,
            shape: shape.clone(),
            value,
            active,
            trip_count: None,
        });
        Ok(self.nodes.len() - 1)
    }

    /// The integer value of a scalar node, when it is a constant (possibly converted).
    fn const_int(&self, node: usize) -> Option<i64> {
        let n = self.nodes.get(node)?;
        match &n.op {
            Op::Constant { literal } => literal_int(literal),
            Op::Convert => self.const_int(*n.operands.first()?),
            _ => None,
        }
    }

    /// The trip count of `while(init)` when it follows the `fori_loop` pattern; `None`
    /// otherwise (the loop is then kept as is).
    fn trip_count(
        &self,
        cond: CompId,
        body: CompId,
        operands: &[usize],
    ) -> Result<Option<i64>, AutodiffError> {
        let (cond, body) = (self.computation(cond)?, self.computation(body)?);
        let Some(counter) = counter_index(cond, body) else {
            return Ok(None);
        };
        let init = operands.first().and_then(|&t| self.nodes.get(t));
        let start = match init {
            Some(t) if matches!(t.op, Op::Tuple) => {
                t.operands.get(counter.k).and_then(|&s| self.const_int(s))
            }
            _ => None,
        };
        Ok(start
            .and_then(|s| counter.trips(s))
            .filter(|&n| n <= MAX_TRIP_COUNT))
    }
}

/// The integer value of a scalar integer literal.
fn literal_int(lit: &xla_core::Literal) -> Option<i64> {
    if !lit.shape().is_scalar() || !lit.shape().element_type().is_integer() {
        return None;
    }
    let v = lit.get_as_f64(&[]).ok()?;
    (v.fract() == 0.0 && v.abs() < 9.0e15).then_some(v as i64)
}

/// A `fori_loop`-style counter: the condition compares `get-tuple-element(state, k)`
/// with a constant and the body steps it by ±1.
struct Counter {
    k: usize,
    /// The constant bound.
    limit: i64,
    /// The condition as `counter DIR limit`.
    direction: ComparisonDirection,
    /// +1 or -1.
    step: i64,
}

impl Counter {
    /// Iterations from `start` (`None` when the loop would not end).
    fn trips(&self, start: i64) -> Option<i64> {
        use ComparisonDirection as D;
        let n = match (self.step, self.direction) {
            (1, D::Lt) => self.limit.saturating_sub(start),
            (1, D::Le) => self.limit.saturating_sub(start).saturating_add(1),
            (-1, D::Gt) => start.saturating_sub(self.limit),
            (-1, D::Ge) => start.saturating_sub(self.limit).saturating_add(1),
            _ => return None,
        };
        Some(n.max(0))
    }
}

/// Recognises the loop counter (see [`Counter`]).
fn counter_index(cond: &Computation, body: &Computation) -> Option<Counter> {
    use ComparisonDirection as D;
    let root = cond.root_instruction()?;
    let Op::Compare { direction, .. } = root.op else {
        return None;
    };
    let (a, c) = (*root.operands.first()?, *root.operands.get(1)?);
    let constant = |id: InstrId| match cond.get(id).map(|i| &i.op) {
        Some(Op::Constant { literal }) => literal_int(literal),
        _ => None,
    };
    let flip = |d: D| match d {
        D::Lt => D::Gt,
        D::Le => D::Ge,
        D::Gt => D::Lt,
        D::Ge => D::Le,
        D::Eq | D::Ne => d,
    };
    let (k, limit, direction) = match (gte_of_param(cond, a), constant(c)) {
        (Some(k), Some(l)) => (k, l, direction),
        _ => (gte_of_param(cond, c)?, constant(a)?, flip(direction)),
    };
    let broot = body.root_instruction()?;
    if !matches!(broot.op, Op::Tuple) {
        return None;
    }
    let inc = body.get(*broot.operands.get(k)?)?;
    let sign = match inc.op {
        Op::Binary(BinaryOp::Add) => 1,
        Op::Binary(BinaryOp::Sub) => -1,
        _ => return None,
    };
    let (x, y) = (*inc.operands.first()?, *inc.operands.get(1)?);
    let value = |id: InstrId| match body.get(id).map(|i| &i.op) {
        Some(Op::Constant { literal }) => literal_int(literal),
        _ => None,
    };
    let step = if gte_of_param(body, x) == Some(k) {
        sign * value(y)?
    } else if sign == 1 && gte_of_param(body, y) == Some(k) {
        value(x)?
    } else {
        return None;
    };
    (step == 1 || step == -1).then_some(Counter {
        k,
        limit,
        direction,
        step,
    })
}

/// `k` when instruction `id` is `get-tuple-element(parameter(0)), index=k`.
fn gte_of_param(c: &Computation, id: InstrId) -> Option<usize> {
    let ins = c.get(id)?;
    let Op::GetTupleElement { index } = ins.op else {
        return None;
    };
    let p = c.get(*ins.operands.first()?)?;
    matches!(p.op, Op::Parameter { number: 0 }).then(|| usize::try_from(index).ok())?
}
