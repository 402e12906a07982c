//! Collectives and communication: tokens, all-gather, all-reduce, reduce-scatter,
//! all-to-all, collective-permute, replica ids, send / recv, infeed / outfeed.

use super::callee::Callee;
use super::{collect_ops, refs, Combiner, WithDims, XlaBuilder, XlaOp};
use crate::ir::{CollectiveConfig, Op, ReplicaGroups};
use crate::shape::Shape;
use crate::shape_inference::{dimension_out_of_range, CollectiveRule, ShapeError, ShapeRule};
use crate::types::PrimitiveType;
use std::borrow::Borrow;

impl XlaBuilder {
    /// Joins `tokens` into one token (no tokens: a fresh token, XLA's `CreateToken`).
    pub fn after_all<I>(&self, tokens: I) -> XlaOp
    where
        I: IntoIterator,
        I::Item: Borrow<XlaOp>,
    {
        let ops = collect_ops(tokens);
        self.emit(Op::AfterAll, &refs(&ops), None)
    }

    /// A fresh token.
    pub fn create_token(&self) -> XlaOp {
        self.after_all(Vec::<XlaOp>::new())
    }

    /// Concatenates `operand` across the `shard_count` replicas of each group along
    /// `dimension`.
    pub fn all_gather(
        &self,
        operand: impl Borrow<XlaOp>,
        dimension: i64,
        shard_count: i64,
        config: &CollectiveConfig,
    ) -> XlaOp {
        let operand = operand.borrow();
        let Some(s) = self.shape_of("all-gather", operand) else {
            return self.poisoned();
        };
        let Some(dims) = scale_dim(&s, dimension, |d| d.checked_mul(shard_count)) else {
            let op = "all-gather";
            return self.fail(dimension_out_of_range(op, 0, "dimension", dimension, &s));
        };
        let op = Op::AllGather {
            dimension,
            config: config.clone(),
        };
        self.emit(op, &[operand], Some(s.with_dims(dims)))
    }

    /// Reduces `operand` across replicas with `computation`.
    pub fn all_reduce(
        &self,
        operand: impl Borrow<XlaOp>,
        config: &CollectiveConfig,
        computation: impl Callee,
    ) -> XlaOp {
        let operand = operand.borrow();
        let Some(s) = self.shape_of("all-reduce", operand) else {
            return self.poisoned();
        };
        let scalar = Shape::scalar(s.element_type());
        let Some(to_apply) = self.callee(computation, "reducer", &[scalar.clone(), scalar]) else {
            return self.poisoned();
        };
        self.emit(
            Op::AllReduce {
                config: config.clone(),
                to_apply,
            },
            &[operand],
            None,
        )
    }

    /// Sums across the replicas of each group (XLA's `CrossReplicaSum`: an all-reduce with
    /// an add combiner).
    pub fn cross_replica_sum(
        &self,
        operand: impl Borrow<XlaOp>,
        replica_groups: &ReplicaGroups,
    ) -> XlaOp {
        let config = CollectiveConfig {
            replica_groups: replica_groups.clone(),
            ..CollectiveConfig::default()
        };
        self.all_reduce(operand, &config, Combiner::Add)
    }

    /// Reduces across replicas with `computation`, then gives each of the `shard_count`
    /// replicas its part along `scatter_dimension`.
    pub fn reduce_scatter(
        &self,
        operand: impl Borrow<XlaOp>,
        scatter_dimension: i64,
        shard_count: i64,
        config: &CollectiveConfig,
        computation: impl Callee,
    ) -> XlaOp {
        let operand = operand.borrow();
        let Some(s) = self.shape_of("reduce-scatter", operand) else {
            return self.poisoned();
        };
        let Some(dims) = scale_dim(&s, scatter_dimension, |d| {
            (shard_count > 0 && d % shard_count == 0).then(|| d / shard_count)
        }) else {
            let split = (scatter_dimension, "scatter_dimension");
            return self.fail(split_error(
                "reduce-scatter",
                &s,
                split,
                ("shard count", shard_count),
            ));
        };
        let scalar = Shape::scalar(s.element_type());
        let Some(to_apply) = self.callee(computation, "reducer", &[scalar.clone(), scalar]) else {
            return self.poisoned();
        };
        let op = Op::ReduceScatter {
            dimension: scatter_dimension,
            config: config.clone(),
            to_apply,
        };
        self.emit(op, &[operand], Some(s.with_dims(dims)))
    }

    /// Splits `operand` into `split_count` blocks along `split_dimension`, exchanges them
    /// across replicas and concatenates the received blocks along `concat_dimension`. With
    /// different dimensions it is built as XLA does: reshape, all-to-all, transpose, reshape.
    pub fn all_to_all(
        &self,
        operand: impl Borrow<XlaOp>,
        split_dimension: i64,
        concat_dimension: i64,
        split_count: i64,
        config: &CollectiveConfig,
    ) -> XlaOp {
        let operand = operand.borrow();
        let Some(s) = self.shape_of("all-to-all", operand) else {
            return self.poisoned();
        };
        let rank = s.rank() as i64;
        let dims = s.dims();
        let ok = (0..rank).contains(&split_dimension)
            && (0..rank).contains(&concat_dimension)
            && split_count > 0
            && dims[split_dimension as usize] % split_count == 0;
        if !ok {
            let op = "all-to-all";
            if !(0..rank).contains(&concat_dimension) {
                let what = "concat_dimension";
                return self.fail(dimension_out_of_range(op, 0, what, concat_dimension, &s));
            }
            let split = (split_dimension, "split_dimension");
            return self.fail(split_error(op, &s, split, ("split count", split_count)));
        }
        if split_dimension == concat_dimension {
            let op = Op::AllToAll {
                dimension: Some(split_dimension),
                config: config.clone(),
            };
            return self.emit(op, &[operand], None);
        }
        let (sd, cd) = (split_dimension as usize, concat_dimension as usize);
        let mut split: Vec<i64> = dims[..sd].to_vec();
        split.extend([split_count, dims[sd] / split_count]);
        split.extend_from_slice(&dims[sd + 1..]);
        let reshaped = self.reshape(operand, &split);
        let exchanged = self.emit(
            Op::AllToAll {
                dimension: Some(split_dimension),
                config: config.clone(),
            },
            &[&reshaped],
            None,
        );
        let mut permutation = Vec::new();
        for i in 0..rank {
            if i == concat_dimension {
                permutation.push(split_dimension);
            }
            permutation.push(if i >= split_dimension { i + 1 } else { i });
        }
        let transposed = self.transpose(&exchanged, &permutation);
        let mut out = dims.to_vec();
        out[sd] /= split_count;
        out[cd] *= split_count;
        self.reshape(&transposed, &out)
    }

    /// Sends `operand` from each source replica to its target replica.
    pub fn collective_permute(
        &self,
        operand: impl Borrow<XlaOp>,
        source_target_pairs: &[(i64, i64)],
    ) -> XlaOp {
        self.collective_permute_on(operand, source_target_pairs, None)
    }

    /// [`XlaBuilder::collective_permute`] on a channel: with one, XLA reads the pairs as
    /// partition ids (cross-partition), without one as replica ids.
    pub fn collective_permute_on(
        &self,
        operand: impl Borrow<XlaOp>,
        source_target_pairs: &[(i64, i64)],
        channel_id: Option<i64>,
    ) -> XlaOp {
        let op = Op::CollectivePermute {
            source_target_pairs: source_target_pairs.to_vec(),
            channel_id,
        };
        self.emit(op, &[operand.borrow()], None)
    }

    /// The replica id, a U32 scalar.
    pub fn replica_id(&self) -> XlaOp {
        self.emit(Op::ReplicaId, &[], Some(Shape::scalar(PrimitiveType::U32)))
    }

    /// The partition id, a U32 scalar.
    pub fn partition_id(&self) -> XlaOp {
        self.emit(
            Op::PartitionId,
            &[],
            Some(Shape::scalar(PrimitiveType::U32)),
        )
    }

    /// Sends `operand` on channel `channel_id` after `token` (`send` + `send-done`);
    /// returns the send-done token.
    pub fn send_with_token(
        &self,
        operand: impl Borrow<XlaOp>,
        token: impl Borrow<XlaOp>,
        channel_id: i64,
    ) -> XlaOp {
        let operand = operand.borrow();
        let Some(s) = self.shape_of("send", operand) else {
            return self.poisoned();
        };
        let ctx = Shape::scalar(PrimitiveType::U32);
        let declared = Shape::tuple(vec![s, ctx, Shape::Token]);
        let send = self.emit(
            Op::Send {
                channel_id,
                is_host_transfer: false,
            },
            &[operand, token.borrow()],
            Some(declared),
        );
        self.emit(
            Op::SendDone {
                channel_id,
                is_host_transfer: false,
            },
            &[&send],
            Some(Shape::Token),
        )
    }

    /// Sends `operand` on channel `channel_id` (with a fresh token).
    pub fn send(&self, operand: impl Borrow<XlaOp>, channel_id: i64) -> XlaOp {
        let token = self.create_token();
        self.send_with_token(operand, &token, channel_id)
    }

    /// Receives data of `shape` on channel `channel_id` after `token` (`recv` +
    /// `recv-done`) → `(data, token)`.
    pub fn recv_with_token(
        &self,
        token: impl Borrow<XlaOp>,
        shape: Shape,
        channel_id: i64,
    ) -> XlaOp {
        let ctx = Shape::scalar(PrimitiveType::U32);
        let declared = Shape::tuple(vec![shape.clone(), ctx, Shape::Token]);
        let recv = self.emit(
            Op::Recv {
                channel_id,
                is_host_transfer: false,
            },
            &[token.borrow()],
            Some(declared),
        );
        let done = Shape::tuple(vec![shape, Shape::Token]);
        self.emit(
            Op::RecvDone {
                channel_id,
                is_host_transfer: false,
            },
            &[&recv],
            Some(done),
        )
    }

    /// Receives data of `shape` on channel `channel_id` (with a fresh token); returns the data.
    pub fn recv(&self, shape: Shape, channel_id: i64) -> XlaOp {
        let token = self.create_token();
        let done = self.recv_with_token(&token, shape, channel_id);
        self.get_tuple_element(&done, 0)
    }

    /// Reads data of `shape` from the infeed after `token` → `(data, token)`.
    pub fn infeed_with_token(
        &self,
        token: impl Borrow<XlaOp>,
        shape: Shape,
        config: &str,
    ) -> XlaOp {
        let declared = Shape::tuple(vec![shape, Shape::Token]);
        self.emit(
            Op::Infeed {
                config: config.to_string(),
            },
            &[token.borrow()],
            Some(declared),
        )
    }

    /// Reads data of `shape` from the infeed (with a fresh token); returns the data.
    pub fn infeed(&self, shape: Shape, config: &str) -> XlaOp {
        let token = self.create_token();
        let pair = self.infeed_with_token(&token, shape, config);
        self.get_tuple_element(&pair, 0)
    }

    /// Writes `operand` to the outfeed after `token`; returns a token.
    pub fn outfeed_with_token(
        &self,
        operand: impl Borrow<XlaOp>,
        token: impl Borrow<XlaOp>,
        config: &str,
    ) -> XlaOp {
        let operand = operand.borrow();
        let Some(s) = self.shape_of("outfeed", operand) else {
            return self.poisoned();
        };
        let op = Op::Outfeed {
            config: config.to_string(),
            outfeed_shape: Some(s),
        };
        self.emit(op, &[operand, token.borrow()], Some(Shape::Token))
    }

    /// Writes `operand` to the outfeed (with a fresh token); returns a token.
    pub fn outfeed(&self, operand: impl Borrow<XlaOp>, config: &str) -> XlaOp {
        let token = self.create_token();
        self.outfeed_with_token(operand, &token, config)
    }
}

/// The dims of `s` with dimension `dim` mapped by `f`, or `None` if out of range or `f` fails.
fn scale_dim(s: &Shape, dim: i64, f: impl FnOnce(i64) -> Option<i64>) -> Option<Vec<i64>> {
    let mut dims = s.dims().to_vec();
    let d = dims.get_mut(usize::try_from(dim).ok()?)?;
    *d = f(*d)?;
    Some(dims)
}

/// Why dimension `dimension` (the attribute `what`) of `s` does not split into `count`
/// parts (`by` names the count): out of range, a count below 1, or not divisible.
fn split_error(
    op: &str,
    s: &Shape,
    (dimension, what): (i64, &str),
    (by, count): (&'static str, i64),
) -> ShapeError {
    let array = s.as_array();
    let size = usize::try_from(dimension)
        .ok()
        .and_then(|d| array.and_then(|a| a.dims.get(d)).copied());
    match (array, size) {
        (Some(a), Some(size)) if count >= 1 => {
            let shape = a.clone();
            let rule = CollectiveRule::Divisible {
                dimension,
                shape,
                size,
                by,
                count,
            };
            ShapeError::rule_at(op, 0, ShapeRule::Collective(rule))
        }
        (Some(_), Some(_)) => {
            let rule = CollectiveRule::Positive { what: by, count };
            ShapeError::rule_at(op, 0, ShapeRule::Collective(rule))
        }
        _ => dimension_out_of_range(op, 0, what, dimension, s),
    }
}
