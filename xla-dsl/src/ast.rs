//! The macro's own syntax tree: what `parse.rs` reads out of the `syn` item, with the span of
//! every piece kept for diagnostics. Only the supported subset of Rust has a node here;
//! everything else is rejected (with a spanned error) while parsing.

use crate::ctxt::Sp;
use proc_macro2::Ident;
use syn::Visibility;
use xla_core::PrimitiveType;

/// A `#[computation]` function.
pub struct Computation {
    /// Options given in the attribute (`#[computation(grad(w, b))]`).
    pub options: Options,
    /// Doc comments and other attributes of the function, kept on the generated module.
    pub attrs: Vec<syn::Attribute>,
    /// Visibility of the function (given to the generated module).
    pub vis: Visibility,
    /// The function's name.
    pub name: Ident,
    /// The size parameters (`const B: usize`), in order; empty for a computation of fixed
    /// shapes.
    pub sizes: Vec<Ident>,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// The declared result type (`None` when the signature's result could not be read).
    pub result: Option<TypeSpec>,
    /// The body.
    pub body: Block,
}

/// Options of the attribute.
#[derive(Default)]
pub struct Options {
    /// `grad(a, b)`: the span of `grad` and the parameters to differentiate with respect
    /// to (`None` for a bare `grad`: every floating-point parameter).
    pub grad: Option<(Sp, Option<Vec<Ident>>)>,
    /// `vmap(x: 0, ...)`: the span of `vmap` and each batched parameter's axis.
    pub vmap: Option<(Sp, crate::vmap::VmapAxes)>,
    /// `replicas = N`: the computation runs on `N` replicas (the module's `replica_count`),
    /// the size of the replica axis its collectives span (JAX's `pmap` axis size).
    pub replicas: Option<(Sp, i64)>,
    /// `partitions = P`: each replica runs as `P` partitions (the module's
    /// `num_partitions`; JAX's `shard_map` mesh axis): `R × P` devices in all.
    pub partitions: Option<(Sp, i64)>,
    /// `__callee(name = "HLO")`, added by the callee's `__xla_with_callee!` when the
    /// function calls another `#[computation]` (empty HLO: the callee failed to compile).
    pub callees: Vec<(Ident, String)>,
    /// `__generic_callee(name = "ATTR\u{1}SOURCE")`, added by a generic callee's
    /// `__xla_with_callee!`: its attribute and source, instantiated at the sizes of each
    /// call (see `check/generic_call.rs`).
    pub generic_callees: Vec<(Ident, String, String)>,
}

/// One parameter: a name and a tensor type.
pub struct Param {
    /// The parameter's name.
    pub name: Ident,
    /// Its type (`None` when the type could not be read; an error was reported).
    pub ty: Option<TypeSpec>,
}

/// A type as written in a signature or a `let` annotation.
#[derive(Clone, Debug)]
pub enum TypeSpec {
    /// One tensor (or scalar).
    Tensor(TensorType),
    /// A tuple of tensors and tuples, nested to any depth (a model's parameters as a tuple
    /// of per-layer tuples); a parameter of a tuple type is one tuple-shaped HLO parameter.
    Tuple(Vec<TypeSpec>),
}

impl TypeSpec {
    /// The tensors of the type, depth first (a tensor type is its own one leaf).
    pub fn leaves(&self) -> Vec<&TensorType> {
        let mut out = Vec::new();
        self.push_leaves(&mut out);
        out
    }

    fn push_leaves<'a>(&'a self, out: &mut Vec<&'a TensorType>) {
        match self {
            TypeSpec::Tensor(t) => out.push(t),
            TypeSpec::Tuple(elems) => elems.iter().for_each(|e| e.push_leaves(out)),
        }
    }

    /// The shape the type denotes (a tuple shape for a tuple, nested alike).
    pub fn shape(&self) -> xla_core::Shape {
        match self {
            TypeSpec::Tensor(t) => xla_core::Shape::array(t.elem, t.dims.clone()),
            TypeSpec::Tuple(elems) => {
                xla_core::Shape::tuple(elems.iter().map(TypeSpec::shape).collect::<Vec<_>>())
            }
        }
    }

    /// The tensor type, when this is one.
    pub fn tensor(&self) -> Option<&TensorType> {
        match self {
            TypeSpec::Tensor(t) => Some(t),
            TypeSpec::Tuple(_) => None,
        }
    }
}

/// `Tensor<f32, 64, 784>`, or a bare element type (`f32`) for a scalar.
#[derive(Clone, Debug)]
pub struct TensorType {
    /// The element type.
    pub elem: PrimitiveType,
    /// The dimension sizes (empty for a scalar), at the sizes of this check.
    pub dims: Vec<i64>,
    /// For each dimension written as a bare size parameter (`B`), that size's index: the
    /// dimensions an argument's shape binds the sizes from.
    pub bare: Vec<Option<usize>>,
}

/// A block: `let` statements and a tail expression.
#[derive(Clone, Debug)]
pub struct Block {
    /// The statements, in order.
    pub stmts: Vec<Stmt>,
    /// The value of the block (`None` if missing: an error was reported).
    pub tail: Option<Expr>,
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let [mut] name[: Type] = init;`
    Let {
        /// The bound name.
        name: Ident,
        /// `let mut`: the name may be assigned (loop state).
        mutable: bool,
        /// The annotated type, checked against the value's shape.
        ty: Option<TypeSpec>,
        /// The value (`None` when it could not be read: an error was reported, and the
        /// name is poisoned so that its uses add no errors).
        init: Option<Expr>,
    },
    /// `name = value;` (or `name op= value;`) for a `let mut` name.
    Assign {
        /// The assigned name.
        name: Ident,
        /// The new value (`name op value` for a compound assignment).
        value: Expr,
        /// The whole statement.
        span: Sp,
    },
    /// `for i in start..end { body }`: a `while` loop over the `let mut` names it assigns.
    For {
        /// The counter (`None` for `_`), an `s32` scalar in the body.
        var: Option<Ident>,
        /// The first value of the counter.
        start: i64,
        /// One past the last value.
        end: i64,
        /// The body's statements.
        body: Vec<Stmt>,
        /// The whole loop.
        span: Sp,
    },
    /// `while cond { body }`: a `while` loop over the `let mut` names the body assigns,
    /// running while `cond` (a scalar `bool` computed from them) holds.
    While {
        /// The condition, evaluated on the loop state before every iteration.
        cond: Expr,
        /// The body's statements.
        body: Vec<Stmt>,
        /// The whole loop.
        span: Sp,
    },
}

/// An expression with its span.
#[derive(Clone, Debug)]
pub struct Expr {
    /// What kind of expression.
    pub kind: ExprKind,
    /// The whole expression's span (diagnostics point here).
    pub span: Sp,
}

/// The supported expressions.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A parameter or `let`-bound name.
    Var(Ident),
    /// A literal number or boolean.
    Lit(Lit),
    /// `-e` or `!e`.
    Unary(UnOp, Box<Expr>),
    /// `a op b`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `recv.method::<T>(args)`.
    Method {
        /// The receiver.
        recv: Box<Expr>,
        /// The method name.
        method: Ident,
        /// The element type given with a turbofish (`convert::<f64>()`).
        turbofish: Option<PrimitiveType>,
        /// The arguments.
        args: Vec<Arg>,
    },
    /// `func::<T>(args)`: a free function such as `relu(x)`, `concat([a, b], 0)` or
    /// `iota::<f32>([4], 0)`.
    Call {
        /// The function name.
        func: Ident,
        /// The element type given with a turbofish.
        turbofish: Option<PrimitiveType>,
        /// The integer arguments given with a turbofish (`nn::conv2d::<2, 1, 1>(x, k)`):
        /// the callee's sizes that no argument's shape gives, in declaration order; each
        /// evaluated at the caller's sizes.
        sizes: Vec<i64>,
        /// The arguments.
        args: Vec<Arg>,
    },
    /// `(a, b, ...)`: a tuple of values (HLO `tuple`).
    Tuple(Vec<Expr>),
    /// `if cond { .. } else { .. }` on a scalar predicate.
    If {
        /// The condition.
        cond: Box<Expr>,
        /// The value when it holds.
        then: Box<Block>,
        /// The value otherwise.
        els: Box<Block>,
    },
    /// `match i { 0 => a, 1 => b, _ => c }` on an `s32` scalar: a `conditional` with an
    /// integer branch index.
    Match {
        /// The branch index.
        index: Box<Expr>,
        /// The value of each integer arm, in index order (arm `k` for `k`), then of the `_`
        /// arm (which XLA runs for every index out of range).
        arms: Vec<Block>,
    },
}

/// An argument of a method or function call.
#[derive(Clone, Debug)]
pub enum Arg {
    /// A tensor-valued expression.
    Expr(Expr),
    /// A list of integers `[1, 0]` (dimensions, sizes, permutations).
    Ints(Vec<i64>, Sp),
    /// A list of ranges and indices, one per dimension: `[.., 1..3, 2, (0..8).step_by(2)]`.
    Slices(Vec<SliceSpec>, Sp),
    /// A list of `(low, high)` or `(low, high, interior)` paddings, one per dimension.
    Pads(Vec<(i64, i64, i64)>, Sp),
    /// A list of tensors `[a, b]`.
    List(Vec<Expr>, Sp),
    /// A list of lists of integers `[[0, 1], [2, 3]]` (replica groups).
    IntLists(Vec<Vec<i64>>, Sp),
    /// A closure `|a, b| a + b`: a scalar computation (reduce, map, sort).
    Closure(Closure),
    /// A string literal (convolution dimension labels such as `"b01f_01io->b01f"`).
    Str(String, Sp),
    /// A keyword argument `name = value` (Rust parses it as an assignment expression), and
    /// the span of the whole argument.
    Keyword(Ident, Box<Arg>, Sp),
}

/// A closure argument.
#[derive(Clone, Debug)]
pub struct Closure {
    /// The parameter names.
    pub params: Vec<Ident>,
    /// The body.
    pub body: Block,
    /// The whole closure.
    pub span: Sp,
}

/// One dimension of a slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceSpec {
    /// The first index (0 when omitted).
    pub start: Option<i64>,
    /// One past the last index (the dimension's size when omitted).
    pub end: Option<i64>,
    /// The stride (1 unless `.step_by(n)`).
    pub step: i64,
    /// An integer index: the dimension is sliced to size 1 and then dropped.
    pub index: bool,
}

/// A literal: its value and the element type given by a suffix (`2.0f64`, `3u8`), if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Lit {
    /// The value.
    pub value: LitValue,
    /// The element type from the suffix; without one the literal takes the type of the other
    /// operand (like JAX's weakly typed Python scalars).
    pub ty: Option<PrimitiveType>,
}

/// The value of a literal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LitValue {
    /// A floating-point literal.
    Float(f64),
    /// An integer literal (negated literals fold in).
    Int(i128),
    /// `true` or `false`.
    Bool(bool),
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-e` (HLO `negate`).
    Neg,
    /// `!e` (HLO `not`).
    Not,
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Rem,
    /// `&` (also `&&` on predicates).
    And,
    /// `|` (also `||` on predicates).
    Or,
    /// `^`.
    Xor,
    /// `<<`.
    Shl,
    /// `>>` (arithmetic for signed, logical for unsigned integers).
    Shr,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

/// Visits every expression of an AST node (sub-expressions, blocks, closures, statements).
pub trait Walk {
    /// Calls `f` on every expression, outermost first.
    fn walk(&self, f: &mut dyn FnMut(&Expr));

    /// The names the node reads or assigns (parameters and bindings), in order of first
    /// use, possibly with repeats; used to find what a branch or a loop captures.
    fn names(&self, out: &mut Vec<String>) {
        self.walk(&mut |e| {
            if let ExprKind::Var(name) = &e.kind {
                out.push(name.to_string());
            }
        });
    }
}

impl Walk for Expr {
    fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match &self.kind {
            ExprKind::Var(_) | ExprKind::Lit(_) => {}
            ExprKind::Unary(_, e) => e.walk(f),
            ExprKind::Binary(_, l, r) => {
                l.walk(f);
                r.walk(f);
            }
            ExprKind::Method { recv, args, .. } => {
                recv.walk(f);
                args.iter().for_each(|a| a.walk(f));
            }
            ExprKind::Call { args, .. } => args.iter().for_each(|a| a.walk(f)),
            ExprKind::Tuple(elems) => elems.iter().for_each(|e| e.walk(f)),
            ExprKind::If { cond, then, els } => {
                cond.walk(f);
                then.walk(f);
                els.walk(f);
            }
            ExprKind::Match { index, arms } => {
                index.walk(f);
                arms.iter().for_each(|a| a.walk(f));
            }
        }
    }
}

impl Walk for Arg {
    fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        match self {
            Arg::Expr(e) => e.walk(f),
            Arg::List(exprs, _) => exprs.iter().for_each(|e| e.walk(f)),
            Arg::Closure(c) => c.body.walk(f),
            Arg::Keyword(_, a, _) => a.walk(f),
            Arg::Ints(..) | Arg::IntLists(..) | Arg::Slices(..) | Arg::Pads(..) | Arg::Str(..) => {}
        }
    }
}

impl Walk for Block {
    fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        self.stmts.iter().for_each(|s| s.walk(f));
        if let Some(tail) = &self.tail {
            tail.walk(f);
        }
    }
}

impl Walk for Stmt {
    fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        match self {
            Stmt::Let { init, .. } => init.iter().for_each(|e| e.walk(f)),
            Stmt::Assign { name, value, span } => {
                // The assigned name counts as used.
                f(&Expr {
                    kind: ExprKind::Var(name.clone()),
                    span: *span,
                });
                value.walk(f);
            }
            Stmt::For { body, .. } => body.iter().for_each(|s| s.walk(f)),
            Stmt::While { cond, body, .. } => {
                cond.walk(f);
                body.iter().for_each(|s| s.walk(f));
            }
        }
    }
}

/// The names assigned (`name = ...`) by `stmts`, nested loops included, in order.
pub fn assigned_names(stmts: &[Stmt], out: &mut Vec<String>) {
    for s in stmts {
        match s {
            Stmt::Assign { name, .. } => out.push(name.to_string()),
            Stmt::For { body, .. } | Stmt::While { body, .. } => assigned_names(body, out),
            Stmt::Let { .. } => {}
        }
    }
}
