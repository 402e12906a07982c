//! The graph under construction: xla-core's [`XlaBuilder`], whose every op is shape-checked
//! by xla-core's shape inference, with the errors it records turned into diagnostics on the
//! span of the expression that added the op.

use crate::ctxt::{Ctxt, Sp};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use xla_core::builder::{BuildError, XlaBuilder, XlaComputation, XlaOp};
use xla_core::{Module, Shape};

/// The span of the expression that added each instruction, by instruction name (shared by
/// a graph and its sub-graphs), so that a gradient error naming an instruction points at
/// the source.
pub type Spans = Rc<RefCell<HashMap<String, Sp>>>;

/// A builder, how many of its errors have been reported, and where its values come from.
pub struct Graph {
    b: XlaBuilder,
    reported: usize,
    spans: Spans,
}

impl Graph {
    /// A builder for the entry computation of module `name`.
    pub fn new(name: &str) -> Graph {
        Graph {
            b: XlaBuilder::new(name),
            reported: 0,
            spans: Spans::default(),
        }
    }

    /// Adds ops with `f`; reports every error the builder recorded meanwhile on `sp`.
    /// `None` when the resulting value is poisoned (its error has been reported).
    pub fn op(&mut self, cx: &Ctxt, sp: Sp, f: impl FnOnce(&XlaBuilder) -> XlaOp) -> Option<XlaOp> {
        let value = f(&self.b);
        let errors = self.b.errors();
        for e in errors.iter().skip(self.reported) {
            cx.error(sp, message(e));
        }
        self.reported = errors.len();
        if let Some(instruction) = value.instruction() {
            self.spans
                .borrow_mut()
                .entry(instruction.name)
                .or_insert(sp);
        }
        (!value.is_poisoned()).then_some(value)
    }

    /// A builder for a sub-computation (a closure's) of the same module.
    pub fn sub(&self, name: &str) -> Graph {
        Graph {
            b: self.b.sub_builder(name),
            reported: 0,
            spans: Rc::clone(&self.spans),
        }
    }

    /// The finished sub-computation returning `root`.
    ///
    /// # Errors
    /// The builder's errors (all of which have already been reported through [`Graph::op`]).
    pub fn finish_sub(self, root: &XlaOp) -> Result<XlaComputation, xla_core::Error> {
        self.b.build_sub(root)
    }

    /// Copies the entry computation of `module` (and what it calls) into this module.
    ///
    /// # Errors
    /// If the module is malformed.
    pub fn import(&self, module: &Module) -> Result<XlaComputation, xla_core::Error> {
        self.b.import_computation(module, module.entry)
    }

    /// The finished module, its entry returning `root`.
    ///
    /// # Errors
    /// The builder's errors (all of which have already been reported through [`Graph::op`]).
    pub fn finish(self, root: &XlaOp) -> Result<Module, xla_core::Error> {
        self.b.build_with_root(root)
    }

    /// The spans recorded so far, by instruction name.
    pub fn spans(&self) -> HashMap<String, Sp> {
        self.spans.borrow().clone()
    }
}

/// The shape of a value that is not poisoned.
pub fn shape(op: &XlaOp) -> Option<Shape> {
    op.shape().ok()
}

/// A builder error as a diagnostic: the op, the shapes and the rule (the computation is
/// where the span points).
fn message(e: &BuildError) -> String {
    match e {
        BuildError::Shape { error, .. } => error.to_string(),
        BuildError::Misuse { op, message, .. } => format!("{op}: {message}"),
        BuildError::Internal { op, invariant, .. } => {
            format!("{op}: internal error (a bug; please report it): {invariant}")
        }
    }
}
