//! Collectives on the one replica a computation runs on here (xla-cpu runs a single
//! replica and partition): `replica_id()`, `partition_id()`, `all_reduce`, `all_gather`,
//! `reduce_scatter`, `all_to_all` and `collective_permute`, every group being the one
//! replica. They keep the spec's ops reachable; their values are those of one replica.

use super::graph::shape;
use super::{Checker, Val};
use crate::ast::Arg;
use crate::ctxt::Sp;
use xla_core::ir::CollectiveConfig;
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
    /// `replica_id()` / `partition_id()`: a `u32` scalar (0 on one replica).
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

    /// A collective over the one replica (a shard count of 1).
    pub fn collective(&mut self, c: Collective, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let x = self.tensor(x, None, sp)?;
        let config = CollectiveConfig::default();
        let scalar = Shape::scalar(shape(&x)?.element_type());
        match c {
            Collective::AllReduce => {
                let [f] = self.arity("all_reduce", args, ["|a, b| ..."], sp)?;
                let comp = self.sub_computation(
                    "all_reduce",
                    self.closure(f)?,
                    &[scalar.clone(), scalar],
                )?;
                self.val_op(sp, |b| b.all_reduce(&x, &config, &comp))
            }
            Collective::AllGather => {
                let [d] = self.arity("all_gather", args, ["dimension"], sp)?;
                let d = self.int_scalar(d, "the gathered dimension")?;
                self.val_op(sp, |b| b.all_gather(&x, d, 1, &config))
            }
            Collective::ReduceScatter => {
                let n = "reduce_scatter";
                let [d, f] = self.arity(n, args, ["dimension", "|a, b| ..."], sp)?;
                let d = self.int_scalar(d, "the scattered dimension");
                let comp = self.sub_computation(n, self.closure(f)?, &[scalar.clone(), scalar])?;
                let d = d?;
                self.val_op(sp, |b| b.reduce_scatter(&x, d, 1, &config, &comp))
            }
            Collective::AllToAll => {
                let names = ["split_dimension", "concat_dimension"];
                let [s, c] = self.arity("all_to_all", args, names, sp)?;
                let (s, c) = (
                    self.int_scalar(s, "the split dimension"),
                    self.int_scalar(c, "the concat dimension"),
                );
                let (s, c) = (s?, c?);
                self.val_op(sp, |b| b.all_to_all(&x, s, c, 1, &config))
            }
            Collective::Permute => {
                let [pairs] = self.arity("collective_permute", args, ["[(source, target)]"], sp)?;
                let pairs = match pairs {
                    Arg::Pads(p, _) if p.iter().all(|&(_, _, extra)| extra == 0) => {
                        p.iter().map(|&(s, t, _)| (s, t)).collect::<Vec<_>>()
                    }
                    other => {
                        self.cx.error(
                            super::args::span(other),
                            "collective_permute: expected the `(source, target)` replica pairs, e.g. `[(0, 0)]`",
                        );
                        return None;
                    }
                };
                self.val_op(sp, |b| b.collective_permute(&x, &pairs))
            }
        }
    }
}
