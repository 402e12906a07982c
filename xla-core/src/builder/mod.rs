//! The builder: one method per operation of XLA's operation semantics, shape-checked as you go.
//!
//! An [`XlaBuilder`] builds one computation; the values it hands out are [`XlaOp`]s, cheap
//! handles to its instructions. As in XLA's `XlaBuilder`, an op never returns a `Result`:
//! the first (and every independent) error is recorded in the builder and the op yields a
//! *poisoned* value whose users are skipped silently, so one mistake gives one error.
//! [`XlaBuilder::build`] returns the [`Module`] or every recorded error.
//!
//! ```
//! use xla_core::builder::{XlaBuilder, Combiner};
//! use xla_core::{PrimitiveType::F32, Shape};
//!
//! let b = XlaBuilder::new("main");
//! let x = b.parameter(0, Shape::array(F32, [2, 3]), "x");
//! let y = (&x * 2.0f32).exp() + &x;
//! let zero = b.constant_r0(0.0f32);
//! let sum = b.reduce(&y, &zero, &[1], Combiner::Add);
//! assert_eq!(sum.shape().unwrap(), Shape::array(F32, [2]));
//! let module = b.build().unwrap();
//! assert_eq!(module.computations.len(), 2); // the add combiner, then main
//! ```
//!
//! Sub-computations (reduce's combiner, sort's comparator, while's condition and body, ...)
//! are given as anything implementing [`Callee`]: a [`Combiner`], a computation built with
//! [`XlaBuilder::sub_builder`] and [`XlaBuilder::build_sub`], or a closure wrapped by
//! [`unary`], [`binary`] or [`nary`].
//!
//! ```
//! use xla_core::builder::{binary, unary, Combiner, XlaBuilder};
//! use xla_core::{PrimitiveType::{F32, S32}, Shape};
//!
//! let b = XlaBuilder::new("main");
//! let x = b.parameter(0, Shape::array(F32, [4, 5]), "x");
//! let zero = b.constant_r0(0.0f32);
//!
//! // 1. a common combiner
//! let sum = b.reduce(&x, &zero, &[1], Combiner::Add);
//!
//! // 2. a closure `|sub_builder, a, b| ...`
//! let sum_sq = b.reduce(&x, &zero, &[1], binary(|sb, a, c| sb.add(a, &c * &c)));
//!
//! // 3. a computation built once with a sub-builder and used twice
//! let max = {
//!     let sb = b.sub_builder("max");
//!     let p = sb.parameter(0, Shape::scalar(F32), "p");
//!     let q = sb.parameter(1, Shape::scalar(F32), "q");
//!     sb.build_sub(&sb.max(&p, &q)).unwrap()
//! };
//! let low = b.constant_r0(f32::NEG_INFINITY);
//! let rows = b.reduce(&x, &low, &[1], &max);
//! let cols = b.reduce(&x, &low, &[0], &max);
//!
//! // a loop: the state is a tuple (counter, value)
//! let init = b.tuple([b.constant_r0(0i32), sum.clone()]);
//! let cond = unary(|sb, s| sb.lt(sb.get_tuple_element(&s, 0), sb.constant_r0(10i32)));
//! let body = unary(|sb, s| {
//!     let (i, v) = (sb.get_tuple_element(&s, 0), sb.get_tuple_element(&s, 1));
//!     sb.tuple([&i + 1i32, &v * 0.5f32])
//! });
//! let looped = b.while_loop(&init, cond, body);
//! assert_eq!(looped.shape().unwrap(), Shape::tuple(vec![Shape::scalar(S32), Shape::array(F32, [4])]));
//!
//! let root = b.tuple([sum, sum_sq, rows, cols, looped]);
//! let module = b.build_with_root(&root).unwrap();
//! // add_F32, reducer, max, condition, body, then main: callees first
//! assert_eq!(module.computations.len(), 6);
//! ```

mod callee;
mod collective;
mod contraction;
mod control;
mod elementwise;
mod error;
mod import;
mod indexing;
mod linalg;
mod ops;
mod rng;
mod structural;
mod window;

pub use callee::{binary, nary, unary, Binary, Callee, Combiner, Nary, Unary, XlaComputation};
pub use contraction::ConvOptions;
pub use error::{BuildError, BuildErrors};
pub use ops::{Scalar, ScalarValue};
pub use window::{make_padding, Padding};

use crate::ir::{infer_shape, CompId, Computation, InstrId, Instruction, Module, Op};
use crate::literal::{Literal, NativeData};
use crate::shape::Shape;
use crate::shape_inference::{ProgramShape, ShapeError};
use crate::types::PrimitiveType;
use std::borrow::Borrow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT_MODULE: AtomicU64 = AtomicU64::new(1);

/// State shared by a builder and its sub-builders: the module's computations and the
/// module-wide counter that makes names unique (`add.3`).
struct ModuleCtx {
    id: u64,
    next_id: Cell<u64>,
    computations: RefCell<Vec<Computation>>,
    /// Combiner computations already built, by combiner and parameter shapes.
    combiners: RefCell<HashMap<(Combiner, Vec<Shape>), XlaComputation>>,
}

/// One builder's own state.
#[derive(Default)]
struct State {
    instructions: Vec<Instruction>,
    errors: Vec<BuildError>,
    parameters: Vec<i64>,
}

struct Inner {
    name: String,
    is_sub: bool,
    ctx: Rc<ModuleCtx>,
    state: RefCell<State>,
}

/// Builds one computation (and, for the top-level builder, the module around it).
///
/// Cloning a builder gives another handle to the same builder.
#[derive(Clone)]
pub struct XlaBuilder {
    inner: Rc<Inner>,
}

/// A value of a computation under construction: a handle to one instruction of an
/// [`XlaBuilder`], or a poisoned value standing for the result of an op that failed.
#[derive(Clone)]
pub struct XlaOp {
    builder: Rc<Inner>,
    id: Option<InstrId>,
}

impl fmt::Debug for XlaBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "XlaBuilder({})", self.inner.name)
    }
}

impl fmt::Debug for XlaOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.builder.state.borrow();
        match self.id.and_then(|id| state.instructions.get(id.0)) {
            Some(i) => write!(f, "XlaOp({}: {} in {})", i.name, i.shape, self.builder.name),
            None => write!(f, "XlaOp(poisoned in {})", self.builder.name),
        }
    }
}

impl XlaOp {
    /// The builder this value belongs to.
    pub fn builder(&self) -> XlaBuilder {
        XlaBuilder {
            inner: Rc::clone(&self.builder),
        }
    }

    /// The instruction id, or `None` for a poisoned value.
    pub fn id(&self) -> Option<InstrId> {
        self.id
    }

    /// True when this value stands for an op that failed.
    pub fn is_poisoned(&self) -> bool {
        self.id.is_none()
    }

    /// The inferred shape of this value.
    ///
    /// # Errors
    /// [`Error::Builder`](crate::Error::Builder) for a poisoned value (its op failed; the
    /// failure is among the builder's errors).
    pub fn shape(&self) -> Result<Shape, crate::Error> {
        let state = self.builder.state.borrow();
        self.id
            .and_then(|id| state.instructions.get(id.0))
            .map(|i| i.shape.clone())
            .ok_or_else(|| {
                crate::Error::Builder(crate::error::BuilderMisuse::Poisoned {
                    builder: self.builder.name.clone(),
                })
            })
    }

    /// The instruction this value refers to (a copy), or `None` when poisoned.
    pub fn instruction(&self) -> Option<Instruction> {
        let state = self.builder.state.borrow();
        self.id.and_then(|id| state.instructions.get(id.0)).cloned()
    }
}

impl XlaBuilder {
    /// A builder for the entry computation of a new module named `name`.
    pub fn new(name: &str) -> XlaBuilder {
        let ctx = ModuleCtx {
            id: NEXT_MODULE.fetch_add(1, Ordering::Relaxed),
            next_id: Cell::new(0),
            computations: RefCell::new(Vec::new()),
            combiners: RefCell::new(HashMap::new()),
        };
        XlaBuilder::with_ctx(name, false, Rc::new(ctx))
    }

    fn with_ctx(name: &str, is_sub: bool, ctx: Rc<ModuleCtx>) -> XlaBuilder {
        let inner = Inner {
            name: sanitize(name, "computation"),
            is_sub,
            ctx,
            state: RefCell::new(State::default()),
        };
        XlaBuilder {
            inner: Rc::new(inner),
        }
    }

    /// A builder for a sub-computation of this builder's module (a reducer, a loop body,
    /// ...). Finish it with [`XlaBuilder::build_sub`]; the resulting [`XlaComputation`] can
    /// be used by this builder and any other builder of the same module.
    pub fn sub_builder(&self, name: &str) -> XlaBuilder {
        XlaBuilder::with_ctx(name, true, Rc::clone(&self.inner.ctx))
    }

    /// The builder's name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The errors recorded so far.
    pub fn errors(&self) -> Vec<BuildError> {
        self.inner.state.borrow().errors.clone()
    }

    /// The shape of `op` (XLA's `GetShape`); nothing is recorded.
    ///
    /// # Errors
    /// [`Error::Builder`](crate::Error::Builder) when `op` belongs to another builder or is
    /// poisoned.
    pub fn get_shape(&self, op: &XlaOp) -> Result<Shape, crate::Error> {
        if !Rc::ptr_eq(&op.builder, &self.inner) {
            return Err(crate::Error::Builder(
                crate::error::BuilderMisuse::ForeignValue {
                    owner: op.builder.name.clone(),
                    builder: self.inner.name.clone(),
                },
            ));
        }
        op.shape()
    }

    // ----- recording -----

    fn next_id(&self) -> u64 {
        let id = self.inner.ctx.next_id.get() + 1;
        self.inner.ctx.next_id.set(id);
        id
    }

    fn record(&self, error: BuildError) {
        self.inner.state.borrow_mut().errors.push(error);
    }

    /// Records a shape error and returns a poisoned value.
    fn fail(&self, error: ShapeError) -> XlaOp {
        self.record(BuildError::Shape {
            computation: self.inner.name.clone(),
            error,
        });
        self.poisoned()
    }

    /// Records that `invariant` of the code using this builder does not hold at `op` (a
    /// bug of that code, asserted in debug builds) and returns a poisoned value, so the
    /// build fails with [`BuildError::Internal`] instead of going on with a wrong value.
    pub fn internal_error(&self, op: &str, invariant: &'static str) -> XlaOp {
        debug_assert!(false, "{op}: invariant broken: {invariant}");
        self.record(BuildError::Internal {
            computation: self.inner.name.clone(),
            op: op.to_string(),
            invariant,
        });
        self.poisoned()
    }

    /// Records a misuse of the builder by `op` and returns a poisoned value.
    fn misuse(&self, op: &str, message: impl Into<String>) -> XlaOp {
        let computation = self.inner.name.clone();
        self.record(BuildError::Misuse {
            computation,
            op: op.to_string(),
            message: message.into(),
        });
        self.poisoned()
    }

    fn poisoned(&self) -> XlaOp {
        XlaOp {
            builder: Rc::clone(&self.inner),
            id: None,
        }
    }

    /// True when `op` belongs to this builder; records an error naming `op_name` otherwise.
    fn owns(&self, op_name: &str, index: usize, op: &XlaOp) -> bool {
        if Rc::ptr_eq(&op.builder, &self.inner) {
            return true;
        }
        let msg = format!(
            "operand {index} belongs to builder `{}`, not `{}`",
            op.builder.name, self.inner.name
        );
        self.misuse(op_name, msg);
        false
    }

    /// The shapes of `operands`, or `None` if one is poisoned or foreign (recorded).
    fn shapes_of(&self, op_name: &str, operands: &[&XlaOp]) -> Option<Vec<Shape>> {
        for (i, o) in operands.iter().enumerate() {
            if !self.owns(op_name, i, o) {
                return None;
            }
        }
        let state = self.inner.state.borrow();
        operands
            .iter()
            .map(|o| {
                o.id.and_then(|id| state.instructions.get(id.0))
                    .map(|i| i.shape.clone())
            })
            .collect()
    }

    /// The shape of one operand (see [`XlaBuilder::shapes_of`]).
    fn shape_of(&self, op_name: &str, operand: &XlaOp) -> Option<Shape> {
        self.shapes_of(op_name, &[operand])
            .and_then(|mut v| v.pop())
    }

    fn program_shape(&self, id: CompId) -> Option<ProgramShape> {
        let comps = self.inner.ctx.computations.borrow();
        let c = comps.get(id.0)?;
        Some(ProgramShape {
            parameters: c.parameter_shapes(),
            result: c.result_shape()?.clone(),
        })
    }

    /// Adds an instruction: checks the operands, infers the shape with
    /// [`infer_shape`] and names it `opcode.N`.
    fn emit(&self, op: Op, operands: &[&XlaOp], declared: Option<Shape>) -> XlaOp {
        let name = op.name();
        self.emit_named(name, op, operands, declared)
    }

    fn emit_named(
        &self,
        base: &str,
        op: Op,
        operands: &[&XlaOp],
        declared: Option<Shape>,
    ) -> XlaOp {
        let Some(shapes) = self.shapes_of(op.name(), operands) else {
            return self.poisoned();
        };
        let called: Option<Vec<ProgramShape>> = op
            .called_computations()
            .into_iter()
            .map(|c| self.program_shape(c))
            .collect();
        let Some(called) = called else {
            return self.misuse(op.name(), "a called computation is not part of this module");
        };
        let refs: Vec<&Shape> = shapes.iter().collect();
        match infer_shape(&op, &refs, &called, declared.as_ref()) {
            Ok(shape) => self.push(base, op, operands, shape),
            Err(e) => self.fail(e),
        }
    }

    fn push(&self, base: &str, op: Op, operands: &[&XlaOp], shape: Shape) -> XlaOp {
        let name = format!("{base}.{}", self.next_id());
        let operands = operands.iter().filter_map(|o| o.id).collect();
        let mut state = self.inner.state.borrow_mut();
        let id = InstrId(state.instructions.len());
        state.instructions.push(Instruction {
            name,
            op,
            operands,
            shape,
        });
        XlaOp {
            builder: Rc::clone(&self.inner),
            id: Some(id),
        }
    }

    // ----- leaves -----

    /// Parameter `number` of this computation, of `shape`, named `name` (the instruction is
    /// named `name.N`; an empty name gives `parameter.N`).
    pub fn parameter(&self, number: i64, shape: Shape, name: &str) -> XlaOp {
        if number < 0 || self.inner.state.borrow().parameters.contains(&number) {
            let msg = format!("parameter number {number} is negative or already used");
            return self.misuse("parameter", msg);
        }
        let base = sanitize(name, "parameter");
        let op = self.emit_named(&base, Op::Parameter { number }, &[], Some(shape));
        if !op.is_poisoned() {
            self.inner.state.borrow_mut().parameters.push(number);
        }
        op
    }

    /// A constant holding `literal`.
    pub fn constant(&self, literal: &Literal) -> XlaOp {
        let shape = literal.shape().clone();
        self.emit(
            Op::Constant {
                literal: literal.clone(),
            },
            &[],
            Some(shape),
        )
    }

    /// A scalar constant.
    pub fn constant_r0<T: NativeData>(&self, value: T) -> XlaOp {
        self.constant(&Literal::scalar(value))
    }

    /// A rank-1 constant.
    pub fn constant_r1<T: NativeData>(&self, values: &[T]) -> XlaOp {
        self.constant(&Literal::vec1(values))
    }

    /// A scalar constant of `ty` holding `value` (converted as Rust's `as` does; complex
    /// types get a zero imaginary part).
    pub fn constant_scalar(&self, ty: PrimitiveType, value: impl ScalarValue) -> XlaOp {
        match ops::scalar_literal(ty, value.to_scalar()) {
            Some(lit) => self.constant(&lit),
            None => self.misuse("constant", format!("no scalar constant of type {ty}")),
        }
    }

    /// A scalar constant of the element type of `like`.
    pub fn constant_like(&self, like: &XlaOp, value: impl ScalarValue) -> XlaOp {
        match self.shape_of("constant", like) {
            Some(s) => self.constant_scalar(s.element_type(), value),
            None => self.poisoned(),
        }
    }

    /// An array of `shape` counting 0, 1, 2, ... along `dimension`.
    pub fn iota(&self, shape: Shape, dimension: i64) -> XlaOp {
        self.emit(Op::Iota { dimension }, &[], Some(shape))
    }

    /// A rank-1 array `[0, 1, ..., size-1]` of `ty`.
    pub fn iota_r1(&self, ty: PrimitiveType, size: i64) -> XlaOp {
        self.iota(Shape::array(ty, [size]), 0)
    }

    // ----- building -----

    /// Finishes this builder's computation with `root` (or, for `None`, the last instruction
    /// added, as XLA does) and adds it to the module.
    fn finish(&self, root: Option<&XlaOp>) -> Result<(CompId, String), BuildErrors> {
        let errors = |e: Vec<BuildError>| BuildErrors {
            builder: self.inner.name.clone(),
            errors: e,
        };
        let recorded = self.errors();
        if !recorded.is_empty() {
            return Err(errors(recorded));
        }
        let misuse = |m: String| {
            errors(vec![BuildError::Misuse {
                computation: self.inner.name.clone(),
                op: "build".into(),
                message: m,
            }])
        };
        let state = self.inner.state.borrow();
        let root = match root {
            Some(r) if !Rc::ptr_eq(&r.builder, &self.inner) => {
                return Err(misuse(format!(
                    "the root belongs to builder `{}`",
                    r.builder.name
                )))
            }
            Some(XlaOp { id: None, .. }) => {
                return Err(misuse("the root is the result of an op that failed".into()))
            }
            Some(r) => r.id,
            None => state.instructions.len().checked_sub(1).map(InstrId),
        };
        let Some(root) = root else {
            return Err(misuse("the computation has no instructions".into()));
        };
        let mut numbers = state.parameters.clone();
        numbers.sort_unstable();
        if numbers.iter().enumerate().any(|(i, &n)| n != i as i64) {
            return Err(misuse(format!(
                "parameter numbers {numbers:?} are not 0, 1, 2, ..."
            )));
        }
        let name = format!("{}.{}", self.inner.name, self.next_id());
        let computation = Computation {
            name: name.clone(),
            instructions: state.instructions.clone(),
            root,
        };
        let mut comps = self.inner.ctx.computations.borrow_mut();
        comps.push(computation);
        Ok((CompId(comps.len() - 1), name))
    }

    /// Builds the module, with the last instruction added as the entry's root.
    ///
    /// # Errors
    /// [`Error::Build`](crate::Error::Build) listing every recorded error, or saying the
    /// builder is empty or is a sub-builder.
    pub fn build(&self) -> Result<Module, crate::Error> {
        self.build_module(None)
    }

    /// Builds the module with `root` as the entry's root.
    ///
    /// # Errors
    /// As [`XlaBuilder::build`]; also if `root` belongs to another builder.
    pub fn build_with_root(&self, root: &XlaOp) -> Result<Module, crate::Error> {
        self.build_module(Some(root))
    }

    fn build_module(&self, root: Option<&XlaOp>) -> Result<Module, crate::Error> {
        if self.inner.is_sub {
            let message = "a sub-builder builds a computation: use build_sub".to_string();
            let error = BuildError::Misuse {
                computation: self.inner.name.clone(),
                op: "build".into(),
                message,
            };
            return Err(BuildErrors {
                builder: self.inner.name.clone(),
                errors: vec![error],
            }
            .into());
        }
        let (entry, _) = self.finish(root)?;
        let comps = self.inner.ctx.computations.borrow();
        prune(&self.inner.name, &comps, entry)
    }

    /// Builds this sub-builder's computation with `root` as its root, for use by the builders
    /// of the same module.
    ///
    /// # Errors
    /// [`Error::Build`](crate::Error::Build) listing every recorded error.
    pub fn build_sub(&self, root: &XlaOp) -> Result<XlaComputation, crate::Error> {
        Ok(self.build_sub_inner(Some(root))?)
    }

    fn build_sub_inner(&self, root: Option<&XlaOp>) -> Result<XlaComputation, BuildErrors> {
        let (id, name) = self.finish(root)?;
        let program_shape = self.program_shape(id).ok_or_else(|| BuildErrors {
            builder: self.inner.name.clone(),
            errors: vec![BuildError::Misuse {
                computation: name.clone(),
                op: "build".into(),
                message: "the computation has no valid root".into(),
            }],
        })?;
        Ok(XlaComputation {
            module: self.inner.ctx.id,
            id,
            name,
            program_shape,
        })
    }
}

/// The module of the computations reachable from `entry`, callees first, renumbered.
///
/// # Errors
/// [`Error::Internal`](crate::Error::Internal) when `entry` or a computation it calls is
/// not among `comps` (every id the builder hands out is).
fn prune(name: &str, comps: &[Computation], entry: CompId) -> Result<Module, crate::Error> {
    let mut reachable = vec![false; comps.len()];
    let mut stack = vec![entry];
    while let Some(c) = stack.pop() {
        if c.0 >= comps.len() || reachable[c.0] {
            continue;
        }
        reachable[c.0] = true;
        for i in &comps[c.0].instructions {
            stack.extend(i.op.called_computations());
        }
    }
    let mut new_id = vec![None; comps.len()];
    let mut computations = Vec::new();
    for (old, c) in comps.iter().enumerate() {
        if reachable[old] {
            new_id[old] = Some(CompId(computations.len()));
            computations.push(c.clone());
        }
    }
    let mut missing = false;
    for c in &mut computations {
        for i in &mut c.instructions {
            i.op.map_called(|id| {
                new_id.get(id.0).copied().flatten().unwrap_or_else(|| {
                    missing = true;
                    id
                })
            });
        }
    }
    let entry = new_id.get(entry.0).copied().flatten();
    let (Some(entry), false) = (entry, missing) else {
        return Err(crate::error::internal(
            "build: the entry and every computation it calls were made by this builder",
        ));
    };
    Ok(Module {
        name: name.to_string(),
        computations,
        entry,
        config: crate::ir::ModuleConfig::default(),
    })
}

/// A name HLO text accepts (as XLA's name uniquer sanitizes): characters other than
/// ASCII letters, digits, `_`, `-` and `.` become `_`; a leading digit gets a `_` in front;
/// an empty name becomes `fallback`.
fn sanitize(name: &str, fallback: &str) -> String {
    if name.is_empty() {
        return fallback.to_string();
    }
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{clean}")
    } else {
        clean
    }
}

/// Collects borrowed operands: accepts `&[a, b]`, `[&a, &b]`, `vec![a, b]`, ...
fn collect_ops<I>(ops: I) -> Vec<XlaOp>
where
    I: IntoIterator,
    I::Item: Borrow<XlaOp>,
{
    ops.into_iter().map(|o| o.borrow().clone()).collect()
}

fn refs(ops: &[XlaOp]) -> Vec<&XlaOp> {
    ops.iter().collect()
}

/// Array shapes with another element type's dims.
pub(super) trait WithDims {
    /// An array shape of this shape's element type and `dims`.
    fn with_dims(&self, dims: Vec<i64>) -> Shape;
}

impl WithDims for Shape {
    fn with_dims(&self, dims: Vec<i64>) -> Shape {
        Shape::array(self.element_type(), dims)
    }
}
