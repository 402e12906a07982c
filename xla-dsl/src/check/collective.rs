//! Collectives over the device axes of `#[computation(replicas = R, partitions = P)]`
//! (without the options a computation runs on one device): `replica_id()`, `partition_id()`,
//! `all_reduce`, `all_gather`, `reduce_scatter`, `all_to_all` and `collective_permute`.
//! Each but the permute takes an optional `groups = [[0, 1], [2, 3]]` (XLA's
//! `replica_groups`; absent: one group of all), and each an optional `over = replicas |
//! partitions | devices | replicas_and_partitions` saying what the ids name (`devices.rs`);
//! the group size in devices is the shard count, so the result shapes are checked here like
//! every other op's.

use super::devices::{Kind, Over, Spans};
use super::graph::shape;
use super::{Checker, Val};
use crate::ast::Arg;
use crate::ctxt::Sp;
use xla_core::Shape;

/// What a collective method is.
#[derive(Clone, Copy)]
pub enum Collective {
    /// `x.all_reduce(|a, b| a + b)`.
    AllReduce,
    /// `x.all_gather(dim)`.
    AllGather,
    /// `x.reduce_scatter(dim, |a, b| a + b)`.
    ReduceScatter,
    /// `x.all_to_all(split_dim, concat_dim)`.
    AllToAll,
    /// `x.collective_permute([(source, target), ...])`.
    Permute,
}

impl Checker<'_> {
    /// `replica_id()` / `partition_id()`: a `u32` scalar.
    pub fn id_call(&mut self, partition: bool, args: &[Arg], sp: Sp) -> Option<Val> {
        let n = if partition {
            "partition_id"
        } else {
            "replica_id"
        };
        self.arity(n, args, [], sp)?;
        self.val_op(sp, |b| {
            if partition {
                b.partition_id()
            } else {
                b.replica_id()
            }
        })
    }

    /// A collective over the replicas of each group.
    pub fn collective(&mut self, c: Collective, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let x = self.tensor(x, None, sp)?;
        let scalar = Shape::scalar(shape(&x)?.element_type());
        let pair = [scalar.clone(), scalar];
        match c {
            Collective::AllReduce => {
                let n = "all_reduce";
                let [f, g, o] = self.bind(n, args, ["|a, b| ...", "groups", "over"], 1, sp)?;
                let groups = self.groups(n, (g, o), Kind::Reduce, sp);
                let comp = self.sub_computation(n, self.closure(f?)?, &pair)?;
                let groups = groups?;
                self.val_op(sp, |b| b.all_reduce(&x, &groups.config, &comp))
            }
            Collective::AllGather => {
                let n = "all_gather";
                let [d, g, o] = self.bind(n, args, ["dimension", "groups", "over"], 1, sp)?;
                let d = self.int_scalar(d?, "the gathered dimension");
                let (d, groups) = (d?, self.groups(n, (g, o), Kind::Sharded, sp)?);
                let (size, config) = (groups.size, groups.config);
                self.val_op(sp, |b| b.all_gather(&x, d, size, &config))
            }
            Collective::ReduceScatter => {
                let n = "reduce_scatter";
                let params = ["dimension", "|a, b| ...", "groups", "over"];
                let [d, f, g, o] = self.bind(n, args, params, 2, sp)?;
                let d = self.int_scalar(d?, "the scattered dimension");
                let groups = self.groups(n, (g, o), Kind::Sharded, sp);
                let comp = self.sub_computation(n, self.closure(f?)?, &pair)?;
                let (d, groups) = (d?, groups?);
                let (size, config) = (groups.size, groups.config);
                self.val_op(sp, |b| b.reduce_scatter(&x, d, size, &config, &comp))
            }
            Collective::AllToAll => self.all_to_all(x, args, sp),
            Collective::Permute => self.permute(x, args, sp),
        }
    }

    fn all_to_all(&mut self, x: xla_core::builder::XlaOp, args: &[Arg], sp: Sp) -> Option<Val> {
        let n = "all_to_all";
        let params = ["split_dimension", "concat_dimension", "groups", "over"];
        let [s, c, g, o] = self.bind(n, args, params, 2, sp)?;
        let (s, c) = (
            self.int_scalar(s?, "the split dimension"),
            self.int_scalar(c?, "the concat dimension"),
        );
        let (s, c, groups) = (s?, c?, self.groups(n, (g, o), Kind::AllToAll, sp)?);
        let (size, config) = (groups.size, groups.config);
        self.val_op(sp, |b| b.all_to_all(&x, s, c, size, &config))
    }

    fn permute(&mut self, x: xla_core::builder::XlaOp, args: &[Arg], sp: Sp) -> Option<Val> {
        let n = "collective_permute";
        let [pairs, o] = self.bind(n, args, ["[(source, target)]", "over"], 1, sp)?;
        let over = self.over(n, o, sp)?;
        let (list, psp) = match pairs? {
            Arg::Pads(p, psp) if p.iter().all(|&(_, _, extra)| extra == 0) => {
                (p.iter().map(|&(s, t, _)| (s, t)).collect::<Vec<_>>(), *psp)
            }
            other => {
                self.cx.error(
                    super::args::span(other),
                    "collective_permute: expected the `(source, target)` pairs, e.g. `[(0, 1), (1, 0)]`",
                );
                return None;
            }
        };
        let count = self.devices.id_count(over);
        let checked = check_pairs(&list, count, || self.devices.ids_text(over))
            .and_then(|()| self.devices.permute_channel(over));
        let channel = match checked {
            Ok(channel) => channel,
            Err(message) => {
                self.cx.error(psp, format!("collective_permute: {message}"));
                return None;
            }
        };
        self.val_op(sp, |b| b.collective_permute_on(&x, &list, channel))
    }

    /// The `over` argument of `n` (absent: replicas).
    fn over(&self, n: &str, arg: Option<&Arg>, sp: Sp) -> Option<Over> {
        match Over::parse(arg) {
            Ok(over) => Some(over),
            Err(message) => {
                let at = arg.map_or(sp, super::args::span);
                self.cx.error(at, format!("{n}: {message}"));
                None
            }
        }
    }

    /// The `groups` and `over` arguments of `n` (absent: one group of all, over replicas),
    /// checked for a collective of `kind`.
    fn groups(
        &self,
        n: &str,
        (g, o): (Option<&Arg>, Option<&Arg>),
        kind: Kind,
        sp: Sp,
    ) -> Option<Spans> {
        let over = self.over(n, o, sp)?;
        let count = self.devices.id_count(over);
        let (lists, size, at) = match g {
            None => (None, count, o.map_or(sp, super::args::span)),
            Some(Arg::IntLists(lists, at)) => {
                let ids = (count, over.id_word());
                match check_groups(lists, ids, kind != Kind::Reduce, || {
                    self.devices.ids_text(over)
                }) {
                    Ok(size) => (Some(lists.clone()), size, *at),
                    Err(message) => {
                        self.cx.error(*at, format!("{n}: {message}"));
                        return None;
                    }
                }
            }
            Some(other) => {
                let msg = format!("{n}: expected `groups = [[0, 1], [2, 3]]`, {} groups as lists of integer literals", over.id_word());
                self.cx.error(super::args::span(other), msg);
                return None;
            }
        };
        match self.devices.spans(kind, over, lists, size) {
            Ok(spans) => Some(spans),
            Err(message) => {
                self.cx.error(at, format!("{n}: {message}"));
                None
            }
        }
    }
}

/// Checks that `groups` partition the ids `0..count` (`ids`: the count and what an id
/// names; every group the same size when `equal`); returns the size of the first group.
fn check_groups(
    groups: &[Vec<i64>],
    (count, word): (i64, &str),
    equal: bool,
    text: impl Fn() -> String,
) -> Result<i64, String> {
    let mut seen = vec![false; usize::try_from(count).unwrap_or(0)];
    for g in groups {
        for &id in g {
            let slot = usize::try_from(id).ok().and_then(|i| seen.get_mut(i));
            match slot {
                None => return Err(format!("{word} {id} is out of range ({})", text())),
                Some(true) => return Err(format!("{word} {id} is in two groups")),
                Some(s) => *s = true,
            }
        }
    }
    if let Some(missing) = seen.iter().position(|s| !s) {
        return Err(format!(
            "the groups must partition the {word}s ({}), but {word} {missing} is in none",
            text()
        ));
    }
    let size = groups.first().map_or(0, |g| g.len() as i64);
    if equal && groups.iter().any(|g| g.len() as i64 != size) {
        return Err(format!(
            "every group must have the same size (the shard count), but the group sizes are {:?}",
            groups.iter().map(Vec::len).collect::<Vec<_>>()
        ));
    }
    Ok(size)
}

/// Checks that each pair's ids exist and no id is a source or a target twice.
fn check_pairs(pairs: &[(i64, i64)], count: i64, text: impl Fn() -> String) -> Result<(), String> {
    for (i, &(s, t)) in pairs.iter().enumerate() {
        for (what, id) in [("source", s), ("target", t)] {
            if !(0..count).contains(&id) {
                return Err(format!(
                    "{what} {id} of pair ({s}, {t}) is out of range ({})",
                    text()
                ));
            }
        }
        if let Some(&(s2, t2)) = pairs[..i].iter().find(|p| p.0 == s || p.1 == t) {
            let (what, id) = if s2 == s {
                ("source", s)
            } else {
                ("target", t)
            };
            return Err(format!(
                "{what} {id} appears twice, in ({s2}, {t2}) and ({s}, {t})"
            ));
        }
    }
    Ok(())
}
