//! Row chains: consecutive fused steps over the same rows — reductions along each row and the
//! elementwise work around them, as in softmax, log-softmax and layer norm — run together
//! tile by tile, so each tile of rows stays in cache from the first reduction to the
//! output, and a value every step needs (softmax's `exp(x - max)`) is computed once per
//! tile instead of once per step. XLA:CPU makes the same program one fusion (its YNNPACK
//! fusion); without it each step streams the whole input again.
//!
//! A chain is planned from the schedule [`plan_steps`](super::plan_steps) made: members
//! are fused steps whose domain is `rows × C` (a loop of any `C`, or a reduce of whole
//! rows), each reading its inputs either whole (constants, scalars, a vector broadcast
//! along the rows) or row by row (a value of the same rows, or a per-row value broadcast
//! along the row). Every member's value but the last is read only inside the chain, so it
//! lives in a per-tile buffer; the last member's value is the chain's. Each member runs
//! its kernel exactly as the unchained step would (same blocks, same fold lanes), so the
//! results are the unchained plan's bit for bit ([`rows_run`](super::rows_run)).

use super::remap::PadValue;
use super::{Fused, FusedKind, Kernel, Load, Node, Step};
use xla_core::ir::{Computation, InstrId};

/// Chains pay only when a member streams a large array.
const MIN_ELEMS: usize = 1 << 16;
/// Elements of the widest member per tile (256 KiB of f32: a tile's few buffers stay in the
/// 1 MiB L2; 16 K elements measured slower, the per-tile work dominating).
const TILE_ELEMS: usize = 1 << 16;

/// Where a member reads one of its kernel's inputs, per tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// Chain input `k`, whole.
    Whole(usize),
    /// Chain input `k`, elements `[r0 * num / den, r1 * num / den)` for rows `[r0, r1)`.
    Tile { ext: usize, num: usize, den: usize },
    /// The tile buffer of member `j`.
    Member(usize),
}

/// One step of a chain.
#[derive(Debug)]
pub(crate) struct Member {
    /// The instruction whose value the step computes.
    pub instr: usize,
    /// The step, with its kernel (inputs are the values `sources` name).
    pub fused: Fused,
    /// Per kernel input.
    pub sources: Vec<Source>,
    /// Elements of the member's value per row (1 for a reduce).
    pub per_row: usize,
}

/// A chain of steps over `rows` rows, run `tile` rows at a time.
#[derive(Debug)]
pub(crate) struct RowChain {
    pub rows: usize,
    pub tile: usize,
    pub members: Vec<Member>,
    /// The member that writes straight into the output chunk, which the last member then
    /// updates in place ([`in_place`]).
    pub in_place: Option<usize>,
}

/// How a kernel reads input `k` in a domain of `rows × c` elements: `Some(None)` whole,
/// `Some(Some((num, den)))` row by row, `None` neither (or two different ways).
fn input_pattern(
    k: &Kernel,
    input: usize,
    rows: usize,
    c: usize,
) -> Option<Option<(usize, usize)>> {
    let mut seen: Option<Option<(usize, usize)>> = None;
    for n in &k.nodes {
        let p = match *n {
            Node::Load(Load::Full(i)) if i == input => Some((c, 1)),
            Node::Load(Load::Scalar(i)) if i == input => None,
            // Read at positions a tile's rows cannot be cut from: no chain.
            Node::Load(Load::Spread(s)) if s.input == input => return None,
            Node::Load(Load::Remap(m)) if m.input == input => return None,
            Node::Load(Load::Remap(m)) if m.pad == Some(PadValue::Input(input)) => None,
            Node::Load(Load::Bcast {
                input: i,
                inner,
                len,
            }) if i == input => {
                if inner == 0 || len == 0 {
                    return None;
                }
                if c.is_multiple_of(inner * len) {
                    None
                } else if inner.is_multiple_of(c) && (inner / c) * len == rows {
                    Some((1, inner / c))
                } else {
                    return None;
                }
            }
            Node::Load(_) | Node::Op(..) => continue,
        };
        match seen {
            None => seen = Some(p),
            Some(q) if q == p => {}
            Some(_) => return None,
        }
    }
    Some(seen.unwrap_or(None))
}

/// `(rows, elements per row of the domain, of the value)` of a fused step, given the rows.
fn shape_of(f: &Fused, rows: usize) -> Option<(usize, usize)> {
    if !f.kernel.gathers.is_empty() {
        // A gather's rows are read through a per-run table, not cut into tiles.
        return None;
    }
    match f.kind {
        FusedKind::Reduce {
            outer, red, inner, ..
        } => (inner == 1 && outer == rows).then_some((red, 1)),
        FusedKind::Loop { pred: false } => (rows > 0 && f.kernel.n.is_multiple_of(rows))
            .then(|| (f.kernel.n / rows, f.kernel.n / rows)),
        FusedKind::Loop { pred: true } | FusedKind::Rows(_) | FusedKind::Scatter(_) => None,
    }
}

/// A member while the chain is grown: its step stays in the schedule until the chain is kept.
struct Pending {
    instr: usize,
    sources: Vec<Source>,
    per_row: usize,
}

/// A chain being grown: members, chain inputs, and the tile divisor the loads need.
struct Growing {
    rows: usize,
    members: Vec<Pending>,
    inputs: Vec<InstrId>,
    den: usize,
}

impl Growing {
    fn ext(&mut self, id: InstrId) -> usize {
        if let Some(k) = self.inputs.iter().position(|&x| x == id) {
            return k;
        }
        self.inputs.push(id);
        self.inputs.len() - 1
    }

    /// The sources of `f`'s inputs, if it can join (it must read an earlier member).
    fn sources(&mut self, f: &Fused, c: usize) -> Option<Vec<Source>> {
        let mut out = Vec::with_capacity(f.inputs.len());
        let mut linked = self.members.is_empty();
        for (k, id) in f.inputs.iter().enumerate() {
            let pat = input_pattern(&f.kernel, k, self.rows, c)?;
            let member = self.members.iter().position(|m| m.instr == id.0);
            out.push(match (member, pat) {
                (Some(j), Some((num, 1))) if self.members.get(j)?.per_row == num => {
                    linked = true;
                    Source::Member(j)
                }
                (Some(_), _) => return None,
                (None, None) => Source::Whole(self.ext(*id)),
                (None, Some((num, den))) => {
                    self.den = lcm(self.den, den);
                    Source::Tile {
                        ext: self.ext(*id),
                        num,
                        den,
                    }
                }
            });
        }
        linked.then_some(out)
    }
}

/// The greatest common divisor (`gcd(a, 0) = a`).
pub(super) fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn lcm(a: usize, b: usize) -> usize {
    a / gcd(a, b).max(1) * b
}

/// Rewrites `steps` with each valid chain as one step (at its last member's place).
pub(crate) fn chain_rows(comp: &Computation, steps: Vec<Step>) -> Vec<Step> {
    let mut steps: Vec<Option<Step>> = steps.into_iter().map(Some).collect();
    let mut k = 0;
    while k < steps.len() {
        if let Some(end) = try_chain(comp, &mut steps, k) {
            k = end + 1;
        } else {
            k += 1;
        }
    }
    steps.into_iter().flatten().collect()
}

/// Grows a chain from the reduce at step `start`; on success replaces its members with one
/// step and returns the index of the last member.
fn try_chain(comp: &Computation, steps: &mut [Option<Step>], start: usize) -> Option<usize> {
    let Some(Step::Fused(_, f)) = steps.get(start)?.as_ref() else {
        return None;
    };
    let FusedKind::Reduce { outer: rows, .. } = f.kind else {
        return None;
    };
    let ty = f.kernel.ty;
    // Candidate members, in schedule order (probed without moving them yet).
    let mut g = Growing {
        rows,
        members: Vec::new(),
        inputs: Vec::new(),
        den: 1,
    };
    let mut picked: Vec<usize> = Vec::new();
    for (k, s) in steps.iter().enumerate().skip(start) {
        let Some(Step::Fused(i, f)) = s.as_ref() else {
            continue;
        };
        let Some((c, per_row)) = shape_of(f, rows) else {
            continue;
        };
        if f.kernel.ty != ty {
            continue;
        }
        let saved = (g.inputs.len(), g.den);
        let Some(sources) = g.sources(f, c) else {
            g.inputs.truncate(saved.0);
            g.den = saved.1;
            continue;
        };
        picked.push(k);
        g.members.push(Pending {
            instr: *i,
            sources,
            per_row,
        });
    }
    let last = valid_prefix(comp, steps, &g, &picked)?;
    finish(steps, g, &picked[..=last])
}

/// The index (into `picked`) of the last member of the longest valid chain: every earlier
/// member's value is read only by members up to it and is not the root; at least one
/// member streams `MIN_ELEMS`; and two members at least.
fn valid_prefix(
    comp: &Computation,
    steps: &[Option<Step>],
    g: &Growing,
    picked: &[usize],
) -> Option<usize> {
    let member_of = |k: usize| picked.iter().position(|&p| p == k);
    let big = |j: usize| {
        picked
            .get(j)
            .and_then(|&k| steps.get(k)?.as_ref())
            .is_some_and(|s| match s {
                Step::Fused(_, f) => f.kernel.n >= MIN_ELEMS,
                Step::Eval(_) => false,
            })
    };
    (1..picked.len()).rev().find(|&last| {
        let inside = |j: usize| j <= last;
        let ok_value = |j: usize| {
            let Some(m) = g.members.get(j) else {
                return false;
            };
            if m.instr == comp.root.0 {
                return false;
            }
            steps.iter().enumerate().all(|(k, s)| {
                let reads_it = s
                    .as_ref()
                    .is_some_and(|s| s.reads(comp).iter().any(|r| r.0 == m.instr));
                !reads_it || member_of(k).is_some_and(inside)
            })
        };
        (0..last).all(ok_value) && (0..=last).any(big)
    })
}

/// Moves the members' steps into one chain step at the last member's place.
fn finish(steps: &mut [Option<Step>], mut g: Growing, picked: &[usize]) -> Option<usize> {
    g.members.truncate(picked.len());
    let &end = picked.last()?;
    // Inputs only the dropped candidates read are not needed: renumber the rest.
    let mut inputs = Vec::new();
    let mut renumber = vec![usize::MAX; g.inputs.len()];
    for m in &mut g.members {
        for s in &mut m.sources {
            if let Source::Whole(k) | Source::Tile { ext: k, .. } = s {
                let slot = renumber.get_mut(*k)?;
                if *slot == usize::MAX {
                    *slot = inputs.len();
                    inputs.push(*g.inputs.get(*k)?);
                }
                *k = *slot;
            }
        }
    }
    g.inputs = inputs;
    let mut members = Vec::with_capacity(picked.len());
    for (m, &k) in g.members.into_iter().zip(picked) {
        let Some(Step::Fused(_, f)) = steps.get_mut(k)?.take() else {
            return None;
        };
        members.push(Member {
            instr: m.instr,
            fused: *f,
            sources: m.sources,
            per_row: m.per_row,
        });
    }
    let widest = members
        .iter()
        .map(|m| m.fused.kernel.n / g.rows.max(1))
        .max()?;
    let per_tile = (TILE_ELEMS / widest.max(1)).max(1);
    let tile = per_tile.div_ceil(g.den) * g.den;
    let last = members.last()?;
    let (instr, kernel) = (last.instr, last.fused.kernel.clone());
    let chain = RowChain {
        rows: g.rows,
        tile,
        in_place: in_place(&members),
        members,
    };
    *steps.get_mut(end)? = Some(Step::Fused(
        instr,
        Box::new(Fused {
            kernel,
            inputs: g.inputs,
            kind: FusedKind::Rows(Box::new(chain)),
        }),
    ));
    Some(end)
}

/// The member whose values the chain's last member updates in place, if any
/// ([`RowChain::in_place`]): a loop member with the output's row length that the last
/// member (a loop with generated code) reads only elementwise (`Load::Full`). That member then writes straight into the output chunk and
/// the last member rewrites each value where it is, so the output's first write (memory
/// not in cache) overlaps that member's work, and the last member reads and writes lines
/// already in cache instead of streaming a tile buffer into fresh memory (softmax:
/// `exp(x - max)` written to the output, then scaled there).
fn in_place(members: &[Member]) -> Option<usize> {
    let (last, rest) = members.split_last()?;
    // Without generated code for the last member every range would be copied back to
    // the tile buffer first (`rows_run::last_in_place`): a pass more, not less.
    if !matches!(last.fused.kind, FusedKind::Loop { .. }) || !last.fused.kernel.has_code() {
        return None;
    }
    let elementwise = |j: usize| {
        let reads = |k: usize| last.sources.get(k) == Some(&Source::Member(j));
        last.fused.kernel.nodes.iter().all(|n| match n {
            Node::Load(Load::Full(_)) | Node::Load(Load::Const(_)) | Node::Op(..) => true,
            Node::Load(Load::Scalar(i)) | Node::Load(Load::Bcast { input: i, .. }) => !reads(*i),
            Node::Load(Load::Spread(s)) => !reads(s.input),
            Node::Load(Load::Remap(m)) => {
                !reads(m.input) && !matches!(m.pad, Some(PadValue::Input(i)) if reads(i))
            }
            Node::Load(Load::Gather(_)) => false,
        })
    };
    rest.iter().enumerate().position(|(j, m)| {
        matches!(m.fused.kind, FusedKind::Loop { .. })
            && m.per_row == last.per_row
            && last.sources.contains(&Source::Member(j))
            && elementwise(j)
    })
}
