//! The devices of `#[computation(replicas = R, partitions = P)]` and which of them a
//! collective spans: the `over = ...` argument read into XLA's attributes (`channel_id`,
//! `use_global_device_ids`, `replica_groups`) so that XLA's rule for the group mode gives
//! the devices asked for.
//!
//! XLA's rule (`GetCollectiveOpGroupMode`): no `channel_id` → the ids in `replica_groups`
//! are replicas and each group runs within every partition (cross-replica); a channel and
//! `use_global_device_ids=true` → the ids are global devices (replica × P + partition); a
//! channel and `use_global_device_ids=false` → the ids are replicas and a group spans them
//! in every partition (cross-replica-and-partition); all-to-all and collective-permute have
//! no `use_global_device_ids`, so a channel makes their ids partitions (cross-partition).

use crate::ast::{Arg, ExprKind};
use std::cell::Cell;
use xla_core::ir::{CollectiveConfig, ReplicaGroups};

/// Which ids a collective's groups (or pairs) name, and so which devices it spans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Over {
    /// `over = replicas` (the default): replica ids; each group within every partition
    /// (JAX's `pmap` axis; no channel).
    Replicas,
    /// `over = partitions`: partition ids; each group within every replica (JAX's
    /// `shard_map` mesh axis).
    Partitions,
    /// `over = devices`: global device ids, replica × P + partition.
    Devices,
    /// `over = replicas_and_partitions`: replica ids; a group spans those replicas in every
    /// partition, replica-major.
    ReplicasAndPartitions,
}

/// The shapes of the collectives: what the groups may be.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// all-reduce: groups of any sizes.
    Reduce,
    /// all-gather and reduce-scatter: groups of one size (the shard count).
    Sharded,
    /// all-to-all: one size, and no `use_global_device_ids` in XLA.
    AllToAll,
}

/// A collective's attributes and the number of devices in each of its groups.
pub struct Spans {
    /// The attributes to emit.
    pub config: CollectiveConfig,
    /// The shard count (the size of the first group, in devices).
    pub size: i64,
}

/// The device axes of a computation, and the channel ids handed out so far (every
/// collective with a channel gets its own, as XLA's verifier wants).
#[derive(Debug)]
pub struct Devices {
    /// `replicas = R` (1 without the option).
    pub replicas: i64,
    /// `partitions = P` (1 without the option).
    pub partitions: i64,
    channels: Cell<i64>,
}

impl Devices {
    /// `R` replicas of `P` partitions.
    pub fn new(replicas: i64, partitions: i64) -> Devices {
        Devices {
            replicas,
            partitions,
            channels: Cell::new(0),
        }
    }

    fn channel(&self) -> Option<i64> {
        let next = self.channels.get() + 1;
        self.channels.set(next);
        Some(next)
    }

    /// How many ids the groups range over in `over`.
    pub fn id_count(&self, over: Over) -> i64 {
        match over {
            Over::Replicas | Over::ReplicasAndPartitions => self.replicas,
            Over::Partitions => self.partitions,
            Over::Devices => self.replicas * self.partitions,
        }
    }

    /// The ids of `over` and where they come from, for messages.
    pub fn ids_text(&self, over: Over) -> String {
        let (r, p) = (self.replicas, self.partitions);
        match over {
            Over::Replicas | Over::ReplicasAndPartitions if r == 1 => {
                "the computation runs on one replica; give `#[computation(replicas = N)]` for more"
                    .to_string()
            }
            Over::Partitions if p == 1 => {
                "the computation runs on one partition; give `#[computation(partitions = N)]` for more"
                    .to_string()
            }
            Over::Replicas | Over::ReplicasAndPartitions => format!("replicas = {r}: ids 0..{r}"),
            Over::Partitions => format!("partitions = {p}: ids 0..{p}"),
            Over::Devices => format!(
                "replicas × partitions = {r} × {p}: device ids 0..{}",
                r * p
            ),
        }
    }

    /// The attributes of a collective of `kind` over `over` with `groups` (`None`: one
    /// group of all the ids), already checked to partition the ids; `size` is the first
    /// group's size in ids.
    ///
    /// # Errors
    /// A combination XLA cannot express: an all-to-all over devices of several replicas
    /// or over replicas and partitions.
    pub fn spans(
        &self,
        kind: Kind,
        over: Over,
        groups: Option<Vec<Vec<i64>>>,
        size: i64,
    ) -> Result<Spans, String> {
        let p = self.partitions;
        let all = || vec![(0..self.id_count(over)).collect::<Vec<i64>>()];
        let (groups, channel, global, size) = match (over, kind) {
            (Over::Replicas, _) => (groups.unwrap_or_default(), None, false, size),
            (Over::Partitions | Over::Devices, Kind::AllToAll) => {
                if over == Over::Devices && self.replicas != 1 {
                    return Err(self.inexpressible("all_to_all", over));
                }
                (groups.unwrap_or_else(all), self.channel(), false, size)
            }
            (Over::ReplicasAndPartitions, Kind::AllToAll) => {
                return Err(self.inexpressible("all_to_all", over))
            }
            (Over::Partitions, Kind::Reduce | Kind::Sharded) => {
                let groups = groups.unwrap_or_else(all);
                let devices = (0..self.replicas)
                    .flat_map(|r| {
                        let g = &groups;
                        g.iter()
                            .map(move |g| g.iter().map(|&q| r * p + q).collect::<Vec<i64>>())
                    })
                    .collect();
                (devices, self.channel(), true, size)
            }
            (Over::Devices, Kind::Reduce | Kind::Sharded) => {
                (groups.unwrap_or_else(all), self.channel(), true, size)
            }
            (Over::ReplicasAndPartitions, Kind::Reduce | Kind::Sharded) => {
                (groups.unwrap_or_default(), self.channel(), false, size * p)
            }
        };
        let config = CollectiveConfig {
            replica_groups: ReplicaGroups { groups },
            channel_id: channel,
            use_global_device_ids: global,
            ..CollectiveConfig::default()
        };
        Ok(Spans { config, size })
    }

    /// The channel of a collective-permute over `over` (its pairs name replicas without a
    /// channel and partitions with one).
    ///
    /// # Errors
    /// Over devices of several replicas, or over replicas and partitions.
    pub fn permute_channel(&self, over: Over) -> Result<Option<i64>, String> {
        match over {
            Over::Replicas => Ok(None),
            Over::Devices if self.replicas != 1 => {
                Err(self.inexpressible("collective_permute", over))
            }
            Over::Partitions | Over::Devices => Ok(self.channel()),
            Over::ReplicasAndPartitions => Err(self.inexpressible("collective_permute", over)),
        }
    }

    fn inexpressible(&self, op: &str, over: Over) -> String {
        format!(
            "`over = {}` cannot be expressed for {op}: XLA reads its ids as replicas without a \
             channel and as partitions with one (there are {} replicas of {} partitions); use \
             `over = replicas` or `over = partitions`",
            over.name(),
            self.replicas,
            self.partitions
        )
    }
}

impl Over {
    /// The `over = ...` argument `arg` of `op` (absent: replicas).
    ///
    /// # Errors
    /// Anything but one of the four names.
    pub fn parse(arg: Option<&Arg>) -> Result<Over, String> {
        let Some(arg) = arg else {
            return Ok(Over::Replicas);
        };
        let name = match arg {
            Arg::Expr(e) => match &e.kind {
                ExprKind::Var(name) => name.to_string(),
                _ => String::new(),
            },
            _ => String::new(),
        };
        match name.as_str() {
            "replicas" => Ok(Over::Replicas),
            "partitions" => Ok(Over::Partitions),
            "devices" => Ok(Over::Devices),
            "replicas_and_partitions" => Ok(Over::ReplicasAndPartitions),
            _ => Err(
                "expected `over = replicas`, `partitions`, `devices` or `replicas_and_partitions`"
                    .to_string(),
            ),
        }
    }

    /// The name as written after `over =`.
    pub fn name(self) -> &'static str {
        match self {
            Over::Replicas => "replicas",
            Over::Partitions => "partitions",
            Over::Devices => "devices",
            Over::ReplicasAndPartitions => "replicas_and_partitions",
        }
    }

    /// What one id names.
    pub fn id_word(self) -> &'static str {
        match self {
            Over::Replicas | Over::ReplicasAndPartitions => "replica",
            Over::Partitions => "partition",
            Over::Devices => "device",
        }
    }
}
