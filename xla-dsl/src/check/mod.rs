//! Walks the macro's AST and builds the HLO graph with xla-core's builder, so every
//! operation is shape-checked by xla-core's shape inference. Every error is reported on the
//! span of the offending expression; a failed sub-expression poisons its value so that no
//! follow-on errors appear.

mod args;
mod closure;
mod collective;
mod contraction;
mod control;
mod devices;
mod elementwise;
mod gather;
mod generic_call;
pub mod grad_call;
mod graph;
mod indexing;
mod linalg;
mod literal;
mod manual;
pub mod methods;
mod misc;
mod reduce;
mod structural;
mod suggest;
mod window;

use crate::ast::*;
use crate::ctxt::{Ctxt, Sp};
use graph::{shape, Graph};
use proc_macro2::Ident;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use xla_core::builder::{XlaBuilder, XlaComputation, XlaOp};
use xla_core::ir::{BinaryOp, ComparisonDirection, UnaryOp};
use xla_core::{Module, PrimitiveType, Shape};

/// A checked computation: the module, ready to print.
pub struct Checked {
    /// The HLO module (callees first, then the entry).
    pub module: Module,
    /// Parameter names and shapes, in order.
    pub params: Vec<(Ident, Shape)>,
    /// The result shape.
    pub result: Shape,
    /// The span of the expression that added each instruction, by instruction name.
    pub spans: HashMap<String, Sp>,
}

/// The value of an expression while checking.
#[derive(Clone, Debug)]
pub enum Val {
    /// A value of the graph (never poisoned).
    Tensor(XlaOp),
    /// A literal without a suffix, whose element type is decided by what it meets.
    Weak(LitValue),
}

/// The name of `known` nearest to `name`, for "did you mean" hints.
pub fn suggest_nearest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    suggest::nearest(name, known)
}

/// A Rust name as an HLO instruction name: ASCII letters, digits and `_` (`r#type` is
/// `type`; a name with none of those is left to the builder's default).
pub fn hlo_name(ident: &Ident) -> String {
    let name = ident.to_string();
    let name = name.strip_prefix("r#").unwrap_or(&name);
    name.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The shape a tensor type denotes.
pub fn shape_of(t: &TensorType) -> Shape {
    Shape::array(t.elem, t.dims.clone())
}

/// Checks `c` and builds its module; `None` when an error was reported to `cx`.
pub fn check(cx: &Ctxt, c: &Computation) -> Option<Checked> {
    check_grad_option(cx, c);
    let mut ck = Checker {
        cx,
        g: Graph::new(&c.name.to_string()),
        env: HashMap::new(),
        outer: HashSet::new(),
        mutable: HashSet::new(),
        callees: Rc::new(Callees::parse(cx, &c.options)),
        devices: Rc::new(devices::Devices::new(
            c.options.replicas.map_or(1, |(_, n)| n),
            c.options.partitions.map_or(1, |(_, n)| n),
        )),
    };
    let mut params = Vec::new();
    for (number, p) in c.params.iter().enumerate() {
        let name = p.name.to_string();
        if ck.env.contains_key(&name) {
            cx.error(
                Sp::of(&p.name),
                format!("parameter `{name}` is declared twice"),
            );
        }
        // A tuple type is one tuple-shaped parameter (`t.0`, `let (a, b) = t` read it).
        let val = p.ty.as_ref().and_then(|ty| {
            let s = ty.shape();
            params.push((p.name.clone(), s.clone()));
            let sp = Sp::of(&p.name);
            ck.g.op(cx, sp, |b| {
                b.parameter(number as i64, s, &hlo_name(&p.name))
            })
            .map(Val::Tensor)
        });
        ck.env.insert(name, val);
    }
    for stmt in &c.body.stmts {
        ck.stmt(stmt);
    }
    let root = match (&c.body.tail, &c.result) {
        (Some(tail), Some(declared)) => ck.result(tail, declared),
        _ => None,
    };
    let root = root.filter(|_| !cx.has_errors())?;
    let result = shape(&root)?;
    let spans = ck.g.spans();
    match ck.g.finish(&root) {
        Ok(mut module) => Some(Checked {
            module: {
                module.config.replica_count = ck.devices.replicas;
                module.config.num_partitions = ck.devices.partitions;
                manual::mark_manual(&mut module);
                module
            },
            params,
            result,
            spans,
        }),
        Err(e) => {
            cx.error(
                Sp::of(&c.name),
                format!("internal error building the module: {e}"),
            );
            None
        }
    }
}

/// `grad(w, b)`: the names must be parameters (the rest is checked by xla-autodiff when
/// the gradient is built, see `grad.rs`).
fn check_grad_option(cx: &Ctxt, c: &Computation) {
    let Some((_, Some(wrt))) = &c.options.grad else {
        return;
    };
    let name = &c.name;
    for w in wrt {
        if !c.params.iter().any(|p| p.name == *w) {
            cx.error(
                Sp::of(w),
                format!("grad: `{w}` is not a parameter of `{name}`"),
            );
        }
    }
    for (i, w) in wrt.iter().enumerate() {
        if wrt[..i].contains(w) {
            cx.error(Sp::of(w), format!("grad: `{w}` is listed twice"));
        }
    }
}

/// The state of one check: the graph so far and the names in scope (`None`: poisoned by an
/// earlier error, so uses stay silent). A closure's checker also knows the names of the
/// enclosing scopes, which its sub-computation cannot see.
pub struct Checker<'a> {
    cx: &'a Ctxt,
    g: Graph,
    env: HashMap<String, Option<Val>>,
    outer: HashSet<String>,
    mutable: HashSet<String>,
    callees: Rc<Callees>,
    /// The device axes (`replicas = R, partitions = P`; 1 without the options) the
    /// collectives span, and the channel ids handed out (shared with sub-computations).
    devices: Rc<devices::Devices>,
}

/// The other computations this one calls: their modules (`None`: the callee failed to
/// compile, its errors are reported there) and their imports into this module.
#[derive(Default)]
pub struct Callees {
    modules: HashMap<String, Option<Module>>,
    /// Generic callees: their attribute and source, instantiated per call.
    generic: HashMap<String, (String, String)>,
    imported: RefCell<HashMap<String, XlaComputation>>,
}

impl Callees {
    /// Parses the HLO text handed over by each callee.
    fn parse(cx: &Ctxt, options: &Options) -> Callees {
        let mut modules = HashMap::new();
        for (name, hlo) in &options.callees {
            let module = if hlo.is_empty() {
                None
            } else {
                match xla_core::text::parse_module(hlo) {
                    Ok(m) => Some(m),
                    Err(e) => {
                        cx.error(
                            Sp::of(name),
                            format!("the HLO of `{name}` does not parse (a bug in xla-rs): {e}"),
                        );
                        None
                    }
                }
            };
            modules.insert(name.to_string(), module);
        }
        let generic = options
            .generic_callees
            .iter()
            .map(|(name, attr, source)| (name.to_string(), (attr.clone(), source.clone())))
            .collect();
        Callees {
            modules,
            generic,
            imported: RefCell::default(),
        }
    }
}

impl Checker<'_> {
    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Let {
                name,
                mutable,
                ty,
                init,
            } => {
                let val = init.as_ref().and_then(|init| {
                    let v = self.expr(init)?;
                    match ty {
                        Some(TypeSpec::Tensor(t)) => {
                            let what = format!("`let {name}`: the annotation says");
                            self.expect(v, t, init.span, &what).map(Val::Tensor)
                        }
                        Some(ty @ TypeSpec::Tuple(_)) => {
                            let what = format!("`let {name}`: the annotation says");
                            self.expect_tuple(v, &ty.shape(), init.span, &what)
                                .map(Val::Tensor)
                        }
                        _ => Some(v),
                    }
                });
                if *mutable {
                    self.mutable.insert(name.to_string());
                } else {
                    self.mutable.remove(&name.to_string());
                }
                self.env.insert(name.to_string(), val);
            }
            Stmt::Assign { name, value, span } => self.assign(name, value, *span),
            Stmt::For {
                var,
                start,
                end,
                body,
                span,
            } => self.for_loop(var.as_ref(), *start, *end, body, *span),
            Stmt::While { cond, body, span } => self.while_stmt(cond, body, *span),
        }
    }

    /// Checks the tail expression against the declared result and returns the root.
    fn result(&mut self, tail: &Expr, declared: &TypeSpec) -> Option<XlaOp> {
        self.result_as(tail, declared, "result")
    }

    /// Checks `e` against `declared`, element by element where `e` is a tuple expression of
    /// a tuple type (nested alike); `what` names the part (`result 1.0`) in messages.
    fn result_as(&mut self, e: &Expr, declared: &TypeSpec, what: &str) -> Option<XlaOp> {
        match (declared, &e.kind) {
            (TypeSpec::Tensor(t), _) => {
                let v = self.expr(e)?;
                let what = format!("{what} shape mismatch: the signature says");
                self.expect(v, t, e.span, &what)
            }
            (TypeSpec::Tuple(types), ExprKind::Tuple(elems)) if types.len() == elems.len() => {
                let mut ops = Vec::new();
                for (i, (t, el)) in types.iter().zip(elems).enumerate() {
                    let part = match what {
                        "result" => format!("result {i}"),
                        outer => format!("{outer}.{i}"),
                    };
                    ops.push(self.result_as(el, t, &part));
                }
                let ops = ops.into_iter().collect::<Option<Vec<_>>>()?;
                self.op(e.span, |b| b.tuple(&ops))
            }
            (TypeSpec::Tuple(types), _) => {
                let v = self.expr(e)?;
                let n = types.len();
                let noun = if types.iter().all(|t| t.tensor().is_some()) {
                    "tensors"
                } else {
                    "elements"
                };
                let what = match what {
                    "result" => format!("the signature returns a tuple of {n} {noun}"),
                    part => format!("{part}: the signature says a tuple of {n} {noun}"),
                };
                self.expect_tuple(v, &declared.shape(), e.span, &what)
            }
        }
    }

    /// The value as a tuple op of the (tuple) shape `want`.
    fn expect_tuple(&mut self, v: Val, want: &Shape, sp: Sp, what: &str) -> Option<XlaOp> {
        let op = self.tensor(v, None, sp)?;
        let got = shape(&op)?;
        if got.compatible(want) {
            return Some(op);
        }
        self.cx
            .error(sp, format!("{what} {want} but the value is {got}"));
        None
    }

    /// The value as an op of type `t`, checked against `t`'s shape. A weak literal becomes a
    /// constant of `t`'s element type, broadcast to `t`'s dims.
    fn expect(&mut self, v: Val, t: &TensorType, sp: Sp, what: &str) -> Option<XlaOp> {
        let weak = matches!(v, Val::Weak(_));
        let op = self.tensor(v, Some(t.elem), sp)?;
        let op = if weak && !t.dims.is_empty() {
            self.op(sp, |b| b.broadcast_in_dim(&op, &t.dims, &[]))?
        } else {
            op
        };
        let (want, got) = (shape_of(t), shape(&op)?);
        if !got.compatible(&want) {
            self.cx
                .error(sp, format!("{what} {want} but the value is {got}"));
            return None;
        }
        Some(op)
    }

    /// Checks an expression.
    pub fn expr(&mut self, e: &Expr) -> Option<Val> {
        match &e.kind {
            ExprKind::Var(name) => match self.env.get(&name.to_string()) {
                Some(v) => v.clone(),
                None if self.outer.contains(&name.to_string()) => {
                    self.cx.error(e.span, format!("`{name}` is defined outside the closure: a closure's computation sees only its parameters"));
                    None
                }
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
            ExprKind::Call {
                func,
                turbofish,
                sizes,
                args,
            } => self.call(func, *turbofish, sizes, args, e.span),
            ExprKind::If { cond, then, els } => self.if_else(cond, then, els, e.span),
            ExprKind::Match { index, arms } => self.match_index(index, arms, e.span),
            ExprKind::Tuple(elems) => {
                let mut ops = Vec::new();
                for el in elems {
                    ops.push(self.expr(el).and_then(|v| self.tensor(v, None, el.span)));
                }
                let ops = ops.into_iter().collect::<Option<Vec<_>>>()?;
                self.val_op(e.span, |b| b.tuple(&ops))
            }
        }
    }

    fn call(
        &mut self,
        func: &Ident,
        turbofish: Option<PrimitiveType>,
        sizes: &[i64],
        args: &[Arg],
        sp: Sp,
    ) -> Option<Val> {
        let name = func.to_string();
        if !methods::is_method(&name) && !grad_call::is_grad_function(&name) {
            self.no_keywords(&name, args)?;
        }
        let computation =
            self.callees.modules.contains_key(&name) || self.callees.generic.contains_key(&name);
        if !sizes.is_empty() && !computation {
            self.cx.error(sp, format!("`{name}::<..>`: integer sizes in a turbofish are given to a generic #[computation] (`nn::conv2d::<2, 1, 1>(x, k)`), and `{name}` is not one"));
            return None;
        }
        match (name.as_str(), args.split_first()) {
            // With integer sizes, `nn::max_pool::<3, 2, 1>(x)` is the layer, not the method.
            _ if computation && !sizes.is_empty() => self.call_computation(func, sizes, args, sp),
            ("grad", _) => self.grad_call(false, args, sp),
            ("value_and_grad", _) => self.grad_call(true, args, sp),
            ("concat", _) => self.concat_call(args, sp),
            ("iota", _) => self.iota_call(turbofish, args, sp),
            ("rng_uniform", _) => self.rng_call(false, turbofish, args, sp),
            ("rng_normal", _) => self.rng_call(true, turbofish, args, sp),
            ("rng_bit_generator", _) => self.rng_bit_generator_call(turbofish, args, sp),
            ("sort_together", _) => self.sort_together_call(args, sp),
            ("rng_bernoulli", _) => self.rng_bernoulli_call(turbofish, args, sp),
            ("replica_id", _) => self.id_call(false, args, sp),
            ("partition_id", _) => self.id_call(true, args, sp),
            ("reduce_together", _) => self.reduce_together_call(args, sp),
            ("map_together", _) => self.map_together_call(args, sp),
            ("reduce_window_together", _) => self.reduce_window_together_call(args, sp),
            // `f(x, rest...)` is `x.f(rest...)` for the built-in operations.
            (_, Some((Arg::Expr(first), rest))) if methods::is_method(&name) => {
                let recv = self.expr(first)?;
                self.method(recv, func, turbofish, rest, sp)
            }
            _ if computation => self.call_computation(func, sizes, args, sp),
            _ => {
                self.cx.error(sp, format!("unknown function `{func}`: not a built-in operation or a #[computation] function"));
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
        let signed = !shape(&l)?.element_type().is_unsigned_int();
        let op = match op {
            BinOp::Add => Elementwise::Binary(BinaryOp::Add),
            BinOp::Sub => Elementwise::Binary(BinaryOp::Sub),
            BinOp::Mul => Elementwise::Binary(BinaryOp::Mul),
            BinOp::Div => Elementwise::Binary(BinaryOp::Div),
            BinOp::Rem => Elementwise::Binary(BinaryOp::Rem),
            BinOp::And => Elementwise::Binary(BinaryOp::And),
            BinOp::Or => Elementwise::Binary(BinaryOp::Or),
            BinOp::Xor => Elementwise::Binary(BinaryOp::Xor),
            BinOp::Shl => Elementwise::Binary(BinaryOp::ShiftLeft),
            BinOp::Shr if signed => Elementwise::Binary(BinaryOp::ShiftRightArithmetic),
            BinOp::Shr => Elementwise::Binary(BinaryOp::ShiftRightLogical),
            BinOp::Eq => Elementwise::Compare(ComparisonDirection::Eq),
            BinOp::Ne => Elementwise::Compare(ComparisonDirection::Ne),
            BinOp::Lt => Elementwise::Compare(ComparisonDirection::Lt),
            BinOp::Le => Elementwise::Compare(ComparisonDirection::Le),
            BinOp::Gt => Elementwise::Compare(ComparisonDirection::Gt),
            BinOp::Ge => Elementwise::Compare(ComparisonDirection::Ge),
        };
        self.elementwise_binary(op, Val::Tensor(l), Val::Tensor(r), sp)
    }

    /// Both values as ops: a weak literal takes the other side's element type (two weak
    /// literals take the wider of their default types).
    fn unify(&mut self, l: Val, r: Val, sp: Sp) -> Option<(XlaOp, XlaOp)> {
        let ty = match (&l, &r) {
            (Val::Tensor(op), _) | (_, Val::Tensor(op)) => shape(op)?.element_type(),
            (Val::Weak(a), Val::Weak(b)) => {
                literal::default_type(*a).max(literal::default_type(*b))
            }
        };
        let (l, r) = (self.tensor(l, Some(ty), sp), self.tensor(r, Some(ty), sp));
        Some((l?, r?))
    }

    /// The value as an op; a weak literal becomes a scalar constant of `ty` (or of its
    /// default type).
    pub fn tensor(&mut self, v: Val, ty: Option<PrimitiveType>, sp: Sp) -> Option<XlaOp> {
        match v {
            Val::Tensor(op) => Some(op),
            Val::Weak(value) => self.constant(
                ty.unwrap_or_else(|| literal::default_type(value)),
                value,
                sp,
            ),
        }
    }

    fn constant(&mut self, ty: PrimitiveType, value: LitValue, sp: Sp) -> Option<XlaOp> {
        match literal::scalar(ty, value) {
            Ok(lit) => self.op(sp, |b| b.constant(&lit)),
            Err(message) => {
                self.cx.error(sp, message);
                None
            }
        }
    }

    /// Adds ops with the builder, reporting their errors on `sp`.
    pub fn op(&mut self, sp: Sp, f: impl FnOnce(&XlaBuilder) -> XlaOp) -> Option<XlaOp> {
        self.g.op(self.cx, sp, f)
    }

    /// [`Checker::op`] as a [`Val`].
    pub fn val_op(&mut self, sp: Sp, f: impl FnOnce(&XlaBuilder) -> XlaOp) -> Option<Val> {
        self.op(sp, f).map(Val::Tensor)
    }
}

/// A binary elementwise operation or a comparison.
#[derive(Clone, Copy, Debug)]
pub enum Elementwise {
    /// A binary elementwise op.
    Binary(BinaryOp),
    /// A comparison.
    Compare(ComparisonDirection),
}

#[cfg(test)]
mod reach_tests;
#[cfg(test)]
mod tests;
