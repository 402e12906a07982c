//! The module level: the `HloModule` header (attributes skipped), debug tables, computations
//! (named or inline), and name resolution: instructions in topological order, computations
//! callee-first, the entry computation.
//!
//! While parsing, a called computation is referred to by a provisional [`CompId`]: its index
//! in the table of computation names (a name gets an index when first mentioned, so a
//! computation may be used before it is defined). [`State::finish`] orders the computations
//! and renumbers every reference with [`Op::map_called`](crate::ir::Op::map_called).

use super::instruction::RawInstr;
use super::{PResult, ParseError, ParseErrorKind, Parser};
use crate::ir::{CompId, Computation, InstrId, Instruction, Module, ModuleConfig};
use crate::text::lexer::{Pos, Tok};
use std::collections::HashMap;

const DEBUG_TABLES: [&str; 4] = ["FileNames", "FunctionNames", "FileLocations", "StackFrames"];

/// One computation name: where it was first mentioned, and its definition once parsed.
struct CompSlot {
    name: String,
    first_ref: Pos,
    def: Option<(Pos, Computation)>,
}

/// Computations seen so far.
#[derive(Default)]
pub(super) struct State {
    ids: HashMap<String, usize>,
    slots: Vec<CompSlot>,
    /// Provisional ids in definition order.
    defined: Vec<usize>,
    entry: Option<(usize, Pos)>,
    /// The header's device counts and the instructions' `sharding` attributes.
    pub(super) config: ModuleConfig,
}

impl State {
    /// The provisional id of computation `name` (mentioned at `pos`).
    pub(super) fn reference(&mut self, name: &str, pos: Pos) -> CompId {
        if let Some(&id) = self.ids.get(name) {
            return CompId(id);
        }
        let id = self.slots.len();
        self.slots.push(CompSlot {
            name: name.to_string(),
            first_ref: pos,
            def: None,
        });
        self.ids.insert(name.to_string(), id);
        CompId(id)
    }

    /// Reserves a fresh computation name based on `base` (for an inline computation, before
    /// its body is parsed, so computations nested inside it get other names).
    pub(super) fn fresh_name(&mut self, base: &str, pos: Pos) -> String {
        let mut name = base.to_string();
        let mut n = 1;
        while self.ids.contains_key(&name) {
            name = format!("{base}.{n}");
            n += 1;
        }
        self.reference(&name, pos);
        name
    }

    fn define(&mut self, pos: Pos, comp: Computation) -> PResult<CompId> {
        let id = self.reference(&comp.name, pos).0;
        let Some(slot) = self.slots.get_mut(id) else {
            return Err(ParseError::new(
                pos,
                ParseErrorKind::Syntax,
                "internal: bad computation id",
            ));
        };
        if let Some((first, _)) = &slot.def {
            return Err(ParseError::new(
                pos,
                ParseErrorKind::Duplicate,
                format!(
                    "computation '{}' is defined twice (first at {}:{})",
                    comp.name, first.line, first.column
                ),
            ));
        }
        slot.def = Some((pos, comp));
        self.defined.push(id);
        Ok(CompId(id))
    }

    /// Checks every reference, orders computations callee-first and builds the module.
    fn finish(mut self, name: String, eof: Pos) -> PResult<Module> {
        for slot in &self.slots {
            if slot.def.is_none() {
                return Err(ParseError::new(
                    slot.first_ref,
                    ParseErrorKind::UndefinedName,
                    format!("unknown computation '{}'", slot.name),
                ));
            }
        }
        let Some(&last) = self.defined.last() else {
            return Err(ParseError::new(
                eof,
                ParseErrorKind::Syntax,
                "expected a computation but found end of input",
            ));
        };
        let entry = self.entry.map_or(last, |(id, _)| id);
        let order = self.callee_first()?;
        let new_id = inverse(&order);
        let remap = |c: CompId| {
            let n = new_id.get(c.0).copied();
            debug_assert!(
                n.is_some(),
                "invariant: every called computation is ordered"
            );
            CompId(n.unwrap_or(c.0))
        };
        let mut computations = Vec::with_capacity(order.len());
        for &old in &order {
            if let Some((_, mut comp)) = self.slots.get_mut(old).and_then(|s| s.def.take()) {
                for instr in &mut comp.instructions {
                    instr.op.map_called(remap);
                }
                computations.push(comp);
            }
        }
        Ok(Module {
            name,
            computations,
            entry: remap(CompId(entry)),
            config: self.config,
        })
    }

    /// Provisional ids ordered so every computation follows the ones it calls (definition
    /// order otherwise). Iterative depth-first search; a cycle is an error.
    fn callee_first(&self) -> PResult<Vec<usize>> {
        let callees = |id: usize| -> Vec<usize> {
            self.slots
                .get(id)
                .and_then(|s| s.def.as_ref())
                .map_or_else(Vec::new, |(_, c)| {
                    c.instructions
                        .iter()
                        .flat_map(|i| i.op.called_computations())
                        .map(|c| c.0)
                        .collect()
                })
        };
        topo_order(self.slots.len(), &self.defined, callees).map_err(|id| {
            let (pos, name) = self
                .slots
                .get(id)
                .map_or((Pos::default(), String::new()), |s| {
                    (s.def.as_ref().map_or(s.first_ref, |d| d.0), s.name.clone())
                });
            ParseError::new(
                pos,
                ParseErrorKind::Cycle,
                format!("computation '{name}' calls itself (a cycle of calls)"),
            )
        })
    }
}

/// Orders nodes `0..n` so that each follows its successors (`edges`), visiting roots in
/// `roots` order. Iterative; returns the node closing a cycle on failure.
pub(super) fn topo_order(
    n: usize,
    roots: &[usize],
    edges: impl Fn(usize) -> Vec<usize>,
) -> Result<Vec<usize>, usize> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut mark = vec![Mark::New; n];
    let mut order = Vec::with_capacity(n);
    for &root in roots {
        if mark.get(root) != Some(&Mark::New) {
            continue;
        }
        let mut stack: Vec<(usize, Vec<usize>, usize)> = vec![(root, edges(root), 0)];
        if let Some(m) = mark.get_mut(root) {
            *m = Mark::Open;
        }
        while let Some((node, succ, next)) = stack.last_mut() {
            if let Some(&s) = succ.get(*next) {
                *next += 1;
                match mark.get(s) {
                    Some(Mark::New) => {
                        mark[s] = Mark::Open; // in range: `mark.get(s)` is Some
                        let e = edges(s);
                        stack.push((s, e, 0));
                    }
                    Some(Mark::Open) => return Err(s),
                    _ => {}
                }
            } else {
                let node = *node;
                if let Some(m) = mark.get_mut(node) {
                    *m = Mark::Done;
                }
                order.push(node);
                stack.pop();
            }
        }
    }
    Ok(order)
}

/// Parses a whole module.
pub(super) fn parse_module(p: &mut Parser<'_>) -> PResult<Module> {
    let (kw, kw_pos) = p.word("'HloModule'")?;
    if kw != "HloModule" {
        return Err(ParseError::new(
            kw_pos,
            ParseErrorKind::Syntax,
            format!("expected 'HloModule' but found '{kw}'"),
        ));
    }
    let (name, _) = p.name("a module name")?;
    let mut st = State::default();
    while p.eat(&Tok::Comma) {
        let (attr, _) = p.word("a module attribute name")?;
        p.expect(&Tok::Eq)?;
        match attr.as_str() {
            "replica_count" => st.config.replica_count = p.device_count("replica_count")?,
            "num_partitions" => st.config.num_partitions = p.device_count("num_partitions")?,
            _ => {
                p.skip_value()?;
            }
        }
    }
    p.skip_debug_tables()?;
    while p.peek() != &Tok::Eof {
        p.computation(&mut st)?;
    }
    st.finish(name, p.here())
}

impl Parser<'_> {
    /// A positive device count of the header (`replica_count=4`).
    fn device_count(&mut self, what: &str) -> PResult<i64> {
        let pos = self.here();
        let n = self.int()?;
        if n < 1 {
            return Err(ParseError::new(
                pos,
                ParseErrorKind::Syntax,
                format!("{what} must be at least 1, got {n}"),
            ));
        }
        Ok(n)
    }

    /// Skips `FileNames` / `FunctionNames` / `FileLocations` / `StackFrames` tables: each
    /// entry is a number followed by a string or a braced record.
    fn skip_debug_tables(&mut self) -> PResult<()> {
        while matches!(self.peek(), Tok::Word(w) if DEBUG_TABLES.contains(&w.as_str()))
            && !matches!(self.peek_at(1), Tok::LBrace | Tok::LParen)
        {
            self.bump();
            while matches!(self.peek(), Tok::Word(w) if w.bytes().all(|b| b.is_ascii_digit())) {
                self.bump();
                match self.peek() {
                    Tok::Str(_) => {
                        self.bump();
                    }
                    Tok::LBrace => self.skip_group()?,
                    _ => return Err(self.expected("a string or '{'")),
                }
            }
        }
        Ok(())
    }

    /// `[ENTRY] name [(params) -> shape] [, attr=value]* { instructions }`.
    fn computation(&mut self, st: &mut State) -> PResult<()> {
        let entry_pos = self.here();
        let is_entry = matches!(self.peek(), Tok::Word(w) if w == "ENTRY");
        if is_entry {
            self.bump();
        }
        let (name, pos) = self.name("a computation name")?;
        if self.peek() == &Tok::LParen {
            self.skip_group()?;
            self.expect(&Tok::Arrow)?;
            self.shape()?;
        }
        // Computation attributes (`, execution_thread="host"`) are skipped; each value is one
        // word, string or group, as the body's `{` follows.
        while self.eat(&Tok::Comma) {
            self.word("a computation attribute name")?;
            self.expect(&Tok::Eq)?;
            self.skip_atom()?;
        }
        let comp = self.computation_body(st, name)?;
        let id = st.define(pos, comp)?;
        if is_entry {
            if let Some((_, first)) = st.entry {
                return Err(ParseError::new(
                    entry_pos,
                    ParseErrorKind::Duplicate,
                    format!(
                        "a second ENTRY computation (the first is at {}:{})",
                        first.line, first.column
                    ),
                ));
            }
            st.entry = Some((id.0, entry_pos));
        }
        Ok(())
    }

    /// An inline computation `{ ... }` used as an attribute value; returns its provisional id.
    pub(super) fn inline_computation(&mut self, st: &mut State, base: &str) -> PResult<CompId> {
        let pos = self.here();
        let name = st.fresh_name(base, pos);
        let comp = self.computation_body(st, name)?;
        st.define(pos, comp)
    }

    /// `{ instruction* }` → a computation named `name`.
    fn computation_body(&mut self, st: &mut State, name: String) -> PResult<Computation> {
        self.enter_by(super::COMPUTATION_DEPTH_COST)?;
        self.expect(&Tok::LBrace)?;
        let mut raw = Vec::new();
        while !self.eat(&Tok::RBrace) {
            if self.peek() == &Tok::Eof {
                return Err(self.expected("an instruction or '}'"));
            }
            let r = self.instruction(st)?;
            if let Some(sh) = &r.sharding {
                st.config.shardings.insert(r.name.clone(), sh.clone());
            }
            raw.push(r);
        }
        self.leave_by(super::COMPUTATION_DEPTH_COST);
        resolve(name, raw, self.here())
    }
}

/// Resolves operand names, picks the root, and orders the instructions topologically.
fn resolve(name: String, raw: Vec<RawInstr>, end: Pos) -> PResult<Computation> {
    let (index, root) = index_names(&name, &raw)?;
    let operands: Vec<Vec<usize>> = raw
        .iter()
        .map(|r| {
            r.operands
                .iter()
                .map(|(o, pos)| {
                    index.get(o.as_str()).copied().ok_or_else(|| {
                        ParseError::new(
                            *pos,
                            ParseErrorKind::UndefinedName,
                            format!("unknown operand '{o}' in computation '{name}'"),
                        )
                    })
                })
                .collect()
        })
        .collect::<PResult<_>>()?;
    let Some(root) = root.or(raw.len().checked_sub(1)) else {
        return Err(ParseError::new(
            end,
            ParseErrorKind::Syntax,
            format!("computation '{name}' has no instructions"),
        ));
    };
    let all: Vec<usize> = (0..raw.len()).collect();
    let slots_len = raw.len();
    let order = topo_order(raw.len(), &all, |i| {
        operands.get(i).cloned().unwrap_or_default()
    })
    .map_err(|i| {
        let (pos, n) = raw.get(i).map_or((end, ""), |r| (r.pos, r.name.as_str()));
        ParseError::new(
            pos,
            ParseErrorKind::Cycle,
            format!("instruction '{n}' depends on itself (a cycle of operands)"),
        )
    })?;
    let new_id = inverse(&order);
    debug_assert_eq!(
        new_id.len(),
        slots_len,
        "invariant: the order lists every instruction"
    );
    let renumber = |i: usize| InstrId(new_id.get(i).copied().unwrap_or(i));
    let mut slots: Vec<Option<RawInstr>> = raw.into_iter().map(Some).collect();
    let mut instructions = Vec::with_capacity(order.len());
    for &old in &order {
        let (Some(r), Some(ops)) = (slots.get_mut(old).and_then(Option::take), operands.get(old))
        else {
            continue;
        };
        let operands = ops.iter().map(|&o| renumber(o)).collect();
        instructions.push(Instruction {
            name: r.name,
            op: r.op,
            operands,
            shape: r.shape,
        });
    }
    Ok(Computation {
        name,
        instructions,
        root: renumber(root),
    })
}

/// Maps each instruction name to its index (a name defined twice is an error) and finds the
/// instruction marked `ROOT` (marking two is an error).
fn index_names<'r>(
    comp: &str,
    raw: &'r [RawInstr],
) -> PResult<(HashMap<&'r str, usize>, Option<usize>)> {
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(raw.len());
    let mut root = None;
    for (i, r) in raw.iter().enumerate() {
        if let Some(&first) = index.get(r.name.as_str()) {
            let f = raw.get(first).map_or(Pos::default(), |x| x.pos);
            return Err(ParseError::new(
                r.pos,
                ParseErrorKind::Duplicate,
                format!(
                    "instruction '{}' is defined twice (first at {}:{})",
                    r.name, f.line, f.column
                ),
            ));
        }
        index.insert(&r.name, i);
        if let Some(root_pos) = r.root {
            if root.is_some() {
                return Err(ParseError::new(
                    root_pos,
                    ParseErrorKind::Duplicate,
                    format!("a second ROOT in computation '{comp}'"),
                ));
            }
            root = Some(i);
        }
    }
    Ok((index, root))
}

/// The inverse of a permutation given as `order[new] = old`: `result[old] = new`.
fn inverse(order: &[usize]) -> Vec<usize> {
    let mut new_id = vec![0usize; order.len()];
    for (new, &old) in order.iter().enumerate() {
        if let Some(slot) = new_id.get_mut(old) {
            *slot = new;
        }
    }
    new_id
}
