//! Collectives over the replica axis of `#[computation(replicas = N)]` (JAX's `pmap` axis
//! of size `N`; without the option a computation runs on one replica): `replica_id()`,
//! `partition_id()`, `all_reduce`, `all_gather`, `reduce_scatter`, `all_to_all` and
//! `collective_permute`. Each but the permute takes an optional `groups = [[0, 1], [2, 3]]`
//! (XLA's `replica_groups`; absent: one group of all `N` replicas); the group size is the
//! shard count, so the result shapes are checked here like every other op's.

use super::graph::shape;
use super::{Checker, Val};
use crate::ast::Arg;
use crate::ctxt::Sp;
use xla_core::ir::{CollectiveConfig, ReplicaGroups};
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

/// The groups a collective spans: the config to emit and the size of each group.
struct Groups {
    config: CollectiveConfig,
    size: i64,
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
                let [f, g] = self.bind(n, args, ["|a, b| ...", "groups"], 1, sp)?;
                let groups = self.groups(n, g, false);
                let comp = self.sub_computation(n, self.closure(f?)?, &pair)?;
                let groups = groups?;
                self.val_op(sp, |b| b.all_reduce(&x, &groups.config, &comp))
            }
            Collective::AllGather => {
                let n = "all_gather";
                let [d, g] = self.bind(n, args, ["dimension", "groups"], 1, sp)?;
                let d = self.int_scalar(d?, "the gathered dimension");
                let (d, groups) = (d?, self.groups(n, g, true)?);
                let (size, config) = (groups.size, groups.config);
                self.val_op(sp, |b| b.all_gather(&x, d, size, &config))
            }
            Collective::ReduceScatter => {
                let n = "reduce_scatter";
                let params = ["dimension", "|a, b| ...", "groups"];
                let [d, f, g] = self.bind(n, args, params, 2, sp)?;
                let d = self.int_scalar(d?, "the scattered dimension");
                let groups = self.groups(n, g, true);
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
        let params = ["split_dimension", "concat_dimension", "groups"];
        let [s, c, g] = self.bind(n, args, params, 2, sp)?;
        let (s, c) = (
            self.int_scalar(s?, "the split dimension"),
            self.int_scalar(c?, "the concat dimension"),
        );
        let (s, c, groups) = (s?, c?, self.groups(n, g, true)?);
        let (size, config) = (groups.size, groups.config);
        self.val_op(sp, |b| b.all_to_all(&x, s, c, size, &config))
    }

    fn permute(&mut self, x: xla_core::builder::XlaOp, args: &[Arg], sp: Sp) -> Option<Val> {
        let n = "collective_permute";
        let [pairs] = self.arity(n, args, ["[(source, target)]"], sp)?;
        let (list, psp) = match pairs {
            Arg::Pads(p, psp) if p.iter().all(|&(_, _, extra)| extra == 0) => {
                (p.iter().map(|&(s, t, _)| (s, t)).collect::<Vec<_>>(), *psp)
            }
            other => {
                self.cx.error(
                    super::args::span(other),
                    "collective_permute: expected the `(source, target)` replica pairs, e.g. `[(0, 1), (1, 0)]`",
                );
                return None;
            }
        };
        if let Err(message) = check_pairs(&list, self.replicas) {
            self.cx.error(psp, format!("collective_permute: {message}"));
            return None;
        }
        self.val_op(sp, |b| b.collective_permute(&x, &list))
    }

    /// The `groups` argument of `n` (absent: all replicas); `equal` when the shapes need
    /// every group the same size.
    fn groups(&self, n: &str, arg: Option<&Arg>, equal: bool) -> Option<Groups> {
        let Some(arg) = arg else {
            let config = CollectiveConfig::default();
            return Some(Groups {
                config,
                size: self.replicas,
            });
        };
        let lists = match arg {
            Arg::IntLists(lists, _) => lists.clone(),
            other => {
                let msg = format!("{n}: expected `groups = [[0, 1], [2, 3]]`, replica groups as lists of integer literals");
                self.cx.error(super::args::span(other), msg);
                return None;
            }
        };
        match check_groups(&lists, self.replicas, equal) {
            Ok(size) => Some(Groups {
                config: CollectiveConfig {
                    replica_groups: ReplicaGroups { groups: lists },
                    ..CollectiveConfig::default()
                },
                size,
            }),
            Err(message) => {
                self.cx
                    .error(super::args::span(arg), format!("{n}: {message}"));
                None
            }
        }
    }
}

/// Checks that `groups` partition the replicas `0..replicas` (every group the same size
/// when `equal`); returns the size of the first group.
fn check_groups(groups: &[Vec<i64>], replicas: i64, equal: bool) -> Result<i64, String> {
    let r = replicas_text(replicas);
    let mut seen = vec![false; usize::try_from(replicas).unwrap_or(0)];
    for g in groups {
        for &id in g {
            let slot = usize::try_from(id).ok().and_then(|i| seen.get_mut(i));
            match slot {
                None => return Err(format!("replica {id} is out of range ({r})")),
                Some(true) => return Err(format!("replica {id} is in two groups")),
                Some(s) => *s = true,
            }
        }
    }
    if let Some(missing) = seen.iter().position(|s| !s) {
        return Err(format!(
            "the groups must partition the replicas ({r}), but replica {missing} is in none"
        ));
    }
    let size = groups.first().map_or(0, |g| g.len() as i64);
    if equal && groups.iter().any(|g| g.len() as i64 != size) {
        return Err("every group must have the same size (the shard count)".to_string());
    }
    Ok(size)
}

/// Checks that each pair's replicas exist and no replica is a source or a target twice.
fn check_pairs(pairs: &[(i64, i64)], replicas: i64) -> Result<(), String> {
    let r = replicas_text(replicas);
    for (i, &(s, t)) in pairs.iter().enumerate() {
        for (what, id) in [("source", s), ("target", t)] {
            if !(0..replicas).contains(&id) {
                return Err(format!(
                    "{what} {id} of pair ({s}, {t}) is out of range ({r})"
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

fn replicas_text(replicas: i64) -> String {
    if replicas == 1 {
        "the computation runs on one replica; give `#[computation(replicas = N)]` for more"
            .to_string()
    } else {
        format!("replicas = {replicas}: ids 0..{replicas}")
    }
}
