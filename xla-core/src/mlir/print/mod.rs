//! Our IR as StableHLO text (generic op form) that XLA compiles: [`print_stablehlo`].
//!
//! Each computation becomes a `func.func` returning its root; the entry returns the
//! elements of a tuple root as separate results, as JAX's modules do. Ops that take a
//! computation (reduce, sort, scatter, map, windows, while, case) get regions that call the
//! computation's function. Constants are printed as exact hex strings. Ops StableHLO cannot
//! express (collectives, send/recv, infeed, ...) are an error naming the op.

mod ops;
mod text;

use crate::ir::{CompId, Computation, InstrId, Module, Op};
use crate::shape::Shape;
use std::collections::HashMap;
use std::fmt::Write;
use text::ty;
use thiserror::Error;

/// Why a module could not be printed as StableHLO.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("cannot print as StableHLO: {0}")]
pub struct StablehloPrintError(pub String);

type PResult<T> = Result<T, StablehloPrintError>;

fn fail<T>(msg: impl Into<String>) -> PResult<T> {
    Err(StablehloPrintError(msg.into()))
}

/// A printed value: one SSA name, or the results of a multi-result op standing for a tuple.
#[derive(Clone, Debug)]
enum Val {
    One(String),
    Many(String, Vec<Shape>),
}

/// Prints `module` as StableHLO text.
///
/// ```
/// use xla_core::builder::XlaBuilder;
/// use xla_core::{PrimitiveType::F32, Shape};
/// let b = XlaBuilder::new("m");
/// let x = b.parameter(0, Shape::array(F32, [2]), "x");
/// let m = b.build_with_root(&(&x + &x)).unwrap();
/// let text = xla_core::mlir::print_stablehlo(&m).unwrap();
/// assert!(text.contains("\"stablehlo.add\""));
/// let back = xla_core::mlir::parse_stablehlo(&text).unwrap();
/// assert_eq!(back.entry_computation().unwrap().result_shape(), m.entry_computation().unwrap().result_shape());
/// ```
///
/// # Errors
/// [`StablehloPrintError`] naming an op StableHLO cannot express.
pub fn print_stablehlo(module: &Module) -> PResult<String> {
    let mut out = format!("module @{} {{\n", text::symbol(&module.name));
    for (i, c) in module.computations.iter().enumerate() {
        let entry = CompId(i) == module.entry;
        let mut f = FuncPrinter {
            module,
            comp: c,
            vals: HashMap::new(),
            body: String::new(),
            next: 0,
            prefix: String::new(),
        };
        out.push_str(&f.func(entry)?);
    }
    out.push_str("}\n");
    Ok(out)
}

/// The function name of computation `id`.
fn func_name(module: &Module, id: CompId) -> PResult<String> {
    match module.get(id) {
        Some(c) if id == module.entry => Ok(format!("main_{}", text::symbol(&c.name))),
        Some(c) => Ok(text::symbol(&c.name)),
        None => fail(format!("computation {} does not exist", id.0)),
    }
}

/// Prints one computation.
struct FuncPrinter<'a> {
    module: &'a Module,
    comp: &'a Computation,
    vals: HashMap<InstrId, Val>,
    body: String,
    next: usize,
    /// Prefix of the SSA names, unique per inlined region.
    prefix: String,
}

impl FuncPrinter<'_> {
    fn func(&mut self, entry: bool) -> PResult<String> {
        let params = self.comp.parameters();
        let mut sig = Vec::new();
        for (i, p) in params.iter().enumerate() {
            let shape = &self.comp.instr(*p).shape;
            sig.push(format!("%arg{i}: {}", ty(shape)?));
            self.vals.insert(*p, Val::One(format!("%arg{i}")));
        }
        for (i, ins) in self.comp.instructions.iter().enumerate() {
            if matches!(ins.op, Op::Parameter { .. }) {
                continue;
            }
            let v = self.instr(InstrId(i))?;
            self.vals.insert(InstrId(i), v);
        }
        let root_shape = self
            .comp
            .result_shape()
            .cloned()
            .ok_or_else(|| StablehloPrintError("no root".into()))?;
        let (names, types) = if entry {
            self.flat_results(self.comp.root, &root_shape)?
        } else {
            (vec![self.use_val(self.comp.root)?], vec![ty(&root_shape)?])
        };
        let name = if entry {
            "main".to_string()
        } else {
            func_name(self.module, CompId(self.index()))?
        };
        let vis = if entry { "" } else { "private " };
        let mut s = format!(
            "  func.func {vis}@{name}({}) -> ({}) {{\n",
            sig.join(", "),
            types.join(", ")
        );
        s.push_str(&self.body);
        let _ = writeln!(
            s,
            "    \"func.return\"({}) : ({}) -> ()",
            names.join(", "),
            types.join(", ")
        );
        s.push_str("  }\n");
        Ok(s)
    }

    fn index(&self) -> usize {
        self.module
            .computations
            .iter()
            .position(|c| std::ptr::eq(c, self.comp))
            .unwrap_or(0)
    }

    /// The leaves of a (nested) tuple root, as separate values.
    fn flat_results(&mut self, id: InstrId, shape: &Shape) -> PResult<(Vec<String>, Vec<String>)> {
        let root = self.use_val(id)?;
        let mut names = Vec::new();
        let mut types = Vec::new();
        self.flatten(&root, shape, &mut names, &mut types)?;
        Ok((names, types))
    }

    fn flatten(
        &mut self,
        v: &str,
        shape: &Shape,
        names: &mut Vec<String>,
        types: &mut Vec<String>,
    ) -> PResult<()> {
        match shape {
            Shape::Tuple(elems) => {
                for (i, e) in elems.iter().enumerate() {
                    let n = self.fresh();
                    self.line(&format!("{n} = \"stablehlo.get_tuple_element\"({v}) <{{index = {i} : i32}}> : ({}) -> {}", ty(shape)?, ty(e)?));
                    self.flatten(&n, e, names, types)?;
                }
                Ok(())
            }
            _ => {
                names.push(v.to_string());
                types.push(ty(shape)?);
                Ok(())
            }
        }
    }

    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%{}t{}", self.prefix, self.next)
    }

    fn line(&mut self, s: &str) {
        self.body.push_str("    ");
        self.body.push_str(s);
        self.body.push('\n');
    }

    /// The SSA name of instruction `id` as one value (a tuple is built for multi results).
    fn use_val(&mut self, id: InstrId) -> PResult<String> {
        match self.vals.get(&id).cloned() {
            Some(Val::One(n)) => Ok(n),
            Some(Val::Many(n, shapes)) => {
                let t = self.fresh();
                let parts: Vec<String> = (0..shapes.len()).map(|i| format!("{n}#{i}")).collect();
                let tys = shapes.iter().map(ty).collect::<PResult<Vec<_>>>()?;
                let tuple = ty(&Shape::tuple(shapes.clone()))?;
                self.line(&format!(
                    "{t} = \"stablehlo.tuple\"({}) : ({}) -> {tuple}",
                    parts.join(", "),
                    tys.join(", ")
                ));
                self.vals.insert(id, Val::One(t.clone()));
                Ok(t)
            }
            None => fail(format!("instruction {} is used before it is defined", id.0)),
        }
    }

    /// Operand values and their types.
    fn operands(&mut self, id: InstrId) -> PResult<(Vec<String>, Vec<String>)> {
        let ins = self.comp.instr(id);
        let mut names = Vec::new();
        let mut types = Vec::new();
        for &o in &ins.operands {
            names.push(self.use_val(o)?);
            types.push(ty(&self.comp.instr(o).shape)?);
        }
        Ok((names, types))
    }
}
