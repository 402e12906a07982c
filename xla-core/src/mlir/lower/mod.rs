//! Syntax tree to HLO: functions become computations (built on first call, callees first),
//! ops are added through the [`XlaBuilder`] so each is shape checked, and the declared
//! result types are checked against the inferred shapes. Regions become sub-computations;
//! values a while/if/case region uses from outside are passed in explicitly (HLO
//! computations capture nothing). One file per op family.

mod attrs;
mod chlo;
mod collective;
mod contraction;
mod control;
mod elementwise;
mod indexing;
mod inline;
mod linalg;
mod literal;
mod structural;
mod window;

pub(crate) use attrs::{as_int as as_int_attr, as_ints as as_ints_attr};

use super::ast::{FuncAst, ModuleAst, OpAst, Region, ValueRef};
use super::lexer::Pos;
use super::{MlirError, MlirErrorKind, MAX_NESTING};
use crate::builder::{XlaBuilder, XlaComputation, XlaOp};
use crate::ir::{Module, Op};
use crate::shape::Shape;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};

/// Result of the lowering steps.
pub(crate) type LResult<T> = Result<T, MlirError>;

/// SSA values in scope: a name stands for a group of results.
pub(crate) type Env = HashMap<String, Vec<XlaOp>>;

/// The module-wide state of the lowering.
pub(crate) struct Lowerer<'a> {
    funcs: HashMap<&'a str, &'a FuncAst>,
    built: RefCell<HashMap<String, XlaComputation>>,
    in_progress: RefCell<Vec<String>>,
    depth: Cell<usize>,
}

/// Lowers a parsed module; the entry is `@main`, else the only public function.
pub(crate) fn lower_module(ast: &ModuleAst) -> LResult<Module> {
    lower_inlined(&inline::inline_constants(ast))
}

fn lower_inlined(ast: &ModuleAst) -> LResult<Module> {
    let mut funcs = HashMap::new();
    for f in &ast.funcs {
        if funcs.insert(f.name.as_str(), f).is_some() {
            return Err(MlirError::new(
                f.pos,
                MlirErrorKind::Duplicate,
                format!("function @{} is defined twice", f.name),
            ));
        }
    }
    let entry = entry_func(ast)?;
    let name = ast.name.clone().unwrap_or_else(|| entry.name.clone());
    let lw = Lowerer {
        funcs,
        built: RefCell::new(HashMap::new()),
        in_progress: RefCell::new(vec![entry.name.clone()]),
        depth: Cell::new(0),
    };
    let b = XlaBuilder::new(&name);
    let root = lw.func_body(&b, entry)?;
    b.build_with_root(&root)
        .map_err(|e| MlirError::new(entry.pos, MlirErrorKind::Shape, e.to_string()))
}

fn entry_func(ast: &ModuleAst) -> LResult<&FuncAst> {
    if let Some(f) = ast.funcs.iter().find(|f| f.name == "main") {
        return Ok(f);
    }
    let public: Vec<&FuncAst> = ast.funcs.iter().filter(|f| !f.private).collect();
    match public.as_slice() {
        [f] => Ok(f),
        _ => Err(MlirError::new(
            Pos { line: 1, column: 1 },
            MlirErrorKind::UndefinedName,
            "no entry function: expected @main or exactly one public function",
        )),
    }
}

/// The value of one result group member, or the only value of a name.
pub(crate) fn lookup(env: &Env, r: &ValueRef) -> LResult<XlaOp> {
    let group = env.get(&r.name).ok_or_else(|| {
        MlirError::new(
            r.pos,
            MlirErrorKind::UndefinedName,
            format!("use of undefined value %{}", r.name),
        )
    })?;
    let i = r.index.unwrap_or(0);
    if r.index.is_none() && group.len() != 1 {
        return Err(MlirError::new(
            r.pos,
            MlirErrorKind::UndefinedName,
            format!(
                "%{} has {} results: write %{}#N",
                r.name,
                group.len(),
                r.name
            ),
        ));
    }
    group.get(i).cloned().ok_or_else(|| {
        MlirError::new(
            r.pos,
            MlirErrorKind::UndefinedName,
            format!("%{} has no result #{i}", r.name),
        )
    })
}

/// The shape of a value the lowering made (never poisoned: failures stop the lowering).
pub(crate) fn shape_of(op: &OpAst, v: &XlaOp) -> LResult<Shape> {
    v.shape()
        .map_err(|e| err(op, MlirErrorKind::Shape, e.to_string()))
}

/// An error at `op`.
pub(crate) fn err(op: &OpAst, kind: MlirErrorKind, msg: impl Into<String>) -> MlirError {
    MlirError::new(op.pos, kind, msg)
}

/// Turns a poisoned value into the error the builder recorded, located at `op`.
pub(crate) fn check(b: &XlaBuilder, op: &OpAst, v: XlaOp) -> LResult<XlaOp> {
    if !v.is_poisoned() {
        return Ok(v);
    }
    let msg = b
        .errors()
        .last()
        .map_or_else(|| "the op failed".to_string(), ToString::to_string);
    Err(err(op, MlirErrorKind::Shape, format!("{}: {msg}", op.name)))
}

/// Adds `hlo` on `operands`, with `declared` as the stated result shape.
pub(crate) fn emit(
    b: &XlaBuilder,
    op: &OpAst,
    hlo: Op,
    operands: &[XlaOp],
    declared: Option<Shape>,
) -> LResult<XlaOp> {
    let v = b.add_op(hlo, operands, declared);
    check(b, op, v)
}

/// The values of a tuple-shaped (or, for one result, plain) value, one per result.
pub(crate) fn untuple(b: &XlaBuilder, op: &OpAst, v: XlaOp, n: usize) -> LResult<Vec<XlaOp>> {
    let shape = shape_of(op, &v)?;
    if !shape.is_tuple() {
        return Ok(vec![v]);
    }
    (0..n)
        .map(|i| {
            check(
                b,
                op,
                b.get_tuple_element(&v, i64::try_from(i).unwrap_or(0)),
            )
        })
        .collect()
}

/// One value for several results: itself, or their tuple.
pub(crate) fn tuple_of(b: &XlaBuilder, op: &OpAst, vals: &[XlaOp]) -> LResult<XlaOp> {
    match vals {
        [v] => Ok(v.clone()),
        _ => check(b, op, b.tuple(vals)),
    }
}

/// Names used in `r` (and regions nested in it) but not defined there, in first-use order.
pub(crate) fn free_vars(r: &Region) -> Vec<String> {
    let mut defined: HashSet<String> = r.args.iter().map(|(n, _)| n.clone()).collect();
    let mut out: Vec<String> = Vec::new();
    for op in &r.ops {
        for o in &op.operands {
            if !defined.contains(&o.name) && !out.contains(&o.name) {
                out.push(o.name.clone());
            }
        }
        for nested in &op.regions {
            for n in free_vars(nested) {
                if !defined.contains(&n) && !out.contains(&n) {
                    out.push(n);
                }
            }
        }
        for (n, _) in &op.results {
            defined.insert(n.clone());
        }
    }
    out
}

impl Lowerer<'_> {
    /// Parameters, body and root of function `f` in builder `b`.
    fn func_body(&self, b: &XlaBuilder, f: &FuncAst) -> LResult<XlaOp> {
        let mut env = Env::new();
        let pos_op = OpAst {
            name: format!("func.func @{}", f.name),
            pos: f.pos,
            ..OpAst::default()
        };
        for (i, (name, ty)) in f.body.args.iter().enumerate() {
            let p = b.parameter(i64::try_from(i).unwrap_or(0), ty.clone(), name);
            env.insert(name.clone(), vec![check(b, &pos_op, p)?]);
        }
        let vals = self.block(b, &f.body, &mut env)?;
        if vals.len() != f.results.len() {
            return Err(err(
                &pos_op,
                MlirErrorKind::Type,
                format!(
                    "@{} returns {} values but declares {} results",
                    f.name,
                    vals.len(),
                    f.results.len()
                ),
            ));
        }
        for (v, t) in vals.iter().zip(&f.results) {
            same_shape(&pos_op, &shape_of(&pos_op, v)?, t)?;
        }
        tuple_of(b, &pos_op, &vals)
    }

    /// The computation of function `name`, built on first use.
    pub(crate) fn callee(&self, b: &XlaBuilder, op: &OpAst, name: &str) -> LResult<XlaComputation> {
        if let Some(c) = self.built.borrow().get(name) {
            return Ok(c.clone());
        }
        let f = *self.funcs.get(name).ok_or_else(|| {
            err(
                op,
                MlirErrorKind::UndefinedName,
                format!("call of undefined function @{name}"),
            )
        })?;
        if self.in_progress.borrow().iter().any(|n| n == name) {
            return Err(err(
                op,
                MlirErrorKind::Syntax,
                format!("@{name} calls itself (recursion is not supported)"),
            ));
        }
        self.in_progress.borrow_mut().push(name.to_string());
        let sb = b.sub_builder(name);
        let root = self.nested(|| self.func_body(&sb, f))?;
        let comp = sb
            .build_sub(&root)
            .map_err(|e| err(op, MlirErrorKind::Shape, e.to_string()))?;
        self.in_progress.borrow_mut().pop();
        self.built
            .borrow_mut()
            .insert(name.to_string(), comp.clone());
        Ok(comp)
    }

    /// Runs `f` one nesting level deeper (regions, calls), up to [`MAX_NESTING`].
    pub(crate) fn nested<T>(&self, f: impl FnOnce() -> LResult<T>) -> LResult<T> {
        let d = self.depth.get() + 1;
        if d > MAX_NESTING {
            return Err(MlirError::new(
                Pos::default(),
                MlirErrorKind::TooDeep,
                format!("regions and calls nest deeper than {MAX_NESTING} levels"),
            ));
        }
        self.depth.set(d);
        let r = f();
        self.depth.set(d - 1);
        r
    }

    /// Lowers the ops of a block; returns the terminator's operands.
    pub(crate) fn block(&self, b: &XlaBuilder, r: &Region, env: &mut Env) -> LResult<Vec<XlaOp>> {
        for op in &r.ops {
            if matches!(
                op.name.as_str(),
                "return" | "func.return" | "stablehlo.return" | "mhlo.return"
            ) {
                return op.operands.iter().map(|o| lookup(env, o)).collect();
            }
            let vals = self.op(b, op, env)?;
            self.bind(op, vals, env)?;
        }
        Err(MlirError::new(
            r.pos,
            MlirErrorKind::Syntax,
            "block without a return",
        ))
    }

    fn bind(&self, op: &OpAst, vals: Vec<XlaOp>, env: &mut Env) -> LResult<()> {
        if vals.len() != op.result_count() {
            return Err(err(
                op,
                MlirErrorKind::Type,
                format!(
                    "{} gives {} results, but {} are named",
                    op.name,
                    vals.len(),
                    op.result_count()
                ),
            ));
        }
        if !op.result_types.is_empty() {
            for (v, t) in vals.iter().zip(&op.result_types) {
                same_shape(op, &shape_of(op, v)?, t)?;
            }
        }
        let mut it = vals.into_iter();
        for (name, n) in &op.results {
            let group: Vec<XlaOp> = it.by_ref().take(*n).collect();
            if env.insert(name.clone(), group).is_some() {
                return Err(err(
                    op,
                    MlirErrorKind::Duplicate,
                    format!("%{name} is defined twice"),
                ));
            }
        }
        Ok(())
    }

    /// The operand values of `op`.
    pub(crate) fn operands(&self, op: &OpAst, env: &Env) -> LResult<Vec<XlaOp>> {
        op.operands.iter().map(|o| lookup(env, o)).collect()
    }

    /// Lowers one op to its result values.
    fn op(&self, b: &XlaBuilder, op: &OpAst, env: &Env) -> LResult<Vec<XlaOp>> {
        let short = op.short_name();
        let dialect = op.name.split_once('.').map_or("", |(d, _)| d);
        if dialect == "sdy" || op.name == "builtin.unrealized_conversion_cast" {
            return sdy_op(op, self.operands(op, env)?);
        }
        if !matches!(dialect, "stablehlo" | "mhlo" | "chlo" | "func" | "") {
            return Err(err(
                op,
                MlirErrorKind::UnknownOp,
                format!("unknown dialect '{dialect}' (op '{}')", op.name),
            ));
        }
        let ops = self.operands(op, env)?;
        if dialect == "chlo" {
            if let Some(v) = chlo::lower(b, op, &ops)? {
                return Ok(v);
            }
        }
        if let Some(v) = elementwise::lower(b, op, short, &ops)? {
            return Ok(v);
        }
        if let Some(v) = structural::lower(b, op, short, &ops)? {
            return Ok(v);
        }
        if let Some(v) = indexing::lower(self, b, op, short, &ops, env)? {
            return Ok(v);
        }
        if let Some(v) = contraction::lower(b, op, short, &ops)? {
            return Ok(v);
        }
        if let Some(v) = window::lower(self, b, op, short, &ops, env)? {
            return Ok(v);
        }
        if let Some(v) = control::lower(self, b, op, short, &ops, env)? {
            return Ok(v);
        }
        if let Some(v) = linalg::lower(self, b, op, short, &ops, env)? {
            return Ok(v);
        }
        if let Some(v) = collective::lower(self, b, op, short, &ops)? {
            return Ok(v);
        }
        if dialect != "chlo" {
            if let Some(v) = chlo::lower(b, op, &ops)? {
                return Ok(v);
            }
        }
        Err(err(
            op,
            MlirErrorKind::UnknownOp,
            format!("unknown op '{}'", op.name),
        ))
    }

    /// A computation from a region whose arguments are its parameters (reducers,
    /// comparators, scatter combiners); the region may not use outside values.
    pub(crate) fn region_comp(
        &self,
        b: &XlaBuilder,
        op: &OpAst,
        r: &Region,
        role: &str,
    ) -> LResult<XlaComputation> {
        if let Some(v) = free_vars(r).first() {
            return Err(MlirError::new(
                r.pos,
                MlirErrorKind::UndefinedName,
                format!(
                    "the {role} of {} uses %{v} from outside the region",
                    op.name
                ),
            ));
        }
        let sb = b.sub_builder(role);
        let mut env = Env::new();
        for (i, (name, ty)) in r.args.iter().enumerate() {
            let p = check(
                &sb,
                op,
                sb.parameter(i64::try_from(i).unwrap_or(0), ty.clone(), name),
            )?;
            env.insert(name.clone(), vec![p]);
        }
        let vals = self.nested(|| self.block(&sb, r, &mut env))?;
        let root = tuple_of(&sb, op, &vals)?;
        sb.build_sub(&root)
            .map_err(|e| err(op, MlirErrorKind::Shape, e.to_string()))
    }
}

/// Checks an inferred shape against a declared type (layouts ignored).
pub(crate) fn same_shape(op: &OpAst, got: &Shape, declared: &Shape) -> LResult<()> {
    if strip_layout(got) == strip_layout(declared) {
        return Ok(());
    }
    Err(err(
        op,
        MlirErrorKind::Type,
        format!(
            "{}: the result is {got} but the op declares {declared}",
            op.name
        ),
    ))
}

fn strip_layout(s: &Shape) -> Shape {
    match s {
        Shape::Array(a) => Shape::array(a.ty, a.dims.clone()),
        Shape::Tuple(t) => Shape::tuple(t.iter().map(strip_layout).collect::<Vec<_>>()),
        Shape::Token => Shape::Token,
    }
}

/// The declared type of result `i`.
pub(crate) fn result_type(op: &OpAst, i: usize) -> LResult<Shape> {
    op.result_types.get(i).cloned().ok_or_else(|| {
        err(
            op,
            MlirErrorKind::Type,
            format!("{} needs its result type", op.name),
        )
    })
}

/// The declared result: one type, or the tuple of several.
pub(crate) fn declared(op: &OpAst) -> LResult<Shape> {
    match op.result_types.as_slice() {
        [t] => Ok(t.clone()),
        [] => Err(err(
            op,
            MlirErrorKind::Type,
            format!("{} needs its result type", op.name),
        )),
        ts => Ok(Shape::tuple(ts.to_vec())),
    }
}

/// Shardy's ops in a sharded export: a sharding constraint (or reshard) is its operand
/// (on one device no data moves), as is the bytecode's cast between VHLO and builtin
/// types around them; other `sdy` ops are not read.
fn sdy_op(op: &OpAst, ops: Vec<XlaOp>) -> LResult<Vec<XlaOp>> {
    match (op.short_name(), ops.len()) {
        ("sharding_constraint" | "reshard" | "unrealized_conversion_cast", 1) => Ok(ops),
        _ => Err(err(
            op,
            MlirErrorKind::UnknownOp,
            format!(
                "'{}' is not supported: of Shardy's ops only sdy.mesh, sdy.sharding_constraint \
                 and sdy.reshard are read (as annotations; the program runs on one device)",
                op.name
            ),
        )),
    }
}
