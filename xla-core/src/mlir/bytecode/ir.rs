//! The IR section: operations (name, attribute dictionary, result types, operands,
//! regions) in blocks in regions, values numbered per isolated-from-above scope, isolated
//! regions in nested sections. Builds a generic tree ([`GenOp`]) that `vhlo` maps to the
//! StableHLO syntax tree.

use super::encoding::{BResult, Reader};
use super::file::section;
use super::values::{Decoder, Val};
use super::vhlo_attrs::VHLO_ATTRS;
use super::BytecodeError;
use crate::mlir::ast::ValueRef;
use crate::mlir::lexer::Pos;
use crate::mlir::MAX_NESTING;
use crate::shape::Shape;
use std::rc::Rc;

/// Op encoding mask bits.
const HAS_ATTRS: u8 = 0x01;
const HAS_RESULTS: u8 = 0x02;
const HAS_OPERANDS: u8 = 0x04;
const HAS_SUCCESSORS: u8 = 0x08;
const HAS_REGIONS: u8 = 0x10;
const HAS_USE_LIST_ORDERS: u8 = 0x20;
const HAS_PROPERTIES: u8 = 0x40;

/// One operation as the bytecode has it.
#[derive(Clone, Debug)]
pub(crate) struct GenOp {
    /// Dialect name.
    pub dialect: String,
    /// Name within the dialect (`add_v1`).
    pub name: String,
    /// Offset of the op in the bytecode.
    pub offset: usize,
    /// The attribute dictionary.
    pub attrs: Vec<(String, Rc<Val>)>,
    /// Result group name and result types.
    pub result_name: String,
    /// The result types.
    pub result_types: Vec<Shape>,
    /// The operands.
    pub operands: Vec<ValueRef>,
    /// Regions, each a list of blocks.
    pub regions: Vec<Vec<Block>>,
}

/// A block: arguments and operations.
#[derive(Clone, Debug, Default)]
pub(crate) struct Block {
    /// Arguments (name, type).
    pub args: Vec<(String, Shape)>,
    /// Operations.
    pub ops: Vec<GenOp>,
}

/// Values of one isolated scope, and the start and next free id of each open region.
#[derive(Default)]
struct Scope {
    values: Vec<Option<(String, Option<usize>)>>,
    regions: Vec<(usize, usize)>,
}

/// Walks the IR section.
pub(crate) struct Walker<'d, 'f, 'a> {
    dec: &'d mut Decoder<'f, 'a>,
    scope: Scope,
    outer: Vec<Scope>,
    names: usize,
    depth: usize,
}

/// A position that carries a byte offset (the syntax tree's errors report it back).
pub(crate) fn offset_pos(offset: usize) -> Pos {
    Pos {
        line: 0,
        column: offset,
    }
}

impl<'d, 'f, 'a> Walker<'d, 'f, 'a> {
    /// A walker decoding attributes and types with `dec`.
    pub(crate) fn new(dec: &'d mut Decoder<'f, 'a>) -> Walker<'d, 'f, 'a> {
        Walker {
            dec,
            scope: Scope::default(),
            outer: Vec::new(),
            names: 0,
            depth: 0,
        }
    }

    /// The top-level block of the IR section.
    pub(crate) fn top(&mut self, mut r: Reader<'_>) -> BResult<Block> {
        self.open_region(&r, 0)?;
        let b = self.block(&mut r)?;
        self.close_region();
        Ok(b)
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.names += 1;
        format!("{prefix}{}", self.names)
    }

    fn scope(&mut self) -> &mut Scope {
        &mut self.scope
    }

    fn open_region(&mut self, r: &Reader<'_>, n: usize) -> BResult<()> {
        let s = self.scope();
        let start = s.values.len();
        if n > (1 << 24) {
            return Err(r.error(format!("a region of {n} values")));
        }
        s.values.resize(start + n, None);
        s.regions.push((start, start));
        Ok(())
    }

    fn close_region(&mut self) {
        let s = self.scope();
        if let Some((start, _)) = s.regions.pop() {
            s.values.truncate(start);
        }
    }

    fn define(&mut self, r: &Reader<'_>, name: &str, index: Option<usize>) -> BResult<()> {
        let s = self.scope();
        let Some((_, next)) = s.regions.last_mut() else {
            return Err(r.error("a value outside any region"));
        };
        let slot = s
            .values
            .get_mut(*next)
            .ok_or_else(|| r.error("more values are defined than the region declares"))?;
        *slot = Some((name.to_string(), index));
        *next += 1;
        Ok(())
    }

    fn operand(&mut self, r: &mut Reader<'_>) -> BResult<ValueRef> {
        let at = r.offset();
        let id = r.varint()?;
        let v = usize::try_from(id)
            .ok()
            .and_then(|i| self.scope().values.get(i).cloned().flatten());
        let (name, index) =
            v.ok_or_else(|| BytecodeError::at(at, format!("operand value #{id} is not defined")))?;
        Ok(ValueRef {
            name,
            index,
            pos: offset_pos(at),
        })
    }

    fn block(&mut self, r: &mut Reader<'_>) -> BResult<Block> {
        let (n_ops, has_args) = r.varint_flag()?;
        let mut b = Block::default();
        if has_args {
            let n = r.count("block argument count")?;
            for _ in 0..n {
                let (ty, has_loc) = r.varint_flag()?;
                let at = r.offset();
                let shape = match self.dec.ty(r, ty)? {
                    super::values::Ty::Shape(s) => s,
                    t => {
                        return Err(BytecodeError::at(
                            at,
                            format!("a block argument of type {}", t.mlir_name()),
                        ))
                    }
                };
                if has_loc {
                    r.varint()?;
                }
                let name = self.fresh("arg");
                self.define(r, &name, None)?;
                b.args.push((name, shape));
            }
            if r.byte()? != 0 {
                skip_use_lists(r, n)?;
            }
        }
        for _ in 0..n_ops {
            b.ops.push(self.op(r)?);
        }
        Ok(b)
    }

    fn op(&mut self, r: &mut Reader<'_>) -> BResult<GenOp> {
        let offset = r.offset();
        let idx = r.count("operation name index")?;
        let file = self.dec.file();
        let name = file.ops.get(idx).ok_or_else(|| {
            BytecodeError::at(
                offset,
                format!("operation name index {idx} is out of range"),
            )
        })?;
        let dialect = file.dialects.get(name.dialect).cloned().unwrap_or_default();
        let mut op = GenOp {
            dialect,
            name: name.name.clone(),
            offset,
            attrs: Vec::new(),
            result_name: String::new(),
            result_types: Vec::new(),
            operands: Vec::new(),
            regions: Vec::new(),
        };
        let mask = r.byte()?;
        r.varint()?; // location
        if mask & HAS_ATTRS != 0 {
            let at = r.offset();
            match &*self.dec.read_attr(r)? {
                Val::Dict(d) => {
                    for (k, v) in d {
                        op.attrs
                            .push((String::from_utf8_lossy(k).into_owned(), v.clone()));
                    }
                }
                _ => {
                    return Err(BytecodeError::at(
                        at,
                        "an op's attributes are not a dictionary",
                    ))
                }
            }
        }
        if mask & HAS_PROPERTIES != 0 {
            self.properties(r, &mut op)?;
        }
        if mask & HAS_RESULTS != 0 {
            let n = r.count("result count")?;
            for _ in 0..n {
                op.result_types.push(self.dec.read_shape(r)?);
            }
        }
        if mask & HAS_OPERANDS != 0 {
            let n = r.count("operand count")?;
            for _ in 0..n {
                op.operands.push(self.operand(r)?);
            }
        }
        if mask & HAS_SUCCESSORS != 0 {
            return Err(r.error(format!(
                "{}.{} has successor blocks (unstructured control flow is not read)",
                op.dialect, op.name
            )));
        }
        let n_results = op.result_types.len();
        if mask & HAS_USE_LIST_ORDERS != 0 {
            skip_use_lists(r, n_results)?;
        }
        let regions = if mask & HAS_REGIONS != 0 {
            Some(r.varint_flag()?)
        } else {
            None
        };
        if n_results > 0 {
            op.result_name = self.fresh("v");
            for i in 0..n_results {
                let index = (n_results > 1).then_some(i);
                let name = op.result_name.clone();
                self.define(r, &name, index)?;
            }
        }
        if let Some((n, isolated)) = regions {
            op.regions = self.regions(r, n, isolated)?;
        }
        Ok(op)
    }

    /// The properties of `op`: for a VHLO op its attributes, one index each in the order
    /// of their sorted names; builtin and `sdy` ops' (the module's name, meshes and
    /// shardings) are skipped.
    fn properties(&mut self, r: &mut Reader<'_>, op: &mut GenOp) -> BResult<()> {
        let at = r.offset();
        let i = r.count("properties index")?;
        if op.dialect == "builtin" || op.dialect == "sdy" {
            // The module's name; Shardy's mesh and sharding attributes (one device: the
            // lowering drops them).
            return Ok(());
        }
        let names = match op.dialect.as_str() {
            "vhlo" => VHLO_ATTRS
                .binary_search_by(|(n, _)| (*n).cmp(op.name.as_str()))
                .ok()
                .and_then(|k| VHLO_ATTRS.get(k))
                .map(|(_, names)| *names),
            _ => None,
        };
        let Some(names) = names else {
            return Err(BytecodeError::at(
                op.offset,
                format!("unknown op '{}.{}'", op.dialect, op.name),
            ));
        };
        let mut p = self.dec.file().props.get(i).cloned().ok_or_else(|| {
            BytecodeError::at(at, format!("properties index {i} is out of range"))
        })?;
        for name in names {
            let v = self.dec.read_attr(&mut p)?;
            op.attrs.push(((*name).to_string(), v));
        }
        Ok(())
    }

    fn regions(&mut self, r: &mut Reader<'_>, n: u64, isolated: bool) -> BResult<Vec<Vec<Block>>> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(r.error(format!("regions nest deeper than {MAX_NESTING} levels")));
        }
        let mut out = Vec::new();
        if isolated {
            let at = r.offset();
            let (id, mut sub) = r.section()?;
            if id != section::IR {
                return Err(BytecodeError::at(
                    at,
                    "expected an IR section for an isolated region",
                ));
            }
            self.outer.push(std::mem::take(&mut self.scope));
            for _ in 0..n {
                out.push(self.region(&mut sub)?);
            }
            self.scope = self.outer.pop().unwrap_or_default();
        } else {
            for _ in 0..n {
                out.push(self.region(r)?);
            }
        }
        self.depth -= 1;
        Ok(out)
    }

    fn region(&mut self, r: &mut Reader<'_>) -> BResult<Vec<Block>> {
        let n_blocks = r.count("block count")?;
        if n_blocks == 0 {
            return Ok(Vec::new());
        }
        let n_values = r.count("value count")?;
        self.open_region(r, n_values)?;
        let mut blocks = Vec::new();
        for _ in 0..n_blocks {
            blocks.push(self.block(r)?);
        }
        self.close_region();
        Ok(blocks)
    }
}

/// Skips the use-list orders of `n` values (we do not keep use lists).
fn skip_use_lists(r: &mut Reader<'_>, n: usize) -> BResult<()> {
    let count = if n > 1 { r.count("use-list count")? } else { 1 };
    for _ in 0..count {
        if n > 1 {
            r.varint()?;
        }
        let (k, _) = r.varint_flag()?;
        for _ in 0..k {
            r.varint()?;
        }
    }
    Ok(())
}
