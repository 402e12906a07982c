//! Walks the macro's AST and builds the HLO graph, shape-checking every operation with
//! xla-core's shape inference. Every error is reported on the span of the offending
//! expression; a failed sub-expression poisons its value so that no follow-on errors appear.

mod contraction;
mod elementwise;
mod graph;
mod literal;
mod methods;
mod reduce;
mod structural;

use crate::ast::*;
use crate::ctxt::{Ctxt, Sp};
use graph::Graph;
use proc_macro2::Ident;
use std::collections::HashMap;
use xla_core::ir::{BinaryOp, ComparisonDirection, InstrId, Op, UnaryOp};
use xla_core::{Module, PrimitiveType, Shape};

/// A checked computation: the module, ready to print.
pub struct Checked {
    /// The HLO module (callees first, then the entry).
    pub module: Module,
    /// Parameter names and shapes, in order.
    pub params: Vec<(Ident, Shape)>,
    /// The result shape.
    pub result: Shape,
}

/// The value of an expression while checking.
#[derive(Clone, Copy, Debug)]
pub enum Val {
    /// An instruction of the graph.
    Tensor(InstrId),
    /// A literal without a suffix, whose element type is decided by what it meets.
    Weak(LitValue),
}

/// The shape a tensor type denotes.
pub fn shape_of(t: &TensorType) -> Shape {
    Shape::array(t.elem, t.dims.clone())
}

/// Checks `c` and builds its module; `None` when an error was reported to `cx`.
pub fn check(cx: &Ctxt, c: &Computation) -> Option<Checked> {
    if let Some((sp, _)) = &c.options.grad {
        cx.error(
            *sp,
            "`grad(...)` is not supported yet: gradients (`dense::grad`) come with xla-autodiff",
        );
    }
    let mut ck = Checker {
        cx,
        g: Graph::new(),
        env: HashMap::new(),
    };
    let mut params = Vec::new();
    for (number, p) in c.params.iter().enumerate() {
        if ck.env.contains_key(&p.name.to_string()) {
            cx.error(
                Sp::of(&p.name),
                format!("parameter `{}` is declared twice", p.name),
            );
        }
        let val = match &p.ty {
            Some(TypeSpec::Tensor(t)) => {
                let shape = shape_of(t);
                params.push((p.name.clone(), shape.clone()));
                Some(Val::Tensor(ck.g.parameter(
                    number as i64,
                    &p.name.to_string(),
                    shape,
                )))
            }
            Some(TypeSpec::Tuple(_)) | None => None,
        };
        ck.env.insert(p.name.to_string(), val);
    }
    for stmt in &c.body.stmts {
        ck.stmt(stmt);
    }
    let root = match (&c.body.tail, &c.result) {
        (Some(tail), Some(declared)) => ck.result(tail, declared),
        _ => None,
    };
    let root = root.filter(|_| !cx.has_errors())?;
    let result = ck.g.shape(root).clone();
    Some(Checked {
        module: ck.g.finish(&c.name.to_string(), root),
        params,
        result,
    })
}

/// The state of one check: the graph so far and the names in scope (`None`: poisoned by an
/// earlier error, so uses stay silent).
pub struct Checker<'a> {
    cx: &'a Ctxt,
    g: Graph,
    env: HashMap<String, Option<Val>>,
}

impl Checker<'_> {
    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Let { name, ty, init } => {
                let val = self.expr(init);
                let val = match (val, ty) {
                    (Some(v), Some(TypeSpec::Tensor(t))) => self
                        .expect(
                            v,
                            t,
                            init.span,
                            &format!("`let {name}`: the annotation says"),
                        )
                        .map(Val::Tensor),
                    (v, _) => v,
                };
                self.env.insert(name.to_string(), val);
            }
        }
    }

    /// Checks the tail expression against the declared result and returns the root.
    fn result(&mut self, tail: &Expr, declared: &TypeSpec) -> Option<InstrId> {
        match (declared, &tail.kind) {
            (TypeSpec::Tensor(t), _) => {
                let v = self.expr(tail)?;
                self.expect(v, t, tail.span, "result shape mismatch: the signature says")
            }
            (TypeSpec::Tuple(types), ExprKind::Tuple(elems)) if types.len() == elems.len() => {
                let mut ids = Vec::new();
                for (i, (t, e)) in types.iter().zip(elems).enumerate() {
                    let v = self.expr(e);
                    ids.push(v.and_then(|v| {
                        self.expect(
                            v,
                            t,
                            e.span,
                            &format!("result {i} shape mismatch: the signature says"),
                        )
                    }));
                }
                let ids = ids.into_iter().collect::<Option<Vec<_>>>()?;
                self.push(Op::Tuple, &ids, None, tail.span)
                    .and_then(|v| self.tensor(v, None, tail.span))
            }
            (TypeSpec::Tuple(types), _) => {
                self.cx.error(tail.span, format!("the signature returns a tuple of {} tensors: end the body with `(a, b, ...)`", types.len()));
                None
            }
        }
    }

    /// The value as an instruction of type `t`, checked against `t`'s shape. A weak literal
    /// becomes a constant of `t`'s element type, broadcast to `t`'s dims.
    fn expect(&mut self, v: Val, t: &TensorType, sp: Sp, what: &str) -> Option<InstrId> {
        let id = self.tensor(v, Some(t.elem), sp)?;
        let id = if self.g.shape(id).is_scalar() && !t.dims.is_empty() && matches!(v, Val::Weak(_))
        {
            self.broadcast_to(id, &t.dims, Vec::new(), sp)?
        } else {
            id
        };
        let (want, got) = (shape_of(t), self.g.shape(id));
        if !got.compatible(&want) {
            self.cx
                .error(sp, format!("{what} {want} but the value is {got}"));
            return None;
        }
        Some(id)
    }

    /// Checks an expression.
    pub fn expr(&mut self, e: &Expr) -> Option<Val> {
        match &e.kind {
            ExprKind::Var(name) => match self.env.get(&name.to_string()) {
                Some(v) => *v,
                None => {
                    self.cx.error(
                        e.span,
                        format!("unknown name `{name}`: not a parameter or a `let` binding"),
                    );
                    None
                }
            },
            ExprKind::Lit(lit) => match lit.ty {
                None => Some(Val::Weak(lit.value)),
                Some(ty) => self.constant(ty, lit.value, e.span).map(Val::Tensor),
            },
            ExprKind::Unary(op, inner) => {
                let v = self.expr(inner)?;
                self.unary(*op, v, e.span)
            }
            ExprKind::Binary(op, l, r) => {
                let (l, r) = (self.expr(l), self.expr(r));
                self.binary(*op, l?, r?, e.span)
            }
            ExprKind::Method {
                recv,
                method,
                turbofish,
                args,
            } => {
                let recv = self.expr(recv)?;
                self.method(recv, method, *turbofish, args, e.span)
            }
            ExprKind::Call { func, args } => self.call(func, args, e.span),
            ExprKind::Tuple(_) => {
                self.cx.error(
                    e.span,
                    "tuples are only allowed as the result of a computation",
                );
                None
            }
        }
    }

    fn call(&mut self, func: &Ident, args: &[Arg], sp: Sp) -> Option<Val> {
        // `f(x, rest...)` is `x.f(rest...)` for the built-in operations.
        match args.split_first() {
            Some((Arg::Expr(first), rest)) if methods::is_method(&func.to_string()) => {
                let recv = self.expr(first)?;
                self.method(recv, func, None, rest, sp)
            }
            _ => {
                self.cx.error(sp, format!("unknown function `{func}`: calls to other #[computation] functions are not supported yet"));
                None
            }
        }
    }

    fn unary(&mut self, op: UnOp, v: Val, sp: Sp) -> Option<Val> {
        match (op, v) {
            (UnOp::Neg, Val::Weak(LitValue::Float(f))) => Some(Val::Weak(LitValue::Float(-f))),
            (UnOp::Neg, Val::Weak(LitValue::Int(i))) => Some(Val::Weak(LitValue::Int(-i))),
            (UnOp::Not, Val::Weak(LitValue::Bool(b))) => Some(Val::Weak(LitValue::Bool(!b))),
            (UnOp::Neg, v) => self.elementwise_unary(UnaryOp::Neg, v, sp),
            (UnOp::Not, v) => self.elementwise_unary(UnaryOp::Not, v, sp),
        }
    }

    fn binary(&mut self, op: BinOp, l: Val, r: Val, sp: Sp) -> Option<Val> {
        let (l, r) = self.unify(l, r, sp)?;
        let signed = !self.g.shape(l).element_type().is_unsigned_int();
        let op = match op {
            BinOp::Add => Op::Binary(BinaryOp::Add),
            BinOp::Sub => Op::Binary(BinaryOp::Sub),
            BinOp::Mul => Op::Binary(BinaryOp::Mul),
            BinOp::Div => Op::Binary(BinaryOp::Div),
            BinOp::Rem => Op::Binary(BinaryOp::Rem),
            BinOp::And => Op::Binary(BinaryOp::And),
            BinOp::Or => Op::Binary(BinaryOp::Or),
            BinOp::Xor => Op::Binary(BinaryOp::Xor),
            BinOp::Shl => Op::Binary(BinaryOp::ShiftLeft),
            BinOp::Shr if signed => Op::Binary(BinaryOp::ShiftRightArithmetic),
            BinOp::Shr => Op::Binary(BinaryOp::ShiftRightLogical),
            BinOp::Eq => compare(ComparisonDirection::Eq),
            BinOp::Ne => compare(ComparisonDirection::Ne),
            BinOp::Lt => compare(ComparisonDirection::Lt),
            BinOp::Le => compare(ComparisonDirection::Le),
            BinOp::Gt => compare(ComparisonDirection::Gt),
            BinOp::Ge => compare(ComparisonDirection::Ge),
        };
        self.elementwise_binary(op, Val::Tensor(l), Val::Tensor(r), sp)
    }

    /// Both values as instructions: a weak literal takes the other side's element type (two
    /// weak literals take the wider of their default types).
    fn unify(&mut self, l: Val, r: Val, sp: Sp) -> Option<(InstrId, InstrId)> {
        let ty = match (l, r) {
            (Val::Tensor(id), _) | (_, Val::Tensor(id)) => self.g.shape(id).element_type(),
            (Val::Weak(a), Val::Weak(b)) => literal::default_type(a).max(literal::default_type(b)),
        };
        let (l, r) = (self.tensor(l, Some(ty), sp), self.tensor(r, Some(ty), sp));
        Some((l?, r?))
    }

    /// The value as an instruction; a weak literal becomes a scalar constant of `ty` (or of
    /// its default type).
    pub fn tensor(&mut self, v: Val, ty: Option<PrimitiveType>, sp: Sp) -> Option<InstrId> {
        match v {
            Val::Tensor(id) => Some(id),
            Val::Weak(value) => self.constant(
                ty.unwrap_or_else(|| literal::default_type(value)),
                value,
                sp,
            ),
        }
    }

    fn constant(&mut self, ty: PrimitiveType, value: LitValue, sp: Sp) -> Option<InstrId> {
        match literal::scalar(ty, value) {
            Ok(lit) => Some(self.g.constant(lit)),
            Err(message) => {
                self.cx.error(sp, message);
                None
            }
        }
    }

    /// Pushes `op`, reporting a shape error on `sp`.
    pub fn push(
        &mut self,
        op: Op,
        operands: &[InstrId],
        declared: Option<Shape>,
        sp: Sp,
    ) -> Option<Val> {
        match self.g.push(op, operands, declared) {
            Ok(id) => Some(Val::Tensor(id)),
            Err(e) => {
                self.cx.error(sp, e);
                None
            }
        }
    }

    /// Broadcasts `id` to `dims`, operand dim `i` going to result dim `dimensions[i]`.
    pub fn broadcast_to(
        &mut self,
        id: InstrId,
        dims: &[i64],
        dimensions: Vec<i64>,
        sp: Sp,
    ) -> Option<InstrId> {
        let declared = Shape::array(self.g.shape(id).element_type(), dims.to_vec());
        let v = self.push(Op::Broadcast { dimensions }, &[id], Some(declared), sp)?;
        self.tensor(v, None, sp)
    }
}

fn compare(direction: ComparisonDirection) -> Op {
    Op::Compare {
        direction,
        comparison_type: None,
    }
}

#[cfg(test)]
mod tests;
